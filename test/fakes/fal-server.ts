// A loopback stand-in for fal's queue API as `@fal-ai/client` 1.x calls it (docs/research/model-providers.md §1):
// `POST /{endpoint}` submits (JSON input, `Authorization: Key <key>`), `GET /{owner}/{alias}/requests/{id}/status`
// answers IN_QUEUE (with queue_position) / IN_PROGRESS / COMPLETED (with logs), `GET …/requests/{id}` the result,
// `PUT …/requests/{id}/cancel` cancels. Each request plays the script the test queued: the statuses its reads
// see in turn (the last one repeats), then its result. A script may hold the request IN_PROGRESS until released.
// FLUX.1 Fill (`fal-ai/flux-pro/v1/fill`) is refused 422 without its `image_url`, `mask_url` and `prompt`, as fal does.
import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Arrivals, ReplyQueue, sendJson, startLoopbackServer, TINY_PNG } from './fake-server.js';
import type { OutputFiles } from './output-files.js';

/** Endpoints whose result is one `image` rather than `images` (fal's upscalers and background removers). */
const SINGLE_IMAGE_ENDPOINTS: ReadonlySet<string> = new Set(['fal-ai/clarity-upscaler', 'fal-ai/bria/background/remove']);

export type FalStatusStep = { status: 'IN_QUEUE'; position: number } | { status: 'IN_PROGRESS'; logs?: string[] };

export type FalResult =
  /** `asUrl`: the output's URL as given (a path starting with `/` is on this fake's origin: its `files`). */
  | { kind: 'image'; image?: Buffer; description?: string; asUrl?: string }
  | { kind: 'no-image'; description?: string }
  | { kind: 'error'; status: number; detail: string };

export interface FalScript {
  /** What successive status reads see before COMPLETED (default: straight to COMPLETED). */
  steps?: FalStatusStep[];
  /** Stay IN_PROGRESS (after the steps) until `release()` is called. */
  hold?: boolean;
  result?: FalResult;
  /** Refuse the submit itself with this HTTP status (e.g. 429, 422). */
  submitStatus?: number;
}

export interface FalRecordedRequest {
  endpoint: string;
  requestId: string;
  key?: string;
  input: Record<string, unknown>;
  /** Status reads made, and whether they asked for logs. */
  statusReads: { logs: boolean }[];
  canceled: boolean;
}

export interface FakeFal {
  /** For FAL_BASE_URL: replaces https://queue.fal.run. */
  baseUrl: string;
  requests: FalRecordedRequest[];
  /** Submits refused (e.g. with 429), counted: the client retries some of them. */
  refusedSubmits: number;
  script(next: FalScript): void;
  /** Lets every held request complete. */
  release(): void;
  /** Resolves once a request is held IN_PROGRESS (its status was read while held). */
  held(): Promise<FalRecordedRequest>;
  /** Resolves once a request is canceled (its cancel arrived). */
  canceled(): Promise<FalRecordedRequest>;
  close(): Promise<void>;
}

interface Live {
  recorded: FalRecordedRequest;
  script: FalScript;
  reads: number;
}

/** The input fields an endpoint refuses to run without. */
const REQUIRED: Record<string, string[]> = { 'fal-ai/flux-pro/v1/fill': ['prompt', 'image_url', 'mask_url'] };

