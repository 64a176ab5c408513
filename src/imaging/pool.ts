// The image workers: a pool of child processes (tinypool) that does this instance's heavy image work — the
// offline engine, decoding input images to check them, drawing SVG uploads, converting model output to PNG,
// drawing canvas thumbnails.
// Why processes and not threads: sharp's work runs on libuv's thread pool, which is shared by every thread of a
// process and also serves file reads, so image work in the service's process (or in its worker threads) made
// `GET /files/…` wait behind it. A process of its own has its own pool, its own memory (a huge decode cannot
// take the service down) and a lower CPU priority (./worker.ts); a cancelled or timed-out task ends its process,
// so abandoned work stops using the CPU at once. At most IMAGE_WORKERS processes run. Work is tagged with its
// owner (the user) and waits its turn in ./fair-slots.ts: one owner holds at most IMAGE_WORKERS − 1 workers (all
// of them when there is one), so a user's long jobs always leave a worker for everyone else, owners with work
// waiting take turns, and the last free worker goes only to a user who has rested (not one running long tasks back
// to back), so several such users together still leave a worker for short work. The first process starts on first use and one stays ready; the others end when idle.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import { type GenerateRequest, type GenerateResult, type ImageModel, ModelFailedError, ModelInputError, ModelPromptError } from '../models/image-model.js';
import type { OfflineLimits } from '../models/local-image-model.js';
import type { SvgRender } from './svg.js';
import { asBuffer as bytes } from './convert.js';
import { FairSlots } from '../fair-slots.js';
import { workerExecArgv } from '../worker-argv.js';
import type { DecodeTask, GenerateAnswer, GenerateTask, StepsTask, SvgTask, ThumbnailTask, UpscaleTask, InpaintTask } from './worker.js';
import type { EditPrepareAnswer, EditPrepareTask } from './edit-prepare.js';
import type { InpaintMethod } from '../models/classical-inpaint.js';
import { inpainterId } from '../models/inpainter.js';
import type { StepsAnswer } from './steps.js';
import type { ComposeAnswer, ComposeTask, PsdAnswer, PsdTask } from './compose.js';
import { upscalerId, type UpscaleFactor, type UpscaleLimits } from '../models/esrgan-upscaler.js';
import type { ThumbnailPlan } from './thumbnail.js';

/** A request's images as a task carries them (plain data across the process boundary). */
const images = (req: GenerateRequest) => req.images.map(({ data, mimeType }) => ({ data, mimeType }));

export interface ImageWorkers {
  /** The offline engine (IMAGE_MODEL=local) with these limits, run in the workers; cancelling ends its process. */
  offlineModel: (limits: Partial<OfflineLimits>) => ImageModel;
  /** ESRGAN super-resolution by `scale` (esrgan-slim-2x / -4x), run in the workers; cancelling ends its process. */
  upscaler: (scale: UpscaleFactor, limits: UpscaleLimits) => ImageModel;
  /** Classical inpainting (`inpaint-telea` / `inpaint-ns`, ./inpaint.ts) of a request's image inside its mask, run in the workers. */
  inpainter: (method: InpaintMethod, maxPixels: number) => ImageModel;
  /** An edit's image and mask made ready for its model (./edit-prepare.ts), within the task deadline; cancelling ends its process. */
  prepareEdit: (task: EditPrepareTask, opts?: { owner?: string; signal?: AbortSignal }) => Promise<EditPrepareAnswer | { ok: false; kind: 'failed'; message: string }>;
  /** Decodes an input image to the end: the problem (worded to follow `Invalid image: `), or undefined. */
  decodeProblem: (data: Buffer, mimeType: string, maxPixels: number, owner?: string) => Promise<string | undefined>;
  /** Draws an SVG at its declared size, up to `maxPixels`; a PNG over `maxBytes` is not sent back. */
  renderSvg: (svg: Buffer, maxPixels: number, maxBytes?: number) => Promise<SvgRender>;
  /** The image as PNG, or undefined when it cannot be read. */
  toPng: (data: Buffer, owner?: string) => Promise<Buffer | undefined>;
  /** A small preview of the image (convert.ts toPreview) as a data URL, or undefined when it cannot be read. */
  toPreview: (image: { data: Buffer }, owner?: string) => Promise<string | undefined>;
  /** A canvas thumbnail (./thumbnail.ts) as PNG; throws when its process failed or ran past the task deadline. */
  drawThumbnail: (plan: ThumbnailPlan, images: Uint8Array[], owner?: string) => Promise<Buffer>;
  /**
   * A steps kind's node (its `type` and `data`, src/kinds/image-steps.ts) run on its input image (./steps.ts), within
   * the task deadline; cancelling ends its process. A failed or cancelled process answers `failed`.
   */
  runSteps: (task: StepsTask, opts?: { owner?: string; signal?: AbortSignal }) => Promise<StepsAnswer>;
  /** A compose node's layers blended (./compose.ts), within the task deadline; cancelling ends its process. */
  compose: (task: ComposeTask, opts?: { owner?: string; signal?: AbortSignal }) => Promise<ComposeAnswer>;
  /** A compose node's result as a layered PSD (./compose.ts), within the task deadline. */
  psd: (task: PsdTask, opts?: { owner?: string; signal?: AbortSignal }) => Promise<PsdAnswer>;
  /** Tasks running on the workers, and tasks waiting their turn. */
  load: () => { active: number; waiting: number };
  /** Ends every worker process; work still queued or running fails. */
  close: () => Promise<void>;
}

