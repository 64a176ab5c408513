// The offline engine: a deterministic sharp pipeline driven by the words of the prompt. Not an AI model,
// and it says so in `text`. Its cost is bounded by its limits whatever the prompt and inputs: at most
// `maxOperations` steps, each on at most `workingPixels` pixels (all images together, inputs scaled down on
// decoding) of at most `maxSide` a side, and a blur whose cost does not grow with its sigma.
import sharp, { type Matrix3x3, type Sharp } from 'sharp';
import { type GenerateRequest, type GenerateResult, type ImageModel, type ModelImage, ModelFailedError, ModelInputError, ModelPromptError } from './image-model.js';
import { type Layout, type Operation, UNDERSTOOD_WORDS, describe, readPrompt } from './local-operations.js';

/** What a prompt may ask of the engine (config `model.offline`, OFFLINE_* in the environment). */
export interface OfflineLimits {
  /** Operations applied at most; further ones are ignored (the answer's text says so). */
  maxOperations: number;
  /** The largest blur sigma; larger asks are lowered to it (the answer's text says so). */
  maxBlur: number;
  /** The longest side of every image the engine makes, the result included. */
  maxSide: number;
  /** Pixels of all images together at every step; inputs are scaled down on decoding to fit (text says so). */
  workingPixels: number;
}

export const DEFAULT_OFFLINE_LIMITS: Readonly<OfflineLimits> = Object.freeze({
  maxOperations: 10,
  maxBlur: 50,
  maxSide: 4096,
  workingPixels: 4096 * 4096,
});

const PREFIX = 'Offline image engine (not an AI model)';
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };
const SEPIA: Matrix3x3 = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]];
// sharp's greyscale() drops the alpha band in raw output, so luma is done with recomb (Rec. 601 weights).
const LUMA: Matrix3x3 = [[0.299, 0.587, 0.114], [0.299, 0.587, 0.114], [0.299, 0.587, 0.114]];
// libvips' gaussian blur costs grow with sigma (4096², CPU time: sigma 10 ~0.5 s, 20 ~0.8 s, 50 ~2.7 s, 100 ~5.8 s).
// Above BLUR_DIRECT_MAX the blur runs on a copy shrunk k times, so that the sigma left is BLUR_SHRUNK_SIGMA,
// and is brought back to size: ~0.8 s whatever the sigma, within ~1/255 on average of a direct blur (see the
// test). The copy keeps BLUR_SHRUNK_MIN_SIDE px on its short side: smaller, the edges differ visibly (and a
// direct blur of so small an image is cheap anyway).
const BLUR_DIRECT_MAX = 20;
const BLUR_SHRUNK_SIGMA = 5;
const BLUR_SHRUNK_MIN_SIDE = 64;

/** Every intermediate image is 8-bit RGBA raw, so each operation runs in its own pipeline, in prompt order. */
interface Raw { data: Buffer; width: number; height: number }
interface Size { width: number; height: number }

const load = (img: Raw): Sharp => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } });
const repeat3 = (v: number) => [v, v, v];
const pixelCount = (sizes: Size[]) => sizes.reduce((a, s) => a + s.width * s.height, 0);
const budgetLabel = (pixels: number) => (pixels >= 1e6 ? `${Number((pixels / 1e6).toFixed(1))}-megapixel` : `${pixels}-pixel`);

/** The factor that brings images of `sizes` together within `pixels` (1 when they fit already). */
function budgetFactor(sizes: Size[], pixels: number): number {
  const total = pixelCount(sizes);
  return total > pixels ? Math.sqrt(pixels / total) : 1;
}

/** `size` times `f` (at most 1) and within `maxSide`, aspect ratio kept, rounded down, never below 1 px. */
function fit(size: Size, f: number, maxSide: number): Size {
  const g = Math.min(f, maxSide / size.width, maxSide / size.height);
  if (g >= 1) return { width: size.width, height: size.height };
  const side = (n: number) => Math.max(1, Math.floor(n * g + 1e-9));
  return { width: side(size.width), height: side(size.height) };
}

