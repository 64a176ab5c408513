// Hostile requests against the templates (docs/api.md "Templates"; issue 31's public template list): bad ids,
// oversized names and canvases, cap and rate abuse, junk If-None-Match, anonymous against signed-in, methods the
// routes do not take. For EVERY case: the status is the expected one and below 500, a 4xx carries a JSON
// `{ error }` naming the problem, no body leaks an email, a user id or a stack, and nothing is stored (the
// templates' rows, the stored files and the lists' ETags are exactly as before). Failures are soft and name
// their case.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMITS = { nameChars: 30, canvasBytes: 20_000, nodes: 5, edges: 5, perUser: 2, publishesPerMinute: 4, listBytes: 10_000 };
const MISSING = '00000000-0000-4000-8000-000000000000';

let t: TestApp;
type Who = { client: HttpClient; id: string; email: string };
let ada: Who;
let capped: Who;
let flooder: Who;
let adaTemplate = '';
let png: Buffer;

const node = (id: string, image = 'https://img.example/a.png') => ({ id, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } });
const canvas = { nodes: [node('a')], edges: [], viewport: { x: 0, y: 0, zoom: 1 } };

interface Case {
  name: string;
  /** Who sends it: nobody signed in, ada (who has a template), a user at the cap, a user over the publishing rate, or a new user. */
  as: 'anonymous' | 'ada' | 'capped' | 'flooder' | 'fresh';
  method?: string;
  path: string | (() => string);
  headers?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** A JSON value, or a string sent as it is. */
  body?: unknown;
  status: number;
  /** The `error` of a 4xx, exactly or by pattern. */
  error?: string | RegExp;
}

const publishing = (body: unknown, extra: Partial<Case> = {}): Pick<Case, 'method' | 'path' | 'body'> & Partial<Case> => ({ method: 'POST', path: '/api/upload/templates', body, ...extra });
const withCanvas = (c: Record<string, unknown>) => ({ templateName: 'Fine', canvas: { ...canvas, ...c } });
const etagOf = async (route: string) => (await t.client().get(route)).headers.get('etag')!;

