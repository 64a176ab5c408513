// A generation node's current result as an object (issue 34 point 4): shown at a bounded size (the node never
// grows with the image: object-fit inside a fixed box) with its pixel size under it ("2048 × 2048"), opened full
// size by a click or Enter (components/result-lightbox.tsx: prompt, model, size, Copy prompt, Download, New image
// node), and taken out as a new image node — "New image node" beside the node, or dragged by its grip onto the
// canvas where it should land. A press that moved (a drag of the node by its image) opens nothing.
import { useEffect, useRef, useState, type DragEvent } from 'react';
import type { ProjectGeneration } from '../api/client';
import { RESULT_DRAG_TYPE } from '../canvas/result-handoff';
import { listProjectGenerations } from '../hooks/use-project-generations';
import { DownloadLink, isWebUrl } from './node-image';
import { pixelSize, ResultLightbox, type ResultDetails } from './result-lightbox';
import './result-image.css';

/** How far a press may move and still be a click (px). */
const CLICK_SLOP = 4;

interface Props {
  src: string;
  alt: string;
  /** The node's own prompt and model: shown until (or unless) the generation that made `src` is found. */
  fallback: { prompt?: string; model?: string };
  /** Where the node's generations are read from (absent: a read-only link's page). */
  projectId?: string;
  nodeId: string;
  /** The accessible name of its Download link. */
  downloadLabel: string;
  /** Makes a new image node of it beside the node; absent when read-only. */
  onNewImageNode?: () => void;
}

export function ResultImage({ src, alt, fallback, projectId, nodeId, downloadLabel, onNewImageNode }: Props) {
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [open, setOpen] = useState(false);
  const pressedAt = useRef<{ x: number; y: number } | null>(null);
  const made = useGenerationOf(open ? projectId : undefined, nodeId, src);

  if (!isWebUrl(src)) return <p className="node-error">This image has an address that cannot be shown.</p>;
  const details: ResultDetails = made
    ? { src, prompt: made.prompt, model: made.model, author: made.author.name, createdAt: made.createdAt }
    : { src, prompt: fallback.prompt, model: fallback.model };
  const onDragStart = (event: DragEvent) => {
    event.dataTransfer.setData(RESULT_DRAG_TYPE, src);
    event.dataTransfer.setData('text/uri-list', new URL(src, window.location.href).href);
    event.dataTransfer.effectAllowed = 'copy';
  };

  return (
    <div className="node-image result-image">
      <button
        type="button"
        className="result-open"
        aria-label={`Open the result full size${size ? ` (${pixelSize(size)})` : ''}`}
        aria-haspopup="dialog"
        onPointerDown={(e) => (pressedAt.current = { x: e.clientX, y: e.clientY })}
        onClick={(e) => {
          const from = pressedAt.current;
          pressedAt.current = null;
          // A keyboard click has no press; a press that moved dragged the node.
          if (from && e.detail > 0 && Math.hypot(e.clientX - from.x, e.clientY - from.y) > CLICK_SLOP) return;
          setOpen(true);
        }}
      >
        <img src={src} alt={alt} draggable={false} decoding="async" onLoad={(e) => setSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })} />
      </button>
      {size && <span className="result-size">{pixelSize(size)}</span>}
      <div className="result-bar">
        <span className="result-bar-actions">
          {onNewImageNode && (
            <button
              type="button"
              className="button small ghost nodrag result-grip"
              draggable
              onDragStart={onDragStart}
              onClick={onNewImageNode}
              title="New image node from this result (or drag it onto the canvas)"
            >
              New image node
            </button>
          )}
          <DownloadLink src={src} label={downloadLabel} />
        </span>
      </div>
      {open && (
        <ResultLightbox
          title="Result"
          result={details}
          onClose={() => setOpen(false)}
          actions={
            onNewImageNode && (
              <button type="button" className="button small" onClick={() => (setOpen(false), onNewImageNode())}>
                New image node
              </button>
            )
          }
        />
      )}
    </div>
  );
}

/** The generation (of the node) whose output is `src`, read when `projectId` is given; null until found, or when none is. */
function useGenerationOf(projectId: string | undefined, nodeId: string, src: string): ProjectGeneration | null {
  const [found, setFound] = useState<{ key: string; generation: ProjectGeneration | null } | null>(null);
  const key = `${projectId}\n${nodeId}\n${src}`;
  useEffect(() => {
    if (!projectId) return;
    const abort = new AbortController();
    listProjectGenerations(projectId, { nodeId, limit: 100 }, abort.signal).then(
      (page) => setFound({ key, generation: page.items.find((g) => g.outputImageUrl === src) ?? null }),
      () => !abort.signal.aborted && setFound({ key, generation: null }),
    );
    return () => abort.abort();
  }, [projectId, nodeId, src, key]);
  return found?.key === key ? found.generation : null;
}
