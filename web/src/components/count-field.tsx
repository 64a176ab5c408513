// A generation node's count (issue 35 point 4, "Runs ×N"): how many times a run makes it, each with its own seed
// (the node's seed plus 0, 1, …), 1 to 8; absent means 1. A typed value outside 1 … 8 (or not a whole number) stays
// in the box, marked invalid, and is never sent. Read-only: the number only.
import { useEffect, useId, useState } from 'react';
import { useEditor } from '../canvas/editor-context';
import { COUNT_MAX, COUNT_MIN, parseCount, storedCount } from '../canvas/marks';
import './run-settings.css';

export function CountField({ nodeId, count }: { nodeId: string; count: unknown }) {
  const { setFields, readOnly } = useEditor();
  const id = useId();
  const current = typeof count === 'number' ? count : 1;
  const shown = String(current);
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]);
  const valid = parseCount(draft) !== undefined;
  return (
    <div className="run-setting count-field">
      <label htmlFor={id} className="small">
        Runs ×
      </label>
      <input
        id={id}
        className="input nodrag"
        type="number"
        inputMode="numeric"
        min={COUNT_MIN}
        max={COUNT_MAX}
        step={1}
        value={draft}
        readOnly={readOnly}
        aria-invalid={!valid}
        title={`How many results a run makes, each with its own seed (${COUNT_MIN}–${COUNT_MAX})`}
        onChange={(e) => {
          setDraft(e.target.value);
          const next = parseCount(e.target.value);
          if (next !== undefined && next !== current) setFields(nodeId, { count: storedCount(next) });
        }}
      />
    </div>
  );
}
