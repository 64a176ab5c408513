// A composition's pixel work, in the image workers (./worker.ts `compose` and `psd`): each layer decoded (at most
// `maxPixels`), turned upright, scaled, cut to the part that lies on the composition, its mask (resized to the
// layer's scaled size, grey = alpha) and opacity multiplied into its alpha, then blended in order (bottom first)
// over the background with sharp; or, for the PSD download, the same layers (hidden ones too, opacity kept as the
// layer's property, the mask baked into the layer's alpha) written with ag-psd over the stored composite. Expected
// failures are answers naming the layer, not exceptions.
import { initializeCanvas, writePsdBuffer, type Layer as PsdLayer, type Psd } from 'ag-psd';
import sharp from 'sharp';
import type { Layer } from '../kinds/compose.js';
import { COMPOSE_LAYERS_MAX } from '../kinds/compose.js';
import { applyAlpha, colourOf, compositionSize, layerAt, layerName, placement, PSD_BLEND, SHARP_BLEND, scaledSize, type Placement, type Size } from './compose-plan.js';

export interface ComposeTask {
  /** Layer i's image (the i-th image of the `images` input), bottom first. */
  images: Uint8Array[];
  /** The masks connected (`layers[i].mask` indexes them). */
  masks: Uint8Array[];
  layers?: Layer[];
  width?: number;
  height?: number;
  background?: string;
  /** The most pixels each image, each scaled layer and the composition may have (INPUT_IMAGE_MAX_PIXELS). */
  maxPixels: number;
}

type Failure =
  | { ok: false; kind: 'input'; port: 'images' | 'masks'; index: number; message: string }
  | { ok: false; kind: 'settings' | 'too-large' | 'failed'; message: string };

export type ComposeAnswer = { ok: true; png: Uint8Array; width: number; height: number } | Failure;

export interface PsdTask extends ComposeTask {
  /** The composition as made (the node's result). */
  composite: Uint8Array;
  /** PSD_MAX_BYTES: a larger PSD is refused, before it is made when its pixels alone pass it. */
  maxBytes: number;
}

export type PsdAnswer = { ok: true; psd: Uint8Array; width: number; height: number } | Failure;

/** A layer ready to draw: its visible part as RGBA, and where it goes. */
interface Prepared {
  index: number;
  layer: Layer;
  name: string;
  /** Undefined when no pixel of it lies on the composition. */
  place?: Placement;
  rgba?: Buffer;
}

const what = (layer: Layer, i: number) => `layer ${i + 1} (${JSON.stringify(layerName(layer, i))})`;

/** An image's upright size from its header, or undefined when it cannot be read. */
async function uprightSize(data: Uint8Array): Promise<Size | undefined> {
  try {
    const m = await sharp(data).metadata();
    if (m.width === undefined || m.height === undefined) return undefined;
    return (m.orientation ?? 1) >= 5 ? { width: m.height, height: m.width } : { width: m.width, height: m.height };
  } catch {
    return undefined;
  }
}

