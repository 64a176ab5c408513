// The fields of an image-steps node (crop, resize, adjust: src/kinds/image-steps.ts), bound to the node's live
// data: a value is written when its kind's rule takes it (src/kinds/, the same rule the service holds live edits
// to), so a half-typed or out-of-range number stays in the box, marked invalid, and is never sent. Also the node's
// input, Run and its job, the result (its `data.image`) and its error, as a generation node shows them (StepsRun).
import { useId } from 'react';
import { dataRulesOf } from '../../../src/kinds/index.js';
import { useNodeConnections, useNodesData } from '@xyflow/react';
import { useEditor, useNodeActivity } from '../canvas/editor-context';
import { documentJob, runOutcome } from '../canvas/job';
import { kindOf, portOf } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { DraftNumberInput } from './draft-number';
import { JobStatus } from './job-status';
import { isWebUrl, NodeImage } from './node-image';
import { VariantStrip } from './variant-strip';

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
  return (
    <label className="step-field" htmlFor={id}>
      <span className="small">{label}</span>
      <DraftNumberInput
        id={id}
        inputMode="decimal"
        step={step}
        min={min}
        max={max}
        stored={typeof stored === 'number' ? stored : undefined}
        readOnly={readOnly}
        parse={(text) => {
          const value = text.trim() === '' ? undefined : Number(text);
          return takes(type, field, value) ? { value } : null;
        }}
        onValue={(value) => setFields(nodeId, { [field]: value })}
      />
    </label>
  );
}

/** Of `fields`, those the kind has (a variant's prompt and seed are written only to a kind that has them). */
const ownFields = (type: string, fields: Record<string, unknown>): Record<string, unknown> => {
  const rules = dataRulesOf(type, RULE_LIMITS);
  return Object.fromEntries(Object.entries(fields).filter(([key]) => rules?.[key] !== undefined));
};

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

/**
 * How an image-steps node runs (and the other kinds that run on one image: edit, compose, upscale, remove
 * background, which also show their `variants` as a generation node does): its input (the image of the node wired into its image input, shown small) — its Run ▶
 * is the node frame's (run-button.tsx: a graph run of the node) —, the job as everyone sees it with Cancel, how the
 * last run ended (Canceled, or the error), and the result.
 */
export function StepsRun({ nodeId, type, data, variants = false }: { nodeId: string; type: string; data: CanvasNode['data']; variants?: boolean }) {
  const { cancelGeneration, readOnly, projectId, setFields, newImageNode } = useEditor();
  const activity = useNodeActivity(nodeId);
  const into = useNodeConnections({ handleType: 'target' });
  const inputPort = portOf(kindOf(type)?.inputs ?? [], undefined);
  const wired = into.filter((c) => portOf(kindOf(type)?.inputs ?? [], c.targetHandle) === inputPort);
  const sources = useNodesData<CanvasNode>(wired.slice(0, 1).map((c) => c.source));
  const input = typeof sources[0]?.data.image === 'string' ? sources[0].data.image : undefined;
  const job = documentJob(data.job) ?? activity.job;
  const running = activity.starting === true || activity.job !== undefined || job !== undefined || data.isGenerating === true;
  const outcome = runOutcome({ busy: running, ownError: activity.generationError, ownCanceled: activity.canceled !== undefined, data });
  const image = typeof data.image === 'string' ? data.image : undefined;
  const waiting = wired.length === 0 ? 'Connect an image into the left handle' : input === undefined ? 'Wait for the connected image' : undefined;
  return (
    <>
      <div className="inputs" aria-label="Input image">
        {input && isWebUrl(input) ? (
          <ul className="input-chips">
            <li className="input-chip">
              <img src={input} alt="Input" />
            </li>
          </ul>
        ) : (
          <span className="muted small">{waiting ?? 'No input image'}</span>
        )}
      </div>
      {running && (
        <JobStatus
          job={job}
          activity={activity}
          onCancel={readOnly ? undefined : (jobId) => void cancelGeneration(nodeId, jobId)}
        />
      )}
      {outcome === 'canceled' && (
        <p className="muted small" role="status">
          Canceled
        </p>
      )}
      {outcome && outcome !== 'canceled' && (
        <div className="node-error" role="alert">
          <p>{outcome.error}</p>
          {outcome.details && <p className="small">{outcome.details}</p>}
        </div>
      )}
      {image && (
        <div className={`result${running ? ' previous' : ''}`}>
          <NodeImage src={image} alt="Result" />
        </div>
      )}
      {variants && projectId && (
        <VariantStrip
          projectId={projectId}
          nodeId={nodeId}
          current={image}
          results={data.results}
          // "Use this": the variant's image, key and seed (and prompt, for a kind that has one) become the node's.
          onUse={readOnly ? undefined : (chosen, prompt, made) => setFields(nodeId, ownFields(type, { image: chosen, prompt: prompt || undefined, ...made }))}
          onNewImageNode={newImageNode && ((chosen) => newImageNode(chosen, nodeId))}
        />
      )}
    </>
  );
}
