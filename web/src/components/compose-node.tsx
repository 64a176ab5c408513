// A compose node (type `compose`, src/kinds/compose.ts): its layers — the images wired into its `images` input, in
// edge order, bottom first — listed with their name, visibility, opacity, blend mode and mask, and shown on a stage
// at their place and scale, where a layer is dragged (mouse, pen or touch) to move it, resized by its corner handle
// (or its scale field), and moved by the arrow keys when focused (1 px, Shift 10 px). Every change writes
// `data.layers` through setFields (one undo step; a drag writes once, when it ends). Layer i always belongs to the
// i-th image edge, so moving a layer up or down moves its edge (the editor's reorderEdges: the edges from there on
// re-added after the others in their new order) and swaps the `data.layers` entries with it, in one undo step —
// never `data.layers` alone. Also the composition's size and background, its run and result, and "Download PSD"
// (GET /api/projects/{id}/nodes/{nodeId}/psd) once it has a result.
import { useEdges, useNodesData, type NodeProps } from '@xyflow/react';
import { useId, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { BLEND_MODES, COMPOSE_LAYERS_MAX, DEFAULT_LAYER, isLayer, LAYER_OFFSET_MAX, LAYER_SCALE_MAX, LAYER_SCALE_MIN, type BlendMode, type Layer } from '../../../src/kinds/compose.js';
import { IMAGE_SIDE_MAX } from '../../../src/kinds/image-steps.js';
import { useEditor } from '../canvas/editor-context';
import { kindOf, portOf } from '../canvas/kinds';
import type { CanvasNode } from '../canvas/model';
import { DraftNumberInput, type ParsedNumber } from './draft-number';
import { NodeFrame } from './node-frame';
import { isWebUrl } from './node-image';
import { NumberField, StepsRun } from './step-fields';
import './compose-node.css';

/** The stage's width in the node, CSS pixels. */
const STAGE_WIDTH = 260;

interface Size {
  width: number;
  height: number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const BLEND_LABELS: Record<BlendMode, string> = {
  normal: 'Normal',
  multiply: 'Multiply',
  screen: 'Screen',
  overlay: 'Overlay',
  darken: 'Darken',
  lighten: 'Lighten',
  'color-dodge': 'Color dodge',
  'color-burn': 'Color burn',
  'hard-light': 'Hard light',
  'soft-light': 'Soft light',
  difference: 'Difference',
  exclusion: 'Exclusion',
};

/** A layer as stored: absent optional keys left out (the kind's rule refuses `undefined` values only as keys). */
function cleanLayer(layer: Layer): Layer {
  const out: Layer = { x: layer.x, y: layer.y, scale: layer.scale, opacity: layer.opacity, blend: layer.blend };
  if (layer.mask !== undefined) out.mask = layer.mask;
  if (layer.name) out.name = layer.name;
  if (layer.hidden) out.hidden = true;
  return out;
}

/** What the nodes wired into a port give: a mask node's `mask` output its mask, anything else its image. */
function useWired(nodeId: string, type: string, port: string): Array<{ edgeId: string; url?: string }> {
  // The canvas's edges in their order (the document's), not xyflow's connection lookup, which keeps an edge's first
  // place when it is removed and added again (a layer moved up or down).
  const edges = useEdges();
  const inputs = kindOf(type)?.inputs ?? [];
  const wired = edges.filter((e) => e.target === nodeId && portOf(inputs, e.targetHandle)?.name === port).map((e) => ({ edgeId: e.id, source: e.source, sourceHandle: e.sourceHandle }));
  const sources = useNodesData<CanvasNode>(wired.map((c) => c.source));
  const byId = new Map(sources.map((s) => [s.id, s]));
  return wired.map((c) => {
    const source = byId.get(c.source);
    const data: Rec = source && isRec(source.data) ? source.data : {};
    const from = portOf(kindOf(source?.type)?.outputs ?? [], c.sourceHandle);
    const url = from?.value === 'mask' ? data.mask : data.image;
    return { edgeId: c.edgeId, url: typeof url === 'string' ? url : undefined };
  });
}

export function ComposeNode({ id, type, data }: NodeProps<CanvasNode>) {
  const { setFields, readOnly, projectId, reorderEdges } = useEditor();
  const images = useWired(id, type, 'images');
  const masks = useWired(id, type, 'masks');
  const stored: Layer[] = Array.isArray(data.layers) ? (data.layers as unknown[]).filter(isLayer) : [];
  const layerAt = (i: number): Layer => stored[i] ?? DEFAULT_LAYER;
  const [sizes, setSizes] = useState<Record<string, Size>>({});
  const [selected, setSelected] = useState(0);
  /** A drag in progress: the layer shown where the pointer has it, written when it ends. */
  const [moving, setMoving] = useState<{ index: number; layer: Layer } | undefined>();
  const drag = useRef<{ index: number; pointer: number; startX: number; startY: number; from: Layer; mode: 'move' | 'resize'; natural: Size; perPixel: number } | undefined>(undefined);

  /** Writes layer `index` changed by `patch` (every layer up to it, and those wired, written whole). */
  const writeLayer = (index: number, patch: Partial<Layer>) => {
    const count = Math.max(stored.length, index + 1, images.length);
    const next = Array.from({ length: Math.min(count, COMPOSE_LAYERS_MAX) }, (_, i) => cleanLayer(stored[i] ?? DEFAULT_LAYER));
    const changed = cleanLayer({ ...next[index], ...patch });
    if (!isLayer(changed)) return; // outside the kind's bounds: not written
    next[index] = changed;
    setFields(id, { layers: next });
  };

  const first = images[0]?.url ? sizes[images[0].url] : undefined;
  const width = typeof data.width === 'number' ? data.width : first?.width;
  const height = typeof data.height === 'number' ? data.height : first?.height;
  const k = width ? STAGE_WIDTH / width : 1;
  const background = typeof data.background === 'string' ? data.background : undefined;
  const image = typeof data.image === 'string' ? data.image : undefined;

  /** Swaps layer `index` with the one above (+1) or below (−1): their edges swap places, and their data.layers entries. */
  const moveLayer = (index: number, by: 1 | -1) => {
    const to = index + by;
    if (!reorderEdges || to < 0 || to >= images.length) return;
    const order = images.map((w) => w.edgeId);
    [order[index], order[to]] = [order[to], order[index]];
    const count = Math.min(Math.max(stored.length, images.length), COMPOSE_LAYERS_MAX);
    const next = Array.from({ length: count }, (_, i) => cleanLayer(stored[i] ?? DEFAULT_LAYER));
    [next[index], next[to]] = [next[to], next[index]];
    // The edges from the lower of the two on go after the others, in their new order (the others keep theirs).
    reorderEdges(order.slice(Math.min(index, to)), id, { layers: next });
    setSelected(to);
  };

  const onPointerDown = (e: PointerEvent<HTMLElement>, index: number, mode: 'move' | 'resize') => {
    if (readOnly || e.button > 0) return;
    const url = images[index]?.url;
    const natural = url ? sizes[url] : undefined;
    if (!natural) return;
    e.stopPropagation();
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    setSelected(index);
    // Screen pixels per composition pixel: the stage's drawn width (the canvas's zoom included) over the composition's.
    const stage = e.currentTarget.closest('.compose-stage')?.getBoundingClientRect().width;
    const perPixel = stage && width ? stage / width : k;
    drag.current = { index, pointer: e.pointerId, startX: e.clientX, startY: e.clientY, from: layerAt(index), mode, natural, perPixel };
  };
  const onPointerMove = (e: PointerEvent<HTMLElement>) => {
    const d = drag.current;
    if (!d || d.pointer !== e.pointerId) return;
    const dx = (e.clientX - d.startX) / d.perPixel;
    const dy = (e.clientY - d.startY) / d.perPixel;
    if (d.mode === 'move') {
      setMoving({ index: d.index, layer: { ...d.from, x: clamp(Math.round(d.from.x + dx), -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX), y: clamp(Math.round(d.from.y + dy), -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX) } });
    } else {
      const scale = clamp((d.natural.width * d.from.scale + dx) / d.natural.width, LAYER_SCALE_MIN, LAYER_SCALE_MAX);
      setMoving({ index: d.index, layer: { ...d.from, scale: Math.round(scale * 1000) / 1000 } });
    }
  };
  const onPointerEnd = (e: PointerEvent<HTMLElement>) => {
    const d = drag.current;
    if (!d || d.pointer !== e.pointerId) return;
    drag.current = undefined;
    if (moving && moving.index === d.index && e.type === 'pointerup') {
      const { x, y, scale } = moving.layer;
      if (x !== d.from.x || y !== d.from.y || scale !== d.from.scale) writeLayer(d.index, { x, y, scale });
    }
    setMoving(undefined);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLElement>, index: number) => {
    const step = e.shiftKey ? 10 : 1;
    const move = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[e.key];
    if (!move || readOnly) return;
    e.preventDefault();
    e.stopPropagation();
    const l = layerAt(index);
    writeLayer(index, { x: clamp(l.x + move[0], -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX), y: clamp(l.y + move[1], -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX) });
  };

  const shown = (i: number) => (moving?.index === i ? moving.layer : layerAt(i));
  const selectedUrl = images[selected]?.url;
  const selectedSize = selectedUrl ? sizes[selectedUrl] : undefined;
  const f = { nodeId: id, type, data };

  return (
    <NodeFrame nodeId={id} type={type}>
      <div className="step-fields" role="group" aria-label="Composition size">
        <NumberField {...f} field="width" label="Width" min={1} max={IMAGE_SIDE_MAX} />
        <NumberField {...f} field="height" label="Height" min={1} max={IMAGE_SIDE_MAX} />
        <BackgroundField nodeId={id} value={background} />
      </div>
      {images.length === 0 ? (
        <p className="muted small">Connect images into the Layers handle: each is a layer, the first at the bottom.</p>
      ) : (
        <div
          className="compose-stage nodrag nopan nowheel"
          style={{ width: STAGE_WIDTH, height: height ? Math.max(8, Math.round(height * k)) : 120, background: background ?? undefined }}
          aria-label="Stage: drag a layer to move it, its corner to resize it; arrow keys move the focused layer"
          role="group"
        >
          {images.map((wired, i) => {
            const l = shown(i);
            const natural = wired.url ? sizes[wired.url] : undefined;
            const mask = l.mask !== undefined ? masks[l.mask]?.url : undefined;
            if (!wired.url || !isWebUrl(wired.url)) return null;
            const name = l.name || `Layer ${i + 1}`;
            return (
              <div
                key={wired.edgeId}
                className={`compose-layer${selected === i ? ' selected' : ''}${l.hidden ? ' hidden' : ''}`}
                data-layer={i}
                tabIndex={0}
                role="button"
                aria-label={`${name} at ${l.x}, ${l.y}, scale ${l.scale}`}
                aria-pressed={selected === i}
                style={{
                  left: l.x * k,
                  top: l.y * k,
                  width: natural ? natural.width * l.scale * k : undefined,
                  height: natural ? natural.height * l.scale * k : undefined,
                  opacity: l.opacity,
                  mixBlendMode: l.blend,
                  zIndex: i + 1,
                  ...(mask && isWebUrl(mask) ? { maskImage: `url("${mask}")`, maskSize: '100% 100%', maskMode: 'luminance' } : {}),
                }}
                onFocus={() => setSelected(i)}
                onPointerDown={(e) => onPointerDown(e, i, 'move')}
                onPointerMove={onPointerMove}
                onPointerUp={onPointerEnd}
                onPointerCancel={onPointerEnd}
                onKeyDown={(e) => onKeyDown(e, i)}
              >
                <img
                  src={wired.url}
                  alt=""
                  draggable={false}
                  onLoad={(e) => {
                    const { naturalWidth, naturalHeight } = e.currentTarget;
                    const url = wired.url!;
                    setSizes((s) => (s[url]?.width === naturalWidth && s[url]?.height === naturalHeight ? s : { ...s, [url]: { width: naturalWidth, height: naturalHeight } }));
                  }}
                />
              </div>
            );
          })}
          {!readOnly && selectedSize && (
            // The selected layer's corner handle, above every layer (a layer above it may cover its corner).
            <span
              className="compose-handle"
              aria-hidden="true"
              style={{
                left: (shown(selected).x + selectedSize.width * shown(selected).scale) * k,
                top: (shown(selected).y + selectedSize.height * shown(selected).scale) * k,
                zIndex: images.length + 1,
              }}
              onPointerDown={(e) => onPointerDown(e, selected, 'resize')}
              onPointerMove={onPointerMove}
              onPointerUp={onPointerEnd}
              onPointerCancel={onPointerEnd}
            />
          )}
        </div>
      )}
      <ol className="compose-layers" aria-label="Layers, bottom first">
        {images.map((wired, i) => (
          <LayerRow
            key={wired.edgeId}
            index={i}
            count={images.length}
            layer={shown(i)}
            masks={masks.length}
            selected={selected === i}
            onSelect={() => setSelected(i)}
            write={(patch) => writeLayer(i, patch)}
            move={reorderEdges ? (by) => moveLayer(i, by) : undefined}
            readOnly={readOnly === true}
          />
        ))}
      </ol>
      <StepsRun nodeId={id} type={type} data={data} variants />
      {image && projectId && (
        <a className="button compose-psd" href={`/api/projects/${encodeURIComponent(projectId)}/nodes/${encodeURIComponent(id)}/psd`} download>
          Download PSD
        </a>
      )}
    </NodeFrame>
  );
}

function BackgroundField({ nodeId, value }: { nodeId: string; value: string | undefined }) {
  const { setFields, readOnly } = useEditor();
  const colourId = useId();
  return (
    <div className="step-field compose-background">
      <label className="small" htmlFor={colourId}>
        Background
      </label>
      <span className="compose-background-row">
        <input id={colourId} className="nodrag" type="color" value={value ?? '#000000'} disabled={readOnly} onChange={(e) => setFields(nodeId, { background: e.target.value.toLowerCase() })} />
        <label className="small check">
          <input type="checkbox" className="nodrag" checked={value === undefined} disabled={readOnly} onChange={(e) => setFields(nodeId, { background: e.target.checked ? undefined : '#000000' })} />
          None
        </label>
      </span>
    </div>
  );
}

function LayerRow({
  index,
  count,
  layer,
  masks,
  selected,
  onSelect,
  write,
  move,
  readOnly,
}: {
  index: number;
  count: number;
  layer: Layer;
  masks: number;
  selected: boolean;
  onSelect: () => void;
  write: (patch: Partial<Layer>) => void;
  move?: (by: 1 | -1) => void;
  readOnly: boolean;
}) {
  const base = useId();
  const label = `Layer ${index + 1}`;
  // A layer's place: whole pixels within the offsets a layer may have; its scale within its bounds.
  const place = (text: string): ParsedNumber => {
    const n = text.trim() === '' ? Number.NaN : Number(text);
    return Number.isInteger(n) && Math.abs(n) <= LAYER_OFFSET_MAX ? { value: n } : null;
  };
  const scale = (text: string): ParsedNumber => {
    const n = text.trim() === '' ? Number.NaN : Number(text);
    return Number.isFinite(n) && n >= LAYER_SCALE_MIN && n <= LAYER_SCALE_MAX ? { value: n } : null;
  };
  return (
    <li className={`compose-layer-row${selected ? ' selected' : ''}`} onFocusCapture={onSelect}>
      <fieldset>
        <legend className="small">{layer.name || label}</legend>
        {move && !readOnly && (
          <span className="compose-order">
            <button type="button" className="ghost button nodrag" aria-label={`Move ${layer.name || label} up`} title="Move up (in front)" disabled={index === count - 1} onClick={() => move(1)}>
              ↑
            </button>
            <button type="button" className="ghost button nodrag" aria-label={`Move ${layer.name || label} down`} title="Move down (behind)" disabled={index === 0} onClick={() => move(-1)}>
              ↓
            </button>
          </span>
        )}
        <label className="small check">
          <input type="checkbox" className="nodrag" checked={!layer.hidden} disabled={readOnly} onChange={(e) => write({ hidden: !e.target.checked })} />
          Visible
        </label>
        <label className="small" htmlFor={`${base}-name`}>
          Name
        </label>
        <input id={`${base}-name`} className="input nodrag" maxLength={100} value={layer.name ?? ''} placeholder={label} readOnly={readOnly} onChange={(e) => write({ name: e.target.value })} />
        <label className="small" htmlFor={`${base}-x`}>
          X
        </label>
        <DraftNumberInput id={`${base}-x`} step={1} stored={layer.x} readOnly={readOnly} parse={place} onValue={(x) => x !== undefined && write({ x })} />
        <label className="small" htmlFor={`${base}-y`}>
          Y
        </label>
        <DraftNumberInput id={`${base}-y`} step={1} stored={layer.y} readOnly={readOnly} parse={place} onValue={(y) => y !== undefined && write({ y })} />
        <label className="small" htmlFor={`${base}-scale`}>
          Scale
        </label>
        <DraftNumberInput id={`${base}-scale`} step={0.05} min={LAYER_SCALE_MIN} max={LAYER_SCALE_MAX} stored={layer.scale} readOnly={readOnly} parse={scale} onValue={(v) => v !== undefined && write({ scale: v })} />
        <label className="small" htmlFor={`${base}-opacity`}>
          Opacity
        </label>
        <input id={`${base}-opacity`} className="nodrag" type="range" min={0} max={1} step={0.05} value={layer.opacity} disabled={readOnly} onChange={(e) => write({ opacity: Number(e.target.value) })} />
        <label className="small" htmlFor={`${base}-blend`}>
          Blend
        </label>
        <select id={`${base}-blend`} className="input nodrag" value={layer.blend} disabled={readOnly} onChange={(e) => write({ blend: e.target.value as BlendMode })}>
          {BLEND_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {BLEND_LABELS[mode]}
            </option>
          ))}
        </select>
        <label className="small" htmlFor={`${base}-mask`}>
          Mask
        </label>
        <select id={`${base}-mask`} className="input nodrag" value={layer.mask === undefined ? '' : String(layer.mask)} disabled={readOnly} onChange={(e) => write({ mask: e.target.value === '' ? undefined : Number(e.target.value) })}>
          <option value="">None</option>
          {Array.from({ length: Math.max(masks, layer.mask === undefined ? 0 : layer.mask + 1) }, (_, m) => (
            <option key={m} value={String(m)}>
              {`Mask ${m + 1}${m >= masks ? ' (not connected)' : ''}`}
            </option>
          ))}
        </select>
      </fieldset>
    </li>
  );
}