/** Every layer's size and placement (nothing decoded yet); `withHidden`: hidden layers too (the PSD keeps them). */
async function plan(task: ComposeTask, withHidden: boolean): Promise<{ ok: true; size: Size; layers: Prepared[]; sizes: Size[] } | Failure> {
  if (task.images.length === 0) return { ok: false, kind: 'settings', message: 'no image is connected to its layers input' };
  if (task.images.length > COMPOSE_LAYERS_MAX) return { ok: false, kind: 'settings', message: `${task.images.length} images are connected, more than the ${COMPOSE_LAYERS_MAX} layers a composition has` };
  const sizes: Size[] = [];
  for (const [i, image] of task.images.entries()) {
    const layer = layerAt(task.layers, i);
    const size = await uprightSize(image);
    if (!size) return { ok: false, kind: 'input', port: 'images', index: i, message: `${what(layer, i)}: its image could not be read` };
    if (size.width * size.height > task.maxPixels) {
      return { ok: false, kind: 'input', port: 'images', index: i, message: `${what(layer, i)}: its image has ${size.width}×${size.height} pixels, more than the ${task.maxPixels} allowed` };
    }
    sizes.push(size);
  }
  const size = compositionSize(task, sizes[0]);
  if (size.width * size.height > task.maxPixels) {
    return { ok: false, kind: 'settings', message: `the composition would have ${size.width}×${size.height} pixels, more than the ${task.maxPixels} allowed` };
  }
  const layers: Prepared[] = [];
  for (const [i, image] of sizes.entries()) {
    const layer = layerAt(task.layers, i);
    if (layer.hidden && !withHidden) continue;
    const scaled = scaledSize(image, layer.scale);
    if (scaled.width * scaled.height > task.maxPixels) {
      return { ok: false, kind: 'settings', message: `${what(layer, i)} scaled by ${layer.scale} would have ${scaled.width}×${scaled.height} pixels, more than the ${task.maxPixels} allowed` };
    }
    if (layer.mask !== undefined && layer.mask >= task.masks.length) {
      return { ok: false, kind: 'settings', message: `${what(layer, i)} takes mask ${layer.mask + 1}, but ${task.masks.length === 1 ? 'one mask is' : `${task.masks.length} masks are`} connected` };
    }
    layers.push({ index: i, layer, name: layerName(layer, i), place: placement(layer, image, size) });
  }
  return { ok: true, size, layers, sizes };
}

/** Decodes the layer's visible part with its mask (and, `withOpacity`, its opacity) in its alpha. */
async function decodeLayer(task: ComposeTask, p: Prepared, withOpacity: boolean): Promise<Failure | undefined> {
  const { place, layer, index } = p;
  if (!place) return undefined;
  const raw = { width: place.crop.width, height: place.crop.height };
  try {
    p.rgba = await sharp(task.images[index], { limitInputPixels: task.maxPixels, failOn: 'error' })
      .rotate()
      .toColourspace('srgb')
      .ensureAlpha()
      .resize(place.scaled.width, place.scaled.height, { fit: 'fill' })
      .extract(place.crop)
      .raw()
      .toBuffer();
  } catch {
    return { ok: false, kind: 'input', port: 'images', index, message: `${what(layer, index)}: its image could not be decoded` };
  }
  if (p.rgba.length !== raw.width * raw.height * 4) return { ok: false, kind: 'input', port: 'images', index, message: `${what(layer, index)}: its image could not be decoded` };
  let mask: Buffer | undefined;
  if (layer.mask !== undefined) {
    const data = task.masks[layer.mask];
    const size = await uprightSize(data);
    if (!size || size.width * size.height > task.maxPixels) {
      return { ok: false, kind: 'input', port: 'masks', index: layer.mask, message: `${what(layer, index)}: its mask (mask ${layer.mask + 1}) ${size ? `has ${size.width}×${size.height} pixels, more than the ${task.maxPixels} allowed` : 'could not be read'}` };
    }
    try {
      mask = await sharp(data, { limitInputPixels: task.maxPixels, failOn: 'error' })
        .rotate()
        .flatten({ background: '#000000' }) // transparent: black, so cut away
        .toColourspace('b-w')
        .resize(place.scaled.width, place.scaled.height, { fit: 'fill' })
        .extract(place.crop)
        .extractChannel(0)
        .raw()
        .toBuffer();
    } catch {
      return { ok: false, kind: 'input', port: 'masks', index: layer.mask, message: `${what(layer, index)}: its mask (mask ${layer.mask + 1}) could not be decoded` };
    }
  }
  applyAlpha(p.rgba, mask, withOpacity ? layer.opacity : 1);
  return undefined;
}