async function materialise(pipeline: Sharp, maxSide: number): Promise<Raw> {
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (data.length !== info.width * info.height * 4) throw new ModelFailedError('Image engine produced an unexpected pixel format');
  const img = { data, width: info.width, height: info.height };
  // Rotation can grow an image past the bound; nothing may leave a step larger than maxSide.
  if (img.width <= maxSide && img.height <= maxSide) return img;
  return materialise(load(img).resize({ width: maxSide, height: maxSide, fit: 'inside' }), maxSide);
}

const sameSize = (a: Size, b: Size) => a.width === b.width && a.height === b.height;
const shrink = async (img: Raw, to: Size, maxSide: number) =>
  (sameSize(img, to) ? img : materialise(load(img).resize({ ...to, fit: 'fill' }), maxSide));

/** What an input's header declares (its size after orientation); nothing is decoded. */
interface Header extends Size { declaredPixels: number; hasAlpha: boolean }

const unreadable = (index: number) =>
  // Inputs are checked before any model runs, so this is a format this build of sharp cannot decode (BMP, HEIC).
  new ModelInputError(index, 'the offline image engine cannot read this image');

async function readHeader(input: ModelImage, index: number): Promise<Header> {
  const meta = await sharp(input.data, { limitInputPixels: false }).metadata().catch(() => undefined);
  const { width, height } = meta?.autoOrient ?? {};
  if (!meta || !width || !height) throw unreadable(index);
  return { width, height, declaredPixels: meta.width * (meta.pageHeight ?? meta.height), hasAlpha: Boolean(meta.hasAlpha) };
}

/** Decodes to `size`, shrinking while decoding where the format allows (JPEG, WebP), never past the header. */
async function decode(input: ModelImage, index: number, header: Header, size: Size, maxSide: number): Promise<Raw> {
  try {
    const s = sharp(input.data, { autoOrient: true, limitInputPixels: header.declaredPixels }).toColourspace('srgb');
    return await materialise(sameSize(size, header) ? s : s.resize({ ...size, fit: 'fill' }), maxSide);
  } catch {
    throw unreadable(index);
  }
}

/** The size `op` gives `img` (before the working budget). */
function outputSize(img: Raw, op: Operation, maxSide: number): Size {
  const side = (n: number) => Math.min(maxSide, Math.max(1, Math.round(n)));
  switch (op.kind) {
    case 'resize': {
      const g = Math.min(side(op.maxSide) / img.width, side(op.maxSide) / img.height);
      return { width: side(img.width * g), height: side(img.height * g) };
    }
    case 'resize-exact': return { width: side(op.width), height: side(op.height) };
    case 'scale': {
      const f = Math.min(op.percent / 100, maxSide / img.width, maxSide / img.height);
      return { width: side(img.width * f), height: side(img.height * f) };
    }
    case 'rotate': {
      const rad = (op.degrees * Math.PI) / 180;
      const [c, s] = [Math.abs(Math.cos(rad)), Math.abs(Math.sin(rad))];
      const up = (n: number) => Math.ceil(n - 1e-6); // cos 90° is 6e-17, not 0
      return fit({ width: up(img.width * c + img.height * s), height: up(img.width * s + img.height * c) }, 1, maxSide);
    }
    case 'square-crop': return { width: Math.min(img.width, img.height), height: Math.min(img.width, img.height) };
    default: return { width: img.width, height: img.height };
  }
}

