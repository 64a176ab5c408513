// The offline engine: a deterministic sharp pipeline driven by the words of the prompt. Not an AI model,
// and it says so in `text`.
import sharp, { type Matrix3x3, type Sharp } from 'sharp';
import { type GenerateRequest, type GenerateResult, type ImageModel, type ModelImage, ModelFailedError, ModelInputError } from './image-model.js';
import { type Layout, type Operation, UNDERSTOOD_WORDS, describe, parsePrompt } from './local-operations.js';

export const MAX_SIDE = 4096;
const MAX_OPERATIONS = 20;
const PREFIX = 'Offline image engine (not an AI model)';
const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };
const SEPIA: Matrix3x3 = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]];
// sharp's greyscale() drops the alpha band in raw output, so luma is done with recomb (Rec. 601 weights).
const LUMA: Matrix3x3 = [[0.299, 0.587, 0.114], [0.299, 0.587, 0.114], [0.299, 0.587, 0.114]];

/** Every intermediate image is 8-bit RGBA raw, so each operation runs in its own pipeline, in prompt order. */
interface Raw { data: Buffer; width: number; height: number }

const clampSide = (n: number) => Math.min(MAX_SIDE, Math.max(1, Math.round(n)));
const load = (img: Raw): Sharp => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } });
const repeat3 = (v: number) => [v, v, v];

async function materialise(pipeline: Sharp): Promise<Raw> {
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (data.length !== info.width * info.height * 4) throw new ModelFailedError('Image engine produced an unexpected pixel format');
  const img = { data, width: info.width, height: info.height };
  // Rotation can grow an image past the bound; nothing may leave a step larger than MAX_SIDE.
  if (img.width <= MAX_SIDE && img.height <= MAX_SIDE) return img;
  return materialise(load(img).resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside' }));
}

async function decode(input: ModelImage, index: number): Promise<{ img: Raw; hasAlpha: boolean }> {
  try {
    const { hasAlpha } = await sharp(input.data).metadata();
    const img = await materialise(
      sharp(input.data, { autoOrient: true })
        .toColourspace('srgb')
        .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true }),
    );
    return { img, hasAlpha: Boolean(hasAlpha) };
  } catch {
    // Inputs are checked before any model runs, so this is a format this build of sharp cannot decode (BMP, HEIC).
    throw new ModelInputError(index, 'the offline image engine cannot read this image');
  }
}

function apply(img: Raw, op: Operation): Sharp {
  const s = load(img);
  switch (op.kind) {
    case 'grayscale': return s.recomb(LUMA);
    case 'sepia': return s.recomb(SEPIA);
    case 'invert': return s.negate({ alpha: false });
    case 'blur': return s.blur(Math.min(100, Math.max(0.3, op.sigma)));
    case 'sharpen': return s.sharpen({ sigma: 1.5 });
    case 'rotate': return s.rotate(op.degrees, { background: TRANSPARENT });
    case 'flip': return s.flip();
    case 'mirror': return s.flop();
    case 'resize': return s.resize({ width: clampSide(op.maxSide), height: clampSide(op.maxSide), fit: 'inside' });
    case 'resize-exact': return s.resize({ width: clampSide(op.width), height: clampSide(op.height), fit: 'cover' });
    case 'scale': {
      const f = Math.min(op.percent / 100, MAX_SIDE / img.width, MAX_SIDE / img.height);
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

/** Combines the inputs; returns the image and whether it has transparent areas (empty grid cells). */
async function combine(images: Raw[], layout: Layout): Promise<{ img: Raw; label: string; transparent: boolean }> {
  const n = images.length;
  const cols = layout === 'grid' ? Math.ceil(Math.sqrt(n)) : layout === 'side-by-side' ? n : 1;
  const rows = Math.ceil(n / cols);
  // Side by side normalises heights, a stack widths, a grid both (each image covers one cell).
  let cellW = Math.min(...images.map((i) => i.width));
  let cellH = Math.min(...images.map((i) => i.height));
  const shrink = (f: number) => { cellW = Math.max(1, Math.floor(cellW * f)); cellH = Math.max(1, Math.floor(cellH * f)); };
  const sized = (img: Raw): { width: number; height: number } =>
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
  if (plan.width > MAX_SIDE || plan.height > MAX_SIDE) {
    shrink(Math.min(MAX_SIDE / plan.width, MAX_SIDE / plan.height));
    plan = total();
  }
  let x = 0;
  let y = 0;
  const parts = await Promise.all(images.map((img, i) => materialise(load(img).resize({ ...plan.sizes[i], fit: 'cover' }))));
  const placed = parts.map((part, i) => {
    const at = layout === 'grid' ? { left: (i % cols) * cellW, top: Math.floor(i / cols) * cellH } : { left: x, top: y };
    if (layout === 'side-by-side') x += part.width;
    if (layout === 'stack') y += part.height;
    return { input: part.data, raw: { width: part.width, height: part.height, channels: 4 as const }, ...at };
  });
  const canvas = sharp({ create: { width: plan.width, height: plan.height, channels: 4, background: TRANSPARENT } });
  const img = await materialise(canvas.composite(placed));
  const label = layout === 'grid' ? `grid ${cols}×${rows} (${n} images)` : `${describe({ kind: 'layout', layout })} (${n} images)`;
  return { img, label, transparent: layout === 'grid' && cols * rows > n };
}

export class LocalImageModel implements ImageModel {
  readonly id = 'local';

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (req.images.length === 0) throw new ModelFailedError('No input images');
    const decoded = await Promise.all(req.images.map(decode));
    let hasAlpha = decoded.some((d) => d.hasAlpha);
    let images = decoded.map((d) => d.img);
    const ops = parsePrompt(req.prompt);
    const applied: string[] = [];
    const step = async (op: Operation) => {
      if (req.signal.aborted) throw new ModelFailedError('Image generation was cancelled');
      images = await Promise.all(images.map((img) => materialise(apply(img, op))));
      if (op.kind === 'rotate' && op.degrees % 90 !== 0) hasAlpha = true;
      applied.push(describe(op));
    };
    const merge = async (layout: Layout) => {
      const done = await combine(images, layout);
      images = [done.img];
      hasAlpha ||= done.transparent;
      applied.push(done.label);
    };
    for (const op of ops.slice(0, MAX_OPERATIONS)) {
      if (op.kind !== 'layout') await step(op);
      else if (images.length > 1) await merge(op.layout);
    }
    const defaultLayout = images.length > 1;
    if (defaultLayout) await merge('side-by-side');

    const out = load(images[0]);
    const data = await (hasAlpha ? out : out.removeAlpha()).png().toBuffer();
    return { image: { data, mimeType: 'image/png' }, text: explain(applied, ops.length, defaultLayout), model: this.id };
  }
}

function explain(applied: string[], recognised: number, defaultLayout: boolean): string {
  const understood = `Words it understands: ${UNDERSTOOD_WORDS}.`;
  if (recognised === 0) {
    const what = defaultLayout ? `the images were combined ${applied[0]} by default` : 'the image is returned unchanged';
    return `${PREFIX}: no operation was recognised in the prompt, so ${what}. ${understood}`;
  }
  if (applied.length === 0) return `${PREFIX}: nothing was applied (a layout needs several images). ${understood}`;
  const ignored = recognised > MAX_OPERATIONS ? ` (${recognised - MAX_OPERATIONS} further operations ignored)` : '';
  return `${PREFIX}: applied ${applied.join(', ')}${ignored}.`;
}
