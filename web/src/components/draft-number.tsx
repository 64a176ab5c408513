// A number box bound to a stored value (a node's data field, a layer's place): what is typed stays in the box as
// typed — a half-typed "-", "1." or an out-of-range number is kept, marked invalid, and never sent — and a value the
// field's rule takes is handed to `onValue` once it differs from the stored one. Another editor's change (or undo)
// replaces what the box shows. The seed, count and steps fields, an edit's outpaint sides and a compose layer's
// place share it.
import { useEffect, useState, type InputHTMLAttributes } from 'react';

/** What a typed text means: a value the field takes (`undefined`: absent, for a field that may be empty), or null when it takes none. */
export type ParsedNumber = { value: number | undefined } | null;

export interface DraftNumberProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type' | 'aria-invalid'> {
  /** The stored value (undefined: absent). */
  stored: number | undefined;
  /** How the stored value shows in the box (default: as written, empty when absent). */
  shown?: string;
  /** Whether the field takes what is typed, and as what. */
  parse: (text: string) => ParsedNumber;
  /** Called with a value the field takes that differs from the stored one. */
  onValue: (value: number | undefined) => void;
}

export function DraftNumberInput({ stored, shown = stored === undefined ? '' : String(stored), parse, onValue, className = 'input nodrag', ...input }: DraftNumberProps) {
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]); // another editor's change (or undo) shows here
  const valid = draft === shown || parse(draft) !== null;
  return (
    <input
      {...input}
      className={className}
      type="number"
      value={draft}
      aria-invalid={!valid}
      onChange={(e) => {
        setDraft(e.target.value);
        const parsed = parse(e.target.value);
        if (parsed !== null && parsed.value !== stored) onValue(parsed.value);
      }}
    />
  );
}
