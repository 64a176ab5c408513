// The arithmetic of a composition (src/kinds/compose.ts), apart from any pixels so it can be tested alone: each
// layer's size after its scale and the part of it that lies on the composition, the composition's size, and the
// blend modes in sharp's (libvips') and ag-psd's (Photoshop's) names. ./compose.ts does the pixel work with it.
import { DEFAULT_LAYER, type BlendMode, type Layer } from '../kinds/compose.js';

export interface Size {
  width: number;
  height: number;
}

/** A layer on the composition: its size after its scale, and the part of it inside the composition. */
export interface Placement {
  /** Its image's size times its scale (at least 1 px a side). */
  scaled: Size;
  /** The part of the scaled layer that lies on the composition, in the layer's own pixels. */
  crop: { left: number; top: number; width: number; height: number };
  /** Where that part goes on the composition. */
  at: { left: number; top: number };
}

/** The layer's image scaled by its scale: rounded, at least 1 px a side. */
export const scaledSize = (image: Size, scale: number): Size => ({
  width: Math.max(1, Math.round(image.width * scale)),
  height: Math.max(1, Math.round(image.height * scale)),
});

/** Where a layer lands on a composition of `canvas`'s size; undefined when no pixel of it does. */
export function placement(layer: Pick<Layer, 'x' | 'y' | 'scale'>, image: Size, canvas: Size): Placement | undefined {
  const scaled = scaledSize(image, layer.scale);
  const left = Math.max(0, layer.x);
  const top = Math.max(0, layer.y);
  const right = Math.min(canvas.width, layer.x + scaled.width);
  const bottom = Math.min(canvas.height, layer.y + scaled.height);
  if (right <= left || bottom <= top) return undefined;
  return { scaled, crop: { left: left - layer.x, top: top - layer.y, width: right - left, height: bottom - top }, at: { left, top } };
}

/** The composition's size: `width` and `height` when given, else (each) the first image's. */
export const compositionSize = (data: { width?: number; height?: number }, first: Size): Size => ({ width: data.width ?? first.width, height: data.height ?? first.height });

/** Layer i's placement: `data.layers[i]`, else the default (0,0, full size, opaque, normal). */
export const layerAt = (layers: readonly Layer[] | undefined, i: number): Layer => layers?.[i] ?? DEFAULT_LAYER;

/** A layer's name as shown (PSD layer names, messages): its `name`, else "Layer <i + 1>". */
export const layerName = (layer: Layer, i: number): string => (layer.name?.trim() ? layer.name : `Layer ${i + 1}`);

/** sharp's names for the blend modes: `over` for normal, the rest as CSS spells them. */
export const SHARP_BLEND = {
  normal: 'over',
  multiply: 'multiply',
  screen: 'screen',
  overlay: 'overlay',
  darken: 'darken',
  lighten: 'lighten',
  'color-dodge': 'colour-dodge',
  'color-burn': 'colour-burn',
  'hard-light': 'hard-light',
  'soft-light': 'soft-light',
  difference: 'difference',
  exclusion: 'exclusion',
} as const satisfies Record<BlendMode, string>;

/** ag-psd's (Photoshop's) names: words with spaces. */
export const PSD_BLEND = {
  normal: 'normal',
  multiply: 'multiply',
  screen: 'screen',
  overlay: 'overlay',
  darken: 'darken',
  lighten: 'lighten',
  'color-dodge': 'color dodge',
  'color-burn': 'color burn',
  'hard-light': 'hard light',
  'soft-light': 'soft light',
  difference: 'difference',
  exclusion: 'exclusion',
} as const satisfies Record<BlendMode, string>;

/** `#rrggbb` as sharp's colour (opaque). */
export function colourOf(hex: string): { r: number; g: number; b: number; alpha: number } {
  const n = Number.parseInt(hex.slice(1), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255, alpha: 1 };
}

/**
 * Multiplies RGBA pixels' alpha by a mask's grey (white keeps, black clears; the mask one channel of the same
 * size) and by `opacity`, in place.
 */
export function applyAlpha(rgba: Uint8Array, mask: Uint8Array | undefined, opacity: number): void {
  const n = rgba.length / 4;
  if (!mask && opacity >= 1) return;
  for (let i = 0; i < n; i++) {
    const m = mask ? mask[i] / 255 : 1;
    rgba[i * 4 + 3] = Math.round(rgba[i * 4 + 3] * m * opacity);
  }
}
