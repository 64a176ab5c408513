// An image worker process (./pool.ts): the offline engine, input decode checks, SVG drawing, PNG conversion and
// canvas thumbnails
// run here, each task a named export called with plain data and answering plain data (expected failures are
// answers, not exceptions, so that nothing depends on how an error crosses processes). The process lowers its
// own CPU priority, so request serving wins a busy core; libvips keeps no operation cache here.
import { setPriority } from 'node:os';
import sharp from 'sharp';
import { asBuffer as bytes, toPng, toPreview } from './convert.js';
import { LocalImageModel, type OfflineLimits } from '../models/local-image-model.js';
import { upscale as esrgan, upscaleText, upscalerId, type UpscaleFactor, type UpscaleLimits } from '../models/esrgan-upscaler.js';
import { ModelFailedError, ModelInputError, ModelPromptError } from '../models/image-model.js';
import { decodeProblem } from './input-image-check.js';
import { renderSvg, type SvgRender } from './svg.js';
import { drawThumbnail, type ThumbnailPlan } from './thumbnail.js';
import { runKindSteps, type StepsAnswer } from './steps.js';
import { composeLayers, composePsd, type ComposeAnswer, type ComposeTask, type PsdAnswer, type PsdTask } from './compose.js';
import { prepareEdit, type EditPrepareAnswer, type EditPrepareTask } from './edit-prepare.js';
import { inpaint as classicalInpaint, type InpaintMethod } from '../models/classical-inpaint.js';
import { inpainterId } from '../models/inpainter.js';

/** How much nicer than the service this process runs (Unix niceness, 0–19). */
const NICENESS = 10;

try {
  setPriority(NICENESS);
} catch {
  // Not permitted on this system: the worker still runs, at the service's priority.
}
sharp.cache(false);

export interface GenerateTask {
  images: Array<{ data: Uint8Array; mimeType: string }>;
  prompt: string;
  limits: Partial<OfflineLimits>;
}

export type GenerateAnswer =
  | { ok: true; data: Uint8Array; mimeType: string; text?: string; model?: string }
  | { ok: false; kind: 'input'; index: number; message: string }
  | { ok: false; kind: 'prompt'; problem: string; understands: string }
  | { ok: false; kind: 'failed'; message: string };

export async function generate(task: GenerateTask): Promise<GenerateAnswer> {
  const model = new LocalImageModel(task.limits);
  try {
    const result = await model.generate({
      images: task.images.map((i) => ({ data: bytes(i.data), mimeType: i.mimeType })),
      prompt: task.prompt,
      signal: new AbortController().signal, // a cancelled task ends this process (./pool.ts)
    });
    if (!result.image) return { ok: false, kind: 'failed', message: 'the offline image engine made no image' };
    return { ok: true, data: result.image.data, mimeType: result.image.mimeType, text: result.text, model: result.model };
  } catch (err) {
    if (err instanceof ModelInputError) return { ok: false, kind: 'input', index: err.index, message: err.message };
    if (err instanceof ModelPromptError) return { ok: false, kind: 'prompt', problem: err.problem, understands: err.understands };
    return { ok: false, kind: 'failed', message: err instanceof ModelFailedError ? err.message : 'the offline image engine failed' };
  }
}

export interface UpscaleTask {
  images: Array<{ data: Uint8Array; mimeType: string }>;
  scale: UpscaleFactor;
  limits: UpscaleLimits;
}

/** ESRGAN super-resolution of the first image (../models/esrgan-upscaler.ts). */
export async function upscale(task: UpscaleTask): Promise<GenerateAnswer> {
  const [first] = task.images;
  if (!first) return { ok: false, kind: 'input', index: 0, message: 'super-resolution needs an image' };
  try {
    const made = await esrgan(bytes(first.data), task.scale, task.limits);
    return { ok: true, data: made.png, mimeType: 'image/png', text: upscaleText(task.scale, made, task.images.length), model: upscalerId(task.scale) };
  } catch (err) {
    if (err instanceof ModelInputError) return { ok: false, kind: 'input', index: err.index, message: err.message };
    return { ok: false, kind: 'failed', message: 'the offline upscaler failed' };
  }
}

