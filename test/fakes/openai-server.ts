// A loopback stand-in for the OpenAI Images API (`POST /v1/images/edits`, multipart/form-data with `image[]`
// parts, bearer auth), as the openai SDK calls it. Records every request; answers what the test queued. A request
// with `stream=true` is answered as the API streams: server-sent events `image_edit.partial_image` (one per
// partial image asked for, `partial_images`) and then `image_edit.completed`. A `mask` part is checked as the API
// checks it (a PNG with an alpha channel, the size of the first image; else 400) and recorded apart from the images.
import sharp from 'sharp';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ReplyQueue, sendJson, sendRaw, startLoopbackServer, TINY_PNG } from './fake-server.js';

export type OpenAIReply = { delayMs?: number } & (
  | {
      kind: 'image';
      image: Buffer;
      outputFormat?: 'png' | 'jpeg' | 'webp';
      revisedPrompt?: string;
      /** Streamed: the partial images sent before the final one (default: the final image, as many as asked for). */
      partials?: Buffer[];
      /** Streamed: the final event waits for this (a test decides when, after it saw the partials arrive). */
      completeAfter?: Promise<unknown>;
      /** Streamed: the stream ends after the partials, without a final event. */
      cutAfterPartials?: boolean;
    }
  | { kind: 'text'; text: string }
  | { kind: 'quota'; retryAfterSeconds?: number }
  | { kind: 'error'; status?: number; message?: string }
  | { kind: 'malformed' }
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  | { kind: 'hang' }
);

export interface OpenAIRecordedRequest {
  method: string;
  path: string;
  apiKey?: string;
  headers: IncomingHttpHeaders;
  model?: string;
  prompt?: string;
  /** Files in the order sent, with the form field name each came in (the SDK uses `image[]` for a list). */
  images: { field: string; name: string; mimeType: string; data: Buffer }[];
  /** The `mask` part, when one came (its transparent pixels mark where to edit). */
  mask?: { name: string; mimeType: string; data: Buffer };
  fields: Record<string, string>;
  /** Requests already in flight when this one arrived (this one excluded). */
  inFlightAtArrival: number;
}

export interface FakeOpenAI {
  /** For the SDK's `baseURL` / ModelConfig.baseUrl (includes `/v1`). */
  baseUrl: string;
  requests: OpenAIRecordedRequest[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  reply(next: OpenAIReply): void;
  setDefaultReply(reply: OpenAIReply): void;
  close(): Promise<void>;
}


export async function startFakeOpenAI(opts: { apiKey?: string } = {}): Promise<FakeOpenAI> {
  const replies = new ReplyQueue<OpenAIReply>({ kind: 'image', image: TINY_PNG });
  const requests: OpenAIRecordedRequest[] = [];

  const server = await startLoopbackServer(async (req, res, body, inFlightAtArrival) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST' || path !== '/v1/images/edits') return sendError(res, 404, `Invalid URL (${req.method} ${path})`, 'invalid_request_error');
    const contentType = req.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data')) return sendError(res, 400, 'Expected multipart/form-data', 'invalid_request_error');
    let form: FormData;
    try {
      form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    } catch {
      return sendError(res, 400, 'Could not parse multipart form', 'invalid_request_error');
    }
    const recorded = await readForm(form);
    const apiKey = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    requests.push({ method: req.method, path, apiKey, headers: req.headers, ...recorded, inFlightAtArrival });
    if (opts.apiKey && apiKey !== opts.apiKey) {
      return sendError(res, 401, `Incorrect API key provided: ${apiKey}.`, 'invalid_request_error', 'invalid_api_key');
    }
    const maskProblem = recorded.mask ? await checkMask(recorded.mask.data, recorded.images[0]?.data) : undefined;
    if (maskProblem) return sendError(res, 400, maskProblem, 'invalid_request_error', 'invalid_image_file');
    const next = replies.next();
    if (next.delayMs) await new Promise((r) => setTimeout(r, next.delayMs));
    if (recorded.fields.stream === 'true' && (next.kind === 'image' || next.kind === 'text' || next.kind === 'malformed')) {
      return stream(res, next, Number(recorded.fields.partial_images ?? 0));
    }
    answer(res, next);
  });

  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    get inFlight() { return server.inFlight; },
    get maxInFlight() { return server.maxInFlight; },
    reply: replies.reply,
    setDefaultReply: replies.setDefaultReply,
    close: server.close,
  };
}

