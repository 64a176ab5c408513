// A generation node (type `generation`): the images of the nodes connected into it plus a prompt make a new
// image, as a generation job (POST /api/generations naming the node: the service writes the job's state into the
// live document, hooks/use-generation.ts). Shows the job as everyone sees it — queued with its position, running
// with the seconds since it started, Cancel — in place of a new start (a node runs one job at a time), the previous
// result dimmed while a new one is made, how the last run ended (this tab's full answer to a refusal or failure,
// *Canceled*, or the error the service wrote), the result (result-image.tsx: in a bounded box with its pixel size,
// opened full size by a click, made into an image node), and under it the node's variants (every result it has had:
// open full size, compare with a slider, make one current).
// The model picker (model-picker.tsx) keeps the node's model in its `data.model` (none: the default); Generate is
// disabled, with a title saying why, for a model the service does not run, more input images than it accepts or an
// input larger than it takes (its `maxInputPixels`, measured in the browser), and, with a hint under it, until an
// image is connected and a prompt written — no prompt for a model that uses none (an upscaler: the prompt box is
// then replaced by a line saying so). Under the prompt, the model's
// presets (prompt-field.tsx). An error shown stays until the prompt, the inputs or the model change; a 429 says
// when to try again, counting down.
// Texts connected into its prompt port (text nodes, src/kinds/text.ts) are joined to its prompt when it runs (by the
// service); the node says so under the prompt, naming them, and a joined text counts as a prompt written.
// Read-only: the prompt and the model cannot be edited, inputs cannot be disconnected and there is no Generate,
// Cancel or "Use this".
import { useNodeConnections, useNodesData, type NodeProps } from '@xyflow/react';
import { useId, useRef } from 'react';
import { useEditor, useNodeActivity } from '../canvas/editor-context';
import { useNodeNameList } from '../canvas/names';
import { documentJob, runOutcome, type RunOutcome } from '../canvas/job';
import { portOf } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { modelStatus, withRole } from '../canvas/model-choice';
import { promptPresets } from '../canvas/prompt-presets';
import { usePaymentsEnabled } from '../hooks/use-client-config';
import { useImageSizes } from '../hooks/use-image-sizes';
import { useModels } from '../hooks/use-models';
import { inputTooLarge, needsPrompt } from '../canvas/input-limits';
import { JobStatus } from './job-status';
import { ModelPicker } from './model-picker';
import { NodeFrame } from './node-frame';
import { PaymentLink } from './payment-link';
import { PromptField } from './prompt-field';
import { isPromptNotUnderstood, PromptFix } from './prompt-fix';
import { ResultText } from './result-text';
import { RetryHint } from './retry-hint';
import './canvas-feedback.css';
import { isWebUrl } from './node-image';
import { ResultImage } from './result-image';
import { VariantStrip } from './variant-strip';
import { CountField } from './count-field';
import { SeedField } from './seed-field';
import { generation } from '../../../src/kinds/generation.js';

/** The port an edge into a generation node reaches (none named: its default, `images`). */
const portName = (handle: string | null | undefined) => portOf(generation.inputs, handle)?.name;

