// Hostile input against every route: the operations are listed from
// GET /api/openapi.json at test time (plus /api/auth/*, /files/* and /dev-idp/*), and each category below is a
// table of generated cases run in a loop. For EVERY case: the status is below 500; a 4xx from /api carries a
// JSON `{ error }`; no body leaks a secret or a stack; Object.prototype is untouched; and the database rows
// (countRows, plus the rows' contents) and the object store's folder are exactly as before. The only cases
// allowed to store are odd-but-legitimate inputs (a project named with emoji, an upload whose file name is a
// traversal attempt): when one is accepted, the case checks what was stored (stored as sent, or safely
// renamed) and removes it before the comparison. Failures are soft and name their case.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { encode } from '@auth/core/jwt';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { startFakeMux, type FakeMux } from '../fakes/mux-server.js';
import { startFakePolar, type FakePolar } from '../fakes/polar-server.js';
import { asDataUrl, badImages } from '../helpers/bad-images.js';
import { countRows, openObjectStore, startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE = 'authlib.session-token';
const WEBHOOK_SECRET = 'polar_whs_hostile_secret_0123456789abcdef';
const SANDBOX_SECRET = 'polar_whs_hostile_sandbox_9876543210';
const PRODUCT = 'b6f1f5d4-6d1c-4b0e-9a55-7f2c1e0d9a11';
const LIMITS = { canvas: 128 * 1024, upload: 64 * 1024, generationBody: 128 * 1024, json: 1024 * 1024, auth: 65_536, webhook: 1024 * 1024 };
const CANARY = `canary-${randomUUID()}`;

// ---------------------------------------------------------------------------------------------------------
// Raw HTTP: node:http sends the path, method, headers and body exactly as given (fetch would normalise
// `%2e%2e`, backslashes and refuse some methods and bodies).

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in pieces without a content-length (chunked). */
  chunked?: boolean;
}

let port = 0;

function send(req: Request): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(Buffer.byteLength(req.body));
    let settled = false;
    let answered: http.IncomingMessage | undefined;
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: false }, (res) => {
      answered = res;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {});
      res.on('end', () => {
        settled = true;
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    // The server may answer (413, 401) and close before the whole body is written: that answer counts. A write
    // error is kept; only when the request has closed with no answer read (or an answer cut off) does it fail.
    let failure: Error | undefined;
    r.on('error', (err) => (failure ??= err));
    r.on('close', () => {
      const fail = () => settled || reject(failure ?? new Error('connection closed without an answer'));
      if (answered && !answered.complete) answered.once('close', fail);
      else fail();
    });
    // A request the server never answers is a failure of its own (a hung connection per hostile request).
    r.setTimeout(10_000, () => r.destroy(new Error('no answer within 10 s')));
    if (req.body !== undefined) {
      if (req.chunked) {
        const buf = Buffer.from(req.body);
        for (let i = 0; i < buf.length; i += 64 * 1024) r.write(buf.subarray(i, i + 64 * 1024));
      } else {
        r.write(req.body);
      }
    }
    r.end();
  });
}

const json = (value: unknown) => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
const raw = (body: string, type = 'application/json') => ({ body, headers: { 'content-type': type } });

