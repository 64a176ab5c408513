// /api/upload/templates (docs/api.md "Templates"): published canvases everyone can list; the author comes from
// the session and shows only as { name, image }; canvas rules and limits; only the author deletes.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMITS = { nodes: 5, edges: 5, bytes: 20_000, nameChars: 30, listed: 5, perMinute: 60 };

let t: TestApp;
type Who = { client: HttpClient; id: string; email: string };
let ada: Who;
let bob: Who;

const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'upload', position: { x: 10, y: 20 }, data: { type: 'upload', image: `http://img/${id}.png`, ...extra } });
const generation = (id: string) => ({ id, type: 'generation', position: { x: 300, y: 20.5 }, data: { type: 'generation', prompt: 'grayscale' } });
const canvas = { nodes: [node('a'), generation('g')], edges: [{ id: 'e1', source: 'a', target: 'g', targetHandle: 'images' }], viewport: { x: -12.5, y: 40, zoom: 0.75 } };

const list = (who?: Who) => (who ? who.client : t.client()).get('/api/upload/templates');
const publish = (who: Who, body: unknown) => who.client.post('/api/upload/templates', body);
const remove = (who: Who | undefined, id: string) => (who ? who.client : t.client()).request(`/api/upload/templates/${id}`, { method: 'DELETE' });
const stored = async () => (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates')).rows[0].n;

beforeAll(async () => {
  t = await startTestApp({
    CANVAS_MAX_NODES: String(LIMITS.nodes),
    CANVAS_MAX_EDGES: String(LIMITS.edges),
    CANVAS_MAX_BYTES: String(LIMITS.bytes),
    PROJECT_NAME_MAX_CHARS: String(LIMITS.nameChars),
    TEMPLATES_LIST_MAX: String(LIMITS.listed),
    RATE_LIMIT_TEMPLATES_PER_MINUTE: String(LIMITS.perMinute),
    // The cap and the publishing rate are tested in template-lists.test.ts.
    TEMPLATES_PER_USER_MAX: '1000',
    RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '0',
  });
  [ada, bob] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')]);
});
afterAll(() => t?.close());

describe('templates', () => {
  it('lists nothing before anything is published, without a session', async () => {
    expect(await list()).toMatchObject({ status: 200, json: [] });
  });

  it('publishes a canvas under a name; everyone lists it with exactly the documented fields', async () => {
    const published = await publish(ada, { templateName: '  Portrait  ', canvas });
    expect(published.status).toBe(200);
    expect(published.json).toEqual({ success: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const adaImage = (await ada.client.get('/api/user')).json.image as string;

    const seen = await list();
    expect(seen.status).toBe(200);
    expect(seen.headers.get('content-type')).toMatch(/^application\/json/);
    expect(seen.json).toEqual([
      { id: published.json.id, templateName: 'Portrait', user: { name: 'Ada', image: adaImage }, canvas, createdAt: expect.any(String), mine: false },
    ]);
    expect(new Date(seen.json[0].createdAt).toISOString()).toBe(seen.json[0].createdAt);
  });

  it('takes the author from the session: a client-sent user is ignored, and no email or user id is shown', async () => {
    const forged = { name: 'Mallory', email: 'mallory@evil.example', image: 'https://evil.example/me.png', id: bob.id };
    const published = await publish(ada, { templateName: 'Forged author', canvas, user: forged, userId: bob.id });
    expect(published.status).toBe(200);
    const seen = await list(bob);
    const template = seen.json.find((x: { id: string }) => x.id === published.json.id);
    expect(template.user).toEqual({ name: 'Ada', image: expect.any(String) });
    expect(template.mine).toBe(false);
    for (const secret of [ada.email, ada.id, bob.email, bob.id, 'Mallory', 'evil.example']) expect(seen.text).not.toContain(secret);
    const { rows } = await t.pool.query('SELECT user_id FROM templates WHERE id = $1', [published.json.id]);
    expect(rows).toEqual([{ user_id: ada.id }]);
  });

  it('marks the caller’s own templates with mine: true', async () => {
    const mine = (await list(ada)).json.map((x: { mine: boolean }) => x.mine);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every(Boolean)).toBe(true);
    expect((await list(bob)).json.some((x: { mine: boolean }) => x.mine)).toBe(false);
    expect((await list()).json.some((x: { mine: boolean }) => x.mine)).toBe(false);
  });

  it('shows the author’s current name and picture', async () => {
    await t.pool.query('UPDATE users SET name = $1, image = $2 WHERE id = $3', ['Ada Lovelace', 'https://img.example/ada.png', ada.id]);
    const users = (await list()).json.map((x: { user: unknown }) => x.user);
    expect(users.every((u: unknown) => JSON.stringify(u) === JSON.stringify({ name: 'Ada Lovelace', image: 'https://img.example/ada.png' }))).toBe(true);
  });

  it('defaults a missing viewport to { x: 0, y: 0, zoom: 1 } and missing nodes and edges to []', async () => {
    const published = await publish(bob, { templateName: 'Bare', canvas: {} });
    expect(published.status).toBe(200);
    const template = (await list()).json.find((x: { id: string }) => x.id === published.json.id);
    expect(template.canvas).toEqual({ nodes: [], edges: [], viewport: { x: 0, y: 0, zoom: 1 } });
    expect((await remove(bob, published.json.id)).status).toBe(200);
  });

  it('drops unknown fields of nodes and edges before storing, as a canvas save does', async () => {
    const published = await publish(bob, {
      templateName: 'Extra fields',
      canvas: { nodes: [{ ...node('a', { secret: 'x' }), selected: true }], edges: [], viewport: { x: 1, y: 2, zoom: 3, extra: true }, theme: 'dark' },
    });
    const template = (await list()).json.find((x: { id: string }) => x.id === published.json.id);
    expect(template.canvas).toEqual({ nodes: [node('a')], edges: [], viewport: { x: 1, y: 2, zoom: 3 } });
    expect((await remove(bob, published.json.id)).status).toBe(200);
  });

  it('stores an image sent inline (data: URL) as a file and lists its URL, as a canvas save does', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#3a6' } }).png().toBuffer();
    const published = await publish(bob, { templateName: 'Inline image', canvas: { nodes: [node('a', { image: `data:image/png;base64,${png.toString('base64')}` })] } });
    expect(published.status).toBe(200);
    const template = (await list()).json.find((x: { id: string }) => x.id === published.json.id);
    const url = template.canvas.nodes[0].data.image as string;
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/files/`));
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(png)).toBe(true);
    expect((await remove(bob, published.json.id)).status).toBe(200);
  });

  it('needs a session to publish or delete (401), but not to list', async () => {
    const anon = t.client();
    expect(await anon.post('/api/upload/templates', { templateName: 'x', canvas })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    const id = (await list()).json[0].id as string;
    expect(await remove(undefined, id)).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await remove(undefined, 'not-a-uuid')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect((await list()).status).toBe(200);
  });

  it('validates the name and the canvas with clear 400s, and stores nothing refused', async () => {
    const before = await stored();
    const bad = (body: Record<string, unknown>) => publish(ada, { templateName: 'Fine', canvas, ...body });
    const withCanvas = (c: Record<string, unknown>) => bad({ canvas: { ...canvas, ...c } });
    const expectError = async (res: Promise<{ status: number; json: { error: string } }>, error: string | RegExp) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      if (typeof error === 'string') expect(r.json.error).toBe(error);
      else expect(r.json.error).toMatch(error);
    };

    await expectError(publish(ada, { canvas }), 'Template name is required');
    await expectError(bad({ templateName: null }), 'Template name is required');
    await expectError(bad({ templateName: '' }), 'Template name is required');
    await expectError(bad({ templateName: '   ' }), 'Template name is required');
    await expectError(bad({ templateName: 'x'.repeat(LIMITS.nameChars + 1) }), `Template name is too long (at most ${LIMITS.nameChars} characters)`);
    await expectError(bad({ templateName: 42 }), 'Invalid template name');
    await expectError(bad({ templateName: 'nul\u0000byte' }), 'Invalid template name');
    await expectError(publish(ada, { templateName: 'No canvas' }), 'Canvas is required');
    await expectError(bad({ canvas: 'many' }), /^Invalid canvas: /);

    await expectError(withCanvas({ nodes: [{ ...node('a'), type: 'video' }] }), /^Invalid canvas\.nodes\.0\.type \(node "a"\): /);
    await expectError(withCanvas({ nodes: [{ ...node('a'), position: { x: 'left', y: 0 } }] }), /^Invalid canvas\.nodes\.0\.position\.x \(node "a"\): /);
    await expectError(withCanvas({ nodes: 'many' }), /^Invalid canvas\.nodes: /);
    await expectError(withCanvas({ nodes: [node('a'), node('a')], edges: [] }), 'Duplicate node id: a');
    await expectError(withCanvas({ edges: [{ id: 'e', source: 'a', target: 'ghost' }] }), 'Edge e references an unknown node');
    await expectError(withCanvas({ nodes: Array.from({ length: LIMITS.nodes + 1 }, (_, i) => node(`n${i}`)), edges: [] }), `A canvas holds at most ${LIMITS.nodes} nodes`);
    const edges = Array.from({ length: LIMITS.edges + 1 }, (_, i) => ({ id: `e${i}`, source: 'a', target: 'g' }));
    await expectError(withCanvas({ edges }), `A canvas holds at most ${LIMITS.edges} edges`);

    for (const viewport of [{ x: 0, y: 0, zoom: 0 }, { x: 0, y: 0, zoom: -1 }, { x: 'left', y: 0, zoom: 1 }, { x: 0, zoom: 1 }, null, 'wide']) {
      await expectError(withCanvas({ viewport }), /^Invalid canvas\.viewport/);
    }
    // 1e999 is valid JSON that parses to Infinity: not a finite number.
    const infinite = await ada.client.request('/api/upload/templates', {
      method: 'POST',
      json: `{"templateName":"Far","canvas":{"nodes":[],"edges":[],"viewport":{"x":1e999,"y":0,"zoom":1}}}`,
    });
    expect(infinite.status).toBe(400);
    expect(infinite.json.error).toMatch(/^Invalid canvas\.viewport\.x: /);

    expect(await ada.client.request('/api/upload/templates', { method: 'POST', json: '{"templateName":' })).toMatchObject({ status: 400, json: { error: 'Invalid JSON' } });
    expect(await stored()).toBe(before);
  });

  it('refuses a body over the canvas byte limit with 413 Canvas too large', async () => {
    const before = await stored();
    const big = { templateName: 'Big', canvas: { nodes: [0, 1, 2].map((i) => generation(`g${i}`)).map((n) => ({ ...n, data: { ...n.data, prompt: 'p'.repeat(8000) } })), edges: [] } };
    expect(JSON.stringify(big).length).toBeGreaterThan(LIMITS.bytes);
    expect(await publish(ada, big)).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    expect(await stored()).toBe(before);
  });

  it('lets only the author delete: someone else’s is 403 and stays, a missing one or a malformed id 404', async () => {
    const { id } = (await publish(ada, { templateName: 'Doomed', canvas })).json;
    expect(await remove(bob, id)).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect((await list()).json.some((x: { id: string }) => x.id === id)).toBe(true);
    expect(await remove(ada, id)).toMatchObject({ status: 200, json: { success: true } });
    expect((await list()).json.some((x: { id: string }) => x.id === id)).toBe(false);
    expect(await remove(ada, id)).toMatchObject({ status: 404, json: { error: 'Template not found' } });
    expect(await remove(ada, '00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, json: { error: 'Template not found' } });
    expect(await remove(ada, 'not-a-uuid')).toMatchObject({ status: 404, json: { error: 'Template not found' } });
  });

  it('lists the newest first, at most TEMPLATES_LIST_MAX', async () => {
    const names = Array.from({ length: LIMITS.listed + 2 }, (_, i) => `Batch ${i}`);
    for (const templateName of names) expect((await publish(bob, { templateName, canvas })).status).toBe(200);
    const seen = (await list()).json.map((x: { templateName: string }) => x.templateName);
    expect(seen).toEqual(names.slice(-LIMITS.listed).reverse());
  });

  it('goes with its author when the user is deleted (as their projects do)', async () => {
    const carol = await t.user('carol@example.com', 'Carol');
    const { id } = (await publish(carol, { templateName: 'Carol’s', canvas })).json;
    await t.pool.query('DELETE FROM users WHERE id = $1', [carol.id]);
    const { rows } = await t.pool.query('SELECT id FROM templates WHERE id = $1', [id]);
    expect(rows).toEqual([]);
  });

  it('rate-limits the list per client address (RATE_LIMIT_TEMPLATES_PER_MINUTE): 429 with Retry-After', async () => {
    let limited: Awaited<ReturnType<typeof list>> | undefined;
    for (let i = 0; i <= LIMITS.perMinute && !limited; i++) {
      const res = await list();
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    expect(limited).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