export interface DecodeTask {
  data: Uint8Array;
  mimeType: string;
  maxPixels: number;
}

export function decode(task: DecodeTask): Promise<string | undefined> {
  return decodeProblem(bytes(task.data), task.mimeType, task.maxPixels);
}

export interface SvgTask {
  svg: Uint8Array;
  maxPixels: number;
  /** A larger PNG is not sent back. */
  maxBytes?: number;
}

export function svg(task: SvgTask): Promise<SvgRender> {
  return renderSvg(bytes(task.svg), task.maxPixels, task.maxBytes);
}

/** A small preview of the image as a data URL, or undefined when it cannot be read. */
export function preview(task: { data: Uint8Array }): Promise<string | undefined> {
  return toPreview(bytes(task.data));
}

/** The image as PNG, or undefined when it cannot be read. */
export function png(task: { data: Uint8Array }): Promise<Uint8Array | undefined> {
  return toPng(bytes(task.data));
}

export interface ThumbnailTask {
  plan: ThumbnailPlan;
  images: Uint8Array[];
}

/** A canvas thumbnail as PNG (./thumbnail.ts). */
export function thumbnail(task: ThumbnailTask): Promise<Uint8Array> {
  return drawThumbnail(task.plan, task.images.map(bytes));
}

export interface StepsTask {
  /** The node's kind (its `type`) and `data`: the kind's plan (src/kinds/) gives the steps. */
  type: string;
  data: Record<string, unknown>;
  image: Uint8Array;
  /** The most pixels the input and the result may have. */
  maxPixels: number;
}

/** A steps kind's node (`crop`, `resize`, `adjust`, …) run on its input image, as a PNG (./steps.ts). */
export async function steps(task: StepsTask): Promise<StepsAnswer> {
  const answer = await runKindSteps(task.type, task.data, bytes(task.image), task.maxPixels);
  return answer;
}

/** A compose node's layers blended into one PNG (./compose.ts). */
export function compose(task: ComposeTask): Promise<ComposeAnswer> {
  return composeLayers({ ...task, images: task.images.map(bytes), masks: task.masks.map(bytes) });
}

/** A compose node's result as a layered PSD (./compose.ts). */
export function psd(task: PsdTask): Promise<PsdAnswer> {
  return composePsd({ ...task, images: task.images.map(bytes), masks: task.masks.map(bytes), composite: bytes(task.composite) });
}

export type { EditPrepareTask } from './edit-prepare.js';

/** An edit's image and mask made ready for its model: the mask fitted, or the image extended to outpaint (./edit-prepare.ts). */
export function editPrepare(task: EditPrepareTask): Promise<EditPrepareAnswer> {
  return prepareEdit(task, bytes);
}

export interface InpaintTask {
  images: Array<{ data: Uint8Array; mimeType: string }>;
  mask?: { data: Uint8Array; mimeType: string };
  method: InpaintMethod;
  maxPixels: number;
}

/** Classical inpainting of the first image inside the mask (./inpaint.ts: opencv.js Telea or Navier–Stokes). */
export async function inpaint(task: InpaintTask): Promise<GenerateAnswer> {
  const [first] = task.images;
  const model = inpainterId(task.method);
  if (!first) return { ok: false, kind: 'input', index: 0, message: `${model} needs an image` };
  if (!task.mask) return { ok: false, kind: 'failed', message: `${model} needs a mask: run it from an edit node` };
  try {
    const made = await classicalInpaint(bytes(first.data), bytes(task.mask.data), task.method, task.maxPixels);
    return { ok: true, data: made.png, mimeType: 'image/png', text: `Filled ${made.filled} pixels from their surroundings (${model}, classical inpainting)`, model };
  } catch (err) {
    return { ok: false, kind: 'failed', message: `${model} could not fill the mask: ${err instanceof Error ? err.message : 'it failed'}` };
  }
}
