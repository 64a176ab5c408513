// fal's image-edit models through `@fal-ai/client` (its queue API: submit, status with position and logs, result,
// cancel). Inputs go as data URIs in the JSON body and `sync_mode` asks for the output the same way, so nothing is
// uploaded to fal's storage and nothing is fetched from a CDN; an output given as an https URL anyway is fetched
// through the SSRF guard, bounded while it is read. `baseUrl` (FAL_BASE_URL) sends the queue calls to another host — a proxy, or a test's fake — through
// the client's request middleware.
import { ApiError, createFalClient, ValidationError, type FalClient, type QueueStatus } from '@fal-ai/client';
import { type GenerateRequest, type GenerateResult, type ImageModel, type ModelImage, ModelFailedError, ModelQuotaError } from './image-model.js';
import { DEFAULT_MAX_OUTPUT_BYTES, dataUri, defaultOutputFetcher, isAbortError, networkReason, pause, readOutputImage, shortReason, type OutputFetcher } from './driver-support.js';
import { FAL_STEP_ENDPOINTS, falStepInput, isFalStepEndpoint } from './hosted-steps.js';

export interface FalOptions {
  /** The fal endpoint, e.g. `fal-ai/nano-banana/edit`: also our model id. */
  endpoint: FalEndpoint;
  apiKey: string;
  /** Where the queue calls go instead of https://queue.fal.run (no trailing slash). */
  baseUrl?: string;
  /** How often the request's status is read (ms). */
  pollMs?: number;
  /** The largest output image accepted (bytes). */
  maxOutputBytes?: number;
  /** How an output given as a URL is fetched (the service's SSRF guard; default: the guard over the public internet). */
  outputFetcher?: OutputFetcher;
}

export const FAL_ENDPOINTS = ['fal-ai/nano-banana/edit', 'fal-ai/flux-pro/kontext', 'fal-ai/qwen-image-edit', 'fal-ai/flux-pro/v1/fill', ...FAL_STEP_ENDPOINTS] as const;
export type FalEndpoint = (typeof FAL_ENDPOINTS)[number];

const QUEUE_HOST = 'https://queue.fal.run';
const DEFAULT_POLL_MS = 500;


/**
 * Each endpoint's input: nano-banana takes a list of images, the Kontext and Qwen editors one; FLUX.1 Fill one image
 * and its mask (`mask_url`, white edits, the image's size), which only it is sent.
 */
function inputFor(endpoint: FalEndpoint, req: GenerateRequest): Record<string, unknown> {
  if (isFalStepEndpoint(endpoint)) return falStepInput(endpoint, req); // an upscaler or background remover
  const common = { prompt: req.prompt, num_images: 1, output_format: 'png', sync_mode: true, ...(req.seed !== undefined ? { seed: req.seed } : {}) };
  if (endpoint === 'fal-ai/nano-banana/edit') return { ...common, image_urls: req.images.map(dataUri) };
  if (endpoint === 'fal-ai/flux-pro/v1/fill') {
    if (!req.mask) throw new ModelFailedError(`${endpoint} inpaints a mask, and was given none`);
    return { ...common, image_url: dataUri(req.images[0]), mask_url: dataUri(req.mask) };
  }
  return { ...common, image_url: dataUri(req.images[0]) };
}

export class FalImageModel implements ImageModel {
  readonly id: FalEndpoint;
  private readonly client: FalClient;