function apply(img: Raw, op: Operation, maxSide: number): Sharp {
  const s = load(img);
  const clampSide = (n: number) => Math.min(maxSide, Math.max(1, Math.round(n)));
  switch (op.kind) {
    case 'grayscale': return s.recomb(LUMA);
    case 'sepia': return s.recomb(SEPIA);
    case 'invert': return s.negate({ alpha: false });
    case 'blur': return s.blur(Math.min(1000, Math.max(0.3, op.sigma))); // sharp's range
    case 'sharpen': return s.sharpen({ sigma: 1.5 });
    case 'rotate': return s.rotate(op.degrees, { background: TRANSPARENT });
    case 'flip': return s.flip();
    case 'mirror': return s.flop();
    case 'resize': return s.resize({ width: clampSide(op.maxSide), height: clampSide(op.maxSide), fit: 'inside' });
    case 'resize-exact': return s.resize({ width: clampSide(op.width), height: clampSide(op.height), fit: 'cover' });
    case 'scale': {
      const f = Math.min(op.percent / 100, maxSide / img.width, maxSide / img.height);
      return s.resize({ width: clampSide(img.width * f), height: clampSide(img.height * f), fit: 'fill' });
    }
    case 'square-crop': {
      const side = Math.min(img.width, img.height);
      const left = Math.floor((img.width - side) / 2);
      return s.extract({ left, top: Math.floor((img.height - side) / 2), width: side, height: side });
    }
    case 'brighten': return s.linear(repeat3(1.25), repeat3(10));
    case 'darken': return s.linear(repeat3(0.75), repeat3(0));
    case 'contrast': {
      const a = op.more ? 1.3 : 0.7;
      return s.linear(repeat3(a), repeat3(128 * (1 - a)));
    }
    case 'tint': return s.linear(repeat3(0.65), op.colour.map((c) => c * 0.35));
    case 'layout': return s;
  }
}

/** A gaussian blur; a large sigma blurs a shrunk copy by what is left of it, then brings it back to size. */
async function blur(img: Raw, sigma: number, maxSide: number): Promise<Raw> {
  const k = Math.min(sigma / BLUR_SHRUNK_SIGMA, Math.min(img.width, img.height) / BLUR_SHRUNK_MIN_SIDE);
  if (sigma <= BLUR_DIRECT_MAX || k < 2) return materialise(apply(img, { kind: 'blur', sigma }, maxSide), maxSide);
  const small = { width: Math.round(img.width / k), height: Math.round(img.height / k) };
  const blurred = await materialise(load(img).resize({ ...small, fit: 'fill' }).blur(sigma / k), maxSide);
  // Bilinear is enough for so smooth an image, and cheaper than the default (lanczos3) by a third.
  return materialise(load(blurred).resize({ width: img.width, height: img.height, fit: 'fill', kernel: 'linear' }), maxSide);
}

/**
 * Runs `op` on `img`. `f` < 1 when the step's images would exceed the working budget: a resize then aims at a
 * smaller size, and a rotation (the only other operation that grows an image) runs on a shrunk copy.
 */
async function transform(img: Raw, op: Operation, f: number, maxSide: number): Promise<Raw> {
  if (f < 1 && (op.kind === 'resize' || op.kind === 'resize-exact' || op.kind === 'scale')) {
    const to = fit(outputSize(img, op, maxSide), f, maxSide);
    return materialise(load(img).resize({ ...to, fit: op.kind === 'resize-exact' ? 'cover' : 'fill' }), maxSide);
  }
  const input = f < 1 ? await shrink(img, fit(img, f, maxSide), maxSide) : img;
  if (op.kind === 'blur') return blur(input, op.sigma, maxSide);
  return materialise(apply(input, op, maxSide), maxSide);
}

