// Runs image steps (src/kinds/image-steps.ts) with sharp: the one place the steps kinds' (`crop`, `resize`,
// `adjust`, …) operations become image work. It runs in the image workers (./worker.ts `steps`). Each step is
// one sharp operation on the previous step's pixels (raw RGBA in memory), so steps happen in the order given —
// one sharp pipeline would reorder them (it always extracts before it resizes, and so on). The input is turned
// upright first (its EXIF orientation), so a crop's box is in the pixels people see. The result is a PNG.
import sharp, { type Metadata, type Sharp } from 'sharp';
import { sizeAfter, type ImageSize, type ImageStep } from '../kinds/image-steps.js';
import { kindOf } from '../kinds/index.js';

export type StepsAnswer = { ok: true; png: Uint8Array; width: number; height: number } | { ok: false; kind: 'input' | 'settings' | 'failed'; message: string };

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

const raw = async (image: Sharp): Promise<Pixels> => {
  const { data, info } = await image.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
};

const from = (p: Pixels) => sharp(p.data, { raw: { width: p.width, height: p.height, channels: p.channels } });

/** Grey as the Rec. 709 luma of the colour channels, kept as three equal channels (sharp's own grayscale drops to one). */
const LUMA: [[number, number, number], [number, number, number], [number, number, number]] = [
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
];

/** One step on RGBA pixels. */
function apply(image: Sharp, step: ImageStep): Sharp {
  switch (step.op) {
    case 'extract':
      return image.extract({ left: step.left, top: step.top, width: step.width, height: step.height });
    case 'resize':
      return image.resize(step.width, step.height, { fit: step.fit, position: 'centre', background: { r: 0, g: 0, b: 0, alpha: 0 } });
    case 'modulate':
      return image.modulate({ brightness: step.brightness, saturation: step.saturation, hue: Math.round(step.hue) % 360 });
    case 'linear':
      return image.linear(step.a, step.b);
    case 'grayscale':
      return image.recomb(LUMA);
    case 'recomb':
      return image.recomb(step.matrix);
    case 'negate':
      return image.negate({ alpha: false });
    case 'blur':
      return image.blur(step.sigma);
  }
}

/** The size people see: the stored one, turned by its EXIF orientation (5–8 swap the sides). */
const uprightSize = (m: Metadata): ImageSize | undefined =>
  m.width === undefined || m.height === undefined ? undefined : (m.orientation ?? 1) >= 5 ? { width: m.height, height: m.width } : { width: m.width, height: m.height };

/**
 * The steps on the image, as a PNG. `plan` gives the steps from the input's upright size (or a problem); the
 * input (read from its header before any decoding) and the result may have at most `maxPixels` pixels each.
 */
export async function runSteps(input: Buffer, plan: (size: ImageSize) => { ok: true; steps: ImageStep[] } | { ok: false; problem: string }, maxPixels: number): Promise<StepsAnswer> {
  let size: ImageSize | undefined;
  try {
    size = uprightSize(await sharp(input).metadata());
  } catch {
    size = undefined;
  }
  if (!size) return { ok: false, kind: 'input', message: 'the input image could not be read' };
  if (size.width * size.height > maxPixels) {
    return { ok: false, kind: 'input', message: `the input image has ${size.width}×${size.height} pixels, more than the ${maxPixels} allowed` };
  }
  const planned = plan(size);
  if (!planned.ok) return { ok: false, kind: 'settings', message: planned.problem };
  const out = sizeAfter(planned.steps, size);
  if (out.width * out.height > maxPixels) {
    return { ok: false, kind: 'settings', message: `the result would have ${out.width}×${out.height} pixels, more than the ${maxPixels} allowed` };
  }
  let pixels: Pixels;
  try {
    pixels = await raw(sharp(input, { limitInputPixels: maxPixels }).rotate());
  } catch {
    return { ok: false, kind: 'input', message: 'the input image could not be decoded' };
  }
  for (const step of planned.steps) pixels = await raw(apply(from(pixels), step));
  const png = await from(pixels).png().toBuffer();
  return { ok: true, png, width: pixels.width, height: pixels.height };
}

/** A node of a steps kind (its `type` and `data`) run on its input image; a type whose kind has no plan is refused. */
export function runKindSteps(type: string, data: Readonly<Record<string, unknown>>, input: Buffer, maxPixels: number): Promise<StepsAnswer> {
  const plan = kindOf(type)?.task?.plan;
  if (!plan) return Promise.resolve({ ok: false, kind: 'settings', message: `a ${JSON.stringify(type)} node has no image steps` });
  return runSteps(input, (size) => plan(data, size), maxPixels);
}
