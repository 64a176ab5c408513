// The typed TypeScript client of the Image Canvas API: openapi-fetch over the types generated from
// docs/openapi.json (schema.d.ts, `npm run web:types`), plus helpers for what a typed request/response does not
// cover: following job events (Server-Sent Events), waiting for a job, uploading a file, downloading a result, and
// the runs of a project's graph (runs.ts: start, estimate, read, cancel, follow to the end).
// Runs unchanged in browsers and on Node ≥ 20 (fetch, streams and TextDecoder only; no Node modules). The web
// client (web/src/api/client.ts) and the example script (docs/examples/generate.ts) use it; docs/api.md
// "Scripts and the typed client" describes it.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { createRuns, type RunsHelpers, type RunView } from './runs.js';
import { createSseParser, type SseEvent } from './sse.js';

export type { components, paths };
export { createSseParser, type SseEvent, type SseParser, type SseParserHandlers } from './sse.js';
export {
  FINISHED_RUN_STATUSES,
  isRunFinished,
  type FollowRunOptions,
  type RunEstimate,
  type RunJob,
  type RunJobStatus,
  type RunMode,
  type RunRequest,
  type RunsHelpers,
  type RunStatus,
  type RunView,
} from './runs.js';

export type GenerationJob = components['schemas']['GenerationJob'];
export type GenerationJobStatus = GenerationJob['status'];
export type ApiErrorBody = components['schemas']['Error'];

/** The states a job does not leave. */
export const FINISHED_JOB_STATUSES: readonly GenerationJobStatus[] = ['succeeded', 'failed', 'canceled'];
export const isFinished = (job: Pick<GenerationJob, 'status'>): boolean => FINISHED_JOB_STATUSES.includes(job.status);

export interface ImageCanvasClientOptions {
  /** The service's origin (and path prefix, if it has one), e.g. `https://canvas.example.com`. */
  baseUrl: string;
  /** A personal API token (`ic_…`), sent as `Authorization: Bearer`. Without one, requests carry the browser's cookie. */
  token?: string;
  /** A fetch to use instead of the global one (openapi-fetch's signature: it is always given a Request). */
  fetch?: (input: Request) => Promise<Response>;
}

/** The service refused a request: its status and its `{ error, details? }` body (or the text it answered). */
export class ImageCanvasError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const { error, details } = (typeof body === 'object' && body !== null ? body : {}) as Partial<ApiErrorBody>;
    super(`${status} ${typeof error === 'string' ? error : 'HTTP error'}${typeof details === 'string' ? `: ${details}` : ''}`);
    this.name = 'ImageCanvasError';
  }
}

/**
 * The service ended the event stream and said why (its last event, `event: closed`): `too-many-streams` (the user
 * opened more than the service allows; this was the oldest), `signed-out`, `token-revoked` or `token-expired`.
 * Reconnecting would not help (or would end another of the user's streams), so `followJobEvents` stops with this.
 */
export class EventStreamClosed extends Error {
  constructor(readonly reason: string) {
    super(`the service closed the event stream: ${reason}`);
    this.name = 'EventStreamClosed';
  }
}