/** Combines the inputs; returns the image and whether it has transparent areas (empty grid cells). */
async function combine(images: Raw[], layout: Layout, limits: OfflineLimits): Promise<{ img: Raw; label: string; transparent: boolean }> {
  const { maxSide, workingPixels } = limits;
  const n = images.length;
  const cols = layout === 'grid' ? Math.ceil(Math.sqrt(n)) : layout === 'side-by-side' ? n : 1;
  const rows = Math.ceil(n / cols);
  // Side by side normalises heights, a stack widths, a grid both (each image covers one cell).
  let cellW = Math.min(...images.map((i) => i.width));
  let cellH = Math.min(...images.map((i) => i.height));
  const shrinkCells = (f: number) => { cellW = Math.max(1, Math.floor(cellW * f)); cellH = Math.max(1, Math.floor(cellH * f)); };
  const sized = (img: Raw): Size =>
    layout === 'side-by-side' ? { width: Math.max(1, Math.round((img.width * cellH) / img.height)), height: cellH }
    : layout === 'stack' ? { width: cellW, height: Math.max(1, Math.round((img.height * cellW) / img.width)) }
    : { width: cellW, height: cellH };
  const total = () => {
    const sizes = images.map(sized);
    if (layout === 'side-by-side') return { sizes, width: sizes.reduce((a, s) => a + s.width, 0), height: cellH };
    if (layout === 'stack') return { sizes, width: cellW, height: sizes.reduce((a, s) => a + s.height, 0) };
    return { sizes, width: cols * cellW, height: rows * cellH };
  };
  let plan = total();
  // Empty grid cells can take the canvas past the working budget; rounding can need a second pass.
  let overBudget = false;
  for (let pass = 0; pass < 4 && (plan.width > maxSide || plan.height > maxSide || plan.width * plan.height > workingPixels); pass++) {
    overBudget ||= plan.width * plan.height > workingPixels;
    shrinkCells(Math.min(maxSide / plan.width, maxSide / plan.height, Math.sqrt(workingPixels / (plan.width * plan.height))));
    plan = total();
  }
  let x = 0;
  let y = 0;
  const parts = await Promise.all(images.map((img, i) => materialise(load(img).resize({ ...plan.sizes[i], fit: 'cover' }), maxSide)));
  const placed = parts.map((part, i) => {
    const at = layout === 'grid' ? { left: (i % cols) * cellW, top: Math.floor(i / cols) * cellH } : { left: x, top: y };
    if (layout === 'side-by-side') x += part.width;
    if (layout === 'stack') y += part.height;
    return { input: part.data, raw: { width: part.width, height: part.height, channels: 4 as const }, ...at };
  });
  const canvas = sharp({ create: { width: plan.width, height: plan.height, channels: 4, background: TRANSPARENT } });
  const img = await materialise(canvas.composite(placed), maxSide);
  const what = layout === 'grid' ? `grid ${cols}×${rows} (${n} images)` : `${describe({ kind: 'layout', layout })} (${n} images)`;
  const label = overBudget ? `${what} (scaled down to fit the ${budgetLabel(workingPixels)} working budget)` : what;
  return { img, label, transparent: layout === 'grid' && cols * rows > n };
}

export class LocalImageModel implements ImageModel {
  readonly id = 'local';
  private readonly limits: OfflineLimits;

