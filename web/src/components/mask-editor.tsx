// The full-size mask editor of a mask node (issue 36 point 1): a modal dialog over the page (in a portal, its keys
// and pointers kept from the canvas under it, as the result lightbox does) showing the node's input image at its
// real pixel size, zoomed and panned, with the mask over it in translucent red. Brush and eraser (B, E) with size and
// hardness, invert, clear, feather, undo and redo (Ctrl+Z, Ctrl+Shift+Z), zoom (wheel, + and −, 0 fits), pan (space
// or the middle button and drag). Pointer Events: a mouse or a pen paints (a pen's pressure scales the brush), one
// finger paints, two fingers pan and pinch-zoom (a stroke a second finger joins is taken back). The mask itself is
// one byte per image pixel (canvas/mask-paint.ts, where all the pixel work is); Save hands a PNG of it (opaque grey,
// white edits) to the node, or null when nothing is painted. Escape or Close asks first when there are unsaved
// changes. Read-only (a viewer): the image and mask, zoom and pan, nothing else. Select person (P) and Select
// background replace the mask with the people MediaPipe's selfie segmentation finds in the image (or all but them),
// offline in the page, one undo step (canvas/person-mask.ts, loaded only when first asked for).
import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import {
  BRUSH_SIZE,
  clear,
  dabSpacing,
  dabsAlong,
  feather,
  FEATHER_MAX,
  fitView,
  invert,
  isEmpty,
  Mask,
  maskFromRgba,
  maskRgba,
  overlayPixels,
  paintDab,
  paste,
  pinchView,
  pressedSize,
  toImage,
  union,
  UndoStack,
  whole,
  zoomAt,
  type BrushMode,
  type Point,
  type Rect,
  type View,
} from '../canvas/mask-paint';
import { ConfirmDialog } from './confirm-dialog';
import { Modal } from './modal';
import './mask-editor.css';

const OVERLAY: [number, number, number] = [230, 30, 60];
const OVERLAY_OPACITY = 0.55;
const ZOOM_STEP = 1.25;

const stop = (event: SyntheticEvent) => event.stopPropagation();
const typingInto = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || (target instanceof HTMLInputElement && target.type !== 'range'));

interface Props {
  /** The node's input image (a web address). */
  image: string;
  /** The node's mask, when it has one: loaded into the editor (scaled to the image when its size differs). */
  mask?: string;
  readOnly?: boolean;
  /** Stores the mask (a PNG, or null when nothing is painted); the editor closes when it resolves. */
  onSave: (png: Blob | null) => Promise<void>;
  onClose: () => void;
}

type Gesture =
  | { type: 'stroke'; id: number; last: Point; carry: number; before: Uint8Array; rect: Rect | null; size: number }
  | { type: 'pan'; id: number; last: Point }
  | { type: 'pinch'; a: number; b: number; a0: Point; b0: Point; start: View };

interface Loaded {
  width: number;
  height: number;
  mask: Mask;
  /** Said when the stored mask was of another size. */
  note?: string;
}

/** The pixel size of an image at an address (an <img>: no need for the store to allow reading its pixels). */
function sizeOf(url: string): Promise<{ width: number; height: number }> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => reject(new Error('it could not be read'));
    img.src = url;
  });
}

/** Decodes a mask at an address (fetched: a store on another site must allow this page to read it). */
async function bitmapOf(url: string): Promise<ImageBitmap> {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return createImageBitmap(await res.blob());
}

async function load(image: string, mask: string | undefined): Promise<Loaded> {
  const { width, height } = await sizeOf(image);
  if (!width || !height) throw new Error('it has no size');
  if (!mask) return { width, height, mask: new Mask(width, height) };
  let stored: ImageBitmap;
  try {
    stored = await bitmapOf(mask);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'unknown error';
    return { width, height, mask: new Mask(width, height), note: `The saved mask could not be read here (${why}): painting starts from an empty mask, and saving replaces it.` };
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(stored, 0, 0, width, height);
  const note =
    stored.width !== width || stored.height !== height
      ? `The saved mask is ${stored.width}×${stored.height}; it is drawn scaled to the image’s ${width}×${height} and saved at that size.`
      : undefined;
  stored.close();
  return { width, height, mask: maskFromRgba(ctx.getImageData(0, 0, width, height).data, width, height), note };
}

/** The mask as a PNG: opaque grey, the image's size. */
function pngOf(mask: Mask): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = mask.width;
  canvas.height = mask.height;
  canvas.getContext('2d')!.putImageData(new ImageData(maskRgba(mask), mask.width, mask.height), 0, 0);
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('The mask could not be encoded'))), 'image/png'));
}

