// The chips of a model's prompt presets (canvas/prompt-presets.ts): the first few, then "More words" / "More" for
// the rest. Under a prompt (prompt-field.tsx) each adds its word or replaces the prompt; in a node's error that
// says the offline engine understood nothing of its prompt (prompt-fix.tsx) each replaces the prompt, so one click
// fixes it.
import { useState } from 'react';

/** Chips shown before "More". */
const FIRST = 8;

interface Props {
  items: readonly string[];
  /** The list's name for assistive technology (its element's id). */
  labelledBy: string;
  /** What "More" says: `More words` for words, `More` for whole prompts. */
  moreLabel: string;
  /** The chip's accessible name (`Add “grayscale”`, `Use “grayscale”`). */
  chipLabel: (item: string) => string;
  onPick: (item: string) => void;
}

export function PromptChips({ items, labelledBy, moreLabel, chipLabel, onPick }: Props) {
  const [all, setAll] = useState(false);
  const shown = all ? items : items.slice(0, FIRST);
  return (
    <ul className="prompt-chips" aria-labelledby={labelledBy}>
      {shown.map((item) => (
        <li key={item}>
          <button type="button" className="prompt-chip nodrag" aria-label={chipLabel(item)} onClick={() => onPick(item)}>
            {item}
          </button>
        </li>
      ))}
      {items.length > FIRST && (
        <li>
          <button type="button" className="link-button small nodrag" aria-expanded={all} onClick={() => setAll(!all)}>
            {all ? 'Fewer' : moreLabel}
          </button>
        </li>
      )}
    </ul>
  );
}
