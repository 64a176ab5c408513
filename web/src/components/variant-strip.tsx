// The variants under a generation node: every run of it that produced a result (GET /api/projects/:id/generations
// ?nodeId=), newest first, the node's current image marked. A thumbnail enlarges in a lightbox (Esc closes); two
// ticked compare side by side; "Use this" makes one the node's current image (a change of the live document,
// like any edit: everyone sees it, and it is a step of this tab's undo). Read again when the node's image changes.
import { useId, useState, type ReactNode, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import type { ProjectGeneration } from '../api/client';
import { useNodeGenerations } from '../hooks/use-project-generations';
import { LoadError } from './load-error';
import { Modal } from './modal';
import { isWebUrl } from './node-image';

interface Props {
  projectId: string;
  nodeId: string;
  /** The node's current image. */
  current: string | undefined;
  /** Absent on a read-only canvas (no "Use this"). */
  onUse?: (image: string) => void;
}

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export function VariantStrip({ projectId, nodeId, current, onUse }: Props) {
  const { state, reload } = useNodeGenerations(projectId, nodeId, current);
  const [enlarged, setEnlarged] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [comparing, setComparing] = useState(false);

  const items = state.items.filter((g) => isWebUrl(g.outputImageUrl));
  const total = items.length;
  /** Runs are numbered in the order they were made: the newest (first) has the highest number. */
  const numberOf = (g: ProjectGeneration) => total - items.indexOf(g);
  const isCurrent = (g: ProjectGeneration) => g.outputImageUrl === current;
  const shown = items.find((g) => g.id === enlarged);
  const pair = picked.map((id) => items.find((g) => g.id === id)).filter((g): g is ProjectGeneration => !!g);

  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)));
  const use = (g: ProjectGeneration) => {
    onUse?.(g.outputImageUrl);
    setEnlarged(null);
    setComparing(false);
    setPicked([]);
  };

  if (state.status === 'error' && total === 0) return <LoadError className="muted small" message={state.message} onRetry={reload} />;
  if (total === 0) return null;
  return (
    <section className="variants nodrag nowheel" aria-label="Variants">
      <div className="variants-heading">
        <span className="muted small">
          {total} variant{total === 1 ? '' : 's'}
        </span>
        {pair.length === 2 && (
          <button type="button" className="button small ghost nodrag" onClick={() => setComparing(true)} aria-haspopup="dialog">
            Compare
          </button>
        )}
      </div>
      <ol className="variant-strip">
        {items.map((g) => {
          const n = numberOf(g);
          const currentOne = isCurrent(g);
          return (
            <li key={g.id} className={`variant${currentOne ? ' current' : ''}`} data-generation-id={g.id} aria-current={currentOne ? 'true' : undefined}>
              <button type="button" className="variant-thumb nodrag" aria-label={`Enlarge variant ${n}${currentOne ? ' (current)' : ''}`} title={g.text ?? undefined} aria-haspopup="dialog" onClick={() => setEnlarged(g.id)}>
                <img src={g.outputImageUrl} alt="" draggable={false} loading="lazy" decoding="async" />
              </button>
              <input
                type="checkbox"
                className="variant-pick nodrag"
                aria-label={`Compare variant ${n}`}
                checked={picked.includes(g.id)}
                onChange={(event) => toggle(g.id, event.target.checked)}
              />
            </li>
          );
        })}
      </ol>
      {shown && (
        <VariantDialog title={`Variant ${numberOf(shown)} of ${total}`} onClose={() => setEnlarged(null)}>
          <VariantFigure generation={shown} number={numberOf(shown)} current={isCurrent(shown)} onUse={onUse && (() => use(shown))} large />
        </VariantDialog>
      )}
      {comparing && pair.length === 2 && (
        <VariantDialog title={`Variants ${numberOf(pair[0])} and ${numberOf(pair[1])}`} onClose={() => setComparing(false)} wide>
          <div className="variant-compare">
            {pair.map((g) => (
              <VariantFigure key={g.id} generation={g} number={numberOf(g)} current={isCurrent(g)} onUse={onUse && (() => use(g))} />
            ))}
          </div>
        </VariantDialog>
      )}
    </section>
  );
}

function VariantFigure({ generation, number, current, onUse, large }: { generation: ProjectGeneration; number: number; current: boolean; onUse?: () => void; large?: boolean }) {
  return (
    <figure className={`variant-figure${large ? ' large' : ''}`}>
      <img src={generation.outputImageUrl} alt={`Variant ${number}: ${generation.prompt}`} />
      <figcaption>
        <span className="variant-prompt">{generation.prompt}</span>
        {generation.text && <span className="variant-text small">{generation.text}</span>}
        <span className="muted small">
          {when(generation.createdAt)}
          {generation.author.name ? ` · ${generation.author.name}` : ''} · {generation.model}
        </span>
        {current ? (
          <span className="badge">Current</span>
        ) : (
          onUse && (
            <button type="button" className="button small primary" onClick={onUse} aria-label={`Use variant ${number}`}>
              Use this
            </button>
          )
        )}
      </figcaption>
    </figure>
  );
}

const stop = (event: SyntheticEvent) => event.stopPropagation();

/**
 * A modal dialog over the whole page, outside the canvas: in a portal on <body> (never inside a node's transformed
 * box), its events kept from the node (a click would select it, an arrow key move it), `nokey` for xyflow's own
 * key handling (Delete deletes nothing from here).
 */
function VariantDialog({ title, onClose, wide, children }: { title: string; onClose: () => void; wide?: boolean; children: ReactNode }) {
  const titleId = useId();
  return createPortal(
    <div className="nokey" onClick={stop} onDoubleClick={stop} onKeyDown={stop} onPointerDown={stop} onMouseDown={stop} onWheel={stop}>
      <Modal labelledBy={titleId} className={`dialog lightbox-dialog nokey${wide ? ' wide' : ''}`} onClose={onClose}>
        <div className="row lightbox-heading">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="button small ghost" onClick={onClose}>
            Close
          </button>
        </div>
        {children}
      </Modal>
    </div>,
    document.body,
  );
}