async function readForm(form: FormData): Promise<Pick<OpenAIRecordedRequest, 'model' | 'prompt' | 'images' | 'mask' | 'fields'>> {
  const images: OpenAIRecordedRequest['images'] = [];
  const fields: Record<string, string> = {};
  let mask: OpenAIRecordedRequest['mask'];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') fields[field] = value;
    else if (field === 'mask') mask = { name: value.name, mimeType: value.type, data: Buffer.from(await value.arrayBuffer()) };
    else images.push({ field, name: value.name, mimeType: value.type, data: Buffer.from(await value.arrayBuffer()) });
  }
  return { model: fields.model, prompt: fields.prompt, images, ...(mask ? { mask } : {}), fields };
}

/** What the API says of a mask it cannot use: not a PNG, no alpha channel, or not the first image's size. */
async function checkMask(mask: Buffer, image: Buffer | undefined): Promise<string | undefined> {
  const [m, i] = await Promise.all([sharp(mask).metadata().catch(() => undefined), image ? sharp(image).metadata().catch(() => undefined) : undefined]);
  if (m?.format !== 'png') return 'Invalid mask image format - mask must be a PNG file';
  if (!m.hasAlpha) return "Invalid input image - format must be in ['RGBA', 'LA'], got RGB.";
  if (i && (i.width !== m.width || i.height !== m.height)) return 'Invalid mask image format - mask size does not match image size';
  return undefined;
}

function answer(res: ServerResponse, reply: OpenAIReply): void {
  const created = 1_700_000_000;
  switch (reply.kind) {
    case 'hang':
      return;
    case 'image': {
      const format = reply.outputFormat ?? 'png';
      const item = { b64_json: reply.image.toString('base64'), ...(reply.revisedPrompt ? { revised_prompt: reply.revisedPrompt } : {}) };
      return sendJson(res, 200, {
        created, background: 'opaque', data: [item], output_format: format, quality: 'high', size: '1024x1024',
        usage: { input_tokens: 50, input_tokens_details: { image_tokens: 40, text_tokens: 10 }, output_tokens: 4160, total_tokens: 4210 },
      });
    }
    case 'text':
      return sendJson(res, 200, { created, data: [{ revised_prompt: reply.text }] });
    case 'quota':
      res.setHeader('retry-after', String(reply.retryAfterSeconds ?? 20));
      return sendError(res, 429, 'Rate limit reached for gpt-image-1 on images per minute. Please try again later.', 'requests', 'rate_limit_exceeded');
    case 'error':
      return sendError(res, reply.status ?? 500, reply.message ?? 'The server had an error while processing your request.', 'server_error');
    case 'malformed':
      return sendRaw(res, 200, '{"created": 1700000000, "data": [{"b64_json": ', 'application/json');
    case 'raw':
      return sendRaw(res, reply.status, reply.body, reply.contentType ?? 'application/json');
  }
}

/** The streamed answer: `event:` and `data:` lines as the API sends them. */
async function stream(res: ServerResponse, reply: Extract<OpenAIReply, { kind: 'image' | 'text' | 'malformed' }>, partialImages: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: string) => res.write(`event: ${event}\ndata: ${data}\n\n`);
  const common = { background: 'opaque', created_at: 1_700_000_000, quality: 'high', size: '1024x1024' };
  if (reply.kind === 'malformed') {
    send('image_edit.completed', '{"type": "image_edit.completed", "b64_json": ');
    return void res.end();
  }
  if (reply.kind === 'image') {
    const format = reply.outputFormat ?? 'png';
    const partials = reply.partials ?? Array.from({ length: partialImages }, () => reply.image);
    for (const [i, partial] of partials.entries()) {
      send('image_edit.partial_image', JSON.stringify({ type: 'image_edit.partial_image', b64_json: partial.toString('base64'), partial_image_index: i, output_format: format, ...common }));
    }
    if (reply.cutAfterPartials) return void res.end();
    if (reply.completeAfter) await reply.completeAfter.catch(() => undefined);
    const usage = { input_tokens: 50, input_tokens_details: { image_tokens: 40, text_tokens: 10 }, output_tokens: 4160, total_tokens: 4210 };
    send('image_edit.completed', JSON.stringify({ type: 'image_edit.completed', b64_json: reply.image.toString('base64'), output_format: format, usage, ...common }));
  } else {
    // A final event without an image (the API's answer when it made none).
    send('image_edit.completed', JSON.stringify({ type: 'image_edit.completed', output_format: 'png', ...common }));
  }
  res.end();
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null = null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}