export interface ImageWorkersOptions {
  /** IMAGE_WORKERS: processes at most. */
  workers: number;
  log: { warn(o: object, m: string): void };
  /** How long a process beyond the first stays after its last task (ms). */
  idleMs?: number;
  /**
   * The longest a check, a drawing or a conversion may take (ms); past it the task's process ends and the image
   * counts as unreadable. The offline engine's deadline is the model timeout instead (IMAGE_MODEL_TIMEOUT_MS).
   */
  taskTimeoutMs?: number;
}

const WORKER = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

const isAbort = (err: unknown) => err instanceof Error && err.name === 'AbortError';

export function createImageWorkers({ workers, log, idleMs = 60_000, taskTimeoutMs = 60_000 }: ImageWorkersOptions): ImageWorkers {
  let pool: Tinypool | undefined;
  let closed = false;

  const started = (): Tinypool => {
    if (closed) throw new Error('the image workers are closed');
    if (pool) return pool;
    pool = new Tinypool({
      filename: WORKER.href,
      runtime: 'child_process',
      serialization: 'advanced', // Buffers cross as bytes, not as JSON arrays
      minThreads: 1,
      maxThreads: Math.max(1, workers),
      idleTimeout: idleMs,
      execArgv: workerExecArgv(WORKER),
      env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
    // A worker that dies between tasks (killed from outside, out of memory) is replaced; the pool reports it here
    // rather than as an unhandled 'error' event, which would end the service.
    pool.on('error', (err: unknown) => log.warn({ err }, 'an image worker process ended unexpectedly'));
    return pool;
  };

  // With two workers or more, the last free one goes only to a user who has rested (fair-slots.ts): users who keep
  // long tasks going back to back share the others.
  const turns = new FairSlots(Math.max(1, workers), Math.max(1, workers - 1), workers > 1 ? 1 : 0);

  /**
   * Runs the task once its owner's turn comes. `signal` covers the wait too; `deadlineMs` only the run (a task
   * does not lose its time waiting behind others).
   */
  const run = async <T>(name: string, task: object, opts: { owner?: string; signal?: AbortSignal; deadlineMs?: number }): Promise<T> => {
    // When a slot is free the task is handed to a worker before this returns (tests cancel a task in flight so).
    const release = turns.tryAcquire(opts.owner ?? '') ?? (await turns.acquire(opts.owner ?? '', opts.signal));
    try {
      const signals = [opts.signal, opts.deadlineMs === undefined ? undefined : AbortSignal.timeout(opts.deadlineMs)].filter((s) => s !== undefined);
      return (await started().run(task, { name, signal: signals.length > 0 ? AbortSignal.any(signals) : null })) as T;
    } finally {
      release();
    }
  };

  /** A bounded task; if its process fails (it crashed, or was ended at the deadline) it is logged and answered as `fallback`. */
  const orElse = async <T>(name: string, task: object, fallback: T, owner?: string): Promise<T> => {
    try {
      return await run<T>(name, task, { owner, deadlineMs: taskTimeoutMs });
    } catch (err) {
      log.warn({ err, task: name }, 'an image worker task failed');
      return fallback;
    }
  };

  /**
   * A task within the deadline whose failed or cancelled process answers `failed` (never throws); `cancelled` is what
   * a cancelled or overdue one says.
   */
  const bounded = async <T>(
    name: string,
    task: object,
    opts: { owner?: string; signal?: AbortSignal },
    cancelled = `the ${name} task was cancelled or ran past its deadline`,
  ): Promise<T | { ok: false; kind: 'failed'; message: string }> => {
    try {
      return await run<T>(name, task, { ...opts, deadlineMs: taskTimeoutMs });
    } catch (err) {
      if (isAbort(err) || opts.signal?.aborted) return { ok: false, kind: 'failed', message: cancelled };
      log.warn({ err, task: name }, 'an image worker task failed');
      return { ok: false, kind: 'failed', message: 'the image worker stopped unexpectedly' };
    }
  };

  /** A model whose every call is one task of the workers (`task` names the worker's export). */
  const workerModel = (id: string, task: string, input: (req: GenerateRequest) => object): ImageModel => ({
    id,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      let answer: GenerateAnswer;
      try {
        answer = await run<GenerateAnswer>(task, input(req), { owner: req.owner, signal: req.signal });
      } catch (err) {
        if (isAbort(err) || req.signal.aborted) throw new ModelFailedError('Image generation was cancelled');
        log.warn({ err, task }, 'an offline model process failed');
        throw new ModelFailedError('the offline image engine stopped unexpectedly');
      }
      if (answer.ok) return { image: { data: bytes(answer.data), mimeType: answer.mimeType }, text: answer.text, model: answer.model };
      if (answer.kind === 'input') throw new ModelInputError(answer.index, answer.message);
      if (answer.kind === 'prompt') throw new ModelPromptError(answer.problem, answer.understands);
      throw new ModelFailedError(answer.message);
    },
  });

  return {
    offlineModel: (limits) => workerModel('local', 'generate', (req) => ({ images: images(req), prompt: req.prompt, limits }) satisfies GenerateTask),

    upscaler: (scale, limits) => workerModel(upscalerId(scale), 'upscale', (req) => ({ images: images(req), scale, limits }) satisfies UpscaleTask),

    inpainter: (method, maxPixels) =>
      workerModel(inpainterId(method), 'inpaint', (req) => ({ images: images(req), ...(req.mask ? { mask: { data: req.mask.data, mimeType: req.mask.mimeType } } : {}), method, maxPixels }) satisfies InpaintTask),

    prepareEdit: async (task, opts = {}) => {
      const answer = await bounded<EditPrepareAnswer>('editPrepare', task, opts, 'preparing the edit was cancelled or ran past its deadline');
      return answer.ok ? { ...answer, image: bytes(answer.image), mask: bytes(answer.mask) } : answer;
    },

    decodeProblem: (data, mimeType, maxPixels, owner) => {
      const task: DecodeTask = { data, mimeType, maxPixels };
      return orElse<string | undefined>('decode', task, 'the image could not be decoded', owner);
    },

    renderSvg: async (svg, maxPixels, maxBytes) => {
      const task: SvgTask = { svg, maxPixels, maxBytes };
      const stopped: SvgRender = { ok: false, stage: 'rasterize', reason: 'drawing it stopped unexpectedly' };
      const drawn = await orElse<SvgRender>('svg', task, stopped);
      return drawn.ok ? { ok: true, png: bytes(drawn.png) } : drawn;
    },

    toPng: async (data, owner) => {
      const png = await orElse<Uint8Array | undefined>('png', { data }, undefined, owner);
      return png && bytes(png);
    },

    toPreview: (image, owner) => orElse<string | undefined>('preview', { data: image.data }, undefined, owner),
    drawThumbnail: async (plan, images, owner) => {
      const task: ThumbnailTask = { plan, images };
      return bytes(await run<Uint8Array>('thumbnail', task, { owner, deadlineMs: taskTimeoutMs }));
    },

    runSteps: async (task, opts = {}) => {
      const answer = await bounded<StepsAnswer>('steps', task, opts, 'the image steps were cancelled or ran past their deadline');
      return answer.ok ? { ...answer, png: bytes(answer.png) } : answer;
    },

    compose: async (task, opts = {}) => {
      const answer = await bounded<ComposeAnswer>('compose', task, opts);
      return answer.ok ? { ...answer, png: bytes(answer.png) } : answer;
    },

    psd: async (task, opts = {}) => {
      const answer = await bounded<PsdAnswer>('psd', task, opts);
      return answer.ok ? { ...answer, psd: bytes(answer.psd) } : answer;
    },

    load: () => turns.stats,

    close: async () => {
      closed = true;
      await pool?.destroy();
    },
  };
}
