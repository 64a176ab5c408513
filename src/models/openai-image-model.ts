// gpt-image-1 through the openai SDK (REST `POST /images/edits`, multipart with `image[]` parts). With partial
// images asked for (OPENAI_PARTIAL_IMAGES, default 2), the edit is streamed: each `image_edit.partial_image` event is
// reported as progress with its image (a preview), and `image_edit.completed` carries the final image. An edit's mask
// (GenerateRequest.mask: white edits) goes as the `mask` part in OpenAI's form: a PNG transparent where it edits.
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from 'openai';
import type { ImageEditStreamEvent, ImagesResponse } from 'openai/resources/images';
import { type GenerateRequest, type GenerateResult, type ImageModel, ModelFailedError, ModelQuotaError } from './image-model.js';
import { decodeBase64, extensionFor, isAbortError, networkReason, parseRetryAfter, shortReason } from './driver-support.js';
import { openAIMask } from './openai-mask.js';

export interface OpenAIOptions {
  apiKey: string;
  /** The SDK's baseURL, including the version path (default https://api.openai.com/v1). */
  baseUrl?: string;
  timeoutMs?: number;
  /** Partial images to stream before the final one (0–3); 0: one plain request, no previews. */
  partialImages?: number;
}

export class OpenAIImageModel implements ImageModel {
  readonly id = 'gpt-image-1';
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIOptions) {
    // Everything the SDK would otherwise take from OPENAI_* environment variables is given explicitly.
    this.client = new OpenAI({
      apiKey: options.apiKey,
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      baseURL: options.baseUrl ?? 'https://api.openai.com/v1',
      maxRetries: 0,
      timeout: options.timeoutMs,
      logLevel: 'warn',
    });
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const partials = this.options.partialImages ?? 0;
    if (partials > 0) return this.generateStreamed(req, partials);
    const mask = await maskPart(req); // a mask that cannot be read fails the call here, before anything is sent
    let response: ImagesResponse;
    try {
      response = await this.client.images.edit({ model: this.id, image: await files(req), prompt: req.prompt, ...mask }, { signal: req.signal });
    } catch (err) {
      if (err instanceof SyntaxError || isRefusal(err)) req.onAnswered?.(); // the model was reached
      throw this.toModelError(err, req.signal);
    }
    req.onAnswered?.(); // whatever the answer holds: an image, only a revised prompt, nothing readable
    return { ...readResponse(response), model: this.id };
  }

  /** The edit as a stream of events: partial images as progress (previews), then the final image. */
  private async generateStreamed(req: GenerateRequest, partials: number): Promise<GenerateResult> {
    let answered = false;
    const answer = () => {
      if (!answered) req.onAnswered?.(); // the stream opened: the model took the call, whatever comes of it
      answered = true;
    };
    const mask = await maskPart(req);
    try {
      const events = await this.client.images.edit(
        { model: this.id, image: await files(req), prompt: req.prompt, ...mask, stream: true, partial_images: partials },
        { signal: req.signal },
      );
      answer();
      for await (const event of events as AsyncIterable<ImageEditStreamEvent>) {
        if (event.type === 'image_edit.partial_image') {
          const data = decodeBase64(event.b64_json);
          if (!data) continue; // a preview that cannot be read is only a preview
          const index = event.partial_image_index;
          req.onProgress?.({ preview: { data, mimeType: `image/${event.output_format ?? 'png'}` }, message: `Preview ${index + 1} of ${partials}` });
        } else if (event.type === 'image_edit.completed') {
          if (!event.b64_json) return { text: 'The model returned no image.', model: this.id };
          const data = decodeBase64(event.b64_json);
          if (!data) throw new ModelFailedError('Image model sent a malformed answer (invalid base64 image)');
          return { image: { data, mimeType: `image/${event.output_format ?? 'png'}` }, model: this.id };
        }
      }
    } catch (err) {
      if (err instanceof ModelFailedError) throw err;
      if (err instanceof SyntaxError || isRefusal(err)) answer(); // the model was reached
      throw this.toModelError(err, req.signal);
    }
    if (req.signal.aborted) throw new ModelFailedError('Image model call was aborted');
    throw new ModelFailedError('Image model stream ended without the final image');
  }

  private toModelError(err: unknown, signal: AbortSignal): Error {
    const key = this.options.apiKey;
    if (err instanceof APIConnectionTimeoutError) {
      return new ModelFailedError(`Image model timed out after ${this.options.timeoutMs} ms`);
    }
    if (err instanceof APIUserAbortError || isAbortError(err)) {
      return new ModelFailedError(signal.aborted ? 'Image model call was aborted' : 'Image model call was cut off');
    }
    if (isHttpError(err)) {
      const body: { message?: unknown } | undefined = err.error;
      const reason = shortReason(typeof body?.message === 'string' ? body.message : err.message, key);
      if (err.status === 429) {
        const ms = Number(err.headers?.get('retry-after-ms'));
        const retryAfter = parseRetryAfter(err.headers?.get('retry-after')) ?? (ms > 0 ? Math.ceil(ms / 1000) : undefined);
        return new ModelQuotaError(`Image model quota exceeded: ${reason}`, retryAfter);
      }
      return new ModelFailedError(`Image model answered HTTP ${err.status}: ${reason}`);
    }
    if (err instanceof SyntaxError) return new ModelFailedError('Image model sent a malformed answer (invalid JSON)');
    const cause = err instanceof APIError && err.cause ? err.cause : err;
    return new ModelFailedError(`Image model request failed: ${shortReason(networkReason(cause), key)}`);
  }
}

/** The request's images as the files of the multipart body (`image[]`). */
function files(req: GenerateRequest) {
  return Promise.all(req.images.map((img, i) => toFile(img.data, `image-${i + 1}.${extensionFor(img.mimeType)}`, { type: img.mimeType })));
}

/** The edit's mask as the `mask` part: transparent where the request's mask is white (nothing without a mask). */
async function maskPart(req: GenerateRequest) {
  if (!req.mask) return {};
  return { mask: await toFile(await openAIMask(req.mask.data), 'mask.png', { type: 'image/png' }) };
}

function readResponse(response: ImagesResponse): Omit<GenerateResult, 'model'> {
  // A non-JSON body reaches us as a string.
  if (typeof response !== 'object' || response === null || !Array.isArray(response.data)) {
    throw new ModelFailedError('Image model sent a malformed answer (no data list)');
  }
  const first = response.data[0];
  const text = typeof first?.revised_prompt === 'string' ? first.revised_prompt : undefined;
  if (first?.b64_json === undefined) return { text: text ?? 'The model returned no image.' };
  const data = decodeBase64(first.b64_json);
  if (!data) throw new ModelFailedError('Image model sent a malformed answer (invalid base64 image)');
  const format = response.output_format ?? 'png';
  return { image: { data, mimeType: `image/${format}` }, ...(text ? { text } : {}) };
}

/** The safety system refused the prompt or an input (HTTP 400 `moderation_blocked`): the model's answer to it. */
function isRefusal(err: unknown): boolean {
  return isHttpError(err) && err.status === 400 && err.code === 'moderation_blocked';
}

/** An APIError the API answered with an HTTP status (an APIConnectionError is an APIError without one). */
function isHttpError(err: unknown): err is APIError<number> {
  return err instanceof APIError && err.status !== undefined;
}
