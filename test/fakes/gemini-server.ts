// A loopback stand-in for the Gemini API (`POST /v1beta/models/<model>:generateContent`), speaking the REST
// wire format the @google/genai SDK uses. Records every request; answers what the test queued.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ReplyQueue, sendJson as sendJsonAs, sendRaw, startLoopbackServer, TINY_PNG } from './fake-server.js';

export { TINY_PNG };

export type GeminiReply = {
  delayMs?: number;
  /** Answer only once this settles (a test decides when, instead of waiting a fixed time). */
  holdUntil?: Promise<unknown>;
} & (
  | { kind: 'image'; image: Buffer; mimeType?: string; text?: string }
  | { kind: 'text'; text: string }
  | { kind: 'quota'; retryAfterSeconds?: number }
  | { kind: 'error'; status?: number; message?: string }
  | { kind: 'malformed' }
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  | { kind: 'hang' }
);

export interface GeminiRecordedRequest {
  method: string;
  path: string;
  model?: string;
  apiKey?: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  images: { mimeType: string; data: Buffer }[];
  texts: string[];
  responseModalities?: string[];
  /** Requests already in flight when this one arrived (this one excluded). */
  inFlightAtArrival: number;
}

export interface FakeGemini {
  /** For `httpOptions.baseUrl` / ModelConfig.baseUrl. */
  baseUrl: string;
  requests: GeminiRecordedRequest[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Queues the answer for the next request; with nothing queued the default reply is used. */
  reply(next: GeminiReply): void;
  setDefaultReply(reply: GeminiReply): void;
  close(): Promise<void>;
}


const ROUTE = /^\/v1beta\/models\/([^/:]+):generateContent$/;

/**
 * `replyFor`: the answer chosen from the request itself (its prompt, say) before the queue is asked; undefined
 * falls back to the queue.
 */
export async function startFakeGemini(opts: { apiKey?: string; replyFor?: (req: GeminiRecordedRequest) => GeminiReply | undefined } = {}): Promise<FakeGemini> {
  const replies = new ReplyQueue<GeminiReply>({ kind: 'image', image: TINY_PNG });
  const requests: GeminiRecordedRequest[] = [];

  const server = await startLoopbackServer(async (req, res, raw, inFlightAtArrival) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || !match) return sendError(res, 404, 'NOT_FOUND', `No route for ${req.method} ${url.pathname}`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    const apiKey = header(req.headers['x-goog-api-key']) ?? url.searchParams.get('key') ?? undefined;
    requests.push({ method: req.method, path: url.pathname, model: match[1], apiKey, headers: req.headers, body, ...readParts(body), inFlightAtArrival });
    if (opts.apiKey && apiKey !== opts.apiKey) {
      return sendError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    }
    const next = opts.replyFor?.(requests[requests.length - 1]) ?? replies.next();
    if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
    if (next.holdUntil) await next.holdUntil.catch(() => undefined);
    answer(res, next, match[1]);
  });

  return {
    baseUrl: server.origin,
    requests,
    get inFlight() { return server.inFlight; },
    get maxInFlight() { return server.maxInFlight; },
    reply: replies.reply,
    setDefaultReply: replies.setDefaultReply,
    close: server.close,
  };
}

function answer(res: ServerResponse, reply: GeminiReply, model: string): void {
  switch (reply.kind) {
    case 'hang':
      return;
    case 'image': {
      const parts: unknown[] = reply.text ? [{ text: reply.text }] : [];
      parts.push({ inlineData: { mimeType: reply.mimeType ?? 'image/png', data: reply.image.toString('base64') } });
      return sendJson(res, 200, candidateBody(parts, model));
    }
    case 'text':
      return sendJson(res, 200, candidateBody([{ text: reply.text }], model));
    case 'quota': {
      const seconds = reply.retryAfterSeconds ?? 30;
      res.setHeader('retry-after', String(seconds));
      return sendJson(res, 429, {
        error: {
          code: 429,
          message: 'You exceeded your current quota, please check your plan and billing details.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }],
        },
      });
    }
    case 'error':
      return sendError(res, reply.status ?? 500, 'INTERNAL', reply.message ?? 'Internal error encountered.');
    case 'malformed':
      return sendRaw(res, 200, '{"candidates": [{"content": {"parts": [', 'application/json; charset=UTF-8');
    case 'raw':
      return sendRaw(res, reply.status, reply.body, reply.contentType ?? 'application/json; charset=UTF-8');
  }
}

function candidateBody(parts: unknown[], model: string) {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1290, totalTokenCount: 1300 },
    modelVersion: model,
    responseId: 'fake-response',
  };
}

function readParts(body: unknown): Pick<GeminiRecordedRequest, 'images' | 'texts' | 'responseModalities'> {
  const b = body as { contents?: { parts?: Record<string, any>[] }[]; generationConfig?: { responseModalities?: string[] } };
  const images: GeminiRecordedRequest['images'] = [];
  const texts: string[] = [];
  for (const content of b?.contents ?? []) {
    for (const part of content.parts ?? []) {
      const inline = part.inlineData ?? part.inline_data;
      if (inline) images.push({ mimeType: inline.mimeType ?? inline.mime_type, data: Buffer.from(inline.data, 'base64') });
      if (typeof part.text === 'string') texts.push(part.text);
    }
  }
  return { images, texts, responseModalities: b?.generationConfig?.responseModalities };
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function sendError(res: ServerResponse, status: number, statusText: string, message: string): void {
  sendJson(res, status, { error: { code: status, message, status: statusText } });
}

const sendJson = (res: ServerResponse, status: number, body: unknown) => sendJsonAs(res, status, body, 'application/json; charset=UTF-8');