export function MaskEditor({ image, mask: maskUrl, readOnly, onSave, onClose }: Props) {
  const titleId = useId();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [view, setView] = useState<View | null>(null);
  const [mode, setMode] = useState<BrushMode>('paint');
  const [size, setSize] = useState(24);
  const [hardness, setHardness] = useState(80);
  const [featherPx, setFeatherPx] = useState(8);
  const [changed, setChanged] = useState(false);
  const [history, setHistory] = useState({ undo: false, redo: false });
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [panKey, setPanKey] = useState(false);
  const [cursor, setCursor] = useState<Point | null>(null);
  const [finding, setFinding] = useState<'person' | 'background' | null>(null);
  const [found, setFound] = useState<{ text: string; error?: boolean } | null>(null);

  const stage = useRef<HTMLDivElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  const undo = useMemo(() => new UndoStack(), []);
  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<Gesture | null>(null);
  const viewRef = useRef<View | null>(null);
  viewRef.current = view;

  useEffect(() => {
    let live = true;
    load(image, maskUrl).then(
      (result) => {
        if (!live) return;
        setLoaded(result);
        setSize(Math.max(4, Math.round(Math.min(result.width, result.height) / 16)));
      },
      (error: unknown) => live && setLoadError(`The image could not be loaded: ${error instanceof Error ? error.message : 'unknown error'}.`),
    );
    return () => {
      live = false;
    };
    // Loaded once per opening: a mask saved meanwhile by someone else shows when the editor is opened again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const redraw = useCallback(
    (rect: Rect | null) => {
      const ctx = overlay.current?.getContext('2d');
      if (!ctx || !loaded || !rect) return;
      ctx.putImageData(new ImageData(overlayPixels(loaded.mask, rect, OVERLAY, OVERLAY_OPACITY), rect.width, rect.height), rect.x, rect.y);
    },
    [loaded],
  );
  const shown = view !== null;
  useEffect(() => {
    if (loaded && shown) redraw(whole(loaded.mask)); // once the overlay is drawn (after the first fit)
  }, [loaded, redraw, shown]);

  const stageSize = () => {
    const r = stage.current?.getBoundingClientRect();
    return { width: r?.width ?? 0, height: r?.height ?? 0 };
  };
  const fit = useCallback(() => {
    if (loaded && stage.current) setView(fitView(loaded, stageSize()));
  }, [loaded]);
  useEffect(() => {
    if (loaded && !viewRef.current) fit();
  }, [loaded, fit]);

  const zoomBy = (factor: number, about?: Point) => {
    const s = stageSize();
    setView((v) => (v ? zoomAt(v, factor, about ?? { x: s.width / 2, y: s.height / 2 }) : v));
  };

  // The wheel zooms about the pointer (a listener that may prevent the page's scroll).
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const r = el.getBoundingClientRect();
      const factor = Math.exp(-event.deltaY * (event.ctrlKey ? 0.01 : 0.0015));
      const about = { x: event.clientX - r.left - el.clientLeft, y: event.clientY - r.top - el.clientTop };
      setView((v) => (v ? zoomAt(v, factor, about) : v));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [loaded]);

  // Space let go while the window had no focus never comes as a keyup: a blur ends the pan mode.
  useEffect(() => {
    const off = () => setPanKey(false);
    window.addEventListener('blur', off);
    return () => window.removeEventListener('blur', off);
  }, []);

  const afterChange = () => {
    setChanged(true);
    setHistory({ undo: undo.canUndo, redo: undo.canRedo });
  };
  /** A change of the whole mask (invert, clear, feather), one undo step. */
  const wholeChange = (change: (mask: Mask) => Rect | null) => {
    if (!loaded || readOnly) return;
    const before = loaded.mask.pixels.slice();
    const rect = change(loaded.mask);
    if (!rect) return;
    undo.record(loaded.mask, rect, before);
    redraw(rect);
    afterChange();
  };
  const step = (back: boolean) => {
    if (!loaded || readOnly) return;
    const rect = back ? undo.undo(loaded.mask) : undo.redo(loaded.mask);
    if (!rect) return;
    redraw(rect);
    afterChange();
  };

  /** Replaces the mask with the people found in the image (or, for the background, all but them): one undo step. */
  const selectPerson = async (what: 'person' | 'background') => {
    if (!loaded || readOnly || finding) return;
    setFinding(what);
    setFound(null);
    try {
      const [{ findPerson }, bitmap] = await Promise.all([import('../canvas/person-mask'), bitmapOf(image)]);
      let result;
      try {
        result = await findPerson(bitmap, loaded.width, loaded.height);
      } finally {
        bitmap.close();
      }
      if (result.count === 0) {
        setFound({ text: 'No person found: the mask is unchanged. (The person finder finds people only.)' });
        return;
      }
      wholeChange((mask) => {
        mask.pixels.set(result.pixels);
        return what === 'background' ? invert(mask) : whole(mask);
      });
      const share = Math.round((100 * result.count) / result.pixels.length);
      setFound({ text: what === 'person' ? `Person selected (${share}% of the image).` : `Background selected (${100 - share}% of the image).` });
    } catch (error) {
      setFound({ text: `The person could not be found: ${error instanceof Error ? error.message : 'unknown error'}.`, error: true });
    } finally {
      setFinding(null);
    }
  };

  const pointOf = (event: ReactPointerEvent) => {
    const el = stage.current!;
    const r = el.getBoundingClientRect();
    return { x: event.clientX - r.left - el.clientLeft, y: event.clientY - r.top - el.clientTop }; // inside its border
  };

  const paintTo = (g: Extract<Gesture, { type: 'stroke' }>, to: Point) => {
    if (!loaded) return;
    const { dabs, carry } = dabsAlong(g.last, to, dabSpacing(g.size), g.carry);
    let rect: Rect | null = null;
    for (const dab of dabs) rect = union(rect, paintDab(loaded.mask, dab, g.size, { mode, hardness: hardness / 100 }));
    g.last = to;
    g.carry = carry;
    g.rect = union(g.rect, rect);
    redraw(rect);
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    const v = viewRef.current;
    if (!loaded || !v) return;
    const p = pointOf(event);
    pointers.current.set(event.pointerId, p);
    try {
      event.currentTarget.setPointerCapture(event.pointerId);
    } catch {
      // a pointer the browser no longer tracks: its events still come while it is over the stage
    }
    const g = gesture.current;
    if (event.pointerType === 'touch' && pointers.current.size === 2) {
      // A second finger: the gesture is a pan and pinch; a stroke the first finger began is taken back.
      if (g?.type === 'stroke') {
        paste(loaded.mask, whole(loaded.mask), g.before);
        redraw(g.rect);
      }
      const [a, b] = [...pointers.current.keys()];
      gesture.current = { type: 'pinch', a, b, a0: pointers.current.get(a)!, b0: pointers.current.get(b)!, start: v };
      return;
    }
    if (pointers.current.size > 1 || g) return;
    if (event.button === 1 || panKey || readOnly) {
      event.preventDefault();
      gesture.current = { type: 'pan', id: event.pointerId, last: p };
      return;
    }
    if (event.button !== 0) return;
    const at = toImage(v, p);
    const stroke: Gesture = { type: 'stroke', id: event.pointerId, last: at, carry: 0, before: loaded.mask.pixels.slice(), rect: null, size: pressedSize(size, event.pointerType, event.pressure) };
    stroke.rect = paintDab(loaded.mask, at, stroke.size, { mode, hardness: hardness / 100 });
    redraw(stroke.rect);
    gesture.current = stroke;
  };

  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const p = pointOf(event);
    const v = viewRef.current;
    if (event.pointerType !== 'touch') setCursor(p);
    if (!pointers.current.has(event.pointerId)) return;
    pointers.current.set(event.pointerId, p);
    const g = gesture.current;
    if (!g || !v) return;
    if (g.type === 'pinch') {
      const a = pointers.current.get(g.a);
      const b = pointers.current.get(g.b);
      if (a && b) setView(pinchView(g.start, g.a0, g.b0, a, b));
    } else if (g.type === 'pan' && g.id === event.pointerId) {
      const dx = p.x - g.last.x;
      const dy = p.y - g.last.y;
      g.last = p;
      setView((w) => (w ? { ...w, x: w.x + dx, y: w.y + dy } : w));
    } else if (g.type === 'stroke' && g.id === event.pointerId) {
      g.size = pressedSize(size, event.pointerType, event.pressure);
      paintTo(g, toImage(v, p));
    }
  };

  const onPointerEnd = (event: ReactPointerEvent<HTMLDivElement>) => {
    pointers.current.delete(event.pointerId);
    const g = gesture.current;
    if (!g || !loaded) return;
    if (g.type === 'stroke' && g.id === event.pointerId) {
      undo.record(loaded.mask, g.rect, g.before);
      afterChange();
      gesture.current = null;
    } else if (g.type === 'pan' && g.id === event.pointerId) {
      gesture.current = null;
    } else if (g.type === 'pinch' && pointers.current.size === 0) {
      gesture.current = null; // the fingers all lifted: the next touch paints again
    }
  };

  const close = () => (changed && !readOnly ? setAsking(true) : onClose());

  const save = async () => {
    if (!loaded || saving) return;
    setSaving(true);
    setSaveError(null);
    try {
      await onSave(isEmpty(loaded.mask) ? null : await pngOf(loaded.mask));
      onClose();
    } catch (error) {
      setSaveError(error instanceof Error ? error.message : 'The mask could not be saved');
      setSaving(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    stop(event);
    if (asking || typingInto(event.target)) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    const onControl = event.target instanceof HTMLButtonElement || event.target instanceof HTMLInputElement;
    let handled = true;
    if (mod && key === 'z') step(!event.shiftKey);
    else if (mod && key === 'y') step(false);
    else if (mod) handled = false;
    else if (key === 'b' && !readOnly) setMode('paint');
    else if (key === 'e' && !readOnly) setMode('erase');
    else if (key === 'p' && !readOnly) void selectPerson('person');
    else if (key === '+' || key === '=') zoomBy(ZOOM_STEP);
    else if (key === '-' || key === '_') zoomBy(1 / ZOOM_STEP);
    else if (key === '0') fit();
    else if (key === '[' && !readOnly) setSize((s) => Math.max(BRUSH_SIZE.min, Math.round(s / 1.2)));
    else if (key === ']' && !readOnly) setSize((s) => Math.min(BRUSH_SIZE.max, Math.round(s * 1.2) + 1));
    else if (key === ' ' && !onControl) setPanKey(true);
    else handled = false;
    if (handled) event.preventDefault();
  };
  const onKeyUp = (event: KeyboardEvent) => {
    stop(event);
    if (event.key === ' ') setPanKey(false);
  };

  const zoomPercent = view ? `${Math.round(view.scale * 100)}%` : '—';
  const cursorSize = view ? size * view.scale : 0;
  const title = readOnly ? 'Mask (view only)' : 'Paint mask';

  return createPortal(
    <div className="nokey" onClick={stop} onDoubleClick={stop} onKeyDown={onKeyDown} onKeyUp={onKeyUp} onPointerDown={stop} onMouseDown={stop} onWheel={stop} onContextMenu={stop}>
      <Modal labelledBy={titleId} className="dialog mask-editor nokey" onClose={close}>
        <header className="mask-editor-head">
          <h2 id={titleId}>{title}</h2>
          {loaded && (
            <span className="muted small">
              {loaded.width}×{loaded.height} px
            </span>
          )}
          <div className="mask-editor-actions">
            <button type="button" className="button small ghost" onClick={close}>
              {readOnly ? 'Close' : 'Cancel'}
            </button>
            {!readOnly && (
              <button type="button" className="button small primary" onClick={() => void save()} disabled={!loaded || saving}>
                {saving ? 'Saving…' : 'Save mask'}
              </button>
            )}
          </div>
        </header>
        {!readOnly && (
          <div className="mask-tools" role="toolbar" aria-label="Mask tools">
            <div className="mask-tool-group" role="group" aria-label="Tool">
              <button type="button" className="button small" aria-pressed={mode === 'paint'} onClick={() => setMode('paint')} title="Brush (B)" aria-keyshortcuts="B">
                Brush
              </button>
              <button type="button" className="button small" aria-pressed={mode === 'erase'} onClick={() => setMode('erase')} title="Eraser (E)" aria-keyshortcuts="E">
                Eraser
              </button>
            </div>
            <label className="mask-slider">
              <span className="small">Size {size} px</span>
              <input type="range" min={BRUSH_SIZE.min} max={BRUSH_SIZE.max} value={size} onChange={(e) => setSize(Number(e.target.value))} aria-label="Brush size (pixels)" />
            </label>
            <label className="mask-slider">
              <span className="small">Hardness {hardness}%</span>
              <input type="range" min={0} max={100} value={hardness} onChange={(e) => setHardness(Number(e.target.value))} aria-label="Brush hardness (percent)" />
            </label>
            <div className="mask-tool-group" role="group" aria-label="Feather">
              <label className="mask-slider">
                <span className="small">Feather {featherPx} px</span>
                <input type="range" min={1} max={FEATHER_MAX} value={featherPx} onChange={(e) => setFeatherPx(Number(e.target.value))} aria-label="Feather (pixels)" />
              </label>
              <button type="button" className="button small" onClick={() => wholeChange((m) => feather(m, featherPx))} disabled={!loaded}>
                Feather edges
              </button>
            </div>
            <div className="mask-tool-group" role="group" aria-label="Whole mask">
              <button type="button" className="button small" onClick={() => wholeChange(invert)} disabled={!loaded}>
                Invert
              </button>
              <button type="button" className="button small" onClick={() => wholeChange(clear)} disabled={!loaded}>
                Clear
              </button>
            </div>
            <div className="mask-tool-group" role="group" aria-label="Automatic mask" aria-describedby={`${titleId}-auto`}>
              <button type="button" className="button small" onClick={() => void selectPerson('person')} disabled={!loaded} aria-disabled={finding !== null} title="Select person (P)" aria-keyshortcuts="P">
                Select person
              </button>
              <button type="button" className="button small" onClick={() => void selectPerson('background')} disabled={!loaded} aria-disabled={finding !== null}>
                Select background
              </button>
              <span className="muted small" id={`${titleId}-auto`}>
                Offline, MediaPipe selfie segmentation: finds people only
              </span>
            </div>
            <div className="mask-tool-group" role="group" aria-label="History">
              <button type="button" className="button small" onClick={() => step(true)} disabled={!history.undo} title="Undo (Ctrl+Z)" aria-keyshortcuts="Control+Z Meta+Z">
                Undo
              </button>
              <button type="button" className="button small" onClick={() => step(false)} disabled={!history.redo} title="Redo (Ctrl+Shift+Z)" aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z">
                Redo
              </button>
            </div>
          </div>
        )}
        <div className="mask-tools" role="toolbar" aria-label="View">
          <button type="button" className="button small" onClick={() => zoomBy(1 / ZOOM_STEP)} aria-label="Zoom out" title="Zoom out (−)" aria-keyshortcuts="-">
            −
          </button>
          <output className="small mask-zoom" aria-label="Zoom" data-zoom={view?.scale ?? ''}>
            {zoomPercent}
          </output>
          <button type="button" className="button small" onClick={() => zoomBy(ZOOM_STEP)} aria-label="Zoom in" title="Zoom in (+)" aria-keyshortcuts="+">
            +
          </button>
          <button type="button" className="button small" onClick={fit} title="Fit (0)" aria-keyshortcuts="0">
            Fit
          </button>
          <span className="muted small mask-hint">{readOnly ? 'Drag or two fingers to pan; wheel or pinch to zoom.' : 'Space or middle button + drag, or two fingers: pan. Wheel or pinch: zoom.'}</span>
        </div>
        {loaded?.note && (
          <p className="small mask-note" role="status">
            {loaded.note}
          </p>
        )}
        {loadError && (
          <p className="error small" role="alert">
            {loadError}
          </p>
        )}
        {finding && (
          <p className="small mask-note" role="status">
            {finding === 'person' ? 'Finding the person…' : 'Finding the background…'}
          </p>
        )}
        {found && (
          <p className={found.error ? 'error small' : 'small mask-note'} role={found.error ? 'alert' : 'status'}>
            {found.text}
          </p>
        )}
        {saveError && (
          <p className="error small" role="alert">
            {saveError}
          </p>
        )}
        <div
          ref={stage}
          className={`mask-stage${panKey || readOnly ? ' panning' : ''}`}
          data-mode={mode}
          role="application"
          aria-roledescription="mask painting area"
          aria-label={readOnly ? 'The image with its mask' : 'The image: drag to paint the mask (white edits), B brush, E eraser'}
          tabIndex={0}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerEnd}
          onPointerCancel={onPointerEnd}
          onPointerLeave={() => setCursor(null)}
        >
          {!loaded && !loadError && <p className="muted small mask-loading">Loading the image…</p>}
          {loaded && view && (
            <div className="mask-layer" style={{ width: loaded.width, height: loaded.height, transform: `translate(${view.x}px, ${view.y}px) scale(${view.scale})` }}>
              <img src={image} alt="" width={loaded.width} height={loaded.height} draggable={false} />
              <canvas ref={overlay} width={loaded.width} height={loaded.height} className="mask-overlay" />
            </div>
          )}
          {cursor && !readOnly && !panKey && loaded && (
            <div className="mask-cursor" aria-hidden="true" style={{ left: cursor.x - cursorSize / 2, top: cursor.y - cursorSize / 2, width: cursorSize, height: cursorSize }} />
          )}
        </div>
      </Modal>
      {asking && (
        <ConfirmDialog title="Discard the unsaved mask?" confirmLabel="Discard" onConfirm={onClose} onCancel={() => setAsking(false)}>
          The changes painted since the editor opened are not saved.
        </ConfirmDialog>
      )}
    </div>,
    document.body,
  );
}
