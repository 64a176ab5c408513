// Offline super-resolution: ESRGAN (the "slim" RDN models of @upscalerjs/esrgan-slim, MIT code and weights, shipped
// in npm) on TensorFlow.js with its WebAssembly backend. Nothing is downloaded: the model files are read from the
// package's folder. An image is upscaled in tiles of TILE pixels with OVERLAP pixels of context on each side (the
// overlap is computed and thrown away, so tiles meet without seams), and its alpha channel, if any, is scaled with
// Lanczos and put back. It runs in the image workers (src/imaging/worker.ts): a tile takes the CPU for about a
// second, which the service's own thread must never wait for. The prompt is not used.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import sharp from 'sharp';
import type { GenerateRequest, GenerateResult, ImageModel } from './image-model.js';
import { ModelInputError } from './image-model.js';

export type UpscaleFactor = 2 | 4;

/** Tile side in input pixels (the models were trained on 128-pixel patches) and the context kept around each. */
const TILE = 128;
const OVERLAP = 8;

type Tf = typeof import('@tensorflow/tfjs');
type LayersModel = import('@tensorflow/tfjs').LayersModel;

let tfReady: Promise<Tf> | undefined;
const models = new Map<UpscaleFactor, Promise<LayersModel>>();

/** TensorFlow.js on its WebAssembly backend (its .wasm files from the package's folder), once per process. */
function tensorflow(): Promise<Tf> {
  tfReady ??= (async () => {
    const tf = await import('@tensorflow/tfjs');
    await import('@tensorflow/tfjs-backend-wasm'); // registers the backend; on Node it reads its .wasm beside itself
    if (!(await tf.setBackend('wasm'))) throw new Error('the WebAssembly backend of TensorFlow.js did not start');
    await tf.ready();
    tf.enableProdMode();
    return tf;
  })();
  tfReady.catch(() => (tfReady = undefined));
  return tfReady;
}

/** A package's folder (its entry file resolved, cut at the package's name: the package exports no package.json). */
function packageRoot(name: string): string {
  const entry = createRequire(import.meta.url).resolve(name);
  const at = entry.lastIndexOf(`${sep}${name.split('/').join(sep)}${sep}`);
  if (at < 0) throw new Error(`cannot find the folder of ${name}`);
  return entry.slice(0, at + name.length + 2);
}

/** The model of one factor, from the files @upscalerjs/esrgan-slim ships (models/x2, models/x4). */
function model(scale: UpscaleFactor): Promise<LayersModel> {
  let made = models.get(scale);
  if (!made) {
    made = (async () => {
      const tf = await tensorflow();
      const dir = join(packageRoot('@upscalerjs/esrgan-slim'), 'models', `x${scale}`);
      const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as {
        modelTopology: object;
        weightsManifest: Array<{ paths: string[]; weights: import('@tensorflow/tfjs').io.WeightsManifestEntry[] }>;
      };
      const shards = await Promise.all(json.weightsManifest.flatMap((group) => group.paths.map((p) => readFile(join(dir, p)))));
      const weights = Buffer.concat(shards);
      const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength);
      const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
      return tf.loadLayersModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs, weightData }));
    })();
    made.catch(() => models.delete(scale));
    models.set(scale, made);
  }
  return made;
}

/** The default of UPSCALE_MAX_INPUT_PIXELS: 512×512, upscaled 4× to 2048×2048 in 16 tiles. */
export const DEFAULT_UPSCALE_MAX_INPUT_PIXELS = 512 * 512;

export interface UpscaleLimits {
  /** The most input pixels upscaled (UPSCALE_MAX_INPUT_PIXELS): the time grows with them. */
  maxInputPixels: number;
}

/** The tiles of a side of `size` pixels: where each starts and how long it is. */
function spans(size: number): Array<{ start: number; length: number }> {
  const out: Array<{ start: number; length: number }> = [];
  for (let start = 0; start < size; start += TILE) out.push({ start, length: Math.min(TILE, size - start) });
  return out;
}

/**
 * Upscales the image `scale` times; `onTile(done, total)` after each tile. The image's orientation is applied
 * first; the result is a PNG. Throws ModelInputError when the input is over `maxInputPixels`.
 */
