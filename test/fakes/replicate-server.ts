// A loopback stand-in for Replicate's predictions API as the `replicate` SDK 1.x calls it
// (docs/research/model-providers.md §2): `POST /v1/models/{owner}/{name}/predictions` creates one (JSON
// `{ input }`, `Authorization: Bearer <token>`), `GET /v1/predictions/{id}` reads it, `POST …/cancel` cancels it.
// Each prediction plays the script the test queued: the states successive reads see (with their logs), then how it
// ends. A script may hold it `processing` until released. Outputs are data URIs, or a URL on this server.
// `black-forest-labs/flux-fill-pro` is refused 422 without its `image` and `prompt` (its `mask` is the input's own).
import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Arrivals, ReplyQueue, sendJson, sendRaw, startLoopbackServer, TINY_PNG } from './fake-server.js';
import type { OutputFiles } from './output-files.js';

export interface ReplicateScript {
  /** The logs successive reads see while `processing` (each read one more entry; default: done at the first read). */
  logs?: string[];
  hold?: boolean;
  /** `url`: the output's URL as given (a path starting with `/` is on this fake's origin: its `files`). */
  end?: { kind: 'succeeded'; image?: Buffer; asUrl?: boolean; list?: boolean; url?: string } | { kind: 'failed'; error: string } | { kind: 'no-output' };
  /** Refuse the create itself with this status (429 is retried by the SDK). */
  createStatus?: number;
}

export interface ReplicatePrediction {
  id: string;
  model: string;
  /** The version it was created with (a community model, POST /v1/predictions); absent: by the model's name. */
  version?: string;
  token?: string;
  input: Record<string, unknown>;
  reads: number;
  canceled: boolean;
}

export interface FakeReplicate {
  /** For REPLICATE_BASE_URL (includes `/v1`). */
  baseUrl: string;
  predictions: ReplicatePrediction[];
  refusedCreates: number;
  /** Reads of a model's page (GET /v1/models/{owner}/{name}: its latest version). */
  modelReads: number;
  script(next: ReplicateScript): void;
  release(): void;
  held(): Promise<ReplicatePrediction>;
  canceled(): Promise<ReplicatePrediction>;
  close(): Promise<void>;
}

/** The input fields a model refuses to run without. */
const REQUIRED: Record<string, string[]> = { 'black-forest-labs/flux-fill-pro': ['prompt', 'image'] };

