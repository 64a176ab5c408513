// A generation node's seed (issue 35 point 3, DESIGN.md §12 "Cache"): the number its model draws from, shown and
// editable, fixed until changed, with a 🎲 button that draws a new one. It is part of the node's key
// (src/kinds/graph.ts), so a new seed marks the node out of date. A typed value is written when it is a whole number
// 0 … 2^31 − 1 (canvas/marks.ts `parseSeed`); anything else stays in the box, marked invalid, and is never sent.
// Typing is one undo step per run of typing, as a prompt is. Read-only: the number only.
import { useId } from 'react';
import { useEditor } from '../canvas/editor-context';
import { parseSeed, randomSeed, SEED_MAX } from '../canvas/marks';
import { DraftNumberInput } from './draft-number';
import './run-settings.css';

export function SeedField({ nodeId, seed }: { nodeId: string; seed: unknown }) {
  const { setFields, readOnly } = useEditor();
  const id = useId();
  return (
    <div className="run-setting seed-field">
      <label htmlFor={id} className="small">
        Seed
      </label>
      <DraftNumberInput
        id={id}
        inputMode="numeric"
        min={0}
        max={SEED_MAX}
        step={1}
        placeholder="none"
        stored={typeof seed === 'number' ? seed : undefined}
        readOnly={readOnly}
        title={`A whole number from 0 to ${SEED_MAX.toLocaleString('en-US')}: the same seed, settings and inputs make the same result`}
        parse={(text) => {
          const next = parseSeed(text);
          return next === undefined ? null : { value: next };
        }}
        onValue={(next) => setFields(nodeId, { seed: next }, {})}
      />
      {!readOnly && (
        <button type="button" className="icon-button nodrag" aria-label="New seed" title="Draw a new seed" onClick={() => setFields(nodeId, { seed: randomSeed() })}>
          <span aria-hidden="true">🎲</span>
        </button>
      )}
    </div>
  );
}
