// A generation node's count (issue 35 point 4, "Runs ×N", shown "×N"): how many times a run makes it, each with its own seed
// (the node's seed plus 0, 1, …), 1 to 8; absent means 1. A typed value outside 1 … 8 (or not a whole number) stays
// in the box, marked invalid, and is never sent. Read-only: the number only.
import { useId } from 'react';
import { useEditor } from '../canvas/editor-context';
import { COUNT_MAX, COUNT_MIN, parseCount, storedCount } from '../canvas/marks';
import { DraftNumberInput } from './draft-number';
import './run-settings.css';

export function CountField({ nodeId, count }: { nodeId: string; count: unknown }) {
  const { setFields, readOnly } = useEditor();
  const id = useId();
  return (
    <div className="run-setting count-field">
      {/* "×N" as it reads on the node (the row is narrow); "Runs ×" to a screen reader. */}
      <label htmlFor={id} className="small" title="Runs">
        <span className="visually-hidden">Runs </span>×
      </label>
      <DraftNumberInput
        id={id}
        inputMode="numeric"
        min={COUNT_MIN}
        max={COUNT_MAX}
        step={1}
        stored={typeof count === 'number' ? count : 1}
        readOnly={readOnly}
        title={`How many results a run makes, each with its own seed (${COUNT_MIN}–${COUNT_MAX})`}
        parse={(text) => {
          const next = parseCount(text);
          return next === undefined ? null : { value: next };
        }}
        onValue={(next) => next !== undefined && setFields(nodeId, { count: storedCount(next) })}
      />
    </div>
  );
}