/** The `reason` of a `closed` event's data, or `unknown`. */
function closedReason(data: string): string {
  try {
    const reason = (JSON.parse(data) as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface FollowJobEventsOptions {
  /** Start after this event id (an id an earlier `onEvent` was given); without it, only changes from now on. */
  lastEventId?: string;
  /** Aborting it closes the stream; the returned promise then resolves. */
  signal: AbortSignal;
  /** Each change of one of your jobs, in order, with its event id. Awaited before the next is handed over. */
  onEvent: (job: GenerationJob, eventId: string) => void | Promise<void>;
  /** Each change of one of your runs (`event: run`: the run as GET /api/projects/{id}/runs/{runId} answers it), in
   * order with the job events, with its event id. Awaited before the next is handed over. */
  onRun?: (run: RunView, eventId: string) => void | Promise<void>;
  /** Each time the stream is (re)connected: a moment to read state that changed while it was not. */
  onOpen?: () => void | Promise<void>;
  /** The first delay before reconnecting, in ms (default 1000; a server's `retry:` replaces it). It doubles while
   * reconnecting fails, up to 30 s. */
  retryMs?: number;
}

export interface WaitForJobOptions {
  signal?: AbortSignal;
  /** Every state of the job seen on the way (the same state may be reported twice). */
  onUpdate?: (job: GenerationJob) => void;
}

export interface Download {
  contentType: string | null;
  /** Content-Length when the server sent one. */
  size: number | null;
  body: ReadableStream<Uint8Array>;
}

export interface ImageCanvasHelpers {
  /**
   * Follows `GET /api/generations/events`: hands every job event to `onEvent` (and every run event to `onRun`), reconnects after a dropped
   * connection or a 5xx/429 with `Last-Event-ID` (so nothing is missed), and resolves when `signal` aborts.
   * Rejects with ImageCanvasError when the service refuses the stream (401, 403, …), with EventStreamClosed when
   * the service ends it saying why (`event: closed`), or with what `onEvent` threw.
   */
  followJobEvents(options: FollowJobEventsOptions): Promise<void>;
  /** The job once it has finished (`succeeded`, `failed` or `canceled`), followed through its events. */
  waitForJob(id: string, options?: WaitForJobOptions): Promise<GenerationJob>;
  /** `POST /api/upload`: one image → its permanent public URL. */
  upload(file: Blob, filename?: string, options?: { signal?: AbortSignal }): Promise<{ url: string }>;
  /**
   * Reads a stored file (a job's `output.imageUrl`) as a stream. The token is sent only to the service's own
   * origin, never to object storage or another host the URL may name.
   */
  download(url: string, options?: { signal?: AbortSignal }): Promise<Download>;
  /** Runs of a project's graph: `start`, `estimate`, `get`, `cancel`, and `follow` (the run once it has ended). */
  runs: RunsHelpers;
}

export type ImageCanvasClient = Client<paths> & ImageCanvasHelpers;

const MAX_RETRY_MS = 30_000;

export function createImageCanvasClient(options: ImageCanvasClientOptions): ImageCanvasClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  // Looked up at each call, so a fetch replaced later (tests, polyfills) is used, as openapi-fetch does.
  const send = (request: Request): Promise<Response> => (options.fetch ?? globalThis.fetch)(request);
  const api = createClient<paths>({ baseUrl, headers: auth, ...(options.fetch ? { fetch: options.fetch } : {}) });

  async function refusal(res: Response): Promise<ImageCanvasError> {
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return new ImageCanvasError(res.status, body);
  }

  async function followJobEvents({ lastEventId = '', signal, onEvent, onRun, onOpen, retryMs = 1000 }: FollowJobEventsOptions): Promise<void> {
    let lastId = lastEventId;
    let delay = retryMs;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const res = await send(
          new Request(`${baseUrl}/api/generations/events`, {
            headers: { accept: 'text/event-stream', ...auth, ...(lastId ? { 'last-event-id': lastId } : {}) },
            cache: 'no-store',
            signal,
          }),
        );
        if (res.status >= 500 || res.status === 429 || res.status === 408) {
          await res.body?.cancel();
          throw new Dropped(`the event stream answered ${res.status}`);
        }
        if (!res.ok || !res.body) throw await refusal(res);
        if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          await res.body.cancel();
          throw new ImageCanvasError(res.status, `not an event stream: ${res.headers.get('content-type')}`);
        }
        failures = 0;
        const events: SseEvent[] = [];
        const parser = createSseParser({ onEvent: (event) => events.push(event), onRetry: (ms) => (retryMs = ms) }, lastId);
        await handler(onOpen);
        const reader = res.body.getReader();
        // The request's signal does not always reach its body: Node 22's fetch follows it only while the Request object
        // lives, and a garbage-collected Request left a read pending after an abort, the connection open. So an abort
        // cancels the read itself, which closes the connection.
        const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
        signal.addEventListener('abort', cancel, { once: true });
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parser.feed(value);
            for (const event of events.splice(0)) {
              if (signal.aborted) return;
              if (event.event === 'job') await handler(() => onEvent(JSON.parse(event.data) as GenerationJob, event.id));
              if (event.event === 'run' && onRun) await handler(() => onRun(JSON.parse(event.data) as RunView, event.id));
              if (event.event === 'closed') throw new EventStreamClosed(closedReason(event.data));
            }
            lastId = parser.lastEventId;
          }
        } finally {
          signal.removeEventListener('abort', cancel);
          reader.releaseLock();
          await res.body.cancel().catch(() => undefined);
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof FromHandler) throw err.cause;
        // A connection refused, reset or dropped mid-stream is a TypeError from fetch; anything else is not ours to retry.
        if (!(err instanceof TypeError || err instanceof Dropped)) throw err;
      }
      if (signal.aborted) return; // the abort canceled the read, which then ends like a stream that ended
      // The stream ended or failed: wait, then reconnect from the last id seen.
      delay = failures++ === 0 ? retryMs : Math.min(delay * 2, MAX_RETRY_MS);
      await sleep(delay, signal);
    }
  }

  async function getJob(id: string, signal?: AbortSignal): Promise<GenerationJob> {
    const { data, error, response } = await api.GET('/api/generations/{id}', { params: { path: { id } }, signal });
    if (!data) throw new ImageCanvasError(response.status, error);
    return data;
  }

  async function waitForJob(id: string, { signal, onUpdate }: WaitForJobOptions = {}): Promise<GenerationJob> {
    const following = new AbortController();
    const stop = () => following.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let finished: GenerationJob | undefined;
    const see = (job: GenerationJob) => {
      if (job.id !== id || finished) return;
      onUpdate?.(job);
      if (isFinished(job)) {
        finished = job;
        following.abort();
      }
    };
    try {
      signal?.throwIfAborted();
      // Read the job each time the stream opens: it may have changed before the stream was listening.
      await followJobEvents({ signal: following.signal, onOpen: async () => see(await getJob(id, following.signal)), onEvent: see });
    } catch (err) {
      if (!finished) throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (finished) return finished;
    throw signal?.reason ?? new Error('waitForJob was aborted');
  }

  async function upload(file: Blob, filename = 'image', { signal }: { signal?: AbortSignal } = {}): Promise<{ url: string }> {
    const form = new FormData();
    form.append('file', file, filename);
    const res = await send(new Request(`${baseUrl}/api/upload`, { method: 'POST', headers: { accept: 'application/json', ...auth }, body: form, signal }));
    if (!res.ok) throw await refusal(res);
    return (await res.json()) as { url: string };
  }

  async function download(url: string, { signal }: { signal?: AbortSignal } = {}): Promise<Download> {
    const target = new URL(url, `${baseUrl}/`);
    const ours = target.origin === origin;
    const res = await send(new Request(target, { headers: ours ? auth : {}, signal }));
    if (!res.ok || !res.body) throw await refusal(res);
    const length = res.headers.get('content-length');
    return { contentType: res.headers.get('content-type'), size: length === null ? null : Number(length), body: res.body };
  }

  const runs = createRuns({
    baseUrl,
    auth,
    send,
    refusal,
    followRunEvents: ({ signal, onOpen, onRun }) => followJobEvents({ signal, onOpen, onRun, onEvent: () => {} }),
  });

  return Object.assign(api, { followJobEvents, waitForJob, upload, download, runs });
}

/** A stream that should be opened again (a 5xx, 429 or 408 answer). */
class Dropped extends Error {}

/** What a caller's callback threw: handed back as it is, never retried. */
class FromHandler extends Error {}

async function handler(run: (() => void | Promise<void>) | undefined): Promise<void> {
  try {
    await run?.();
  } catch (err) {
    throw new FromHandler('handler failed', { cause: err });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
