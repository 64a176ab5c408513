// The pixel work of the mask editor (components/mask-editor.tsx), free of the DOM so it is tested as it is: a mask
// is one byte per pixel of its image (255 white: the edit changes it; 0 black: kept). A stroke is a row of round
// dabs along the pointer's path, each as soft as its hardness says; invert, clear and feather (a blur of the mask's
// edges, in pixels) change the whole mask; every change is undone by the rectangle it touched (its pixels before and
// after), and the undo stack keeps at most a budget of bytes. The view's maths: fit, zoom about a point, a two-finger
// pinch (zoom and pan at once), and screen ↔ image points.

export interface Point {
  x: number;
  y: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export class Mask {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    pixels?: Uint8Array,
  ) {
    this.pixels = pixels ?? new Uint8Array(width * height);
    if (this.pixels.length !== width * height) throw new Error('mask pixels do not match its size');
  }
}

export type BrushMode = 'paint' | 'erase';

export interface Brush {
  mode: BrushMode;
  /** Diameter in image pixels. */
  size: number;
  /** 0 (soft all the way from the centre) to 1 (a hard edge). */
  hardness: number;
}

export const BRUSH_SIZE = { min: 1, max: 500 } as const;
export const FEATHER_MAX = 100;

/** How much a dab covers at `distance` from its centre: 1 within the hard core, falling smoothly to 0 at the radius. */
export function dabCover(distance: number, radius: number, hardness: number): number {
  if (distance >= radius) return 0;
  const core = radius * Math.min(1, Math.max(0, hardness));
  if (distance <= core) return 1;
  const t = (distance - core) / (radius - core);
  return 1 - t * t * (3 - 2 * t); // smoothstep down
}

/** The brush's diameter under a pen's pressure (0–1; a mouse or finger reports none or 0.5: the full size). */
export function pressedSize(size: number, pointerType: string, pressure: number): number {
  if (pointerType !== 'pen' || !(pressure > 0)) return size;
  return Math.max(BRUSH_SIZE.min, size * (0.2 + 0.8 * Math.min(1, pressure)));
}

/** The intersection of two rectangles (null when they do not meet). */
export function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

