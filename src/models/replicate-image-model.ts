// Replicate's image-edit models through the official `replicate` SDK (predictions: create, get until it ends,
// cancel). Inputs go as data URIs (the SDK passes strings through; we never let it upload); the output is a data
// URI, or a URL fetched here through the SSRF guard (bounded while it is read) when it is https or http on the
// configured API's own host (REPLICATE_BASE_URL: a proxy, or a test's fake). Progress is the step count Replicate's own parser reads from the model's logs.
import Replicate, { parseProgressFromLogs, type Prediction } from 'replicate';
import { type GenerateRequest, type GenerateResult, type ImageModel, type ModelImage, ModelFailedError, ModelQuotaError } from './image-model.js';
import { DEFAULT_MAX_OUTPUT_BYTES, dataUri, defaultOutputFetcher, isAbortError, networkReason, pause, readOutputImage, shortReason, type OutputFetcher } from './driver-support.js';
import { isReplicateStepModel, REPLICATE_COMMUNITY_MODELS, REPLICATE_STEP_MODELS, replicateStepInput } from './hosted-steps.js';

export const REPLICATE_MODELS = ['google/nano-banana', 'black-forest-labs/flux-kontext-pro', 'qwen/qwen-image-edit', 'black-forest-labs/flux-fill-pro', ...REPLICATE_STEP_MODELS] as const;
export type ReplicateModel = (typeof REPLICATE_MODELS)[number];

export interface ReplicateOptions {
  model: ReplicateModel;
  apiKey: string;
  /** The API's base URL including `/v1` (default https://api.replicate.com/v1). */
  baseUrl?: string;
  pollMs?: number;
  maxOutputBytes?: number;
  /** How an output given as a URL is fetched (the service's SSRF guard; default: the guard over the public internet). */
  outputFetcher?: OutputFetcher;
}

const DEFAULT_BASE = 'https://api.replicate.com/v1';
const DEFAULT_POLL_MS = 500;
const ENDED = new Set(['succeeded', 'failed', 'canceled', 'aborted']);


/**
 * Each model's input: Nano Banana takes a list of images, the Kontext and Qwen editors one. The Kontext and Qwen
 * editors take a `seed`; Nano Banana (Gemini) has none in its input, which Replicate checks, so none is sent to it.
 */
function inputFor(model: ReplicateModel, req: GenerateRequest): Record<string, unknown> {
  if (isReplicateStepModel(model)) return replicateStepInput(model, req); // an upscaler or background remover
  if (model === 'google/nano-banana') return { prompt: req.prompt, image_input: req.images.map(dataUri), output_format: 'png' };
  const seed = req.seed !== undefined ? { seed: req.seed } : {};
  if (model === 'black-forest-labs/flux-kontext-pro') return { prompt: req.prompt, input_image: dataUri(req.images[0]), output_format: 'png', ...seed };
  if (model === 'black-forest-labs/flux-fill-pro') {
    // FLUX.1 Fill: the image and its mask (`mask`, white edits, the image's size); only it is sent one.
    if (!req.mask) throw new ModelFailedError(`${model} inpaints a mask, and was given none`);
    return { prompt: req.prompt, image: dataUri(req.images[0]), mask: dataUri(req.mask), output_format: 'png', ...seed };
  }
  return { prompt: req.prompt, image: dataUri(req.images[0]), output_format: 'png', ...seed };
}

export class ReplicateImageModel implements ImageModel {
  readonly id: ReplicateModel;
  private readonly client: Replicate;
  private readonly base: string;
  private version: Promise<string> | undefined;