function multipart(parts: Array<{ name: string; filename?: string; type?: string; data: Buffer | string }>, boundary = 'HostileBoundary7MA4YWxkTrZu0gW') {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const file = p.filename === undefined ? '' : `; filename="${p.filename}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

// ---------------------------------------------------------------------------------------------------------
// Cases and the checks every case gets.

interface Case extends Request {
  name: string;
  /** The Cookie header; default: ada's session. null: none. */
  cookie?: string | null;
  /** Allowed statuses; default any 4xx. */
  status?: number[] | 'below-500';
  /** The error message (4xx). */
  error?: string | RegExp;
  /** For an accepted (2xx) odd-but-legitimate input: check what was stored, and remove it. */
  accepted?: (res: Sent) => Promise<void>;
}

let t: TestApp;
let polar: FakePolar;
let mux: FakeMux;
/** The image model: no hostile request may reach it (every snapshot counts its requests). */
let gemini: FakeGemini;
let authSecret = '';
let ada: { id: string; email: string; cookie: string };
let bob: { id: string; email: string; cookie: string };
/** ada's project with a canvas (compared in every snapshot); ada's scratch project (odd-but-legitimate
 * canvas saves and renames land there, so its canvas and name are left out of the comparison); bob's project. */
let P = '';
let S = '';
let B = '';
let png: Buffer;
let pngDataUrl = '';
let storedFile = '';
const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

const objectsDir = () => path.join(t.dataDir, 'objects');

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(`${rel}/`, ...(await listFiles(path.join(dir, entry.name), `${rel}/`)));
    else out.push(`${rel}:${(await fs.stat(path.join(dir, entry.name))).size}`);
  }
  return out.sort();
}

/** Everything a case could have stored or changed. */
async function snapshot(): Promise<string> {
  const [users, projects, canvases, generations] = await Promise.all([
    countRows(t, 'users'),
    countRows(t, 'projects'),
    countRows(t, 'canvases'),
    countRows(t, 'generations'),
  ]);
  const q = (sql: string, params: unknown[] = []) => t.pool.query(sql, params).then((r) => r.rows);
  const [webhooks, templateRows, userRows, projectRows, canvasRows, memberRows, linkRows, versionRows, tokenRows] = await Promise.all([
    q('SELECT count(*)::int AS n FROM webhook_events'),
    q('SELECT id, user_id, name, nodes::text, edges::text, viewport::text FROM templates ORDER BY id'),
    q('SELECT id, email, name, image, is_pro, payments_customer_id, subscription_status FROM users ORDER BY id'),
    q('SELECT id, user_id, name FROM projects WHERE id <> $1 ORDER BY id', [S]),
    q('SELECT id, project_id, version, nodes::text, edges::text FROM canvases WHERE project_id <> $1 ORDER BY id', [S]),
    q('SELECT project_id, email, role FROM project_members ORDER BY project_id, email'),
    q('SELECT project_id, token_hash FROM project_share_links ORDER BY project_id'),
    // Named versions only: restore points come from compaction, on its own time.
    q("SELECT id, project_id, name FROM collab_versions WHERE kind = 'named' ORDER BY id"),
    q('SELECT id, user_id, name, token_hash, scopes::text, expires_at, last_used_at FROM api_tokens ORDER BY id'),
    q('SELECT id, user_id, prompt, status FROM generation_jobs ORDER BY id'),
  ]);
  const files = await listFiles(objectsDir());
  return JSON.stringify({ counts: { users, projects, canvases, generations, webhooks: webhooks[0].n, modelCalls: gemini.requests.length }, userRows, projectRows, canvasRows, templateRows, memberRows, linkRows, versionRows, tokenRows, files });
}

let baseline = '';

async function runCases(cases: Case[]): Promise<void> {
  const names = new Set<string>();
  for (const c of cases) {
    expect.soft(names.has(c.name), `duplicate case name ${c.name}`).toBe(false);
    names.add(c.name);
    const cookie = c.cookie === undefined ? `${COOKIE}=${ada.cookie}` : c.cookie;
    const headers = { ...c.headers, ...(cookie ? { cookie } : {}) };
    let res: Sent;
    try {
      res = await send({ ...c, headers });
    } catch (err) {
      expect.soft(false, `${c.name}: request failed: ${(err as Error).message}`).toBe(true);
      continue;
    }
    const shown = `${c.name}: ${res.status} ${res.text.slice(0, 300)}`;
    expect.soft(res.status, shown).toBeLessThan(500);
    if (c.status === undefined) {
      expect.soft(res.status >= 400 && res.status < 500, `${shown} (expected a 4xx)`).toBe(true);
    } else if (c.status !== 'below-500') {
      expect.soft(c.status, shown).toContain(res.status);
    }
    // 431 comes from Node's HTTP parser (headers too large), before the app: no JSON there.
    if (res.status >= 400 && res.status < 500 && c.path.startsWith('/api/') && c.method !== 'HEAD' && res.status !== 431) {
      expect.soft(String(res.headers['content-type']), `${shown} (content type)`).toMatch(/^application\/json/);
      expect.soft(typeof res.json?.error, `${shown} (an { error } body)`).toBe('string');
      if (c.error !== undefined) expect.soft(res.json?.error, shown).toMatch(c.error instanceof RegExp ? c.error : new RegExp(`^${escapeRegExp(c.error)}$`));
    }
    expect.soft(res.text, `${c.name}: leaks the auth secret`).not.toContain(authSecret);
    expect.soft(res.text, `${c.name}: leaks a file outside the store`).not.toContain(CANARY);
    expect.soft(res.text, `${c.name}: leaks /etc/passwd`).not.toMatch(/root:.*:0:0:/);
    expect.soft(res.text, `${c.name}: leaks a stack trace`).not.toMatch(/node_modules|\bat [\w.<>]+ \(.*:\d+:\d+\)/);
    if (res.status >= 200 && res.status < 300 && c.accepted) await c.accepted(res);
    expect.soft(Object.getOwnPropertyNames(Object.prototype).sort().join(','), `${c.name}: Object.prototype changed`).toBe(protoKeys);
    expect.soft(({} as Record<string, unknown>).isAdmin, `${c.name}: prototype polluted`).toBeUndefined();
    const now = await snapshot();
    expect.soft(now, `${c.name}: something was stored or changed`).toBe(baseline);
    baseline = now; // one culprit is reported once, not blamed on every later case
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------------------------------------------------
// Tokens, webhooks, and the valid request of every operation.

async function sessionToken(sub: string, opts: { secret?: string; maxAge?: number } = {}): Promise<string> {
  return encode({ token: { sub, email: `${sub}@example.com`, name: 'x' }, secret: opts.secret ?? authSecret, salt: COOKIE, maxAge: opts.maxAge ?? 600 });
}

function signedWebhook(payload: unknown, opts: { secret?: string; id?: string; at?: Date } = {}) {
  const id = opts.id ?? `msg_${randomUUID()}`;
  const at = opts.at ?? new Date();
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = new Webhook(Buffer.from(opts.secret ?? WEBHOOK_SECRET, 'utf8').toString('base64')).sign(id, at, body);
  return { body, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature } };
}

const subscriptionEvent = (type: string, externalId: string, customerId: string) => ({
  type,
  timestamp: new Date().toISOString(),
  data: { id: `sub_${customerId}`, status: 'active', customer_id: customerId, product_id: PRODUCT, cancel_at_period_end: false, customer: { external_id: externalId } },
});
let bobActive: { body: string; headers: Record<string, string> };

const node = (id: string, data: Record<string, unknown> = {}) => ({ id, type: 'upload', position: { x: 1, y: 2 }, data: { type: 'upload', ...data } });
/** A generation node: an edge from an upload goes into it (an upload has no input port, src/kinds/upload.ts). */
const gen = (id: string) => ({ id, type: 'generation', position: { x: 1, y: 2 }, data: { type: 'generation' } });

/** A request each operation accepts from ada (the cases vary one thing of it). Keyed `METHOD /openapi/path`. */
function templates(): Record<string, Request> {
  return {
    'GET /api/health': { method: 'GET', path: '/api/health' },
    'GET /api/ready': { method: 'GET', path: '/api/ready' },
    'GET /api/client-config': { method: 'GET', path: '/api/client-config' },
    'GET /api/node-kinds': { method: 'GET', path: '/api/node-kinds' },
    'GET /api/user': { method: 'GET', path: '/api/user' },
    'GET /api/user/session': { method: 'GET', path: '/api/user/session' },
    // Accepted from ada it would end her sessions: only ever sent refused (anonymous, forged, cross-site).
    'DELETE /api/user/sessions': { method: 'DELETE', path: '/api/user/sessions' },
    'GET /api/user/project': { method: 'GET', path: `/api/user/project?userId=${ada.id}` },
    'POST /api/user/project': { method: 'POST', path: '/api/user/project', ...json({ userId: ada.id, name: 'Hostile' }) },
    'PATCH /api/user/project/{projectId}': { method: 'PATCH', path: `/api/user/project/${P}`, ...json({ name: 'Renamed' }) },
    'DELETE /api/user/project/{projectId}': { method: 'DELETE', path: `/api/user/project/${P}` },
    'GET /api/user/project/canvas': { method: 'GET', path: `/api/user/project/canvas?projectId=${P}` },
    'POST /api/user/project/canvas': { method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: P, nodes: [node('n1')], edges: [] }) },
    'POST /api/image': { method: 'POST', path: '/api/image', ...json({ images: [pngDataUrl], prompt: 'grayscale' }) },
    'GET /api/user/generations': { method: 'GET', path: '/api/user/generations' },
    'POST /api/generations': { method: 'POST', path: '/api/generations', ...json({ images: [pngDataUrl], prompt: 'grayscale' }) },
    'GET /api/generations': { method: 'GET', path: '/api/generations' },
    'GET /api/models': { method: 'GET', path: '/api/models' },
    'GET /api/user/spend': { method: 'GET', path: '/api/user/spend' },
    // A stream when accepted: sent with a Last-Event-ID that is refused (400) if the request ever gets that far.
    'GET /api/generations/events': { method: 'GET', path: '/api/generations/events?lastEventId=not-an-id' },
    'GET /api/generations/{id}': { method: 'GET', path: `/api/generations/job_${NO_TEMPLATE}` },
    'POST /api/generations/{id}/cancel': { method: 'POST', path: `/api/generations/job_${NO_TEMPLATE}/cancel` },
    'POST /api/upload': { method: 'POST', path: '/api/upload', ...multipart([{ name: 'file', filename: 'a.png', type: 'image/png', data: png }]) },
    // A GET starts them only on a navigation from the service's own pages (docs/api.md "Paid plans").
    'GET /api/checkout': { method: 'GET', path: '/api/checkout?format=json', headers: { 'sec-fetch-site': 'same-origin' } },
    'GET /api/portal': { method: 'GET', path: '/api/portal?format=json', headers: { 'sec-fetch-site': 'same-origin' } },
    'POST /api/checkout': { method: 'POST', path: '/api/checkout?format=json' },
    'POST /api/portal': { method: 'POST', path: '/api/portal?format=json' },
    'POST /api/webhook/payments': { method: 'POST', path: '/api/webhook/payments', ...json(subscriptionEvent('subscription.active', ada.id, 'cus_ada')) },
    'GET /api/video/asset': { method: 'GET', path: '/api/video/asset?assetId=asset01ready' },
    'GET /api/upload/templates': { method: 'GET', path: '/api/upload/templates' },
    'POST /api/upload/templates': { method: 'POST', path: '/api/upload/templates', ...json({ templateName: 'Hostile', canvas: { nodes: [node('n1')], edges: [] } }) },
    'DELETE /api/upload/templates/{id}': { method: 'DELETE', path: `/api/upload/templates/${NO_TEMPLATE}` },
    'GET /api/templates': { method: 'GET', path: '/api/templates' },
    'GET /api/templates/{id}': { method: 'GET', path: `/api/templates/${NO_TEMPLATE}` },
    'GET /api/user/project/shared': { method: 'GET', path: '/api/user/project/shared' },
    'GET /api/user/project/activity': { method: 'GET', path: '/api/user/project/activity' },
    'GET /api/user/project/{projectId}/thumbnail': { method: 'GET', path: `/api/user/project/${P}/thumbnail` },
    // P's canvas is not empty: accepted, the example changes nothing.
    'POST /api/user/project/{projectId}/example': { method: 'POST', path: `/api/user/project/${P}/example` },
    'GET /api/user/project/{projectId}/members': { method: 'GET', path: `/api/user/project/${P}/members` },
    'POST /api/user/project/{projectId}/members': { method: 'POST', path: `/api/user/project/${P}/members`, ...json({ email: 'carol@example.com', role: 'viewer' }) },
    'DELETE /api/user/project/{projectId}/members/{email}': { method: 'DELETE', path: `/api/user/project/${P}/members/${encodeURIComponent(NO_MEMBER)}` },
    'POST /api/user/project/{projectId}/share-link': { method: 'POST', path: `/api/user/project/${P}/share-link` },
    'DELETE /api/user/project/{projectId}/share-link': { method: 'DELETE', path: `/api/user/project/${P}/share-link` },
    'GET /api/user/project/{projectId}/versions': { method: 'GET', path: `/api/user/project/${P}/versions` },
    'POST /api/user/project/{projectId}/versions': { method: 'POST', path: `/api/user/project/${P}/versions`, ...json({ name: 'Hostile' }) },
    'GET /api/user/project/{projectId}/versions/{versionId}': { method: 'GET', path: `/api/user/project/${P}/versions/${NO_VERSION}` },
    'POST /api/user/project/{projectId}/versions/{versionId}/restore': { method: 'POST', path: `/api/user/project/${P}/versions/${NO_VERSION}/restore` },
    'GET /api/shared/{token}': { method: 'GET', path: `/api/shared/${NO_TOKEN}` },
    'GET /api/user/tokens': { method: 'GET', path: '/api/user/tokens' },
    'POST /api/user/tokens': { method: 'POST', path: '/api/user/tokens', ...json({ name: 'Hostile', scopes: ['read'] }) },
    'DELETE /api/user/tokens/{id}': { method: 'DELETE', path: `/api/user/tokens/${NO_TEMPLATE}` },
    'GET /api/projects/{id}/generations': { method: 'GET', path: `/api/projects/${P}/generations?q=${encodeURIComponent('red ca')}` },
    'GET /api/projects/{id}/generations/{generationId}/download': { method: 'GET', path: `/api/projects/${P}/generations/gen-0-${NO_TEMPLATE}/download` },
    'GET /api/projects/{id}/nodes/{nodeId}/psd': { method: 'GET', path: `/api/projects/${P}/nodes/hostile-missing/psd` },
    'GET /api/projects/{id}/spend': { method: 'GET', path: `/api/projects/${P}/spend` },
    // A run of a node the canvas does not have: refused (404), nothing queued; the others name no run.
    'POST /api/projects/{id}/runs': { method: 'POST', path: `/api/projects/${P}/runs`, ...json({ mode: 'node', nodeIds: ['hostile-missing'] }) },
    'POST /api/projects/{id}/runs/estimate': { method: 'POST', path: `/api/projects/${P}/runs/estimate`, ...json({ mode: 'all' }) },
    'GET /api/projects/{id}/runs': { method: 'GET', path: `/api/projects/${P}/runs?limit=5` },
    'GET /api/projects/{id}/runs/{runId}': { method: 'GET', path: `/api/projects/${P}/runs/run_${NO_TEMPLATE}` },
    'POST /api/projects/{id}/runs/{runId}/cancel': { method: 'POST', path: `/api/projects/${P}/runs/run_${NO_TEMPLATE}/cancel` },
    'GET /files/{*}': { method: 'GET', path: `/files/${storedFile}` },
    'HEAD /files/{*}': { method: 'HEAD', path: `/files/${storedFile}` },
    'GET /dev-idp/interaction/{uid}': { method: 'GET', path: '/dev-idp/interaction/hostile' },
    'POST /dev-idp/interaction/{uid}/login': { method: 'POST', path: '/dev-idp/interaction/hostile/login', ...raw('email=a%40example.com&name=A', 'application/x-www-form-urlencoded') },
  };
}

/** Operations of the OpenAPI document, as `METHOD /path` (the dev-idp wildcard is covered below by hand). */
const operations: string[] = [];
let paths: Record<string, string[]> = {};

/** The operations that need a session: their document lists a 401. */
const protectedOps: string[] = [];

const JSON_BODY_OPS = ['POST /api/user/project', 'PATCH /api/user/project/{projectId}', 'POST /api/user/project/canvas', 'POST /api/image', 'POST /api/generations', 'POST /api/upload/templates', 'POST /api/user/project/{projectId}/members', 'POST /api/user/project/{projectId}/versions', 'POST /api/user/tokens'];
/** A template id that names no template. */
const NO_TEMPLATE = '00000000-0000-4000-8000-00000000dead';
/** A version id that names no version. */
const NO_VERSION = '00000000-0000-4000-8000-0000000000ff';
/** An email that is no member of any project, and a share-link token that opens nothing. */
const NO_MEMBER = 'nobody@example.com';
const NO_TOKEN = 'A'.repeat(43);

// ---------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  polar = await startFakePolar({ accessToken: 'polar_oat_hostile_token' });
  mux = await startFakeMux({ tokenId: 'mux-id', tokenSecret: 'mux-secret' });
  mux.addAsset({ id: 'asset01ready', status: 'ready', playback_ids: [{ id: 'play01', policy: 'public' }], duration: 3 });
  gemini = await startFakeGemini({ apiKey: 'hostile-model-key' });
  t = await startTestApp({
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'hostile-model-key',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    PUBLIC_SETUP: 'production',
    PAYMENTS_ACCESS_TOKEN: 'polar_oat_hostile_token',
    PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYMENTS_SANDBOX_ACCESS_TOKEN: 'polar_oat_hostile_sandbox',
    PAYMENTS_SANDBOX_WEBHOOK_SECRET: SANDBOX_SECRET,
    PAYMENTS_PRODUCT_ID: PRODUCT,
    PAYMENTS_API_URL: polar.baseUrl,
    VIDEO_TOKEN_ID: 'mux-id',
    VIDEO_TOKEN_SECRET: 'mux-secret',
    VIDEO_API_URL: mux.baseUrl,
    RATE_LIMIT_VIDEO_PER_MINUTE: '100000',
    RATE_LIMIT_TEMPLATES_PER_MINUTE: '100000',
    RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '100000',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '100000',
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '100000',
    CANVAS_MAX_BYTES: String(LIMITS.canvas),
    UPLOAD_MAX_BYTES: String(LIMITS.upload),
    GENERATION_MAX_BODY_BYTES: String(LIMITS.generationBody),
  });
  port = Number(new URL(t.baseUrl).port);
  authSecret = (await fs.readFile(path.join(t.dataDir, 'secrets', 'auth-secret'), 'utf8')).trim();
  await fs.writeFile(path.join(t.dataDir, 'canary.txt'), CANARY);
  await fs.writeFile(path.join(t.dataDir, 'secrets', 'canary'), CANARY);

  const signedIn = async (email: string) => {
    const u = await t.user(email);
    return { id: u.id, email: u.email, cookie: (await u.client.cookie(COOKIE))!, client: u.client };
  };
  const [a, b] = await Promise.all([signedIn('ada@example.com'), signedIn('bob@example.com')]);
  ada = a;
  bob = b;
  png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c33' } }).png().toBuffer();
  pngDataUrl = `data:image/png;base64,${png.toString('base64')}`;
  P = (await a.client.post('/api/user/project', { userId: a.id, name: 'P' })).json.id;
  S = (await a.client.post('/api/user/project', { userId: a.id, name: 'Scratch' })).json.id;
  B = (await b.client.post('/api/user/project', { userId: b.id, name: 'Bob' })).json.id;
  for (const id of [P, S]) expect((await a.client.post('/api/user/project/canvas', { projectId: id, nodes: [node('n1'), gen('n2')], edges: [{ id: 'e1', source: 'n1', target: 'n2' }] })).status).toBe(200);
  const uploaded = await send({ method: 'POST', path: '/api/upload', ...multipart([{ name: 'file', filename: 'kept.png', type: 'image/png', data: png }]), headers: { ...multipart([]).headers, cookie: `${COOKIE}=${a.cookie}` } });
  expect(uploaded.status).toBe(200);
  storedFile = new URL(uploaded.json.url).pathname.replace('/files/', '');
  // bob becomes Pro through one real delivery; the replay cases send it again.
  bobActive = signedWebhook(subscriptionEvent('subscription.active', b.id, 'cus_bob'));
  expect((await send({ method: 'POST', path: '/api/webhook/payments', ...bobActive })).json).toEqual({ received: true });

  const doc = (await send({ method: 'GET', path: '/api/openapi.json' })).json;
  paths = {};
  for (const [p, ops] of Object.entries<Record<string, { responses?: Record<string, unknown> }>>(doc.paths)) {
    paths[p] = Object.keys(ops).map((m) => m.toUpperCase());
    for (const [m, op] of Object.entries(ops)) {
      if (p === '/dev-idp/{*}') continue;
      operations.push(`${m.toUpperCase()} ${p}`);
      if (op.responses?.['401']) protectedOps.push(`${m.toUpperCase()} ${p}`);
    }
  }
  baseline = await snapshot();
}, 180_000);

afterAll(async () => {
  await t?.close();
  await polar?.close();
  await mux?.close();
  await gemini?.close();
});

let total = 0;
const run = async (cases: Case[]) => {
  total += cases.length;
  await runCases(cases);
};

describe('hostile input on every route', () => {
  it('knows every operation of the API document (a new route needs a template here)', () => {
    expect(operations.length).toBeGreaterThan(15);
    const known = templates();
    for (const op of operations) expect.soft(known[op], `no template for ${op}`).toBeDefined();
    expect(protectedOps).toEqual(expect.arrayContaining(['GET /api/user', 'POST /api/upload', 'POST /api/image', 'POST /api/user/project/canvas']));
  });

  it('wrong methods → 404/405 JSON, never 5xx', async () => {
    const filled = (p: string) =>
      p.replace('{projectId}', B).replace('{id}', NO_TEMPLATE).replace('{email}', NO_MEMBER).replace('{versionId}', NO_VERSION).replace('{generationId}', `gen-0-${NO_TEMPLATE}`).replace('{token}', NO_TOKEN).replace('{uid}', 'hostile').replace('/files/{*}', `/files/${storedFile}`).replace('/dev-idp/{*}', '/dev-idp/jwks');
    const all = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
    const extra: Record<string, string[]> = { '/api/auth/session': ['GET', 'POST'], '/api/auth/csrf': ['GET', 'POST'], '/api/docs': ['GET'], '/api/openapi.json': ['GET'] };
    const cases: Case[] = [];
    for (const [p, declared] of [...Object.entries(paths), ...Object.entries(extra)]) {
      if (p === '/dev-idp/{*}') continue; // oidc-provider answers every method itself (checked in the dev-idp cases)
      const allowed = new Set(declared.includes('GET') ? [...declared, 'HEAD'] : declared);
      for (const method of all.filter((m) => !allowed.has(m))) {
        // PATCH/DELETE /api/user/project/canvas (and …/shared, …/activity) are the rename/delete of a project whose id is "canvas".
        const sibling = /^\/api\/user\/project\/(canvas|shared|activity)$/.test(p) && (method === 'PATCH' || method === 'DELETE');
        cases.push({ name: `${method} ${p}`, method, path: filled(p), status: sibling ? [400, 404] : [404, 405] });
      }
    }
    await run(cases);
  });

  it('malformed JSON → 400 Invalid JSON', async () => {
    const bodies: Record<string, string> = {
      'open brace': '{',
      'cut value': '{"projectId":',
      'bare nul': 'nul',
      'cut array': '[1,2',
      'NUL byte': '\u0000',
      'extra brace': '{"a":1}}',
      'single quotes': "{'a':1}",
      'trailing comma': '{"a":1,}',
      'NaN literal': '{"a":NaN}',
      'undefined literal': '{"a":undefined}',
      'hex escape': '{"a":"\\x41"}',
      'leading zero': '{"a":01}',
      empty: '',
      'only spaces': '   ',
      'unterminated string': '{"a":"abc}',
      'missing colon': '{"a" 1}',
      'control char before': '\u001f{}',
      'comment': '{"a":1 /* c */}',
      'two documents': '{}{}',
    };
    for (const [name, body] of Object.entries(bodies)) expect(() => JSON.parse(body), name).toThrow();
    const t0 = templates();
    const cases: Case[] = [];
    for (const op of JSON_BODY_OPS) {
      for (const [name, body] of Object.entries(bodies)) cases.push({ name: `${op} ${name}`, ...t0[op], ...raw(body), status: [400], error: 'Invalid JSON' });
    }
    // Routes that read JSON or text themselves: never 5xx, nothing stored.
    for (const [name, body] of Object.entries(bodies).slice(0, 6)) {
      cases.push({ name: `webhook unsigned ${name}`, ...t0['POST /api/webhook/payments'], ...raw(body), status: [403] });
      cases.push({ name: `upload ${name}`, ...t0['POST /api/upload'], ...raw(body), status: [400] });
      cases.push({ name: `auth signin ${name}`, method: 'POST', path: '/api/auth/signin/oauth', ...raw(body), status: 'below-500' });
      cases.push({ name: `auth callback ${name}`, method: 'POST', path: '/api/auth/callback/oauth', ...raw(body), status: 'below-500' });
      cases.push({ name: `auth signout ${name}`, method: 'POST', path: '/api/auth/signout', ...raw(body), status: 'below-500' });
      cases.push({ name: `auth session ${name}`, method: 'POST', path: '/api/auth/session', ...raw(body), status: 'below-500' });
      cases.push({ name: `dev-idp login ${name}`, ...t0['POST /dev-idp/interaction/{uid}/login'], ...raw(body), status: 'below-500' });
      cases.push({ name: `dev-idp token ${name}`, method: 'POST', path: '/dev-idp/token', ...raw(body), status: 'below-500' });
    }
    await run(cases);
  });

  it('JSON of the wrong top-level type → 400', async () => {
    const t0 = templates();
    const values: Record<string, unknown> = { array: [], 'array of object': [{}], string: 'str', number: 42, null: null, true: true, 'empty object': {} };
    const cases: Case[] = [];
    for (const op of JSON_BODY_OPS) {
      for (const [name, value] of Object.entries(values)) cases.push({ name: `${op} ${name}`, ...t0[op], ...json(value), status: [400] });
    }
    for (const [name, value] of Object.entries(values)) {
      cases.push({ name: `webhook unsigned ${name}`, ...t0['POST /api/webhook/payments'], ...json(value), status: [403] });
      cases.push({ name: `webhook signed ${name}`, ...t0['POST /api/webhook/payments'], ...signedWebhook(value), status: [403] });
    }
    await run(cases);
  });

  it('deeply nested JSON (10,000 and 100,000 levels) → 400 or 413, no stack overflow', async () => {
    const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const t0 = templates();
    const d = deepObject(10_000);
    const inside: Record<string, string> = {
      'POST /api/user/project': `{"userId":"${ada.id}","name":${d}}`,
      'PATCH /api/user/project/{projectId}': `{"name":${d}}`,
      'POST /api/user/project/canvas': `{"projectId":"${P}","nodes":[{"id":"n1","type":"upload","position":{"x":${d},"y":1},"data":{"type":"upload"}}],"edges":[]}`,
      'POST /api/image': `{"images":[${d}],"prompt":"grayscale"}`,
      'POST /api/upload/templates': `{"templateName":"x","canvas":{"nodes":[{"id":"n1","type":"upload","position":{"x":${d},"y":1},"data":{"type":"upload"}}],"edges":[]}}`,
      'POST /api/user/project/{projectId}/members': `{"email":${d},"role":"viewer"}`,
      'POST /api/user/project/{projectId}/versions': `{"name":${d}}`,
      'POST /api/user/tokens': `{"name":${d},"scopes":["read"]}`,
    };
    const cases: Case[] = [];
    for (const op of JSON_BODY_OPS) {
      cases.push({ name: `${op} object 10k`, ...t0[op], ...raw(d), status: [400] });
      cases.push({ name: `${op} array 10k`, ...t0[op], ...raw(deepArray(10_000)), status: [400] });
      cases.push({ name: `${op} array 100k`, ...t0[op], ...raw(deepArray(100_000)), status: [400, 413] });
      cases.push({ name: `${op} inside a field`, ...t0[op], ...raw(inside[op]), status: [400] });
    }
    // Deep unknown fields beside valid ones are dropped: the save or rename (of the scratch project) succeeds.
    cases.push({ name: 'canvas node data, unknown field 10k deep', ...t0['POST /api/user/project/canvas'], ...raw(`{"projectId":"${S}","nodes":[{"id":"n1","type":"upload","position":{"x":1,"y":1},"data":{"type":"upload","x":${d}}}],"edges":[],"extra":${d}}`), status: [200], accepted: async (res) => expect.soft(res.json.nodes[0].data, 'unknown field dropped').toEqual({ type: 'upload' }) });
    cases.push({ name: 'rename, unknown field 10k deep', method: 'PATCH', path: `/api/user/project/${S}`, ...raw(`{"name":"Scratch","extra":${d}}`), status: [200] });
    cases.push({ name: 'webhook unsigned 10k', ...t0['POST /api/webhook/payments'], ...raw(d), status: [403] });
    cases.push({ name: 'webhook signed 10k', ...t0['POST /api/webhook/payments'], ...signedWebhook(`{"data":${d}}`), status: [403] });
    cases.push({ name: 'auth session 10k', method: 'POST', path: '/api/auth/session', ...raw(d), status: 'below-500' });
    cases.push({ name: 'upload 10k', ...t0['POST /api/upload'], ...raw(d), status: [400] });
    await run(cases);
  });

  it("bodies over each route's limit → 413", async () => {
    const t0 = templates();
    const pad = (n: number) => 'x'.repeat(n);
    const over = (obj: Record<string, unknown>, limit: number) => json({ ...obj, pad: pad(limit + 1) });
    const bigPng = Buffer.concat([png.subarray(0, 33), Buffer.alloc(LIMITS.upload * 2)]);
    const cases: Case[] = [
      { name: 'project create over 1 MiB', ...t0['POST /api/user/project'], ...over({ userId: ada.id, name: 'x' }, LIMITS.json), status: [413], error: 'Request body too large' },
      { name: 'project create over 1 MiB, chunked', ...t0['POST /api/user/project'], ...over({ userId: ada.id, name: 'x' }, LIMITS.json), chunked: true, status: [413], error: 'Request body too large' },
      { name: 'project rename over 1 MiB', ...t0['PATCH /api/user/project/{projectId}'], ...over({ name: 'x' }, LIMITS.json), status: [413], error: 'Request body too large' },
      { name: 'canvas over its limit', ...t0['POST /api/user/project/canvas'], ...over({ projectId: P, nodes: [], edges: [] }, LIMITS.canvas), status: [413], error: 'Canvas too large' },
      { name: 'template over the canvas limit', ...t0['POST /api/upload/templates'], ...over({ templateName: 'x', canvas: { nodes: [], edges: [] } }, LIMITS.canvas), status: [413], error: 'Canvas too large' },
      { name: 'canvas over its limit, chunked', ...t0['POST /api/user/project/canvas'], ...over({ projectId: P, nodes: [], edges: [] }, LIMITS.canvas), chunked: true, status: [413], error: 'Canvas too large' },
      { name: 'image over its limit', ...t0['POST /api/image'], ...over({ images: [pngDataUrl], prompt: 'x' }, LIMITS.generationBody), status: [413] },
      { name: 'image data URL over its limit', ...t0['POST /api/image'], ...json({ images: [`data:image/png;base64,${Buffer.alloc(LIMITS.generationBody).toString('base64')}`], prompt: 'x' }), status: [413] },
      { name: 'upload file over its limit', ...t0['POST /api/upload'], ...multipart([{ name: 'file', filename: 'big.png', type: 'image/png', data: bigPng }]), status: [413], error: 'File too large' },
      { name: 'upload file over its limit, chunked', ...t0['POST /api/upload'], ...multipart([{ name: 'file', filename: 'big.png', type: 'image/png', data: bigPng }]), chunked: true, status: [413], error: 'File too large' },
      { name: 'webhook over 1 MiB', ...t0['POST /api/webhook/payments'], ...signedWebhook({ type: 'subscription.active', pad: pad(LIMITS.webhook) }), status: [413] },
      { name: 'auth signin over 64 KiB', method: 'POST', path: '/api/auth/signin/oauth', ...raw(`csrfToken=${pad(LIMITS.auth)}`, 'application/x-www-form-urlencoded'), status: [413] },
      { name: 'auth session over 64 KiB', method: 'POST', path: '/api/auth/session', ...raw(`{"pad":"${pad(LIMITS.auth)}"}`), status: [413] },
      { name: 'dev-idp login over 1 MiB', ...t0['POST /dev-idp/interaction/{uid}/login'], ...raw(`email=${pad(LIMITS.json)}`, 'application/x-www-form-urlencoded'), status: 'below-500' },
      { name: 'dev-idp token over 1 MiB', method: 'POST', path: '/dev-idp/token', ...raw(`grant_type=${pad(LIMITS.json)}`, 'application/x-www-form-urlencoded'), status: 'below-500' },
    ];
    await run(cases);
  });

  it('wrong content types → 415 (or 400), nothing stored', async () => {
    const t0 = templates();
    const cases: Case[] = [];
    // text/plain is read as JSON (a `fetch` with a string body and no headers sends it; docs/api.md "Conventions"):
    // the JSON rules hold for it, so a body that is not JSON is 400 and stores nothing.
    const types = ['application/xml', 'text/xml', 'application/x-www-form-urlencoded', 'application/octet-stream', 'text/json', 'application/json-patch+json', 'application/jsonx', 'text/html', 'image/png'];
    for (const op of JSON_BODY_OPS) {
      const body = t0[op].body!;
      for (const type of types) cases.push({ name: `${op} as ${type}`, ...t0[op], body, headers: { 'content-type': type }, status: [400, 415] });
      cases.push({ name: `${op} without a content type`, ...t0[op], body, headers: {}, status: [400, 415] });
      cases.push({ name: `${op} as text/plain, not JSON`, ...t0[op], body: body.toString().replace(/^\{/, '<'), headers: { 'content-type': 'text/plain;charset=UTF-8' }, status: [400], error: 'Invalid JSON' });
      const fields = Object.entries(JSON.parse(body.toString())).map(([name, value]) => ({ name, data: typeof value === 'string' ? value : JSON.stringify(value) }));
      cases.push({ name: `${op} as multipart`, ...t0[op], ...multipart(fields), status: [400, 415] });
    }
    const up = t0['POST /api/upload'];
    for (const [name, body, type] of [
      ['JSON', JSON.stringify({ file: pngDataUrl }), 'application/json'],
      ['text', 'file=x', 'text/plain'],
      ['XML', '<file>x</file>', 'application/xml'],
      ['form', 'file=x', 'application/x-www-form-urlencoded'],
      ['raw PNG bytes', png, 'image/png'],
      ['raw octets', png, 'application/octet-stream'],
      ['multipart without a boundary', up.body!, 'multipart/form-data'],
      ['multipart with another boundary', up.body!, 'multipart/form-data; boundary=not-the-one'],
      ['multipart/mixed', up.body!, 'multipart/mixed; boundary=HostileBoundary7MA4YWxkTrZu0gW'],
    ] as Array<[string, string | Buffer, string]>) {
      cases.push({ name: `upload as ${name}`, ...up, body, headers: { 'content-type': type }, status: [400, 415] });
    }
    const part = (p: Partial<{ name: string; filename: string; type: string; data: Buffer | string }>) => multipart([{ name: 'file', filename: 'a.png', type: 'image/png', data: png, ...p }]);
    cases.push(
      { name: 'upload field named otherwise', ...up, ...part({ name: 'image' }), status: [400], error: 'No file provided' },
      { name: 'upload text field only', ...up, ...multipart([{ name: 'file', data: 'not a file' }]), status: [400] },
      { name: 'upload HTML named .png', ...up, ...part({ data: '<html><script>alert(1)</script></html>' }), status: [400], error: 'Unsupported file type' },
      // SVG is rasterized to PNG (never stored as SVG); one without a size cannot be drawn.
      { name: 'upload SVG without a size', ...up, ...part({ filename: 'x.svg', type: 'image/svg+xml', data: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' }), status: [400], error: 'Invalid image' },
      { name: 'upload empty file', ...up, ...part({ data: Buffer.alloc(0) }), status: [400] },
      { name: 'upload truncated (no closing boundary)', ...up, body: (up.body as Buffer).subarray(0, up.body!.length - 40), headers: up.headers, status: [400] },
      { name: 'upload two files, the first not an image', ...up, ...multipart([{ name: 'file', filename: 'a.txt', data: 'text' }, { name: 'file', filename: 'b.png', type: 'image/png', data: png }]), status: [400] },
      { name: 'upload PDF', ...up, ...part({ data: '%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj' }), status: [400], error: 'Unsupported file type' },
    );
    await run(cases);
  });

  it('tampered, expired and foreign session cookies → 401, nothing stored', async () => {
    const t0 = templates();
    const ghostId = randomUUID();
    const half = Math.floor(ada.cookie.length / 2);
    const flipped = ada.cookie.slice(0, -5) + (ada.cookie.at(-5) === 'A' ? 'B' : 'A') + ada.cookie.slice(-4);
    const variants: Record<string, string | null> = {
      none: null,
      'another secret': `${COOKIE}=${await sessionToken(ada.id, { secret: 'another-secret-of-enough-length-0123456789' })}`,
      expired: `${COOKIE}=${await sessionToken(ada.id, { maxAge: -10 })}`,
      truncated: `${COOKIE}=${ada.cookie.slice(0, half)}`,
      'one character changed': `${COOKIE}=${flipped}`,
      garbage: `${COOKIE}=garbage`,
      'percent garbage': `${COOKIE}=%00%ff%fe`,
      'JWE-shaped garbage': `${COOKIE}=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..AAAA.BBBB.CCCC`,
      empty: `${COOKIE}=`,
      'chunked garbage': `${COOKIE}.0=abc; ${COOKIE}.1=def`,
      'chunked halves swapped': `${COOKIE}.0=${ada.cookie.slice(half)}; ${COOKIE}.1=${ada.cookie.slice(0, half)}`,
      'chunked without .0': `${COOKIE}.1=${ada.cookie}`,
      'Auth.js default name': `authjs.session-token=${ada.cookie}`,
      '__Secure- prefix': `__Secure-${COOKIE}=${ada.cookie}`,
      'long garbage (12 KB)': `${COOKIE}=${'a'.repeat(12_000)}`,
      'subject not a UUID': `${COOKIE}=${await sessionToken('admin')}`,
    };
    const ghost = `${COOKIE}=${await sessionToken(ghostId)}`;
    const cases: Case[] = [];
    for (const op of protectedOps) {
      for (const [name, cookie] of Object.entries(variants)) {
        cases.push({ name: `${op} with ${name}`, ...t0[op], cookie, status: [401], error: 'Unauthorized' });
      }
      // A valid token of a user that does not exist (deleted since): reads may answer (from the session
      // alone: /api/user/session, an empty list), but nothing is stored and no write succeeds.
      const req = op === 'POST /api/user/project' ? { ...t0[op], ...json({ userId: ghostId, name: 'Ghost' }) } : op === 'GET /api/user/project' ? { ...t0[op], path: `/api/user/project?userId=${ghostId}` } : t0[op];
      cases.push({ name: `${op} with a user that does not exist`, ...req, cookie: ghost, status: op.startsWith('GET') ? 'below-500' : [401, 404] });
    }
    cases.push({ name: 'session cookie over the header limit', ...t0['GET /api/user'], cookie: `${COOKIE}=${'a'.repeat(20_000)}`, status: [401, 431] });
    cases.push({ name: 'auth session with garbage', method: 'GET', path: '/api/auth/session', cookie: `${COOKIE}=garbage`, status: [200] });
    cases.push({ name: 'auth session with chunked garbage', method: 'GET', path: '/api/auth/session', cookie: `${COOKIE}.0=abc; ${COOKIE}.1=def`, status: [200] });
    cases.push({ name: 'projects page with another secret', method: 'GET', path: '/projects', cookie: variants['another secret'], status: [302] });
    await run(cases);
  });

  it('malformed, unknown and forged API tokens → 401 (the cookie beside them ignored), nothing stored', async () => {
    const t0 = templates();
    const variants: Record<string, string> = {
      'Bearer alone': 'Bearer',
      'Bearer and spaces': 'Bearer    ',
      garbage: 'Bearer garbage',
      'lower-case scheme': 'bearer garbage',
      'prefix only': 'Bearer ic_',
      'well-formed, unknown': `Bearer ic_${'A'.repeat(43)}`,
      'one character short': `Bearer ic_${'A'.repeat(42)}`,
      'without the prefix': `Bearer ${'A'.repeat(43)}`,
      'the session cookie as a token': `Bearer ${ada.cookie}`,
      'percent-encoded NUL': `Bearer ic_%00${'A'.repeat(40)}`,
      'long (8 KB)': `Bearer ic_${'A'.repeat(8_000)}`,
      'two tokens': `Bearer ic_${'A'.repeat(43)}, Bearer ic_${'B'.repeat(43)}`,
    };
    const cases: Case[] = [];
    for (const op of protectedOps) {
      for (const [name, authorization] of Object.entries(variants)) {
        const req = t0[op];
        cases.push({ name: `${op} with ${name}`, ...req, headers: { ...req.headers, authorization }, status: [401], error: 'Unauthorized' });
      }
    }
    await run(cases);
  });

  it('cross-site POST/PATCH/DELETE → 403 Forbidden, nothing stored', async () => {
    const t0 = templates();
    const here = new URL(t.baseUrl);
    const variants: Record<string, Record<string, string>> = {
      'Origin evil': { origin: 'https://evil.example' },
      'Sec-Fetch-Site cross-site': { 'sec-fetch-site': 'cross-site' },
      'Sec-Fetch-Site same-site': { 'sec-fetch-site': 'same-site' },
      'Origin null': { origin: 'null' },
      'Origin https on our host': { origin: `https://${here.host}` },
      'Origin on another port': { origin: `http://${here.hostname}:${Number(here.port) + 1}` },
      'Origin evil and Sec-Fetch-Site same-origin': { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      'Sec-Fetch-Site cross-site and our Origin': { origin: here.origin, 'sec-fetch-site': 'cross-site' },
    };
    const guarded = operations.filter((op) => /^(POST|PUT|PATCH|DELETE) \/api\//.test(op) && !op.includes('/api/webhook/'));
    expect(guarded.length).toBeGreaterThanOrEqual(6);
    const cases: Case[] = [];
    for (const op of guarded) {
      for (const [name, headers] of Object.entries(variants)) {
        const req = t0[op];
        cases.push({ name: `${op} ${name}`, ...req, headers: { ...req.headers, ...headers }, status: [403], error: 'Forbidden' });
      }
    }
    cases.push({ name: 'PUT on no route, Origin evil', method: 'PUT', path: '/api/user/project', ...json({}), headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, status: [403] });
    // Auth.js routes keep their own CSRF token; the webhook its signature.
    cases.push({ name: 'sign-out from evil without CSRF token', method: 'POST', path: '/api/auth/signout', ...raw('callbackUrl=https://evil.example/', 'application/x-www-form-urlencoded'), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, status: 'below-500' });
    cases.push({ name: 'sign-in from evil without CSRF token', method: 'POST', path: '/api/auth/signin/oauth', ...raw('callbackUrl=https://evil.example/', 'application/x-www-form-urlencoded'), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, status: 'below-500' });
    cases.push({ name: 'webhook from evil, unsigned', ...t0['POST /api/webhook/payments'], headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, status: [403] });
    await run(cases);
  });

  it('path traversal on /files/ → 404 JSON, nothing outside the store read', async () => {
    const names = [
      '..%2f..%2fetc%2fpasswd',
      '..%2fcanary.txt',
      '..%2fsecrets%2fauth-secret',
      '%2e%2e/canary.txt',
      '%2e%2e%2fcanary.txt',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '....//canary.txt',
      '....%2f%2fcanary.txt',
      '..%5ccanary.txt',
      '..\\canary.txt',
      '..\\..\\etc\\passwd',
      '%5c..%5c..%5cetc%5cpasswd',
      `${'%2e'}`,
      '.',
      '..',
      '...',
      '.meta',
      `.meta/${storedFile}.json`,
      `.meta%2f${storedFile}.json`,
      `${storedFile}%00.png`,
      `${storedFile}%00`,
      '%00',
      `x%00/../${storedFile}`,
      `x/../${storedFile}`,
      `./${storedFile}`,
      `${storedFile}/..`,
      `%2fetc%2fpasswd`,
      '/etc/passwd',
      '%252e%252e%252fcanary.txt',
      '%c0%ae%c0%ae%c0%afcanary.txt',
      '..;/canary.txt',
      'C:%5cWindows%5cwin.ini',
      'a'.repeat(201),
      'a'.repeat(8000),
      `${storedFile.toUpperCase()}`,
      '%20',
      `${storedFile}%20`,
      '.tmp-x',
      '%E0%A4%A',
    ];
    const cases: Case[] = [];
    for (const name of names) {
      const shortName = name.length > 60 ? `${name.slice(0, 20)}… (${name.length})` : name;
      cases.push({ name: `GET /files/${shortName}`, method: 'GET', path: `/files/${name}`, status: [404, 400], cookie: null });
      cases.push({ name: `HEAD /files/${shortName}`, method: 'HEAD', path: `/files/${name}`, status: [404, 400], cookie: null });
    }
    await run(cases);
    // The control: the stored file itself is served, with a trailing slash too (every route takes one).
    expect((await send({ method: 'GET', path: `/files/${storedFile}` })).status).toBe(200);
    const slashed = await send({ method: 'GET', path: `/files/${storedFile}/` });
    expect(slashed.status).toBe(200);
    expect(slashed.headers['content-type']).toBe('image/png');
    // /files answers carry JSON on 404 (checked here, as the generic check covers /api only).
    const res = await send({ method: 'GET', path: '/files/..%2fcanary.txt' });
    expect(res.json).toEqual({ error: 'Not found' });
  });

  it('forged and replayed webhooks → 403 / duplicate ack, user unchanged', async () => {
    const event = subscriptionEvent('subscription.revoked', bob.id, 'cus_bob');
    const good = signedWebhook(event);
    const webhook = { method: 'POST', path: '/api/webhook/payments' };
    const withHeaders = (d: { body: string; headers: Record<string, string> }, h: Record<string, string | undefined>) => {
      const headers = { ...d.headers, ...h } as Record<string, string>;
      for (const k of Object.keys(headers)) if (headers[k] === undefined) delete headers[k];
      return { body: d.body, headers };
    };
    const stale = signedWebhook(event, { at: new Date(Date.now() - 10 * 60_000) });
    const future = signedWebhook(event, { at: new Date(Date.now() + 10 * 60_000) });
    const otherId = signedWebhook(event, { id: 'msg_other' });
    const cases: Case[] = [
      { name: 'no signature headers', ...webhook, ...json(event), status: [403], error: 'Invalid signature' },
      { name: 'no webhook-signature', ...webhook, ...withHeaders(good, { 'webhook-signature': undefined }), status: [403] },
      { name: 'no webhook-timestamp', ...webhook, ...withHeaders(good, { 'webhook-timestamp': undefined }), status: [403] },
      { name: 'no webhook-id', ...webhook, ...withHeaders(good, { 'webhook-id': undefined }), status: [403] },
      { name: 'signed with the sandbox secret', ...webhook, ...signedWebhook(event, { secret: SANDBOX_SECRET }), status: [403], error: 'Invalid signature' },
      { name: 'signed with a random secret', ...webhook, ...signedWebhook(event, { secret: randomUUID() }), status: [403] },
      { name: 'tampered body', ...webhook, body: good.body.replace('subscription.revoked', 'subscription.active'), headers: good.headers, status: [403] },
      { name: 'tampered body (extra space)', ...webhook, body: `${good.body} `, headers: good.headers, status: [403] },
      { name: 'stale timestamp (10 minutes)', ...webhook, ...stale, status: [403] },
      { name: 'future timestamp (10 minutes)', ...webhook, ...future, status: [403] },
      { name: 'signature of another id', ...webhook, ...withHeaders(otherId, { 'webhook-id': 'msg_mine' }), status: [403] },
      { name: 'signature v1, empty', ...webhook, ...withHeaders(good, { 'webhook-signature': 'v1,' }), status: [403] },
      { name: 'signature v2 scheme', ...webhook, ...withHeaders(good, { 'webhook-signature': good.headers['webhook-signature'].replace('v1,', 'v2,') }), status: [403] },
      { name: 'signature garbage', ...webhook, ...withHeaders(good, { 'webhook-signature': 'garbage' }), status: [403] },
      { name: 'signature very long', ...webhook, ...withHeaders(good, { 'webhook-signature': `v1,${'A'.repeat(8000)}` }), status: [403] },
      { name: 'signature of the sandbox secret beside garbage', ...webhook, ...withHeaders(good, { 'webhook-signature': `v1,AAAA ${signedWebhook(event, { secret: SANDBOX_SECRET, id: good.headers['webhook-id'], at: new Date(Number(good.headers['webhook-timestamp']) * 1000) }).headers['webhook-signature']}` }), status: [403] },
      { name: 'timestamp not a number', ...webhook, ...withHeaders(good, { 'webhook-timestamp': 'now' }), status: [403] },
      { name: 'timestamp 1e308', ...webhook, ...withHeaders(good, { 'webhook-timestamp': '1e308' }), status: [403] },
      { name: 'timestamp negative', ...webhook, ...withHeaders(good, { 'webhook-timestamp': '-1' }), status: [403] },
      { name: 'signed, body not JSON', ...webhook, ...signedWebhook('not json at all'), status: [403] },
      { name: 'signed, not an event', ...webhook, ...signedWebhook({ hello: 'world' }), status: [403] },
      { name: 'signed, webhook id over 200 characters', ...webhook, ...signedWebhook(event, { id: `msg_${'x'.repeat(300)}` }), status: [403] },
      { name: 'signed, __proto__ payload', ...webhook, ...signedWebhook('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}'), status: [403] },
      { name: 'as text/plain, unsigned', ...webhook, ...raw(JSON.stringify(event), 'text/plain'), status: [403] },
      // Replays: the delivery that made bob Pro, as it was, and re-sent with the same id (re-signed or with
      // another body): acknowledged as duplicates, nothing applied.
      { name: 'replayed delivery', ...webhook, ...bobActive, status: [200], accepted: async (res) => expect.soft(res.json, 'replayed delivery').toEqual({ received: true, duplicate: true }) },
      { name: 'replayed id, re-signed now', ...webhook, ...signedWebhook(JSON.parse(bobActive.body), { id: bobActive.headers['webhook-id'] }), status: [200], accepted: async (res) => expect.soft(res.json, 'replayed id, re-signed').toEqual({ received: true, duplicate: true }) },
      { name: 'replayed id, another event', ...webhook, ...signedWebhook(event, { id: bobActive.headers['webhook-id'] }), status: [200], accepted: async (res) => expect.soft(res.json, 'replayed id, another event').toEqual({ received: true, duplicate: true }) },
      { name: 'replayed delivery, stale', ...webhook, ...signedWebhook(JSON.parse(bobActive.body), { id: bobActive.headers['webhook-id'], at: new Date(Date.now() - 6 * 60_000) }), status: [403] },
    ];
    for (const c of cases) c.cookie = null;
    await run(cases);
    const row = (await t.pool.query('SELECT is_pro, subscription_status FROM users WHERE id = $1', [bob.id])).rows[0];
    expect(row).toEqual({ is_pro: true, subscription_status: 'active' });
  });

  it('query strings with arrays, duplicates and odd keys → 4xx or ignored', async () => {
    const cases: Case[] = [
      { name: 'userId twice', method: 'GET', path: '/api/user/project?userId=a&userId=b', status: [400], error: 'User ID is required' },
      { name: 'userId twice, both mine', method: 'GET', path: `/api/user/project?userId=${ada.id}&userId=${ada.id}`, status: [400] },
      { name: 'userId[]', method: 'GET', path: `/api/user/project?userId[]=${ada.id}`, status: [400] },
      { name: 'userId[0]', method: 'GET', path: `/api/user/project?userId[0]=${ada.id}`, status: [400] },
      { name: 'userId bob', method: 'GET', path: `/api/user/project?userId=${bob.id}`, status: [403] },
      { name: 'userId empty', method: 'GET', path: '/api/user/project?userId=', status: [400] },
      { name: 'projectId twice', method: 'GET', path: `/api/user/project/canvas?projectId=${P}&projectId=${P}`, status: [400] },
      { name: 'projectId of bob', method: 'GET', path: `/api/user/project/canvas?projectId=${B}`, status: [404] },
      { name: 'limit twice', method: 'GET', path: '/api/user/generations?limit=1&limit=2', status: [400] },
      { name: 'cursor twice', method: 'GET', path: '/api/user/generations?cursor=a&cursor=b', status: [400] },
      { name: 'assetId twice', method: 'GET', path: '/api/video/asset?assetId=asset01ready&assetId=x', status: [400] },
      { name: 'assetId[]', method: 'GET', path: '/api/video/asset?assetId[]=asset01ready', status: [400] },
      { name: 'format twice', method: 'GET', path: '/api/checkout?format=json&format=json', status: [400] },
      { name: 'format xml', method: 'GET', path: '/api/portal?format=xml', status: [400] },
      { name: 'customer id of bob on checkout query', method: 'GET', path: `/api/portal?format=json&customerId=cus_bob&userId=${bob.id}`, headers: { 'sec-fetch-site': 'same-origin' }, status: [400], error: 'No subscription found' },
      { name: 'customer id of bob on a portal POST', method: 'POST', path: `/api/portal?format=json&customerId=cus_bob&userId=${bob.id}`, status: [400], error: 'No subscription found' },
      { name: 'project delete with a query naming P', method: 'DELETE', path: `/api/user/project/${B}?projectId=${P}`, status: [404] },
      { name: 'canvas save with a query naming P', method: 'POST', path: `/api/user/project/canvas?projectId=${P}`, ...json({ projectId: B, nodes: [], edges: [] }), status: [404] },
      { name: '1000 parameters', method: 'GET', path: `/api/user/project?${Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&')}`, status: [400] },
      { name: 'bare percent', method: 'GET', path: '/api/user/project?userId=%', status: 'below-500' },
      { name: 'invalid UTF-8 (surrogate)', method: 'GET', path: '/api/user/project?userId=%ED%A0%80', status: [400, 403] },
      { name: 'invalid UTF-8 (overlong)', method: 'GET', path: '/api/user/project/canvas?projectId=%C0%AE%C0%AE', status: [400, 404] },
      { name: 'invalid UTF-8 (0xFF)', method: 'GET', path: '/api/video/asset?assetId=%FF', status: [400] },
      { name: 'invalid percent escape', method: 'GET', path: '/api/user/generations?cursor=%zz', status: [400] },
      { name: 'invalid percent escape in a path', method: 'PATCH', path: '/api/user/project/%E0%A4%A', ...json({ name: 'x' }), status: [400, 404] },
    ];
    await run(cases);
  });

  it('unicode, NUL and control characters in every string field → 400, or stored exactly as sent', async () => {
    const unstorable: Record<string, string> = {
      NUL: '\u0000',
      'NUL inside': 'a\u0000b',
      'lone high surrogate': 'x\ud800',
      'lone low surrogate': '\udfffx',
      'reversed pair': '\udc00\ud800',
    };
    const odd: Record<string, string> = {
      'C0 controls': 'a\u0001\u0008\u001b[31m\u007fb',
      'line separators': 'a\r\nb\u2028c\u2029d',
      'bidi override': 'a\u202eevil\u202c',
      'zero width': 'a\u200b\u200d\ufeffb',
      astral: '𝕏😀👩‍👩‍👧',
      combining: 'e\u0301\u0301\u0301',
      noncharacters: 'a\ufffe\uffffb',
      'C1 controls': 'a\u0085\u009bb',
      HTML: '<script>alert(1)</script>',
      SQL: "'; DROP TABLE users; --",
      template: '${7*7}{{7*7}}',
      'path traversal': '../../etc/passwd',
      'percent escapes': '%00%2e%2e',
      'only whitespace': ' \t\u00a0\u3000 ',
    };
    const values = { ...unstorable, ...odd };
    const isOdd = (name: string) => name in odd;
    const cases: Case[] = [];
    const back = (what: string, expected: string, actual: unknown) => expect.soft(actual, `${what}: stored as sent`).toBe(expected);
    for (const [vname, v] of Object.entries(values)) {
      const ok = isOdd(vname) ? { status: [200, 400] as number[] } : { status: [400] as number[] };
      cases.push(
        {
          name: `project name: ${vname}`,
          method: 'POST',
          path: '/api/user/project',
          ...json({ userId: ada.id, name: v }),
          ...ok,
          accepted: async (res) => {
            back(`project name: ${vname}`, v.trim(), res.json.name);
            const listed = (await send({ method: 'GET', path: `/api/user/project?userId=${ada.id}`, headers: { cookie: `${COOKIE}=${ada.cookie}` } })).json;
            back(`project name: ${vname} (listed)`, v.trim(), listed.find((p: { id: string }) => p.id === res.json.id)?.name);
            expect.soft((await send({ method: 'DELETE', path: `/api/user/project/${res.json.id}`, headers: { cookie: `${COOKIE}=${ada.cookie}` } })).status).toBe(204);
          },
        },
        { name: `project userId: ${vname}`, method: 'POST', path: '/api/user/project', ...json({ userId: v, name: 'x' }), status: [400, 403] },
        { name: `project rename: ${vname}`, method: 'PATCH', path: `/api/user/project/${S}`, ...json({ name: v }), ...ok, accepted: async (res) => back(`project rename: ${vname}`, v.trim(), res.json.name) },
        { name: `project rename of bob's: ${vname}`, method: 'PATCH', path: `/api/user/project/${B}`, ...json({ name: v }), status: [400, 404] },
        { name: `canvas projectId: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: v, nodes: [], edges: [] }), status: [400, 404] },
        { name: `canvas id: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ id: v, projectId: S, nodes: [], edges: [] }), ...ok },
        { name: `canvas node id: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: S, nodes: [node(v)], edges: [] }), ...ok, accepted: async (res) => back(`canvas node id: ${vname}`, v, res.json.nodes[0].id) },
        { name: `canvas node prompt: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: S, nodes: [node('n', { prompt: v })], edges: [] }), ...ok, accepted: async (res) => back(`canvas node prompt: ${vname}`, v, res.json.nodes[0].data.prompt) },
        { name: `canvas node image: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: S, nodes: [node('n', { image: v })], edges: [] }), ...ok, accepted: async (res) => back(`canvas node image: ${vname}`, v, res.json.nodes[0].data.image) },
        { name: `canvas edge handle: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: S, nodes: [node('a'), gen('b')], edges: [{ id: 'e', source: 'a', target: 'b', sourceHandle: v }] }), ...ok, accepted: async (res) => back(`canvas edge handle: ${vname}`, v, res.json.edges[0].sourceHandle) },
        { name: `canvas node type: ${vname}`, method: 'POST', path: '/api/user/project/canvas', ...json({ projectId: S, nodes: [{ ...node('n'), type: v }], edges: [] }), status: [400] },
        // A prompt that cannot be stored is refused before the model runs (the image is valid); an odd one
        // with an unreadable image is refused for the image.
        { name: `image prompt: ${vname}`, method: 'POST', path: '/api/image', ...json({ images: [isOdd(vname) ? 'data:image/png;base64,AAAA' : pngDataUrl], prompt: v }), status: [400] },
        { name: `image URL: ${vname}`, method: 'POST', path: '/api/image', ...json({ images: [v], prompt: 'grayscale' }), status: [400] },
        { name: `image URL under /files: ${vname}`, method: 'POST', path: '/api/image', ...json({ images: [`${t.baseUrl}/files/${v}`], prompt: 'grayscale' }), status: [400] },
        { name: `dev-idp login name: ${vname}`, method: 'POST', path: '/dev-idp/interaction/hostile/login', ...raw(new URLSearchParams({ email: 'x@example.com', name: v }).toString(), 'application/x-www-form-urlencoded'), status: 'below-500', cookie: null },
      );
      const q = encodeUtf8(v);
      cases.push(
        { name: `query userId: ${vname}`, method: 'GET', path: `/api/user/project?userId=${q}`, status: [400, 403] },
        { name: `query projectId: ${vname}`, method: 'GET', path: `/api/user/project/canvas?projectId=${q}`, status: [400, 404] },
        { name: `query cursor: ${vname}`, method: 'GET', path: `/api/user/generations?cursor=${q}`, status: [400] },
        { name: `query cursor (encoded): ${vname}`, method: 'GET', path: `/api/user/generations?cursor=${Buffer.from(`2020-01-01T00:00:00.000Z|${v}`).toString('base64url')}`, status: [200, 400] },
        { name: `query assetId: ${vname}`, method: 'GET', path: `/api/video/asset?uploadId=${q}`, status: [400] },
        { name: `path projectId: ${vname}`, method: 'DELETE', path: `/api/user/project/${q}`, status: [400, 404] },
        { name: `sign-in callbackUrl: ${vname}`, method: 'POST', path: '/api/auth/signin/oauth', ...raw(`csrfToken=x&callbackUrl=${q}`, 'application/x-www-form-urlencoded'), status: 'below-500', cookie: null },
      );
    }
    cases.push({ name: 'cursor: a year PostgreSQL cannot hold', method: 'GET', path: `/api/user/generations?cursor=${Buffer.from('-271821-04-20T00:00:00.000Z|gen-1-aa').toString('base64url')}`, status: [400] });
    cases.push({ name: 'cursor: no separator', method: 'GET', path: `/api/user/generations?cursor=${Buffer.from('2020-01-01T00:00:00.000Z').toString('base64url')}`, status: [400] });
    await run(cases);
  });

  it('huge numbers, -0 and NaN as strings → 400, or stored as sent', async () => {
    const canvasWith = (position: string) => `{"projectId":"${S}","nodes":[{"id":"n","type":"upload","position":${position},"data":{"type":"upload"}}],"edges":[]}`;
    const version = (v: string) => `{"projectId":"${S}","nodes":[],"edges":[],"version":${v}}`;
    const cases: Case[] = [];
    for (const [name, x, ok] of [
      ['1e308', '1e308', true],
      ['-1e308', '-1e308', true],
      ['-0', '-0', true],
      ['5e-324', '5e-324', true],
      ['1e-400 (underflows to 0)', '1e-400', true],
      ['30 digits', '123456789012345678901234567890', true],
      ['1e309 (Infinity)', '1e309', false],
      ['-1e309 (-Infinity)', '-1e309', false],
      ['"NaN"', '"NaN"', false],
      ['"Infinity"', '"Infinity"', false],
      ['"1e308"', '"1e308"', false],
      ['null', 'null', false],
      ['[1]', '[1]', false],
      ['{}', '{}', false],
    ] as Array<[string, string, boolean]>) {
      cases.push({ name: `canvas position x ${name}`, method: 'POST', path: '/api/user/project/canvas', ...raw(canvasWith(`{"x":${x},"y":1}`)), status: ok ? [200] : [400], accepted: async (res) => expect.soft(res.json.nodes[0].position.x === (Number(JSON.parse(x)) || 0), `position ${name}: ${res.json.nodes[0].position.x}`).toBe(true) });
    }
    for (const [name, v] of [
      ['1e308', '1e308'],
      ['2^31', '2147483648'],
      ['2^53', '9007199254740992'],
      ['2^53 + 1', '9007199254740993'],
      ['-1', '-1'],
      ['1.5', '1.5'],
      ['"NaN"', '"NaN"'],
      ['"1"', '"1"'],
      ['1e309', '1e309'],
      ['-0 (stale)', '-0'],
      ['2^31 - 1 (stale)', '2147483647'],
    ]) {
      cases.push({ name: `canvas version ${name}`, method: 'POST', path: '/api/user/project/canvas', ...raw(version(v)), status: [400, 409] });
    }
    for (const [name, v, status] of [
      ['1e308', '1e308', [400]],
      ['-0', '-0', [400]],
      ['NaN', 'NaN', [400]],
      ['Infinity', 'Infinity', [400]],
      ['-1', '-1', [400]],
      ['0', '0', [400]],
      ['101', '101', [400]],
      ['1e2', '1e2', [200]],
      ['0x10', '0x10', [200, 400]],
      ['2^53 + 1', '9007199254740993', [400]],
      ['empty', '', [400]],
    ] as Array<[string, string, number[]]>) {
      cases.push({ name: `generations limit ${name}`, method: 'GET', path: `/api/user/generations?limit=${v}`, status });
    }
    cases.push(
      { name: 'project name 1e308', method: 'POST', path: '/api/user/project', ...raw(`{"userId":"${ada.id}","name":1e308}`), status: [400] },
      { name: 'project userId -0', method: 'POST', path: '/api/user/project', ...raw('{"userId":-0,"name":"x"}'), status: [400] },
      { name: 'rename to NaN string', method: 'PATCH', path: `/api/user/project/${B}`, ...json({ name: 'NaN' }), status: [404] },
      { name: 'image URL 1e308', method: 'POST', path: '/api/image', ...raw('{"images":[1e308],"prompt":"x"}'), status: [400] },
      { name: 'image prompt 1e308', method: 'POST', path: '/api/image', ...raw(`{"images":["${pngDataUrl}"],"prompt":1e308}`), status: [400] },
      { name: 'image prompt -0', method: 'POST', path: '/api/image', ...raw(`{"images":["${pngDataUrl}"],"prompt":-0}`), status: [400] },
      { name: 'canvas projectId 1e308', method: 'POST', path: '/api/user/project/canvas', ...raw('{"projectId":1e308,"nodes":[],"edges":[]}'), status: [400] },
      { name: 'video assetId 1e308', method: 'GET', path: '/api/video/asset?assetId=1e308', status: [404] },
    );
    await run(cases);
  });

  it('malformed input images and history cursors → 400, no model call', async () => {
    const bad = await badImages();
    const image = (name: string, data: Buffer, mime: string): Case => ({
      name: `image ${name}`,
      method: 'POST',
      path: '/api/image',
      ...json({ images: [pngDataUrl, asDataUrl(data, mime)], prompt: 'grayscale' }),
      status: [400],
      error: /^Invalid image: /,
    });
    const cases: Case[] = [
      image('declaring 100000×100000 pixels', bad.hugePng, 'image/png'),
      image('JPEG declaring 60000×60000 pixels', bad.hugeJpeg, 'image/jpeg'),
      image('truncated PNG', bad.truncatedPng, 'image/png'),
      image('truncated JPEG', bad.truncatedJpeg, 'image/jpeg'),
      image('truncated WebP', bad.truncatedWebp, 'image/webp'),
      image('truncated GIF', bad.truncatedGif, 'image/gif'),
      image('PNG with damaged pixel data', bad.corruptPng, 'image/png'),
      image('PNG header only', bad.pngHeaderOnly, 'image/png'),
      image('garbage after a PNG header', bad.garbageAfterPngHeader, 'image/png'),
      image('garbage after a JPEG header', bad.garbageAfterJpegHeader, 'image/jpeg'),
      image('zero bytes', bad.zeroBytes, 'image/png'),
      image('a PNG signature only', bad.pngHeaderOnly.subarray(0, 8), 'image/png'),
    ];
    const cursor = (name: string, decoded: string): Case => ({ name: `cursor ${name}`, method: 'GET', path: `/api/user/generations?cursor=${Buffer.from(decoded).toString('base64url')}`, status: [400], error: /^Invalid cursor/ });
    cases.push(
      cursor('year 0000', '0000-01-01T00:00:00.000Z|gen-1-aa'),
      cursor('year 0000, last day', '0000-12-31T23:59:59.999Z|gen-1-aa'),
      cursor('year 99999', '99999-01-01T00:00:00.000Z|gen-1-aa'),
      cursor('year +099999 (as JS prints it)', '+099999-01-01T00:00:00.000Z|gen-1-aa'),
      cursor('negative year', '-000001-01-01T00:00:00.000Z|gen-1-aa'),
      cursor('month 13', '2020-13-01T00:00:00.000Z|gen-1-aa'),
      cursor('30 February', '2020-02-30T00:00:00.000Z|gen-1-aa'),
      cursor('hour 24', '2020-01-01T24:00:00.000Z|gen-1-aa'),
      cursor('NaN', 'NaN|gen-1-aa'),
      cursor('Invalid Date', 'Invalid Date|gen-1-aa'),
      cursor('Infinity', 'Infinity|gen-1-aa'),
      cursor('huge number', `${'9'.repeat(40)}|gen-1-aa`),
      cursor('1e308', '1e308|gen-1-aa'),
      cursor('milliseconds as a number', '1700000000000|gen-1-aa'),
      cursor('empty date', '|gen-1-aa'),
      cursor('empty id', '2020-01-01T00:00:00.000Z|'),
      cursor('three parts', '2020-01-01T00:00:00.000Z|gen-1-aa|x'),
      { name: 'cursor not base64', method: 'GET', path: '/api/user/generations?cursor=!!!!', status: [400], error: /^Invalid cursor/ },
      { name: 'cursor with spaces', method: 'GET', path: '/api/user/generations?cursor=MjAy%20MC0w', status: [400], error: /^Invalid cursor/ },
      { name: 'cursor in standard base64 with padding', method: 'GET', path: `/api/user/generations?cursor=${encodeURIComponent(Buffer.from('2020-01-01T00:00:00.000Z|gen-1-aaa').toString('base64'))}`, status: [400], error: /^Invalid cursor/ },
      { name: 'cursor empty', method: 'GET', path: '/api/user/generations?cursor=', status: [200, 400] },
    );
    await run(cases);
  });

  it('prototype pollution payloads → refused, no effect', async () => {
    const t0 = templates();
    const cases: Case[] = [];
    for (const op of JSON_BODY_OPS) {
      const body = t0[op].body!.toString().slice(0, -1);
      cases.push(
        { name: `${op} __proto__ alone`, ...t0[op], ...raw('{"__proto__":{"isAdmin":true}}'), status: [400] },
        { name: `${op} constructor.prototype alone`, ...t0[op], ...raw('{"constructor":{"prototype":{"isAdmin":true}}}'), status: [400] },
        { name: `${op} __proto__ beside valid fields`, ...t0[op], ...raw(`${body},"__proto__":{"isAdmin":true}}`), status: [400] },
        { name: `${op} constructor.prototype beside valid fields`, ...t0[op], ...raw(`${body},"constructor":{"prototype":{"isAdmin":true}}}`), status: [400] },
        { name: `${op} __proto__ escaped`, ...t0[op], ...raw(`${body},"\\u005f_proto__":{"isAdmin":true}}`), status: [400] },
      );
    }
    cases.push(
      { name: 'canvas node with __proto__', method: 'POST', path: '/api/user/project/canvas', ...raw(`{"projectId":"${P}","nodes":[{"id":"n","type":"upload","position":{"x":1,"y":1},"data":{"type":"upload","__proto__":{"isGenerating":true}}}],"edges":[]}`), status: [400] },
      { name: 'query __proto__[isAdmin]', method: 'GET', path: `/api/user/project?userId=${ada.id}&__proto__[isAdmin]=true`, status: [200] },
      { name: 'query __proto__', method: 'GET', path: `/api/user/project?__proto__=x&userId=${ada.id}`, status: [200] },
      { name: 'query constructor[prototype]', method: 'GET', path: `/api/user/project?constructor[prototype][isAdmin]=1&userId=${ada.id}`, status: [200] },
      { name: 'query __proto__ as the field', method: 'GET', path: '/api/user/project?__proto__[userId]=x', status: [400] },
      { name: 'cookie named __proto__', method: 'GET', path: '/api/user', cookie: `__proto__=x; constructor=y; ${COOKIE}=${ada.cookie}`, status: [200] },
      { name: 'cookie __proto__ only', method: 'GET', path: '/api/user', cookie: '__proto__=x', status: [401] },
      { name: 'auth form __proto__', method: 'POST', path: '/api/auth/signin/oauth', ...raw('__proto__[isAdmin]=true&constructor[prototype][isAdmin]=true&csrfToken=x', 'application/x-www-form-urlencoded'), status: 'below-500', cookie: null },
      { name: 'dev-idp form __proto__', method: 'POST', path: '/dev-idp/interaction/hostile/login', ...raw('__proto__[isAdmin]=true&email=a%40example.com&name=x', 'application/x-www-form-urlencoded'), status: 'below-500', cookie: null },
      { name: 'upload field __proto__', method: 'POST', path: '/api/upload', ...multipart([{ name: '__proto__', filename: 'a.png', type: 'image/png', data: png }]), status: [400] },
      { name: 'upload field constructor', method: 'POST', path: '/api/upload', ...multipart([{ name: 'constructor', data: 'prototype' }]), status: [400] },
      { name: 'webhook unsigned __proto__', method: 'POST', path: '/api/webhook/payments', ...raw('{"__proto__":{"isAdmin":true}}'), status: [403], cookie: null },
    );
    await run(cases);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('upload file names: a traversal attempt is stored under a safe name inside the store, or refused', async () => {
    const cases: Case[] = [];
    const store = await openObjectStore(t);
    for (const filename of ['../../canary.png', '..\\..\\x.png', '/etc/passwd', '%2e%2e%2fx.png', 'a\u0000b.png', '.htaccess', 'x.svg', 'CON', 'é😀.png', `${'a'.repeat(1000)}.png`, '', '"; name="file', '\r\nX-Injected: 1']) {
      cases.push({
        name: `upload named ${JSON.stringify(filename).slice(0, 40)}`,
        method: 'POST',
        path: '/api/upload',
        ...multipart([{ name: 'file', filename, type: 'image/png', data: png }]),
        status: [200, 400],
        accepted: async (res) => {
          const url = new URL(res.json.url);
          const name = url.pathname.replace(/^\/files\//, '');
          expect.soft(name, `${filename}: safe stored name`).toMatch(/^\d+-[0-9a-f]+-[A-Za-z0-9._-]{1,100}$/);
          expect.soft(name.endsWith('.png'), `${filename}: the detected type's extension`).toBe(true);
          expect.soft(await fs.stat(path.join(objectsDir(), name)).then(() => true), `${filename}: inside the store`).toBe(true);
          await store.delete(name);
        },
      });
    }
    try {
      await run(cases);
    } finally {
      await store.close();
    }
  });

  it('the dev identity provider and Auth.js answer garbage below 500', async () => {
    const cases: Case[] = [];
    for (const [method, p, body, type] of [
      ['GET', '/dev-idp/auth?client_id=nope&response_type=code&scope=openid&redirect_uri=x'],
      ['GET', '/dev-idp/auth?client_id=image-canvas-dev&response_type=token&scope=openid'],
      ['GET', '/dev-idp/auth?%00=1'],
      ['POST', '/dev-idp/token', 'grant_type=authorization_code&code=garbage&redirect_uri=x', 'application/x-www-form-urlencoded'],
      ['POST', '/dev-idp/token', 'grant_type=password&username=a&password=b', 'application/x-www-form-urlencoded'],
      ['GET', '/dev-idp/me'],
      ['GET', '/dev-idp/jwks'],
      ['GET', '/dev-idp/session/end?id_token_hint=garbage'],
      ['POST', '/dev-idp/token/introspection', 'token=x', 'application/x-www-form-urlencoded'],
      ['GET', '/dev-idp/interaction/%00'],
      ['GET', '/dev-idp/interaction/..%2f..%2fetc%2fpasswd'],
      ['POST', '/dev-idp/interaction/nope/login', 'email=not-an-email&name=', 'application/x-www-form-urlencoded'],
      ['PUT', '/dev-idp/token'],
      ['DELETE', '/dev-idp/jwks'],
      ['GET', '/api/auth/callback/oauth?code=garbage&state=garbage'],
      ['GET', '/api/auth/callback/oauth?error=access_denied'],
      ['GET', '/api/auth/callback/nope'],
      ['GET', '/api/auth/signin/nope'],
      ['GET', '/api/auth/%00'],
      ['GET', '/api/auth/nope'],
      ['GET', '/api/auth/signout?callbackUrl=https://evil.example'],
      ['POST', '/api/auth/signin/oauth', 'csrfToken=forged&callbackUrl=%2Fprojects', 'application/x-www-form-urlencoded'],
      ['POST', '/api/auth/callback/oauth', 'code=x&state=y', 'application/x-www-form-urlencoded'],
      ['POST', '/api/auth/session', '{"csrfToken":"forged","data":{"isAdmin":true}}', 'application/json'],
      ['GET', '/login?error=%00%3Cscript%3E'],
      ['GET', '/projects/..%2f..%2fetc%2fpasswd'],
    ] as Array<[string, string, string?, string?]>) {
      cases.push({ name: `${method} ${p}${body ? ` ${body.slice(0, 30)}` : ''}`, method, path: p, ...(body !== undefined ? raw(body, type) : {}), status: 'below-500', cookie: null });
    }
    await run(cases);
  });

  it('the snapshot notices a stored row and a stored file (the harness itself)', async () => {
    const before = await snapshot();
    const created = await send({ method: 'POST', path: '/api/user/project', ...json({ userId: ada.id, name: 'Noticed' }), headers: { 'content-type': 'application/json', cookie: `${COOKIE}=${ada.cookie}` } });
    expect(created.status).toBe(200);
    expect(await snapshot()).not.toBe(before);
    await send({ method: 'DELETE', path: `/api/user/project/${created.json.id}`, headers: { cookie: `${COOKIE}=${ada.cookie}` } });
    expect(await snapshot()).toBe(before);
    await fs.writeFile(path.join(objectsDir(), 'stray'), 'x');
    expect(await snapshot()).not.toBe(before);
    await fs.rm(path.join(objectsDir(), 'stray'));
    expect(await snapshot()).toBe(before);
  });

  it('ran at least 300 generated cases', () => {
    expect(total).toBeGreaterThanOrEqual(300);
  });
});

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD, as a browser would send). */
function encodeUtf8(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}
