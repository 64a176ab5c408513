// gpt-image-1 through the openai SDK (REST `POST /images/edits`, multipart with `image[]` parts).
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from 'openai';
import type { ImagesResponse } from 'openai/resources/images';
import { type GenerateRequest, type GenerateResult, type ImageModel, ModelFailedError, ModelQuotaError } from './image-model.js';
import { decodeBase64, extensionFor, isAbortError, networkReason, parseRetryAfter, shortReason } from './driver-support.js';

export interface OpenAIOptions {
  apiKey: string;
  /** The SDK's baseURL, including the version path (default https://api.openai.com/v1). */
  baseUrl?: string;
  timeoutMs?: number;
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
    let response: ImagesResponse;
    try {
      const image = await Promise.all(
        req.images.map((img, i) => toFile(img.data, `image-${i + 1}.${extensionFor(img.mimeType)}`, { type: img.mimeType })),
      );
      response = await this.client.images.edit({ model: this.id, image, prompt: req.prompt }, { signal: req.signal });
    } catch (err) {
      if (err instanceof SyntaxError || isRefusal(err)) req.onAnswered?.(); // the model was reached
      throw this.toModelError(err, req.signal);
    }
    req.onAnswered?.(); // whatever the answer holds: an image, only a revised prompt, nothing readable
    return { ...readResponse(response), model: this.id };
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
