// A generation node's prompt (and a text node's text, with its own label): the text box and, under it, the presets of the node's model (canvas/prompt-presets.ts):
// the words the offline engine understands, each added to the prompt, or a few whole prompts for a hosted model.
//
// Undo: the box carries `data-canvas-undo`, so Ctrl/Cmd+Z in it undoes the canvas's last step (hooks/
// use-undo-shortcuts.ts) rather than one character of the browser's own text undo, and Ctrl/Cmd+Shift+Z or Ctrl+Y
// redo it. Typing is one step until a pause of about a second (the editor's setPrompt) or until the box loses and
// regains focus; a preset is a step of its own.
//
// Length: the box takes at most the service's prompt limit (GET /api/client-config `canvas.promptMaxChars`; typing
// and pasting stop there, and a preset past it is cut), and shows the count once the prompt nears the limit: the
// live canvas refuses a longer prompt (4400 invalid-prompt), and with it every change after.
import { useId, useRef } from 'react';
import { cutText, DEFAULT_CANVAS_LIMITS } from '../canvas/live-limits';
import { applyPreset, type PromptPresets } from '../canvas/prompt-presets';
import { useClientConfig } from '../hooks/use-client-config';
import { PromptChips } from './prompt-chips';

/** For the offline engine, which is no AI model: what to write is operations, not a description. */
const OFFLINE_PLACEHOLDER = 'Operations to apply (not an AI model), e.g. “grayscale, blur 4”';
/** The count shows from this share of the limit on. */
const COUNT_FROM = 0.8;

interface Props {
  value: string;
  /** The box's label ("Prompt" unless said: a text node's "Text"). */
  label?: string;
  placeholder?: string;
  readOnly?: boolean;
  presets?: PromptPresets;
  /** The new prompt; `newRun`: the first change since the box was focused, or a preset (a new undo step). */
  onChange: (value: string, newRun: boolean) => void;
}

export function PromptField({ value, label = 'Prompt', placeholder, readOnly, presets, onChange }: Props) {
  const promptId = useId();
  const presetsId = useId();
  const countId = useId();
  const max = useClientConfig()?.canvas?.promptMaxChars ?? DEFAULT_CANVAS_LIMITS.promptMaxChars;
  const showCount = !readOnly && value.length >= max * COUNT_FROM;
  /** The next change starts a new undo step. */
  const newRun = useRef(true);

  return (
    <>
      <label className="field" htmlFor={promptId}>
        <span>{label}</span>
        <textarea
          id={promptId}
          className="input nodrag nowheel"
          rows={3}
          placeholder={placeholder ?? (readOnly ? 'No prompt' : presets?.kind === 'words' ? OFFLINE_PLACEHOLDER : 'Describe the image you want, e.g. “grayscale side by side”')}
          value={value}
          maxLength={max}
          aria-describedby={showCount ? countId : undefined}
          readOnly={readOnly}
          data-canvas-undo=""
          onFocus={() => (newRun.current = true)}
          onBlur={() => (newRun.current = true)}
          onChange={(event) => {
            onChange(cutText(event.target.value, max), newRun.current);
            newRun.current = false;
          }}
        />
        {showCount && (
          <span id={countId} className={`muted small prompt-count${value.length >= max ? ' at-limit' : ''}`} data-testid="prompt-count">
            {value.length.toLocaleString('en-US')} / {max.toLocaleString('en-US')} characters
            {value.length >= max ? ' (the limit)' : ''}
          </span>
        )}
      </label>
      {!readOnly && presets && (
        <div className="prompt-presets">
          <span className="visually-hidden" id={presetsId}>
            {presets.kind === 'words' ? 'Words the offline engine understands' : 'Presets'}
          </span>
          <PromptChips
            items={presets.items}
            labelledBy={presetsId}
            moreLabel={presets.kind === 'words' ? 'More words' : 'More'}
            chipLabel={(item) => (presets.kind === 'words' ? `Add “${item}”` : `Use “${item}”`)}
            onPick={(item) => {
              onChange(cutText(applyPreset(value, item, presets.kind), max), true);
              newRun.current = true;
            }}
          />
        </div>
      )}
    </>
  );
}