/** The smallest rectangle holding both (either may be null). */
export function union(a: Rect | null, b: Rect | null): Rect | null {
  if (!a) return b;
  if (!b) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** Paints (or erases) one dab centred at `at` (image pixels); answers the rectangle it touched, or null. */
export function paintDab(mask: Mask, at: Point, diameter: number, brush: Pick<Brush, 'mode' | 'hardness'>): Rect | null {
  const radius = Math.max(0.5, diameter / 2);
  const box = intersect(
    { x: Math.floor(at.x - radius), y: Math.floor(at.y - radius), width: Math.ceil(radius * 2) + 2, height: Math.ceil(radius * 2) + 2 },
    { x: 0, y: 0, width: mask.width, height: mask.height },
  );
  if (!box) return null;
  const { pixels, width } = mask;
  for (let y = box.y; y < box.y + box.height; y++) {
    const dy = y + 0.5 - at.y;
    for (let x = box.x; x < box.x + box.width; x++) {
      const dx = x + 0.5 - at.x;
      const cover = dabCover(Math.sqrt(dx * dx + dy * dy), radius, brush.hardness);
      if (cover <= 0) continue;
      const i = y * width + x;
      const value = Math.round(cover * 255);
      pixels[i] = brush.mode === 'paint' ? Math.max(pixels[i], value) : Math.min(pixels[i], 255 - value);
    }
  }
  return box;
}

/**
 * The dab centres of a stroke going on from `from` to `to`, every `spacing` pixels along it; `carry` is how far past
 * the last dab the stroke had gone (so dabs stay evenly spaced however the pointer's events fall). Answers the dabs
 * and the new carry.
 */
export function dabsAlong(from: Point, to: Point, spacing: number, carry: number): { dabs: Point[]; carry: number } {
  const step = Math.max(0.5, spacing);
  const length = Math.hypot(to.x - from.x, to.y - from.y);
  const dabs: Point[] = [];
  let at = step - carry;
  for (; at <= length; at += step) {
    const t = length === 0 ? 0 : at / length;
    dabs.push({ x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t });
  }
  return { dabs, carry: length - (at - step) };
}

/** The spacing of a brush's dabs: a quarter of its diameter, at least half a pixel. */
export const dabSpacing = (diameter: number) => Math.max(0.5, diameter / 4);

export function invert(mask: Mask): Rect {
  const { pixels } = mask;
  for (let i = 0; i < pixels.length; i++) pixels[i] = 255 - pixels[i];
  return whole(mask);
}

export function clear(mask: Mask): Rect {
  mask.pixels.fill(0);
  return whole(mask);
}

export const whole = (mask: Mask): Rect => ({ x: 0, y: 0, width: mask.width, height: mask.height });

/** True when nothing is painted: every pixel black. */
export function isEmpty(mask: Mask): boolean {
  const { pixels } = mask;
  for (let i = 0; i < pixels.length; i++) if (pixels[i] !== 0) return false;
  return true;
}

/**
 * Feathers the mask's edges by `radius` pixels: three passes of a box blur each way (close to a Gaussian), so a hard
 * edge becomes a ramp about 2 × radius wide; inside and outside stay as they were. Answers the rectangle changed.
 */
export function feather(mask: Mask, radius: number): Rect | null {
  const r = Math.round(Math.min(FEATHER_MAX, Math.max(0, radius)));
  if (r === 0) return null;
  const { width, height } = mask;
  let a = Float32Array.from(mask.pixels);
  let b = new Float32Array(a.length);
  // Box radius of each of three passes so their sum spreads about as far as `r`.
  const box = Math.max(1, Math.round(r / 1.7));
  for (let pass = 0; pass < 3; pass++) {
    blurRows(a, b, width, height, box);
    [a, b] = [b, a];
    blurColumns(a, b, width, height, box);
    [a, b] = [b, a];
  }
  for (let i = 0; i < a.length; i++) mask.pixels[i] = Math.round(a[i]);
  return whole(mask);
}

/** A box blur of each row (radius `r`, edges clamped). */
function blurRows(src: Float32Array, dst: Float32Array, width: number, height: number, r: number): void {
  const scale = 1 / (2 * r + 1);
  const last = width - 1;
  for (let y = 0; y < height; y++) {
    const base = y * width;
    const first = src[base];
    const end = src[base + last];
    let sum = 0;
    for (let i = -r; i <= r; i++) sum += src[base + Math.min(last, Math.max(0, i))];
    for (let x = 0; x < width; x++) {
      dst[base + x] = sum * scale;
      const add = x + r + 1;
      const drop = x - r;
      sum += (add <= last ? src[base + add] : end) - (drop >= 0 ? src[base + drop] : first);
    }
  }
}

/** A box blur of each column (radius `r`, edges clamped), row by row with a running sum per column (cache-friendly). */
function blurColumns(src: Float32Array, dst: Float32Array, width: number, height: number, r: number): void {
  const scale = 1 / (2 * r + 1);
  const last = height - 1;
  const sums = new Float64Array(width);
  for (let i = -r; i <= r; i++) {
    const row = Math.min(last, Math.max(0, i)) * width;
    for (let x = 0; x < width; x++) sums[x] += src[row + x];
  }
  for (let y = 0; y < height; y++) {
    const out = y * width;
    const add = Math.min(last, y + r + 1) * width;
    const drop = Math.max(0, y - r) * width;
    for (let x = 0; x < width; x++) {
      dst[out + x] = sums[x] * scale;
      sums[x] += src[add + x] - src[drop + x];
    }
  }
}

/** The pixels of a rectangle of the mask (a copy). */
export function cut(mask: Mask | Uint8Array, width: number, rect: Rect): Uint8Array {
  const pixels = mask instanceof Mask ? mask.pixels : mask;
  const out = new Uint8Array(rect.width * rect.height);
  for (let y = 0; y < rect.height; y++) out.set(pixels.subarray((rect.y + y) * width + rect.x, (rect.y + y) * width + rect.x + rect.width), y * rect.width);
  return out;
}

/** Writes pixels cut from a rectangle back into it. */
export function paste(mask: Mask, rect: Rect, from: Uint8Array): void {
  for (let y = 0; y < rect.height; y++) mask.pixels.set(from.subarray(y * rect.width, (y + 1) * rect.width), (rect.y + y) * mask.width + rect.x);
}

interface Change {
  rect: Rect;
  before: Uint8Array;
  after: Uint8Array;
}

/**
 * Undo and redo of a mask's changes, each kept as the rectangle it touched with its pixels before and after. The
 * oldest changes are dropped when the stack holds more than `budget` bytes (a whole-mask change of a 2048² image is
 * 8 MB).
 */
export class UndoStack {
  private done: Change[] = [];
  private undone: Change[] = [];
  constructor(private readonly budget = 96 * 1024 * 1024) {}

  /** Records a change of `rect`: `before` is the mask's pixels before it (the whole mask, as `snapshot` gives). */
  record(mask: Mask, rect: Rect | null, before: Uint8Array): void {
    if (!rect) return;
    this.done.push({ rect, before: cut(before, mask.width, rect), after: cut(mask, mask.width, rect) });
    this.undone = [];
    let bytes = this.done.reduce((n, c) => n + c.before.length * 2, 0);
    while (bytes > this.budget && this.done.length > 1) bytes -= this.done.shift()!.before.length * 2;
  }

  /** Undoes the last change; answers the rectangle to redraw (null: nothing to undo). */
  undo(mask: Mask): Rect | null {
    const change = this.done.pop();
    if (!change) return null;
    paste(mask, change.rect, change.before);
    this.undone.push(change);
    return change.rect;
  }

  redo(mask: Mask): Rect | null {
    const change = this.undone.pop();
    if (!change) return null;
    paste(mask, change.rect, change.after);
    this.done.push(change);
    return change.rect;
  }

  get canUndo(): boolean {
    return this.done.length > 0;
  }

  get canRedo(): boolean {
    return this.undone.length > 0;
  }

  /** How many changes can be undone. */
  get depth(): number {
    return this.done.length;
  }
}

/** Where the image is drawn: image point p is at screen point p × scale + (x, y) (relative to the stage). */
export interface View {
  scale: number;
  x: number;
  y: number;
}

export const ZOOM = { min: 0.02, max: 32 } as const;
const clampScale = (scale: number) => Math.min(ZOOM.max, Math.max(ZOOM.min, scale));

/** The image whole and centred in a stage of `stage` size, never enlarged past its real size. */
export function fitView(image: { width: number; height: number }, stage: { width: number; height: number }, margin = 16): View {
  const scale = clampScale(Math.min(1, (stage.width - 2 * margin) / image.width, (stage.height - 2 * margin) / image.height));
  return { scale, x: (stage.width - image.width * scale) / 2, y: (stage.height - image.height * scale) / 2 };
}

/** Zooms by `factor` keeping the image point under `about` (a stage point) where it is. */
export function zoomAt(view: View, factor: number, about: Point): View {
  const scale = clampScale(view.scale * factor);
  const k = scale / view.scale;
  return { scale, x: about.x - (about.x - view.x) * k, y: about.y - (about.y - view.y) * k };
}

export const toImage = (view: View, at: Point): Point => ({ x: (at.x - view.x) / view.scale, y: (at.y - view.y) / view.scale });

/**
 * The view during a two-finger pinch: the fingers were at `a0`, `b0` when the view was `start`; now they are at
 * `a`, `b`. The image point under their first midpoint follows their midpoint, scaled by how far apart they moved.
 */
export function pinchView(start: View, a0: Point, b0: Point, a: Point, b: Point): View {
  const d0 = Math.hypot(b0.x - a0.x, b0.y - a0.y);
  const d = Math.hypot(b.x - a.x, b.y - a.y);
  const scale = clampScale(d0 > 0 ? (start.scale * d) / d0 : start.scale);
  const m0 = { x: (a0.x + b0.x) / 2, y: (a0.y + b0.y) / 2 };
  const m = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  const under = toImage(start, m0);
  return { scale, x: m.x - under.x * scale, y: m.y - under.y * scale };
}

/** The mask's pixels as RGBA of the overlay shown over the image (`rgb` at `opacity` where white). */
export function overlayPixels(mask: Mask, rect: Rect, rgb: [number, number, number], opacity: number): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    for (let x = 0; x < rect.width; x++) {
      const v = mask.pixels[(rect.y + y) * mask.width + rect.x + x];
      const o = (y * rect.width + x) * 4;
      out[o] = rgb[0];
      out[o + 1] = rgb[1];
      out[o + 2] = rgb[2];
      out[o + 3] = Math.round(v * opacity);
    }
  }
  return out;
}

/** The mask as opaque grey RGBA (white edits, black keeps): the pixels of the PNG saved. */
export function maskRgba(mask: Mask): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(mask.pixels.length * 4);
  for (let i = 0; i < mask.pixels.length; i++) {
    const v = mask.pixels[i];
    out[i * 4] = v;
    out[i * 4 + 1] = v;
    out[i * 4 + 2] = v;
    out[i * 4 + 3] = 255;
  }
  return out;
}

/** A mask read from RGBA pixels (its luminance; a transparent pixel is black). */
export function maskFromRgba(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Mask {
  const mask = new Mask(width, height);
  for (let i = 0; i < mask.pixels.length; i++) {
    const o = i * 4;
    const luminance = 0.299 * rgba[o] + 0.587 * rgba[o + 1] + 0.114 * rgba[o + 2];
    mask.pixels[i] = Math.round((luminance * rgba[o + 3]) / 255);
  }
  return mask;
}
