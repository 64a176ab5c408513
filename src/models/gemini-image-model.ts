// Gemini image models through @google/genai (REST `models/<model>:generateContent`).
import { ApiError, FinishReason, GoogleGenAI, type GenerateContentResponse, type Part } from '@google/genai';
import { type GenerateRequest, type GenerateResult, type ImageModel, ModelFailedError, ModelQuotaError } from './image-model.js';
import { decodeBase64, isAbortError, networkReason, parseRetryAfter, shortReason } from './driver-support.js';

// Given explicitly so that GOOGLE_GEMINI_BASE_URL in the environment cannot redirect the SDK.
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/';

export interface GeminiOptions {
  model: string;
  apiKey: string;
  baseUrl?: string;
  timeoutMs?: number;
}

export class GeminiImageModel implements ImageModel {
  readonly id: string;
  private readonly client: GoogleGenAI;

  constructor(private readonly options: GeminiOptions) {
    this.id = options.model;
    // vertexai:false pins the Gemini API backend (the SDK otherwise honours GOOGLE_GENAI_USE_VERTEXAI); the SDK
    // retries nothing unless httpOptions.retryOptions is set, which is what we want.
    this.client = new GoogleGenAI({
      apiKey: options.apiKey,
      vertexai: false,
      httpOptions: { baseUrl: options.baseUrl ?? DEFAULT_BASE_URL, apiVersion: 'v1beta', timeout: options.timeoutMs },
    });
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const parts: Part[] = req.images.map((img) => ({
      inlineData: { mimeType: img.mimeType, data: img.data.toString('base64') },
    }));
    parts.push({ text: req.prompt });
    let response: GenerateContentResponse;
    try {
      response = await this.client.models.generateContent({
        model: this.id,
        contents: [{ role: 'user', parts }],
        config: { responseModalities: ['TEXT', 'IMAGE'], abortSignal: req.signal },
      });
    } catch (err) {
      // A body that is not JSON came with a success status: the model was reached.
      if (err instanceof SyntaxError) req.onAnswered?.();
      throw this.toModelError(err, req.signal);
    }
    req.onAnswered?.(); // whatever the answer holds: an image, text only, a blocked prompt, nothing readable
    return { ...readResponse(response), model: this.id, ...(response.modelVersion ? { modelVersion: response.modelVersion } : {}) };
  }

  private toModelError(err: unknown, signal: AbortSignal): Error {
    const key = this.options.apiKey;
    if (err instanceof ApiError) {
      const body = parseErrorBody(err.message);
      const reason = shortReason(body?.message ?? err.message, key);
      if (err.status === 429) return new ModelQuotaError(`Image model quota exceeded: ${reason}`, body?.retryAfterSeconds);
      return new ModelFailedError(`Image model answered HTTP ${err.status}: ${reason}`);
    }
    if (isAbortError(err)) {
      return new ModelFailedError(
        signal.aborted ? 'Image model call was aborted' : `Image model timed out after ${this.options.timeoutMs} ms`,
      );
    }
    if (err instanceof SyntaxError) return new ModelFailedError('Image model sent a malformed answer (invalid JSON)');
    return new ModelFailedError(`Image model request failed: ${shortReason(networkReason(err), key)}`);
  }
}

function readResponse(response: GenerateContentResponse): Omit<GenerateResult, 'model'> {
  const candidates: unknown = response?.candidates;
  if (candidates === undefined && response?.promptFeedback?.blockReason) {
    return { text: `The prompt was blocked (${response.promptFeedback.blockReason}).` };
  }
  if (!Array.isArray(candidates)) throw malformed('no candidates');
  const candidate = response.candidates?.[0];
  if (!candidate) return { text: 'The model returned no candidates.' };
  const parts: unknown = candidate.content?.parts ?? [];
  if (!Array.isArray(parts)) throw malformed('parts is not a list');

  let image: GenerateResult['image'];
  const texts: string[] = [];
  for (const part of parts as Part[]) {
    // Thinking models (gemini-3-pro-image) send draft images and reasoning as thought parts: not the answer.
    if (part.thought) continue;
    if (part.inlineData && !image) {
      const data = decodeBase64(part.inlineData.data);
      if (!data) throw malformed('image part without valid base64 data');
      image = { data, mimeType: part.inlineData.mimeType ?? 'image/png' };
    } else if (typeof part.text === 'string') {
      texts.push(part.text);
    }
  }
  const text = texts.join('').trim();
  if (image) return text ? { image, text } : { image };
  const finish = candidate.finishReason && candidate.finishReason !== FinishReason.STOP ? ` (finish reason ${candidate.finishReason})` : '';
  return { text: text || `The model returned no image${finish}.` };
}

const malformed = (what: string) => new ModelFailedError(`Image model sent a malformed answer (${what})`);

/** Gemini error bodies are `{ error: { message, details: [{ '@type': '…RetryInfo', retryDelay: '17s' }] } }`. */
function parseErrorBody(message: string): { message?: string; retryAfterSeconds?: number } | undefined {
  try {
    const error = (JSON.parse(message) as { error?: { message?: unknown; details?: unknown } }).error;
    if (!error) return undefined;
    const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
    const retry = details.find((d) => {
      const type = d?.['@type'];
      return typeof type === 'string' && type.endsWith('google.rpc.RetryInfo');
    });
    const delay = typeof retry?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(retry.retryDelay)?.[1] : undefined;
    return {
      message: typeof error.message === 'string' ? error.message : undefined,
      retryAfterSeconds: parseRetryAfter(delay),
    };
  } catch {
    return undefined;
  }
}