  constructor(private readonly options: ReplicateOptions) {
    this.id = options.model;
    this.base = (options.baseUrl ?? DEFAULT_BASE).replace(/\/+$/, '');
    this.client = new Replicate({ auth: options.apiKey, baseUrl: this.base, useFileOutput: false });
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { signal } = req;
    let prediction: Prediction | undefined;
    try {
      const input = inputFor(this.id, req);
      // A community model runs by its version (hosted-steps.ts); an official one by its name.
      const by = REPLICATE_COMMUNITY_MODELS.has(this.id) ? { version: await this.latestVersion(signal) } : { model: this.id };
      prediction = await this.client.predictions.create({ ...by, input, signal });
      let lastStep = -1;
      while (!ENDED.has(prediction.status)) {
        await pause(this.options.pollMs ?? DEFAULT_POLL_MS, signal);
        prediction = await this.client.predictions.get(prediction.id, { signal });
        const progress = prediction.logs ? parseProgressFromLogs(prediction.logs) : null;
        if (progress && progress.current !== lastStep) {
          lastStep = progress.current;
          req.onProgress?.({ step: { done: progress.current, total: progress.total } });
        }
      }
      if (prediction.status !== 'succeeded') {
        if (prediction.status === 'failed') req.onAnswered?.(); // the model ran and failed: the call is spent
        throw new ModelFailedError(prediction.status === 'failed' ? shortReason(`the model failed: ${typeof prediction.error === 'string' ? prediction.error : (JSON.stringify(prediction.error) ?? 'no reason given')}`, this.options.apiKey) : `the prediction was ${prediction.status}`);
      }
      req.onAnswered?.();
      const image = await this.readImage(prediction.output, signal);
      return { ...(image ? { image } : {}), model: this.id, modelVersion: prediction.version && prediction.version !== 'hidden' ? `${this.id}:${prediction.version}` : this.id };
    } catch (err) {
      const id = prediction?.id;
      if (id && signal.aborted && !ENDED.has(prediction!.status)) this.client.predictions.cancel(id).catch(() => undefined); // no longer wanted
      throw this.toModelError(err, signal);
    }
  }

  /** A community model's latest version id (asked once per model; asked again after a failure). */
  private latestVersion(signal: AbortSignal): Promise<string> {
    if (!this.version) {
      const [owner, name] = this.id.split('/');
      this.version = this.client.models.get(owner, name, { signal }).then((m) => {
        const id = m.latest_version?.id;
        if (!id) throw new ModelFailedError(`Replicate lists no version of ${this.id}`);
        return id;
      });
      this.version.catch(() => (this.version = undefined));
    }
    return this.version;
  }

  /** The first image of the output (a URL or data URI, alone or in a list); undefined when there is none. */
  private async readImage(output: unknown, signal: AbortSignal): Promise<ModelImage | undefined> {
    const first: unknown = Array.isArray(output) ? output[0] : output;
    if (typeof first !== 'string') return undefined;
    const { maxOutputBytes, outputFetcher } = this.options;
    return readOutputImage(first, { signal, maxBytes: maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, fetcher: outputFetcher ?? defaultOutputFetcher(), trustedOrigin: new URL(this.base).origin });
  }

  private toModelError(err: unknown, signal: AbortSignal): Error {
    if (err instanceof ModelFailedError || err instanceof ModelQuotaError) return err;
    if (signal.aborted || isAbortError(err)) return new ModelFailedError(signal.aborted ? 'Image model call was aborted' : 'Image model call was cut off');
    const key = this.options.apiKey;
    const status = (err as { name?: string; response?: { status?: number } }).name === 'ApiError' ? (err as { response?: { status?: number } }).response?.status : undefined;
    if (status !== undefined) {
      const said = detailOf((err as Error).message);
      // Its SDK has retried 429 five times already (it ignores Retry-After).
      if (status === 429) return new ModelQuotaError(shortReason(said, key));
      return new ModelFailedError(shortReason(`HTTP ${status}: ${said}`, key));
    }
    return new ModelFailedError(shortReason(networkReason(err), key));
  }
}

/** The `detail` (or `title`) of the JSON body the SDK's error message ends with; the message itself otherwise. */
function detailOf(message: string): string {
  const body = /failed with status \d+[^:]*: (.*)\.$/s.exec(message)?.[1];
  try {
    const parsed = body ? (JSON.parse(body) as { detail?: unknown; title?: unknown }) : undefined;
    if (typeof parsed?.detail === 'string') return parsed.detail;
    if (typeof parsed?.title === 'string') return parsed.title;
  } catch {
    // not JSON: the body as it is
  }
  return body ?? message;
}

