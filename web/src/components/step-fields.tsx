// The fields of an image-steps node (crop, resize, adjust: src/kinds/image-steps.ts), bound to the node's live
// data: a value is written when its kind's rule takes it (src/kinds/, the same rule the service holds live edits
// to), so a half-typed or out-of-range number stays in the box, marked invalid, and is never sent. Also the node's
// result (its `data.image`) and its error, as a generation node shows them.
import { useEffect, useId, useState } from 'react';
import { dataRulesOf } from '../../../src/kinds/index.js';
import { useEditor } from '../canvas/editor-context';
import type { CanvasNode } from '../canvas/model';

/** These kinds' rules take no limit from the configuration. */
const RULE_LIMITS = { promptChars: 1 };
const takes = (type: string, key: string, value: unknown) => dataRulesOf(type, RULE_LIMITS)?.[key]?.test(value) === true;

interface FieldProps {
  nodeId: string;
  type: string;
  field: string;
  label: string;
  data: CanvasNode['data'];
}

/** A number field; empty means absent (when the kind allows it). */
export function NumberField({ nodeId, type, field, label, data, step = 1, min, max }: FieldProps & { step?: number; min?: number; max?: number }) {
  const { setFields, readOnly } = useEditor();
  const id = useId();
  const stored = data[field];
  const shown = typeof stored === 'number' ? String(stored) : '';
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]); // another editor's change (or undo) shows here
  const value = draft.trim() === '' ? undefined : Number(draft);
  const valid = takes(type, field, value);
  return (
    <label className="step-field" htmlFor={id}>
      <span className="small">{label}</span>
      <input
        id={id}
        className="input nodrag"
        type="number"
        inputMode="decimal"
        step={step}
        min={min}
        max={max}
        value={draft}
        readOnly={readOnly}
        aria-invalid={!valid}
        onChange={(e) => {
          setDraft(e.target.value);
          const next = e.target.value.trim() === '' ? undefined : Number(e.target.value);
          if (takes(type, field, next) && next !== stored) setFields(nodeId, { [field]: next });
        }}
      />
    </label>
  );
}

/** An on/off field; off is stored as absent. */
export function CheckField({ nodeId, field, label, data }: Omit<FieldProps, 'type'>) {
  const { setFields, readOnly } = useEditor();
  return (
    <label className="step-field check">
      <input type="checkbox" className="nodrag" checked={data[field] === true} disabled={readOnly} onChange={(e) => setFields(nodeId, { [field]: e.target.checked ? true : undefined })} />
      <span className="small">{label}</span>
    </label>
  );
}

/** One of a few values. */
export function ChoiceField({ nodeId, field, label, data, choices }: Omit<FieldProps, 'type'> & { choices: ReadonlyArray<{ value: string; label: string }> }) {
  const { setFields, readOnly } = useEditor();
  const id = useId();
  return (
    <label className="step-field" htmlFor={id}>
      <span className="small">{label}</span>
      <select id={id} className="input nodrag" value={typeof data[field] === 'string' ? (data[field]) : ''} disabled={readOnly} onChange={(e) => setFields(nodeId, { [field]: e.target.value })}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The node's result image and its error, if any. */
export function StepsResult({ data }: { data: CanvasNode['data'] }) {
  const image = typeof data.image === 'string' ? data.image : undefined;
  const error = typeof data.error === 'string' ? data.error : undefined;
  return (
    <>
      {error && (
        <div className="node-error" role="alert">
          {error}
        </div>
      )}
      {image && (
        <div className="result">
          <img src={image} alt="Result" />
        </div>
      )}
      {!image && !error && <span className="muted small">Connect an image into the left handle.</span>}
    </>
  );
}