export async function startFakeReplicate(opts: { token?: string; files?: OutputFiles; host?: string } = {}): Promise<FakeReplicate> {
  const scripts = new ReplyQueue<ReplicateScript>({});
  const predictions: ReplicatePrediction[] = [];
  const byId = new Map<string, { p: ReplicatePrediction; script: ReplicateScript }>();
  const files = new Map<string, Buffer>();
  let released = false;
  let refusedCreates = 0;
  let modelReads = 0;
  const held = new Arrivals<ReplicatePrediction>();
  const canceled = new Arrivals<ReplicatePrediction>();
  /** Each model's version id, made up on its first GET. */
  const versions = new Map<string, string>();
  const versionOf = (name: string): string => {
    if (!versions.has(name)) versions.set(name, createHash('sha256').update(name).digest('hex'));
    return versions.get(name)!;
  };

  const json = (p: ReplicatePrediction, status: string, extra: Record<string, unknown> = {}) => ({
    id: p.id,
    model: p.model,
    version: 'hidden',
    input: p.input,
    status,
    output: null,
    error: null,
    logs: '',
    source: 'api',
    data_removed: false,
    created_at: new Date(0).toISOString(),
    urls: { get: `${server.origin}/v1/predictions/${p.id}`, cancel: `${server.origin}/v1/predictions/${p.id}/cancel` },
    ...extra,
  });

  const view = (entry: { p: ReplicatePrediction; script: ReplicateScript }, res: ServerResponse) => {
    const { p, script } = entry;
    if (p.canceled) return sendJson(res, 200, json(p, 'canceled'));
    const logs = script.logs ?? [];
    const shown = logs.slice(0, p.reads).join('\n');
    if (p.reads <= logs.length && p.reads > 0 && logs.length > 0) return sendJson(res, 200, json(p, 'processing', { logs: shown }));
    if (script.hold && !released) {
      held.fire(p);
      return sendJson(res, 200, json(p, 'processing', { logs: logs.join('\n') }));
    }
    const end = script.end ?? { kind: 'succeeded' };
    if (end.kind === 'failed') return sendJson(res, 200, json(p, 'failed', { error: end.error, logs: logs.join('\n') }));
    if (end.kind === 'no-output') return sendJson(res, 200, json(p, 'succeeded', { output: null }));
    const image = end.image ?? TINY_PNG;
    let url = `data:image/png;base64,${image.toString('base64')}`;
    if (end.url) url = end.url.startsWith('/') ? `${server.origin}${end.url}` : end.url;
    else if (end.asUrl) {
      const name = `${randomUUID()}.png`;
      files.set(name, image);
      url = `${server.origin}/files/${name}`;
    }
    return sendJson(res, 200, json(p, 'succeeded', { output: end.list ? [url] : url, logs: logs.join('\n') }));
  };

  const server = await startLoopbackServer(async (req, res, body) => {
    if (opts.files?.handle(req, res)) return; // its file host, when the test gives one
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const file = /^\/files\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && file) {
      const data = files.get(file[1]);
      if (!data) return sendJson(res, 404, { detail: 'Not found' });
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': data.length });
      return res.end(data);
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (opts.token && token !== opts.token) return sendJson(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    // A model's page (the SDK's models.get): its latest version, for a community model run by version.
    const model = /^\/v1\/models\/([^/]+\/[^/]+)$/.exec(path);
    if (req.method === 'GET' && model) modelReads++;
    if (req.method === 'GET' && model) return sendJson(res, 200, { owner: model[1].split('/')[0], name: model[1].split('/')[1], visibility: 'public', is_official: false, run_count: 1, url: `https://replicate.com/${model[1]}`, latest_version: { id: versionOf(model[1]), created_at: new Date(0).toISOString(), cog_version: '0.9.0', openapi_schema: {} } });
    const byVersion = req.method === 'POST' && path === '/v1/predictions';
    const create = byVersion ? ([path, ''] as const) : /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(path);
    if (req.method === 'POST' && create) {
      const script = scripts.next();
      if (script.createStatus) {
        refusedCreates++;
        return sendJson(res, script.createStatus, { title: 'Too many requests', detail: 'Request was throttled.', status: script.createStatus });
      }
      const parsed = JSON.parse(body.toString('utf8')) as { input?: Record<string, unknown>; version?: string };
      const version = byVersion ? parsed.version : undefined;
      const modelName = byVersion ? ([...versions].find(([, v]) => v === version)?.[0] ?? 'unknown/unknown') : create[1];
      if (byVersion && modelName === 'unknown/unknown') return sendJson(res, 422, { title: 'Invalid version or not permitted', detail: `The specified version does not exist (or perhaps you don't have permission to use it?)`, status: 422 });
      const missing = (REQUIRED[modelName] ?? []).find((field) => typeof parsed.input?.[field] !== 'string');
      if (missing) return sendJson(res, 422, { title: 'Input validation failed', detail: `- input: ${missing} is required`, status: 422 });
      const p: ReplicatePrediction = { id: randomUUID().replace(/-/g, '').slice(0, 26), model: modelName, ...(version ? { version } : {}), token, input: parsed.input ?? {}, reads: 0, canceled: false };
      predictions.push(p);
      byId.set(p.id, { p, script });
      return sendJson(res, 201, json(p, 'starting'));
    }
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    const entry = one ? byId.get(one[1]) : undefined;
    if (!entry) return sendJson(res, 404, { title: 'Not found', detail: 'Prediction not found', status: 404 });
    if (req.method === 'POST' && one?.[2]) {
      entry.p.canceled = true;
      canceled.fire(entry.p);
      return sendJson(res, 200, json(entry.p, 'canceled'));
    }
    if (req.method === 'GET' && !one?.[2]) {
      entry.p.reads++;
      return view(entry, res);
    }
    return sendRaw(res, 405, 'method not allowed', 'text/plain');
  }, undefined, opts.host);

  return {
    baseUrl: `${server.origin}/v1`,
    predictions,
    get refusedCreates() {
      return refusedCreates;
    },
    get modelReads() {
      return modelReads;
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