  constructor(private readonly options: FalOptions) {
    this.id = options.endpoint;
    const base = options.baseUrl?.replace(/\/+$/, '');
    this.client = createFalClient({
      credentials: options.apiKey,
      ...(base ? { requestMiddleware: async (request) => ({ ...request, url: request.url.startsWith(QUEUE_HOST) ? base + request.url.slice(QUEUE_HOST.length) : request.url }) } : {}),
    });
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { signal } = req;
    let requestId: string | undefined;
    try {
      // As a plain endpoint id: the input is ours (inputFor), not the SDK's generated type of each endpoint.
      const endpoint: string = this.id;
      ({ request_id: requestId } = await this.client.queue.submit(endpoint, { input: inputFor(this.id, req), abortSignal: signal }));
      await this.waitForCompletion(requestId, req);
      req.onAnswered?.(); // the model ran: its answer (an image, none, or its own error) is the call's
      const result = await this.client.queue.result(this.id, { requestId, abortSignal: signal });
      const image = await this.readImage(result.data, signal);
      const description = (result.data as { description?: unknown }).description;
      return { ...(image ? { image } : {}), ...(typeof description === 'string' && description ? { text: description } : {}), model: this.id, modelVersion: this.id };
    } catch (err) {
      if (requestId && signal.aborted) this.client.queue.cancel(this.id, { requestId }).catch(() => undefined); // no longer wanted: fal stops it
      throw this.toModelError(err, signal);
    }
  }

  /** Reads the request's status until it is COMPLETED, telling `onProgress` its queue position and log lines. */
  private async waitForCompletion(requestId: string, req: GenerateRequest): Promise<void> {
    let logsSeen = 0;
    let started = false;
    for (;;) {
      const status: QueueStatus = await this.client.queue.status(this.id, { requestId, logs: true, abortSignal: req.signal });
      // fal counts from 0 (next to start); ours from 1.
      if (status.status === 'IN_QUEUE') req.onProgress?.({ queuePosition: status.queue_position + 1 });
      else {
        const logs = status.logs ?? [];
        const fresh = logs.slice(logsSeen).filter((l) => typeof l.message === 'string' && l.message.trim());
        logsSeen = logs.length;
        if (fresh.length > 0) req.onProgress?.({ message: shortReason(fresh.at(-1)!.message) });
        else if (!started && status.status === 'IN_PROGRESS') req.onProgress?.({ message: 'running' });
        started = true;
      }
      if (status.status === 'COMPLETED') return;
      await pause(this.options.pollMs ?? DEFAULT_POLL_MS, req.signal);
    }
  }

  /**
   * The first image of the answer: a data URI (sync_mode), or a URL fetched here through the SSRF guard (https, or
   * http on FAL_BASE_URL's own origin); undefined when there is none.
   */
  private async readImage(data: unknown, signal: AbortSignal): Promise<ModelImage | undefined> {
    const { images, image } = data as { images?: unknown; image?: unknown };
    // The editors answer a list of images; the upscalers and background removers one `image`.
    const first = (Array.isArray(images) ? images[0] : image) as { url?: unknown; content_type?: unknown } | undefined;
    if (typeof first?.url !== 'string') return undefined;
    const mimeType = typeof first.content_type === 'string' ? first.content_type : undefined;
    const { baseUrl, maxOutputBytes, outputFetcher } = this.options;
    return readOutputImage(first.url, {
      signal,
      maxBytes: maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      fetcher: outputFetcher ?? defaultOutputFetcher(),
      ...(baseUrl ? { trustedOrigin: new URL(baseUrl).origin } : {}),
      ...(mimeType ? { mimeType } : {}),
    });
  }

  private toModelError(err: unknown, signal: AbortSignal): Error {
    if (err instanceof ModelFailedError || err instanceof ModelQuotaError) return err;
    if (signal.aborted || isAbortError(err)) return new ModelFailedError(signal.aborted ? 'Image model call was aborted' : 'Image model call was cut off');
    const key = this.options.apiKey;
    if (err instanceof ValidationError) {
      const first = err.fieldErrors[0];
      return new ModelFailedError(shortReason(first ? `invalid input (${first.loc.join('.')}): ${first.msg}` : err.message, key));
    }
    if (err instanceof ApiError) {
      const body = err.body as { detail?: unknown; message?: unknown } | undefined;
      const said = typeof body?.detail === 'string' ? body.detail : typeof body?.message === 'string' ? body.message : err.message;
      // fal states no Retry-After; its client has already retried 429 three times, with pauses, before this.
      if (err.status === 429) return new ModelQuotaError(shortReason(said, key));
      return new ModelFailedError(shortReason(`HTTP ${err.status}: ${said}`, key));
    }
    return new ModelFailedError(shortReason(networkReason(err), key));
  }
}