export async function upscale(
  data: Buffer,
  scale: UpscaleFactor,
  limits: UpscaleLimits,
  onTile?: (done: number, total: number) => void,
): Promise<{ png: Buffer; width: number; height: number }> {
  // The size first (from the header, as it shows once turned upright): a refusal decodes nothing.
  const meta = await sharp(data).metadata();
  const [w, h] = (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  if (w * h > limits.maxInputPixels) throw new ModelInputError(0, tooLargeToUpscale(w, h, limits.maxInputPixels));
  const hasAlpha = meta.hasAlpha === true;
  const { data: rgba, info } = await sharp(data).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const tf = await tensorflow();
  const net = await model(scale);

  const rgb = new Float32Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height; i++, j += 4) {
    rgb[i * 3] = rgba[j];
    rgb[i * 3 + 1] = rgba[j + 1];
    rgb[i * 3 + 2] = rgba[j + 2];
  }
  const outWidth = width * scale;
  const outHeight = height * scale;
  const out = Buffer.alloc(outWidth * outHeight * 3);
  const columns = spans(width);
  const rows = spans(height);
  const total = columns.length * rows.length;
  let done = 0;
  const whole = tf.tensor3d(rgb, [height, width, 3]);
  try {
    for (const row of rows) {
      for (const column of columns) {
        // The tile with its context, clipped to the image.
        const x0 = Math.max(0, column.start - OVERLAP);
        const y0 = Math.max(0, row.start - OVERLAP);
        const x1 = Math.min(width, column.start + column.length + OVERLAP);
        const y1 = Math.min(height, row.start + row.length + OVERLAP);
        const result = tf.tidy(() => {
          const tile = whole.slice([y0, x0, 0], [y1 - y0, x1 - x0, 3]).expandDims(0);
          const upscaled = net.predict(tile) as import('@tensorflow/tfjs').Tensor4D;
          // Only the tile itself, without its context.
          const inner = upscaled.slice([0, (row.start - y0) * scale, (column.start - x0) * scale, 0], [1, row.length * scale, column.length * scale, 3]);
          return inner.clipByValue(0, 255).round().squeeze([0]);
        });
        const values = await result.data();
        result.dispose();
        // Row by row into the result (the values are whole numbers in 0–255 already).
        const rowLength = column.length * scale * 3;
        for (let y = 0; y < row.length * scale; y++) {
          out.set(values.subarray(y * rowLength, (y + 1) * rowLength), ((row.start * scale + y) * outWidth + column.start * scale) * 3);
        }
        onTile?.(++done, total);
      }
    }
  } finally {
    whole.dispose();
  }

  let result = sharp(out, { raw: { width: outWidth, height: outHeight, channels: 3 } });
  if (hasAlpha) {
    const alpha = await sharp(rgba, { raw: { width, height, channels: 4 } }).extractChannel(3).resize(outWidth, outHeight, { kernel: 'lanczos3' }).raw().toBuffer();
    result = result.joinChannel(alpha, { raw: { width: outWidth, height: outHeight, channels: 1 } });
  }
  return { png: await result.png().toBuffer(), width: outWidth, height: outHeight };
}

const count = new Intl.NumberFormat('en-US');

/**
 * The refusal of an input over the limit, in plain words (no setting's name: the person reading it is rarely the
 * operator): "the image is 600 × 500 pixels (300,000); this upscaler takes images of at most 262,144 pixels (512 × 512)".
 */
export function tooLargeToUpscale(width: number, height: number, maxPixels: number): string {
  const side = Math.floor(Math.sqrt(maxPixels));
  const square = side * side === maxPixels ? ` (${side} × ${side})` : '';
  return `the image is ${width} × ${height} pixels (${count.format(width * height)}); this upscaler takes images of at most ${count.format(maxPixels)} pixels${square}`;
}

/** The catalogue's id of the upscaler of one factor. */
export const upscalerId = (scale: UpscaleFactor) => `esrgan-slim-${scale}x` as const;

/** The factor of an upscaler's catalogue id; undefined for any other model. */
export function upscaleFactorOf(model: string): UpscaleFactor | undefined {
  return model === upscalerId(2) ? 2 : model === upscalerId(4) ? 4 : undefined;
}

/** The upscaler as a model, in this process (tests; the service runs it in its image workers, src/imaging/pool.ts). */
export class EsrganUpscaler implements ImageModel {
  readonly id: string;
  constructor(
    private readonly scale: UpscaleFactor,
    private readonly limits: UpscaleLimits,
  ) {
    this.id = upscalerId(scale);
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const [first] = req.images;
    if (!first) throw new ModelInputError(0, 'super-resolution needs an image');
    const made = await upscale(first.data, this.scale, this.limits, (done, total) => req.onProgress?.({ step: { done, total } }));
    return { image: { data: made.png, mimeType: 'image/png' }, text: upscaleText(this.scale, made, req.images.length), model: this.id };
  }
}

/** What the answer says: the factor and size, that it is machine learning, and that the prompt is not used. */
export function upscaleText(scale: UpscaleFactor, size: { width: number; height: number }, images: number): string {
  const extra = images > 1 ? ` Only the first of the ${images} images was used.` : '';
  return `Upscaled ${scale}× to ${size.width}×${size.height} with ESRGAN (offline super-resolution; the prompt is not used).${extra}`;
}
