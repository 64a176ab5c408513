// A result full size (issue 34 points 4 and 10): a generation node's current image, one of its variants, or a gallery
// item, in a modal dialog over the page — the image as large as the window allows, its pixel size, the prompt, the
// model by its name (GET /api/models), who made it and when, the seed when known; Copy prompt, Download, Close (or
// Esc), and whatever the place it opened from adds (Use this, New image node, Show on canvas, Reuse prompt).
// In a portal on <body> (never inside a node's transformed box), its events kept from the canvas (a click would
// select a node, an arrow key move it), `nokey` for xyflow's own key handling.
import { useId, useState, type KeyboardEvent, type ReactNode, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import type { ModelCatalogue } from '../canvas/model-choice';
import { useModels } from '../hooks/use-models';
import { Modal } from './modal';
import { fileNameOf, isWebUrl } from './node-image';
import './result-lightbox.css';

export interface ResultDetails {
  /** The image (a web address). */
  src: string;
  prompt?: string;
  /** What the model said it did (the offline engine's words), when it said anything. */
  text?: string;
  /** The model's id (shown by its name). */
  model?: string;
  author?: string;
  createdAt?: string;
  seed?: number | string;
  /** Where Download saves from (default `src`, under its own file name). */
  downloadHref?: string;
}

/** The model's name as the catalogue gives it; its id when the catalogue does not list it (or is not loaded). */
export function modelName(catalogue: ModelCatalogue, id: string | undefined): string | undefined {
  if (!id) return undefined;
  return (catalogue.state === 'loaded' && catalogue.models.find((m) => m.id === id)?.label) || id;
}

/** "2048 × 1536": an image's pixel size. */
export const pixelSize = (size: { width: number; height: number }) => `${size.width} × ${size.height}`;

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

const stop = (event: SyntheticEvent) => event.stopPropagation();

interface LightboxProps {
  title: string;
  onClose: () => void;
  wide?: boolean;
  /** Keys pressed anywhere in the dialog (before they are kept from the page). */
  onKeyDown?: (event: KeyboardEvent) => void;
  children: ReactNode;
}

/** The frame of a lightbox: a titled modal dialog in a portal, with Close. */
export function Lightbox({ title, onClose, wide, onKeyDown, children }: LightboxProps) {
  const titleId = useId();
  const keys = (event: KeyboardEvent) => {
    onKeyDown?.(event);
    stop(event);
  };
  return createPortal(
    <div className="nokey" onClick={stop} onDoubleClick={stop} onKeyDown={keys} onPointerDown={stop} onMouseDown={stop} onWheel={stop}>
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

interface ResultLightboxProps {
  title: string;
  result: ResultDetails;
  onClose: () => void;
  /** More buttons after Copy prompt and Download. */
  actions?: ReactNode;
  /** The results before and after this one in the list it opened from (Previous, Next, and the ← → keys). */
  previous?: () => void;
  next?: () => void;
}

const typingIn = (target: EventTarget) => target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** A result in a lightbox, with its details and actions. */
export function ResultLightbox({ title, result, onClose, actions, previous, next }: ResultLightboxProps) {
  const catalogue = useModels();
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const model = modelName(catalogue, result.model);
  const prompt = result.prompt?.trim() ? result.prompt : undefined;

  const copyPrompt = async () => {
    if (!prompt) return;
    try {
      await navigator.clipboard.writeText(prompt);
      setNote('Prompt copied');
    } catch {
      setNote('The browser did not let this page copy: select the prompt and copy it (Ctrl+C)');
    }
  };

  const step = (event: KeyboardEvent) => {
    if (typingIn(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
    const go = event.key === 'ArrowLeft' ? previous : event.key === 'ArrowRight' ? next : undefined;
    if (!go) return;
    event.preventDefault();
    setSize(null);
    setNote(null);
    go();
  };

  return (
    <Lightbox title={title} onClose={onClose} wide onKeyDown={step}>
      <figure className="result-lightbox">
        {isWebUrl(result.src) ? (
          <img
            src={result.src}
            alt={prompt ?? title}
            onLoad={(event) => setSize({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })}
          />
        ) : (
          <p className="node-error">This image has an address that cannot be shown.</p>
        )}
        <figcaption>
          <dl className="result-details">
            <dt>Prompt</dt>
            <dd className="result-prompt">{prompt ?? <span className="muted">none</span>}</dd>
            {result.text && (
              <>
                <dt>What it did</dt>
                <dd>{result.text}</dd>
              </>
            )}
            {model && (
              <>
                <dt>Model</dt>
                <dd>{model}</dd>
              </>
            )}
            <dt>Size</dt>
            <dd data-testid="result-size">{size ? `${pixelSize(size)} px` : '…'}</dd>
            {result.seed !== undefined && (
              <>
                <dt>Seed</dt>
                <dd>{result.seed}</dd>
              </>
            )}
            {(result.author || result.createdAt) && (
              <>
                <dt>Made</dt>
                <dd>{[result.author, result.createdAt && when(result.createdAt)].filter(Boolean).join(' · ')}</dd>
              </>
            )}
          </dl>
          <div className="row result-actions">
            {prompt && (
              <button type="button" className="button small" onClick={() => void copyPrompt()}>
                Copy prompt
              </button>
            )}
            {isWebUrl(result.src) && (
              <a className="button small" href={result.downloadHref ?? result.src} download={result.downloadHref ? '' : fileNameOf(result.src)} target={result.downloadHref ? undefined : '_blank'} rel="noopener">
                Download
              </a>
            )}
            {actions}
          </div>
          {(previous || next) && (
            <div className="row result-steps">
              <button type="button" className="button small ghost" onClick={() => (setSize(null), previous?.())} disabled={!previous} aria-keyshortcuts="ArrowLeft">
                ← Previous
              </button>
              <button type="button" className="button small ghost" onClick={() => (setSize(null), next?.())} disabled={!next} aria-keyshortcuts="ArrowRight">
                Next →
              </button>
            </div>
          )}
          <p className="small muted" role="status">
            {note}
          </p>
        </figcaption>
      </figure>
    </Lightbox>
  );
}