const CASES: Case[] = [
  // One template's canvas: bad ids.
  { name: 'canvas: an id that is not a UUID', as: 'anonymous', path: '/api/templates/not-a-uuid', status: 404, error: 'Template not found' },
  { name: 'canvas: a UUID of nothing', as: 'anonymous', path: `/api/templates/${MISSING}`, status: 404, error: 'Template not found' },
  { name: 'canvas: an id of 100 characters', as: 'anonymous', path: `/api/templates/${'a'.repeat(100)}`, status: 404, error: 'Template not found' },
  // Past the router's 100-character parameter limit the whole app answers so (src/http/error-handler.ts).
  { name: 'canvas: an id of 5,000 characters', as: 'anonymous', path: `/api/templates/${'a'.repeat(5000)}`, status: 400, error: 'Bad request' },
  { name: 'canvas: SQL in the id', as: 'anonymous', path: `/api/templates/${encodeURIComponent("' OR 1=1 --")}`, status: 404, error: 'Template not found' },
  { name: 'canvas: a NUL in the id', as: 'anonymous', path: '/api/templates/%00', status: 404, error: 'Template not found' },
  { name: 'canvas: a traversal in the id', as: 'anonymous', path: '/api/templates/..%2F..%2Fuser', status: 404, error: 'Template not found' },
  { name: 'canvas: If-None-Match * of an unknown template is 404, not 304', as: 'anonymous', path: `/api/templates/${MISSING}`, headers: { 'if-none-match': '*' }, status: 404, error: 'Template not found' },
  { name: 'canvas: junk If-None-Match gets the canvas', as: 'anonymous', path: () => `/api/templates/${adaTemplate}`, headers: { 'if-none-match': '"\'<script>' }, status: 200 },
  { name: 'canvas: another template’s ETag gets the canvas', as: 'ada', path: () => `/api/templates/${adaTemplate}`, headers: { 'if-none-match': `"${MISSING}"` }, status: 200 },

  // The lists: junk revalidation, query and credentials.
  { name: 'list: junk If-None-Match gets the list', as: 'anonymous', path: '/api/upload/templates', headers: { 'if-none-match': 'garbage, W/, "", ,,' }, status: 200 },
  { name: 'list: 2,000 unknown ETags get the list', as: 'anonymous', path: '/api/upload/templates', headers: { 'if-none-match': Array.from({ length: 2000 }, (_, i) => `"${i}"`).join(',') }, status: 200 },
  { name: 'list: the listing’s ETag does not revalidate the original list', as: 'anonymous', path: '/api/upload/templates', headers: async () => ({ 'if-none-match': await etagOf('/api/templates') }), status: 200 },
  { name: 'list: the anonymous ETag does not revalidate an author’s own list', as: 'ada', path: '/api/upload/templates', headers: async () => ({ 'if-none-match': await etagOf('/api/upload/templates') }), status: 200 },
  { name: 'list: If-None-Match * is 304', as: 'anonymous', path: '/api/upload/templates', headers: { 'if-none-match': '*' }, status: 304 },
  { name: 'list: query parameters are ignored', as: 'anonymous', path: '/api/upload/templates?limit=100000&offset=-1&userId=x', status: 200 },
  { name: 'list: a forged session cookie is anonymous', as: 'anonymous', path: '/api/upload/templates', headers: { cookie: 'authlib.session-token=forged' }, status: 200 },
  { name: 'summaries: junk If-None-Match gets the listing', as: 'ada', path: '/api/templates', headers: { 'if-none-match': 'W/"x' }, status: 200 },
  { name: 'summaries: query parameters are ignored', as: 'anonymous', path: '/api/templates?limit=-5&cursor=%00', status: 200 },

  // Methods the public routes do not take.
  { name: 'POST /api/templates is not a route', as: 'ada', method: 'POST', path: '/api/templates', body: { templateName: 'x', canvas }, status: 404, error: /not found/i },
  { name: 'DELETE /api/templates/:id is not a route', as: 'ada', method: 'DELETE', path: () => `/api/templates/${adaTemplate}`, status: 404, error: /not found/i },
  { name: 'PUT /api/upload/templates is not a route', as: 'ada', method: 'PUT', path: '/api/upload/templates', body: { templateName: 'x', canvas }, status: 404, error: /not found/i },

  // Publishing: anonymous, names, canvases.
  { name: 'publish: anonymous', as: 'anonymous', ...publishing({ templateName: 'x', canvas }), status: 401, error: 'Unauthorized' },
  { name: 'publish: a name one character too long', as: 'fresh', ...publishing({ templateName: 'x'.repeat(LIMITS.nameChars + 1), canvas }), status: 400, error: `Template name is too long (at most ${LIMITS.nameChars} characters)` },
  { name: 'publish: a name of 100,000 characters', as: 'fresh', ...publishing({ templateName: 'x'.repeat(100_000), canvas }), status: 413, error: 'Canvas too large' },
  { name: 'publish: a name with a NUL', as: 'fresh', ...publishing({ templateName: 'a\u0000b', canvas }), status: 400, error: 'Invalid template name' },
  { name: 'publish: a name with a lone surrogate', as: 'fresh', ...publishing({ templateName: 'a\ud800b', canvas }), status: 400, error: 'Invalid template name' },
  { name: 'publish: a name that is an array', as: 'fresh', ...publishing({ templateName: ['a'], canvas }), status: 400, error: 'Invalid template name' },
  { name: 'publish: a name of spaces', as: 'fresh', ...publishing({ templateName: ' \t ', canvas }), status: 400, error: 'Template name is required' },
  { name: 'publish: a canvas that is an array', as: 'fresh', ...publishing({ templateName: 'x', canvas: [] }), status: 400, error: /^Invalid canvas/ },
  { name: 'publish: a canvas over CANVAS_MAX_BYTES', as: 'fresh', ...publishing(withCanvas({ nodes: [{ ...node('a'), data: { type: 'upload', image: `https://img.example/${'x'.repeat(2000)}` } }], edges: [], pad: 'p'.repeat(LIMITS.canvasBytes) })), status: 413, error: 'Canvas too large' },
  { name: 'publish: one node more than CANVAS_MAX_NODES', as: 'fresh', ...publishing(withCanvas({ nodes: Array.from({ length: LIMITS.nodes + 1 }, (_, i) => node(`n${i}`)) })), status: 400, error: `A canvas holds at most ${LIMITS.nodes} nodes` },
  { name: 'publish: an edge to an unknown node', as: 'fresh', ...publishing(withCanvas({ edges: [{ id: 'e', source: 'a', target: 'ghost' }] })), status: 400, error: 'Edge e references an unknown node' },
  { name: 'publish: duplicate node ids', as: 'fresh', ...publishing(withCanvas({ nodes: [node('a'), node('a')] })), status: 400, error: 'Duplicate node id: a' },
  { name: 'publish: a zoom of 0', as: 'fresh', ...publishing(withCanvas({ viewport: { x: 0, y: 0, zoom: 0 } })), status: 400, error: /^Invalid canvas\.viewport\.zoom/ },
  { name: 'publish: an image URL over 2,048 characters', as: 'fresh', ...publishing(withCanvas({ nodes: [node('a', `https://img.example/${'x'.repeat(2048)}`)] })), status: 400, error: /^Invalid canvas\.nodes\.0\.data\.image/ },
  { name: 'publish: an inline image that is not an image', as: 'fresh', ...publishing(withCanvas({ nodes: [node('a', `data:image/png;base64,${Buffer.from('<html>hi</html>').toString('base64')}`)] })), status: 400, error: /^Invalid image in node a/ },
  { name: 'publish: broken JSON', as: 'fresh', ...publishing('{"templateName":'), status: 400, error: 'Invalid JSON' },
  { name: 'publish: XML', as: 'fresh', ...publishing('<template/>'), headers: { 'content-type': 'application/xml' }, status: 415, error: 'Unsupported content type' },

  // Cap and rate abuse.
  { name: 'publish: a user at TEMPLATES_PER_USER_MAX', as: 'capped', ...publishing({ templateName: 'over the cap', canvas }), status: 400, error: `A user has at most ${LIMITS.perUser} templates` },
  { name: 'publish: a user at the cap, with an inline image (not stored)', as: 'capped', ...publishing(withCanvas({ nodes: [node('a', 'PNG_DATA_URL')] })), status: 400, error: `A user has at most ${LIMITS.perUser} templates` },
  { name: 'publish: a user over the publishing rate', as: 'flooder', ...publishing({ templateName: 'flood', canvas }), status: 429, error: 'Too many requests' },
  { name: 'publish: a user over the rate, with broken JSON (not read)', as: 'flooder', ...publishing('{"templateName":'), status: 429, error: 'Too many requests' },
  { name: 'publish: a user over the rate, with a canvas over the limit', as: 'flooder', ...publishing(withCanvas({ pad: 'p'.repeat(LIMITS.canvasBytes) })), status: 429, error: 'Too many requests' },

  // Deleting.
  { name: 'delete: anonymous', as: 'anonymous', method: 'DELETE', path: () => `/api/upload/templates/${adaTemplate}`, status: 401, error: 'Unauthorized' },
  { name: 'delete: someone else’s', as: 'fresh', method: 'DELETE', path: () => `/api/upload/templates/${adaTemplate}`, status: 403, error: 'Forbidden' },
  { name: 'delete: an id that is not a UUID', as: 'ada', method: 'DELETE', path: '/api/upload/templates/1%20OR%201=1', status: 404, error: 'Template not found' },
  { name: 'delete: a UUID of nothing', as: 'ada', method: 'DELETE', path: `/api/upload/templates/${MISSING}`, status: 404, error: 'Template not found' },
];