  constructor(limits: Partial<OfflineLimits> = {}) {
    const d = DEFAULT_OFFLINE_LIMITS;
    this.limits = {
      maxOperations: limits.maxOperations ?? d.maxOperations,
      maxBlur: limits.maxBlur ?? d.maxBlur,
      maxSide: limits.maxSide ?? d.maxSide,
      workingPixels: limits.workingPixels ?? d.workingPixels,
    };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { maxOperations, maxBlur, maxSide, workingPixels } = this.limits;
    if (req.images.length === 0) throw new ModelFailedError('No input images');
    // Before any image is read: a prompt it can do nothing with fails at once (it never answers the input unchanged).
    const { ops, ignored } = readPrompt(req.prompt);
    refuseUnusable(req.prompt, ops, req.images.length);
    const headers = await Promise.all(req.images.map(readHeader));
    const f = budgetFactor(headers, workingPixels);
    const sizes = headers.map((h) => fit(h, f, maxSide));
    let images = await Promise.all(req.images.map((input, i) => decode(input, i, headers[i], sizes[i], maxSide)));
    let hasAlpha = headers.some((h) => h.hasAlpha);
    const notes: string[] = [];
    if (sizes.some((s, i) => !sameSize(s, headers[i]))) {
      const inputs = req.images.length > 1 ? 'The inputs were' : 'The input was';
      const why = f < 1 ? `to fit the engine's ${budgetLabel(workingPixels)} working budget` : `to the engine's maximum side of ${maxSide} px`;
      notes.push(`${inputs} scaled down ${why}.`);
    }
    const applied: string[] = [];
    let skippedLayout: Layout | undefined;
    const step = async (asked: Operation) => {
      if (req.signal.aborted) throw new ModelFailedError('Image generation was cancelled');
      const op = asked.kind === 'blur' && asked.sigma > maxBlur ? { ...asked, sigma: maxBlur } : asked;
      const g = budgetFactor(images.map((img) => outputSize(img, op, maxSide)), workingPixels);
      images = await Promise.all(images.map((img) => transform(img, op, g, maxSide)));
      // The plan above is an estimate (libvips rounds a rotation its own way): the budget itself is not.
      const h = budgetFactor(images, workingPixels);
      if (h < 1) images = await Promise.all(images.map((img) => shrink(img, fit(img, h, maxSide), maxSide)));
      if (op.kind === 'rotate' && op.degrees % 90 !== 0) hasAlpha = true;
      const limited = op !== asked ? ` (limited to ${maxBlur})` : '';
      const scaled = g < 1 || h < 1 ? ` (scaled down to fit the ${budgetLabel(workingPixels)} working budget)` : '';
      applied.push(`${describe(asked)}${limited}${scaled}`);
    };
    const merge = async (layout: Layout) => {
      const done = await combine(images, layout, this.limits);
      images = [done.img];
      hasAlpha ||= done.transparent;
      applied.push(done.label);
    };
    for (const op of ops.slice(0, maxOperations)) {
      if (op.kind !== 'layout') await step(op);
      else if (images.length > 1) await merge(op.layout);
      else skippedLayout ??= op.layout;
    }
    const defaultLayout = images.length > 1;
    if (defaultLayout) await merge('side-by-side');

    const out = load(images[0]);
    const data = await (hasAlpha ? out : out.removeAlpha()).png().toBuffer();
    if (skippedLayout) notes.push(`“${describe({ kind: 'layout', layout: skippedLayout })}” was skipped: it arranges several images, and there is one.`);
    const text = explain(applied, ops.length, defaultLayout, maxOperations, notes, ignored);
    return { image: { data, mimeType: 'image/png' }, text, model: this.id };
  }
}

/** The longest stretch of a prompt quoted back. */
const QUOTE_MAX = 80;
const quote = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > QUOTE_MAX ? `${flat.slice(0, QUOTE_MAX - 1)}…` : flat}”`;
};

/**
 * Fails a prompt the engine can do nothing with: no operation recognised in it (and one image, so no default
 * layout either), or only layouts, which need several images. Never an unchanged image called a success.
 */
function refuseUnusable(prompt: string, ops: Operation[], inputs: number): void {
  const understands = `It understands: ${UNDERSTOOD_WORDS}.`;
  if (ops.length === 0 && inputs === 1) {
    throw new ModelPromptError(`the offline engine is not an AI model and did not understand ${quote(prompt)}`, understands);
  }
  if (inputs === 1 && ops.length > 0 && ops.every((op) => op.kind === 'layout')) {
    const layouts = [...new Set(ops.map((op) => quote(describe(op))))].join(', ');
    throw new ModelPromptError(`${layouts} arranges several images, and there is one: connect more, or ask for an operation the offline engine knows`, understands);
  }
}

function explain(applied: string[], recognised: number, defaultLayout: boolean, maxOperations: number, notes: string[], ignored: string[]): string {
  const understood = `Words it understands: ${UNDERSTOOD_WORDS}.`;
  const noted = notes.map((n) => ` ${n}`).join('');
  const notUnderstood = ignored.length > 0 ? ` Not understood, so ignored: ${ignored.map(quote).join(', ')}.` : '';
  if (recognised === 0) {
    // Only with several images (one alone is refused before): they are combined by default.
    return `${PREFIX}: no operation was recognised in the prompt, so the images were combined ${applied[0]} by default.${notUnderstood}${noted} ${understood}`;
  }
  const further = recognised - maxOperations;
  const ignoredOps = further > 0 ? ` (${further} further operation${further === 1 ? '' : 's'} ignored: the engine applies at most ${maxOperations})` : '';
  const done = applied.length > 0 ? `applied ${applied.join(', ')}` : 'nothing was applied';
  return `${PREFIX}: ${done}${ignoredOps}.${notUnderstood}${noted}`;
}
