// The variants under a generation node: every run of it that produced a result (GET /api/projects/:id/generations
// ?nodeId=), newest first — a fanned node's results (its `data.results`) first, in item order —, the node's current
// image marked. A thumbnail enlarges in a lightbox (Esc closes); two
// ticked compare with a slider (compare-slider.tsx); "Use this" makes one the node's current image (a change of the live document,
// like any edit: everyone sees it, and it is a step of this tab's undo), with the key and seed it was made with when
// known (canvas/marks.ts `variantFields`: the node is then marked fresh if nothing changed since). Read again when
// the node's image changes.
import { useState } from 'react';
import type { ProjectGeneration } from '../api/client';
import { useNodeGenerations } from '../hooks/use-project-generations';
import { LoadError } from './load-error';
import { CompareSlider } from './compare-slider';
import { isWebUrl } from './node-image';
import { Lightbox, modelName, ResultLightbox } from './result-lightbox';
import { useModels } from '../hooks/use-models';
import { orderVariants, variantFields } from '../canvas/marks';

interface Props {
  projectId: string;
  nodeId: string;
  /** The node's current image. */
  current: string | undefined;
  /** A fanned node's results (`data.results`), shown first in their order. */
  results?: unknown;
  /**
   * "Use this": the variant's image and the prompt it was made with become the node's (what is compared is what one
   * gets back), and `made` its key (`resultKey`: undefined when unknown) and seed. Absent on a read-only canvas (no
   * "Use this").
   */
  onUse?: (image: string, prompt: string, made: ReturnType<typeof variantFields>) => void;
  /** Makes a new image node of a variant; absent on a read-only canvas. */
  onNewImageNode?: (image: string) => void;
}

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export function VariantStrip({ projectId, nodeId, current, results, onUse, onNewImageNode }: Props) {
  const { state, reload } = useNodeGenerations(projectId, nodeId, current);
  const [enlarged, setEnlarged] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [comparing, setComparing] = useState(false);

  const { items, inResults } = orderVariants(state.items.filter((g) => isWebUrl(g.outputImageUrl)), results);
  const total = items.length;
  /** Runs are numbered in the order they were made: the newest (first) has the highest number; a fanned node's results by item. */
  const numberOf = (g: ProjectGeneration) => (inResults > 0 ? items.indexOf(g) + 1 : total - items.indexOf(g));
  const isCurrent = (g: ProjectGeneration) => g.outputImageUrl === current;
  const shown = items.find((g) => g.id === enlarged);
  const pair = picked.map((id) => items.find((g) => g.id === id)).filter((g): g is ProjectGeneration => !!g);

  /** Opens the variant `by` places from `g` in the strip (undefined: none there). */
  const stepFrom = (g: ProjectGeneration, by: number) => {
    const other = items[items.indexOf(g) + by] as ProjectGeneration | undefined;
    return other && (() => setEnlarged(other.id));
  };
  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)));
  const use = (g: ProjectGeneration) => {
    onUse?.(g.outputImageUrl, g.prompt, variantFields(g));
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
        <ResultLightbox
          title={`Variant ${numberOf(shown)} of ${total}`}
          result={{ src: shown.outputImageUrl, prompt: shown.prompt, model: shown.model, author: shown.author.name, createdAt: shown.createdAt, text: shown.text ?? undefined }}
          onClose={() => setEnlarged(null)}
          previous={stepFrom(shown, -1)}
          next={stepFrom(shown, 1)}
          actions={
            <>
              {isCurrent(shown) ? (
                <span className="badge">Current</span>
              ) : (
                onUse && (
                  <button type="button" className="button primary" onClick={() => use(shown)} aria-label={`Use this (variant ${numberOf(shown)})`}>
                    Use this
                  </button>
                )
              )}
              {onNewImageNode && (
                <button type="button" className="button small" onClick={() => (setEnlarged(null), onNewImageNode(shown.outputImageUrl))}>
                  New image node
                </button>
              )}
            </>
          }
        />
      )}
      {comparing && pair.length === 2 && (
        <Lightbox title={`Variants ${numberOf(pair[0])} and ${numberOf(pair[1])}`} onClose={() => setComparing(false)} wide>
          {/* The older on the left, the newer on the right: a wipe between them (components/compare-slider.tsx). */}
          {(([newer, older]) => (
            <CompareSlider before={older.outputImageUrl} after={newer.outputImageUrl} beforeLabel={`Variant ${numberOf(older)}`} afterLabel={`Variant ${numberOf(newer)}`} />
          ))([...pair].sort((a, b) => numberOf(b) - numberOf(a)))}
          <div className="variant-compare">
            {pair.map((g) => (
              <VariantFigure key={g.id} generation={g} number={numberOf(g)} current={isCurrent(g)} onUse={onUse && (() => use(g))} captionOnly />
            ))}
          </div>
        </Lightbox>
      )}
    </section>
  );
}

function VariantFigure({ generation, number, current, onUse, captionOnly }: { generation: ProjectGeneration; number: number; current: boolean; onUse?: () => void; captionOnly?: boolean }) {
  return (
    <figure className="variant-figure" aria-label={`Variant ${number}`}>
      {!captionOnly && <img src={generation.outputImageUrl} alt={`Variant ${number}: ${generation.prompt}`} />}
      <figcaption>
        <span className="variant-prompt">{generation.prompt}</span>
        {generation.text && <span className="variant-text small">{generation.text}</span>}
        <span className="muted small">
          {when(generation.createdAt)}
          {generation.author.name ? ` · ${generation.author.name}` : ''} · <ModelName id={generation.model} />
        </span>
        {current ? (
          <span className="badge">Current</span>
        ) : (
          onUse && (
            <button type="button" className="button primary" onClick={onUse} aria-label={`Use this (variant ${number})`}>
              Use this
            </button>
          )
        )}
      </figcaption>
    </figure>
  );
}

/** A model by its name (GET /api/models), its id when the catalogue does not list it. */
function ModelName({ id }: { id: string }) {
  return <>{modelName(useModels(), id)}</>;
}