async function listFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.sort();
}

/** Everything a case could have stored: the templates' rows, the stored files, and what the lists render. */
async function snapshot(): Promise<string> {
  const { rows } = await t.pool.query('SELECT id, user_id, name, nodes::text, edges::text, viewport::text FROM templates ORDER BY id');
  const files = await listFiles(path.join(t.dataDir, 'objects'));
  return JSON.stringify({ rows, files, original: await etagOf('/api/upload/templates'), summaries: await etagOf('/api/templates') });
}

beforeAll(async () => {
  t = await startTestApp({
    PROJECT_NAME_MAX_CHARS: String(LIMITS.nameChars),
    CANVAS_MAX_BYTES: String(LIMITS.canvasBytes),
    CANVAS_MAX_NODES: String(LIMITS.nodes),
    CANVAS_MAX_EDGES: String(LIMITS.edges),
    TEMPLATES_PER_USER_MAX: String(LIMITS.perUser),
    RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: String(LIMITS.publishesPerMinute),
    TEMPLATES_LIST_MAX_BYTES: String(LIMITS.listBytes),
    RATE_LIMIT_TEMPLATES_PER_MINUTE: '0',
  });
  png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#36a' } }).png().toBuffer();
  [ada, capped, flooder] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('capped@example.com', 'Capped'), t.user('flooder@example.com', 'Flooder')]);
  adaTemplate = (await ada.client.post('/api/upload/templates', { templateName: 'Ada’s', canvas })).json.id as string;
  for (let i = 0; i < LIMITS.perUser; i++) expect((await capped.client.post('/api/upload/templates', { templateName: `capped ${i}`, canvas })).status).toBe(200);
  for (let i = 0; i < LIMITS.publishesPerMinute; i++) expect((await flooder.client.post('/api/upload/templates', { templateName: '' })).status).toBe(400);
});
afterAll(() => t?.close());