export function GenerationNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setPrompt, setModel, generate, cancelGeneration, setFields, removeEdge, readOnly, projectId, newImageNode } = useEditor();
  const activity = useNodeActivity(id);
  const hintId = useId();
  const into = useNodeConnections({ handleType: 'target' });
  const connections = into.filter((c) => portName(c.targetHandle) === 'images');
  const textConnections = into.filter((c) => portName(c.targetHandle) === 'prompt');
  const sources = useNodesData<CanvasNode>([...new Set(connections.map((c) => c.source))]);
  const inputNames = useNodeNameList(connections.map((c) => c.source));
  const texts = useNodesData<CanvasNode>([...new Set(textConnections.map((c) => c.source))]);
  const textNames = useNodeNameList(textConnections.map((c) => c.source));
  const joined = textConnections.map((c, i) => ({ edgeId: c.edgeId, name: textNames[i] ?? 'a text', text: texts.find((t) => t.id === c.source)?.data.text }));
  // What a run sends (canvas/model.ts `inputImages`): the image of each node connected in.
  const inputCount = sources.filter((s) => s.data.image).length;
  const catalogue = withRole(useModels(), 'generate'); // not the models that only upscale or remove backgrounds
  const status = modelStatus(data.model, catalogue, inputCount);
  // The model's own rules, before any run (canvas/input-limits.ts): its prompt (none for an upscaler) and its inputs' size.
  const sizes = useImageSizes(connections.map((c) => sources.find((s) => s.id === c.source)?.data.image));
  const tooLarge = inputTooLarge(status.model, sizes.map((size, i) => ({ name: inputNames[i] ?? `Input ${i + 1}`, size })));
  const model = status.blocked === undefined && tooLarge ? { ...status, blocked: tooLarge } : status;
  const promptUsed = needsPrompt(model.model);
  // The document's job (anyone's, as the service writes it) wins over what this tab was answered. A node whose
  // job is queued or running (anyone's) shows that job in place of a new start: one job per node at a time.
  const job = documentJob(data.job) ?? activity.job;
  const ours = activity.starting === true || activity.job !== undefined;
  const generating = ours || job !== undefined || data.isGenerating === true;
  // What a run would send: an error shown is about the prompt, inputs and model it was made with.
  const inputs = JSON.stringify([data.prompt ?? '', sources.map((s) => s.data.image ?? null), model.chosenId ?? null]);
  const outcome = useUntilChanged<RunOutcome>(
    runOutcome({ busy: generating, ownError: activity.generationError, ownCanceled: activity.canceled !== undefined, data }),
    inputs,
  );
  const error = outcome === 'canceled' ? undefined : outcome;
  const payments = usePaymentsEnabled();
  const waiting = readiness(connections.length, inputCount, promptUsed && [data.prompt, ...joined.map((j) => j.text)]);

  return (
    <NodeFrame nodeId={id} type={type} busy={generating}>
      {promptUsed ? (
        <PromptField value={data.prompt ?? ''} readOnly={readOnly} presets={promptPresets(model.model)} onChange={(prompt, newRun) => setPrompt(id, prompt, newRun)} />
      ) : (
        <p className="muted small">No prompt: this model does not use one.</p>
      )}
      {joined.length > 0 && (
        <div className="joined-texts" role="group" aria-label="Joined texts">
          <span className="muted small">Joined with the prompt when it runs:</span>
          <ul>
            {joined.map((j) => (
              <li key={j.edgeId} className="small">
                <strong>{j.name}</strong>
                {typeof j.text === 'string' && j.text.trim() !== '' ? <>: “{j.text.length > 80 ? `${j.text.slice(0, 80)}…` : j.text}”</> : ' (empty)'}
                {!readOnly && (
                  <button type="button" className="icon-button nodrag" aria-label={`Disconnect ${j.name}`} title="Disconnect" onClick={() => removeEdge(j.edgeId)}>
                    ×
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="inputs" aria-label="Input images">
        {connections.length === 0 ? (
          <span className="muted small">No inputs yet: connect images into the left handle.</span>
        ) : (
          <>
            <span className="muted small">
              {connections.length} input{connections.length === 1 ? '' : 's'}
            </span>
            <ul className="input-chips">
              {connections.map((connection, i) => {
                const image = sources.find((s) => s.id === connection.source)?.data.image;
                return (
                  <li key={connection.edgeId} className="input-chip">
                    {image && isWebUrl(image) ? <img src={image} alt="" /> : <span className="chip-placeholder" aria-hidden="true" />}
                    {!readOnly && (
                      <button type="button" className="icon-button nodrag" aria-label={`Disconnect ${inputNames[i] ?? `input ${i + 1}`}`} title="Disconnect" onClick={() => removeEdge(connection.edgeId)}>
                        ×
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </div>
      <ModelPicker catalogue={catalogue} status={model} readOnly={readOnly} onChange={(choice) => setModel(id, choice)} />
      <div className="run-settings">
        <SeedField nodeId={id} seed={data.seed} />
        <CountField nodeId={id} count={data.count} />
      </div>
      {!readOnly && (
        <button
          type="button"
          className="button primary nodrag"
          onClick={() => generate(id)}
          disabled={generating || model.blocked !== undefined || waiting !== undefined}
          title={generating ? undefined : (model.blocked ?? waiting)}
          aria-describedby={!generating && waiting ? hintId : undefined}
        >
          {generating ? 'Generating…' : data.image ? 'Generate again' : 'Generate'}
        </button>
      )}
      {!readOnly && !generating && waiting && (
        <p className="generate-hint" id={hintId}>
          {waiting}
        </p>
      )}
      {generating && (
        <JobStatus
          job={job}
          activity={activity}
          onCancel={readOnly ? undefined : (jobId) => cancelGeneration(id, jobId)}
        />
      )}
      {outcome === 'canceled' && (
        <p className="muted small" role="status">
          Canceled
        </p>
      )}
      {error && (
        <div className="node-error" role="alert">
          {error.status === 402 ? (
            // The free plan's daily quota: the service's words, what they mean, and the way out.
            <p>
              {error.error} — you have used today’s free generations.
              {payments && (
                <>
                  {' '}
                  <PaymentLink className="nodrag" to="checkout">
                    Upgrade
                  </PaymentLink>
                </>
              )}
            </p>
          ) : (
            <p>
              {error.error}
              {error.retryAt !== undefined && <RetryHint at={error.retryAt} />}
            </p>
          )}
          {error.details && <p className="small">{error.details}</p>}
          {!readOnly && isPromptNotUnderstood(error) && <PromptFix presets={promptPresets(model.model)} onUse={(prompt) => setPrompt(id, prompt, true)} />}
        </div>
      )}
      {data.image && (
        // While a new one is made, the previous result stays, dimmed.
        <div className={`result${generating ? ' previous' : ''}`} title={generating ? 'The previous result: a new one is being made' : undefined}>
          <ResultImage
            src={data.image}
            alt="Generated image"
            downloadLabel="Download generated image"
            fallback={{ prompt: data.prompt, model: typeof data.model === 'string' ? data.model : undefined }}
            projectId={projectId}
            nodeId={id}
            onNewImageNode={newImageNode && (() => newImageNode(data.image!, id))}
          />
          {projectId && <ResultText projectId={projectId} nodeId={id} current={data.image} />}
        </div>
      )}
      {projectId && <VariantStrip projectId={projectId} nodeId={id} current={data.image} results={data.results} onUse={readOnly ? undefined : (image, prompt, made) => setFields(id, { image, prompt: prompt || undefined, ...made })} onNewImageNode={newImageNode && ((image) => newImageNode(image, id))} />}
    </NodeFrame>
  );
}

/**
 * Why Generate waits for the person: no image connected (or none with an image yet), no prompt (its own or a joined
 * text; `prompts` false: the model uses none); undefined: ready.
 */
function readiness(connections: number, images: number, prompts: unknown[] | false): string | undefined {
  const image = connections === 0 ? 'Connect an image' : images === 0 ? 'Wait for the connected image' : undefined;
  const noPrompt = prompts !== false && prompts.every((p) => typeof p !== 'string' || p.trim() === '');
  if (image && noPrompt) return `${image} and write a prompt`;
  return image ?? (noPrompt ? 'Write a prompt' : undefined);
}

/**
 * `error` until `inputs` change from what they were when it was first shown (then undefined until another error):
 * an error says what went wrong with that prompt and those images, not with the ones now in the node.
 */
function useUntilChanged<E>(error: E | undefined, inputs: string): E | undefined {
  const shown = useRef<{ error: string; inputs: string; stale: boolean } | undefined>(undefined);
  if (error === undefined) {
    shown.current = undefined;
    return undefined;
  }
  const key = JSON.stringify(error);
  if (shown.current?.error !== key) shown.current = { error: key, inputs, stale: false };
  else if (shown.current.inputs !== inputs) shown.current.stale = true;
  return shown.current.stale ? undefined : error;
}