export async function startFakeFal(opts: { key?: string; files?: OutputFiles; host?: string } = {}): Promise<FakeFal> {
  const scripts = new ReplyQueue<FalScript>({});
  const requests: FalRecordedRequest[] = [];
  const live = new Map<string, Live>();
  let released = false;
  let refusedSubmits = 0;
  const held = new Arrivals<FalRecordedRequest>();
  const canceled = new Arrivals<FalRecordedRequest>();

  const unauthorized = (res: ServerResponse) => sendJson(res, 401, { detail: 'Cannot access application: invalid key' });

  const server = await startLoopbackServer(async (req, res, body) => {
    if (opts.files?.handle(req, res)) return; // its file host (outputs named by URL): no key needed there
    const url = new URL(req.url ?? '/', 'http://fake');
    const key = /^Key (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (opts.key && key !== opts.key) return unauthorized(res);
    const parts = url.pathname.split('/').filter(Boolean);
    const at = parts.indexOf('requests');
    if (req.method === 'POST' && at < 0) {
      const endpoint = parts.join('/');
      const script = scripts.next();
      if (script.submitStatus) {
        refusedSubmits++;
        return sendJson(res, script.submitStatus, script.submitStatus === 422 ? { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'missing' }] } : { detail: 'Rate limit exceeded' });
      }
      const input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      const missing = (REQUIRED[endpoint] ?? []).find((field) => typeof input[field] !== 'string');
      if (missing) return sendJson(res, 422, { detail: [{ loc: ['body', missing], msg: 'field required', type: 'missing' }] });
      const requestId = randomUUID();
      const recorded: FalRecordedRequest = { endpoint, requestId, key, input, statusReads: [], canceled: false };
      requests.push(recorded);
      live.set(requestId, { recorded, script, reads: 0 });
      const base = `${server.origin}/${parts.slice(0, 2).join('/')}/requests/${requestId}`;
      return sendJson(res, 200, { request_id: requestId, response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel`, status: 'IN_QUEUE', queue_position: 0 });
    }
    const request = at >= 0 ? live.get(parts[at + 1]) : undefined;
    if (!request) return sendJson(res, 404, { detail: 'Request not found' });
    const tail = parts.slice(at + 2).join('/');
    const base = { request_id: request.recorded.requestId, response_url: '', status_url: '', cancel_url: '' };
    if (req.method === 'GET' && tail === 'status') {
      const logs = url.searchParams.get('logs') === '1';
      request.recorded.statusReads.push({ logs });
      const steps = request.script.steps ?? [];
      const step = steps[Math.min(request.reads++, steps.length)];
      if (request.recorded.canceled) return sendJson(res, 200, { ...base, status: 'COMPLETED', logs: [] });
      if (step?.status === 'IN_QUEUE') return sendJson(res, 200, { ...base, status: 'IN_QUEUE', queue_position: step.position });
      const lines = (step?.status === 'IN_PROGRESS' ? step.logs : undefined) ?? [];
      const asLogs = lines.map((message) => ({ message, level: 'INFO', source: 'USER', timestamp: new Date(0).toISOString() }));
      if (step) return sendJson(res, 200, { ...base, status: 'IN_PROGRESS', logs: asLogs });
      if (request.script.hold && !released) {
        held.fire(request.recorded);
        return sendJson(res, 200, { ...base, status: 'IN_PROGRESS', logs: [] });
      }
      return sendJson(res, 200, { ...base, status: 'COMPLETED', logs: asLogs, metrics: { inference_time: 0.5 } });
    }
    if (req.method === 'PUT' && tail === 'cancel') {
      request.recorded.canceled = true;
      canceled.fire(request.recorded);
      return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
    }
    if (req.method === 'GET' && tail === '') {
      const result = request.script.result ?? { kind: 'image' };
      res.setHeader('x-fal-request-id', request.recorded.requestId);
      if (result.kind === 'error') return sendJson(res, result.status, { detail: result.detail });
      if (result.kind === 'no-image') return sendJson(res, 200, { images: [], description: result.description ?? '' });
      const asUrl = result.asUrl?.startsWith('/') ? `${server.origin}${result.asUrl}` : result.asUrl;
      const url = asUrl ?? `data:image/png;base64,${(result.image ?? TINY_PNG).toString('base64')}`;
      // The upscalers and background removers answer one `image`, as fal's own do; the editors a list.
      if (SINGLE_IMAGE_ENDPOINTS.has(request.recorded.endpoint)) return sendJson(res, 200, { image: { url, content_type: 'image/png', width: 1, height: 1 } });
      return sendJson(res, 200, { images: [{ url, content_type: 'image/png', width: 1, height: 1 }], description: result.description ?? '' });
    }
    return sendJson(res, 405, { detail: `Method not allowed (${req.method} ${url.pathname})` });
  }, undefined, opts.host);

  return {
    baseUrl: server.origin,
    requests,
    get refusedSubmits() {
      return refusedSubmits;
    },
    script: scripts.reply,
    release: () => {
      released = true;
    },
    held: held.next,
    canceled: canceled.next,
    close: () => server.close(),
  };
}