describe('hostile requests against the templates', () => {
  it(`${CASES.length} cases: the expected 4xx (or 200/304), a JSON error, nothing leaked, nothing stored`, async () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    const secrets = [ada.email, ada.id, capped.email, capped.id, flooder.email, flooder.id];
    const baseline = await snapshot();
    let fresh = 0;
    for (const c of CASES) {
      const client = c.as === 'anonymous' ? t.client() : c.as === 'ada' ? ada.client : c.as === 'capped' ? capped.client : c.as === 'flooder' ? flooder.client : (await t.user(`fresh-${fresh++}@example.com`, 'Fresh')).client;
      const headers = typeof c.headers === 'function' ? await c.headers() : c.headers;
      const routePath = typeof c.path === 'function' ? c.path() : c.path;
      const body = typeof c.body === 'string' ? c.body : c.body === undefined ? undefined : JSON.stringify(c.body).replace('PNG_DATA_URL', `data:image/png;base64,${png.toString('base64')}`);
      let res: Sent;
      try {
        res = await client.request(routePath, { method: c.method ?? 'GET', ...(body === undefined ? {} : { json: body }), headers });
      } catch (err) {
        expect.soft(false, `${c.name}: request failed: ${(err as Error).message}`).toBe(true);
        continue;
      }
      const shown = `${c.name}: ${res.status} ${res.text.slice(0, 200)}`;
      expect.soft(res.status, shown).toBeLessThan(500);
      expect.soft(res.status, shown).toBe(c.status);
      if (res.status >= 400) {
        expect.soft(res.headers.get('content-type') ?? '', shown).toMatch(/^application\/json/);
        expect.soft(typeof res.json?.error, shown).toBe('string');
        if (typeof c.error === 'string') expect.soft(res.json?.error, shown).toBe(c.error);
        else if (c.error) expect.soft(res.json?.error ?? '', shown).toMatch(c.error);
      }
      for (const secret of secrets) expect.soft(res.text.includes(secret), `${c.name}: leaks ${secret}`).toBe(false);
      expect.soft(res.text, shown).not.toMatch(/\bat .+\.(ts|js):\d+/);
      expect.soft(await snapshot(), `${c.name}: stored something`).toBe(baseline);
    }
  });
});
