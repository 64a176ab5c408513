// Under a node's error that says the offline engine understood nothing of its prompt (POST /api/generations' job
// failed `400 Prompt not understood: …`, docs/errors.md `prompt_not_understood`): the words it understands, as the
// chips under the prompt show them (prompt-chips.tsx), each of which replaces the prompt — one click fixes it.
// The engine is no AI model, and the line above the chips says so.
import { useId } from 'react';
import type { PromptPresets } from '../canvas/prompt-presets';
import { PromptChips } from './prompt-chips';
import './offline-engine.css';

/** How the service's message starts (src/errors.ts PROMPT_NOT_UNDERSTOOD). */
const PROMPT_NOT_UNDERSTOOD = 'Prompt not understood';

/** Whether an error shown in a node is the offline engine's "Prompt not understood". */
export const isPromptNotUnderstood = (error: { error: string }) => error.error.startsWith(`${PROMPT_NOT_UNDERSTOOD}:`);

interface Props {
  /** The node's model's presets: chips only for a model that understands only some words (the offline engine). */
  presets: PromptPresets | undefined;
  onUse: (prompt: string) => void;
}

export function PromptFix({ presets, onUse }: Props) {
  const labelId = useId();
  if (presets?.kind !== 'words') return null;
  return (
    <div className="prompt-fix">
      <p className="small" id={labelId}>
        The offline engine is not an AI model: it knows these words. Pick one to use it as the prompt:
      </p>
      <PromptChips items={presets.items} labelledBy={labelId} moreLabel="More words" chipLabel={(item) => `Use “${item}”`} onPick={onUse} />
    </div>
  );
}
