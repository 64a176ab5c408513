// An edit node (type `edit`, src/kinds/edit.ts): its image changed inside the mask wired into its mask input
// (inpaint), or extended by some pixels on each side with the new area drawn (outpaint: no mask needed). Its prompt
// (with the texts wired into its prompt input named under it, joined when it runs), its mode, the four outpaint sides
// (outpaint only), its model — ONLY models that do `inpaint` (GET /api/models `does`; none chosen: the kind's default,
// the offline classical inpainting, labelled as not AI) —, its seed and count as a generation's, and its input, job,
// error and result as an image-steps node shows them (StepsRun). The mask's state is said under the mode: an inpaint
// with no mask connected cannot run (the run refuses it; the node's mark says so too).
import { useNodeConnections, useNodesData, type NodeProps } from '@xyflow/react';
import { useId } from 'react';
import { EDIT_DEFAULT_MODEL, OUTPAINT_SIDE_MAX, edit, type OutpaintSides } from '../../../src/kinds/edit.js';
import { useEditor } from '../canvas/editor-context';
import { portOf } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { modelStatus, withRole, type ModelCatalogue } from '../canvas/model-choice';
import { needsPrompt } from '../canvas/input-limits';
import { DraftNumberInput } from './draft-number';
import { useNodeNameList } from '../canvas/names';
import { useModels } from '../hooks/use-models';
import { CountField } from './count-field';
import { ModelPicker } from './model-picker';
import { NodeFrame } from './node-frame';
import { PromptField } from './prompt-field';
import { SeedField } from './seed-field';
import { ChoiceField, StepsRun } from './step-fields';

const SIDES = [
  ['top', 'Top'],
  ['right', 'Right'],
  ['bottom', 'Bottom'],
  ['left', 'Left'],
] as const;
const MODES = [
  { value: 'inpaint', label: 'Inpaint: redraw the mask' },
  { value: 'outpaint', label: 'Outpaint: extend the image' },
];

const portName = (handle: string | null | undefined) => portOf(edit.inputs, handle)?.name;

/** The catalogue as an edit node offers it: only the models that do inpaint, the kind's default marked as the default. */
export function inpaintCatalogue(catalogue: ModelCatalogue): ModelCatalogue {
  const offered = withRole(catalogue, 'inpaint');
  if (offered.state !== 'loaded') return offered;
  return { state: 'loaded', models: offered.models.map((m) => ({ ...m, default: m.id === EDIT_DEFAULT_MODEL })) };
}

const sidesOf = (v: unknown): OutpaintSides => {
  const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const n = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : 0);
  return { top: n(o.top), right: n(o.right), bottom: n(o.bottom), left: n(o.left) };
};

/** One side of the outpaint: a whole number of pixels, 0–OUTPAINT_SIDE_MAX; written only when valid. */
function SideField({ side, label, sides, onChange, readOnly }: { side: keyof OutpaintSides; label: string; sides: OutpaintSides; onChange: (s: OutpaintSides) => void; readOnly: boolean }) {
  const id = useId();
  return (
    <label className="step-field" htmlFor={id}>
      <span className="small">{label}</span>
      <DraftNumberInput
        id={id}
        inputMode="numeric"
        min={0}
        max={OUTPAINT_SIDE_MAX}
        step={1}
        stored={sides[side]}
        readOnly={readOnly}
        parse={(text) => (/^\d+$/.test(text.trim()) && Number(text) <= OUTPAINT_SIDE_MAX ? { value: Number(text) } : null)}
        onValue={(value) => value !== undefined && onChange({ ...sides, [side]: value })}
      />
    </label>
  );
}

export function EditNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setPrompt, setModel, setFields, readOnly } = useEditor();
  const into = useNodeConnections({ handleType: 'target' });
  const maskWired = into.some((c) => portName(c.targetHandle) === 'mask');
  const textConnections = into.filter((c) => portName(c.targetHandle) === 'prompt');
  const texts = useNodesData<CanvasNode>([...new Set(textConnections.map((c) => c.source))]);
  const textNames = useNodeNameList(textConnections.map((c) => c.source));
  const catalogue = inpaintCatalogue(useModels());
  const status = modelStatus(data.model, catalogue, 1);
  const mode = data.mode === 'outpaint' ? 'outpaint' : 'inpaint';
  const sides = sidesOf(data.outpaint);
  const d = data as Record<string, unknown>;

  return (
    <NodeFrame nodeId={id} type={type}>
      {needsPrompt(status.model) ? (
        <PromptField value={typeof d.prompt === 'string' ? d.prompt : ''} readOnly={readOnly} placeholder="What to draw in the masked (or added) area" onChange={(prompt, newRun) => setPrompt(id, prompt, newRun)} />
      ) : (
        <p className="muted small">No prompt: this model does not use one (it fills from the surroundings).</p>
      )}
      {textConnections.length > 0 && (
        <p className="muted small">
          Joined with the prompt when it runs:{' '}
          {textConnections.map((c, i) => {
            const text = texts.find((t) => t.id === c.source)?.data.text;
            return (
              <span key={c.edgeId}>
                {i > 0 && '; '}
                <strong>{textNames[i] ?? 'a text'}</strong>
                {typeof text === 'string' && text.trim() !== '' ? `: “${text.length > 60 ? `${text.slice(0, 60)}…` : text}”` : ' (empty)'}
              </span>
            );
          })}
        </p>
      )}
      <ChoiceField nodeId={id} field="mode" label="Mode" data={{ ...data, mode }} choices={MODES} />
      {mode === 'inpaint' ? (
        <p className={maskWired ? 'muted small' : 'node-warning small'}>{maskWired ? 'Mask connected: white is redrawn, black kept.' : 'Connect a mask into its Mask input to inpaint.'}</p>
      ) : (
        <div className="step-fields" role="group" aria-label="Pixels added on each side">
          {SIDES.map(([side, label]) => (
            <SideField key={side} side={side} label={label} sides={sides} readOnly={readOnly === true} onChange={(next) => setFields(id, { outpaint: next })} />
          ))}
        </div>
      )}
      <ModelPicker catalogue={catalogue} status={status} readOnly={readOnly} onChange={(choice) => setModel(id, choice)} />
      <div className="run-settings">
        <SeedField nodeId={id} seed={data.seed} />
        <CountField nodeId={id} count={data.count} />
      </div>
      <StepsRun nodeId={id} type={type} data={data} variants />
    </NodeFrame>
  );
}