/** The composition as a PNG. */
export async function composeLayers(task: ComposeTask): Promise<ComposeAnswer> {
  const planned = await plan(task, false);
  if (!planned.ok) return planned;
  const { size, layers } = planned;
  for (const p of layers) {
    const failed = await decodeLayer(task, p, true);
    if (failed) return failed;
  }
  const background = task.background ? colourOf(task.background) : { r: 0, g: 0, b: 0, alpha: 0 };
  const overlays = layers
    .filter((p) => p.place && p.rgba)
    .map((p) => ({ input: p.rgba!, raw: { width: p.place!.crop.width, height: p.place!.crop.height, channels: 4 as const }, left: p.place!.at.left, top: p.place!.at.top, blend: SHARP_BLEND[p.layer.blend] }));
  // Composited in one pipeline, in order; flattened to raw first so sharp does not reorder or re-read anything.
  const base = sharp({ create: { width: size.width, height: size.height, channels: 4, background } });
  const png = await (overlays.length > 0 ? sharp(await base.composite(overlays).raw().toBuffer(), { raw: { width: size.width, height: size.height, channels: 4 } }) : base).png().toBuffer();
  return { ok: true, png, width: size.width, height: size.height };
}

let canvasReady = false;
/** ag-psd with no canvas package: image data as plain objects (we give it RGBA and ask for RGBA). */
function psdCanvas(): void {
  if (canvasReady) return;
  initializeCanvas(
    () => {
      throw new Error('no canvas in the image workers: PSDs are written from image data');
    },
    (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4), colorSpace: 'srgb' }) as unknown as ImageData,
  );
  canvasReady = true;
}

/** The layered PSD: one layer per image (hidden ones hidden), the composite as its merged image. */
export async function composePsd(task: PsdTask): Promise<PsdAnswer> {
  const planned = await plan(task, true);
  if (!planned.ok) return planned;
  const { size, layers } = planned;
  // Its pixels alone (each layer's visible part and the composite, RGBA) bound what it needs before anything is decoded.
  const pixels = size.width * size.height + layers.reduce((sum, p) => sum + (p.place ? p.place.crop.width * p.place.crop.height : 0), 0);
  if (pixels * 4 > task.maxBytes) return { ok: false, kind: 'too-large', message: `its ${layers.length} layers and composite are ${pixels * 4} bytes of pixels (${size.width}×${size.height}), more than the ${task.maxBytes} bytes a PSD may have` };
  for (const p of layers) {
    const failed = await decodeLayer(task, p, false);
    if (failed) return failed;
  }
  let composite: Buffer;
  try {
    composite = await sharp(task.composite, { limitInputPixels: task.maxPixels, failOn: 'error' }).ensureAlpha().resize(size.width, size.height, { fit: 'fill' }).raw().toBuffer();
  } catch {
    return { ok: false, kind: 'settings', message: 'its result image could not be read' };
  }
  psdCanvas();
  const image = (width: number, height: number, data: Buffer) => ({ width, height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), colorSpace: 'srgb' }) as unknown as ImageData;
  const children: PsdLayer[] = layers.map((p) => {
    const base: PsdLayer = { name: p.name, opacity: p.layer.opacity, blendMode: PSD_BLEND[p.layer.blend], hidden: p.layer.hidden === true };
    if (!p.place || !p.rgba) return base;
    const { at, crop } = p.place;
    return { ...base, left: at.left, top: at.top, right: at.left + crop.width, bottom: at.top + crop.height, imageData: image(crop.width, crop.height, p.rgba) };
  });
  const psd: Psd = { width: size.width, height: size.height, channels: 4, children, imageData: image(size.width, size.height, composite) };
  const buffer = writePsdBuffer(psd, { noBackground: true });
  if (buffer.length > task.maxBytes) return { ok: false, kind: 'too-large', message: `it would be ${buffer.length} bytes, more than the ${task.maxBytes} bytes a PSD may have` };
  return { ok: true, psd: buffer, width: size.width, height: size.height };
}
