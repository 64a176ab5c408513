// A generation node (type `generation`): the images of the nodes connected into it plus a prompt make a
// new image (POST /api/image, naming the node: the service writes its state into the live document). Shows that
// it runs — the seconds elapsed when this tab started it, or just "Generating…" for someone else's (the
// document's `isGenerating`) —, the error (this tab's full answer, or the one the service wrote), and the result.
// Read-only: the prompt cannot be edited, inputs cannot be disconnected and there is no Generate button.
import { Handle, Position, useNodeConnections, useNodesData, type NodeProps } from '@xyflow/react';
import { useId } from 'react';
import { useEditor, useNodeActivity } from '../canvas/editor-context';
import type { CanvasNode } from '../canvas/model';
import { CHECKOUT_URL, usePaymentsEnabled } from '../hooks/use-client-config';
import { useElapsedSeconds } from '../hooks/use-elapsed-seconds';
import { NodeFrame } from './node-frame';
import { DownloadLink, isWebUrl, NodeImage } from './node-image';

/** An error the service wrote into the node (a string, or `{ error, details? }` as its HTTP errors are). */
function documentError(value: unknown): { error: string; details?: string; status?: number } | undefined {
  if (typeof value === 'string' && value) return { error: value };
  if (typeof value !== 'object' || value === null) return undefined;
  const { error, details, status } = value as Record<string, unknown>;
  if (typeof error !== 'string' || !error) return undefined;
  return { error, ...(typeof details === 'string' && details ? { details } : {}), ...(typeof status === 'number' ? { status } : {}) };
}

export function GenerationNode({ id, data }: NodeProps<CanvasNode>) {
  const { setPrompt, generate, removeEdge, readOnly } = useEditor();
  const activity = useNodeActivity(id);
  const promptId = useId();
  const connections = useNodeConnections({ handleType: 'target' });
  const sources = useNodesData<CanvasNode>(connections.map((c) => c.source));
  const elapsed = useElapsedSeconds(activity.generatingSince);
  // Ours (this tab's request) or anyone's (the document's flag, which the service writes). Only ours disables
  // Generate: someone else's generation never locks the node.
  const ours = elapsed !== undefined;
  const generating = ours || data.isGenerating === true;
  const error = activity.generationError ?? (generating ? undefined : documentError(data.error));
  const payments = usePaymentsEnabled();

  return (
    <NodeFrame nodeId={id} title="Generate" kind="generation" busy={generating}>
      <Handle type="target" position={Position.Left} aria-label="Inputs: connect images here" />
      <label className="field" htmlFor={promptId}>
        <span>Prompt</span>
        <textarea
          id={promptId}
          className="input nodrag nowheel"
          rows={3}
          placeholder={readOnly ? 'No prompt' : 'Describe the image you want, e.g. “grayscale side by side”'}
          value={data.prompt ?? ''}
          readOnly={readOnly}
          onChange={(event) => setPrompt(id, event.target.value)}
        />
      </label>
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
                      <button type="button" className="icon-button nodrag" aria-label={`Disconnect input ${i + 1}`} title="Disconnect" onClick={() => removeEdge(connection.edgeId)}>
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
      {!readOnly && (
        <button type="button" className="button primary nodrag" onClick={() => generate(id)} disabled={ours}>
          {ours ? 'Generating…' : data.image ? 'Generate again' : 'Generate'}
        </button>
      )}
      {generating && (
        <p className="generating" role="status">
          <span className="spinner small" aria-hidden="true" /> Generating…{ours && ` ${elapsed} s`}
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
                  <a className="nodrag" href={CHECKOUT_URL}>
                    Upgrade
                  </a>
                </>
              )}
            </p>
          ) : (
            <p>{error.error}</p>
          )}
          {error.details && <p className="small">{error.details}</p>}
        </div>
      )}
      {data.image && (
        <>
          <NodeImage src={data.image} alt="Generated image" />
          <div className="node-actions end">
            <DownloadLink src={data.image} label="Download generated image" />
          </div>
        </>
      )}
      {activity.modelText && !generating && <p className="muted small model-text">{activity.modelText}</p>}
      <Handle type="source" position={Position.Right} aria-label="Output: connect to another generation node" />
    </NodeFrame>
  );
}
