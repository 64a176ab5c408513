// The template lists (docs/api.md "Templates") against what the hardening round found: the original system's
// list is held to TEMPLATES_LIST_MAX_BYTES (newest first, one that does not fit skipped), rendered once and
// shared (one ETag, 304, a new one after a publish, a delete, an author's rename, also made on another instance),
// publishing is capped per user and rate-limited per user; our client lists without canvases
// (GET /api/templates) and reads one canvas (GET /api/templates/:id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMITS = { listBytes: 50_000, canvasBytes: 64 * 1024, perUser: 3, publishesPerMinute: 5 };
type Who = { client: HttpClient; id: string; email: string };

/** A canvas of about `bytes` bytes (generation nodes' prompts, at most 9,000 characters each), with an image first. */
const canvasOf = (bytes: number, image = 'https://img.example/first.png') => {
  const prompts = Array.from({ length: Math.ceil(bytes / 9_000) }, (_, i) => 'p'.repeat(Math.max(1, Math.min(9_000, bytes - 300 - i * 9_000))));
  return {
    nodes: [
      { id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      ...prompts.map((prompt, i) => ({ id: `g${i}`, type: 'generation', position: { x: 300, y: 300 * i }, data: { type: 'generation', prompt } })),
    ],
    edges: [{ id: 'e', source: 'a', target: 'g0' }],
    viewport: { x: 1, y: 2, zoom: 0.5 },
  };
};

const publish = async (who: Who, templateName: string, canvas: unknown): Promise<string> => {
  const res = await who.client.post('/api/upload/templates', { templateName, canvas });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.id as string;
};
const remove = (who: Who, id: string) => who.client.request(`/api/upload/templates/${id}`, { method: 'DELETE' });
const names = (res: Sent) => (res.json as Array<{ templateName: string }>).map((t) => t.templateName);

describe('the template lists', () => {
  let t: TestApp;
  let ada: Who;
  let bob: Who;
  const stored = async () => (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates')).rows[0].n;
  const list = (who?: Who, headers?: Record<string, string>) => (who ? who.client : t.client()).get('/api/upload/templates', headers);

  beforeAll(async () => {
    t = await startTestApp({
      CANVAS_MAX_BYTES: String(LIMITS.canvasBytes),
      TEMPLATES_LIST_MAX_BYTES: String(LIMITS.listBytes),
      TEMPLATES_PER_USER_MAX: String(LIMITS.perUser),
      RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: String(LIMITS.publishesPerMinute),
      RATE_LIMIT_TEMPLATES_PER_MINUTE: '0',
    });
    [ada, bob] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')]);
  });
  afterAll(() => t?.close());

  it('holds the original list to TEMPLATES_LIST_MAX_BYTES: newest first, skipping what does not fit; one bigger than the budget is never in it', async () => {
    await publish(ada, 'small', canvasOf(1_000));
    await publish(ada, 'medium 1', canvasOf(20_000));
    await publish(ada, 'medium 2', canvasOf(20_000));
    await publish(bob, 'big', canvasOf(60_000)); // bigger than the whole budget
    await publish(bob, 'medium 3', canvasOf(20_000));
    const { rows } = await t.pool.query<{ n: number }>('SELECT sum(octet_length(nodes::text))::int AS n FROM templates');
    expect(rows[0].n).toBeGreaterThan(2 * LIMITS.listBytes); // what is stored is more than twice the budget

    const res = await list();
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(LIMITS.listBytes);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    // medium 3 (20 kB), big skipped (60 kB), medium 2 (40 kB), medium 1 skipped (60 kB), small (41 kB).
    expect(names(res)).toEqual(['medium 3', 'medium 2', 'small']);
    expect(res.json[0].canvas).toEqual(canvasOf(20_000));
  });

  it('answers every caller from one rendering: the same ETag and bytes, 304 to If-None-Match, a new ETag after a publish, a delete and a rename', async () => {
    const first = await list();
    const again = await t.client().get('/api/upload/templates');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.text).toBe(first.text);
    expect(first.headers.get('cache-control')).toBe('no-cache');

    const current = await list(undefined, { 'if-none-match': etag });
    expect(current).toMatchObject({ status: 304, text: '' });
    expect(current.headers.get('etag')).toBe(etag);
    expect((await list(undefined, { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await list(undefined, { 'if-none-match': `"other", ${etag}` })).status).toBe(304);

    // A publish: a new ETag; the old one gets the whole list.
    const carol = await t.user('carol-etag@example.com', 'Carol');
    const id = await publish(carol, 'fresh', canvasOf(500));
    const afterPublish = await list(undefined, { 'if-none-match': etag });
    expect(afterPublish.status).toBe(200);
    expect(names(afterPublish)[0]).toBe('fresh');
    const published = afterPublish.headers.get('etag')!;
    expect(published).not.toBe(etag);

    // The author's rename (as a sign-in with a new profile name does): a new ETag and the new name.
    await t.pool.query('UPDATE users SET name = $1 WHERE id = $2', ['Carol Renamed', carol.id]);
    const renamed = await list(undefined, { 'if-none-match': published });
    expect(renamed.status).toBe(200);
    expect(renamed.json[0].user.name).toBe('Carol Renamed');
    expect(renamed.headers.get('etag')).not.toBe(published);

    // A delete: a new ETag again, and it is gone.
    expect((await remove(carol, id)).status).toBe(200);
    const afterDelete = await list(undefined, { 'if-none-match': renamed.headers.get('etag')! });
    expect(afterDelete.status).toBe(200);
    expect(names(afterDelete)).not.toContain('fresh');
    expect(afterDelete.headers.get('etag')).not.toBe(renamed.headers.get('etag'));
  });

  it('gives a signed-in author their own mine values with an ETag of their own (private); others get the shared list', async () => {
    const anonymous = await list();
    const asAda = await list(ada);
    expect(asAda.json.map((x: { templateName: string; mine: boolean }) => [x.templateName, x.mine])).toEqual([
      ['medium 3', false],
      ['medium 2', true],
      ['small', true],
    ]);
    expect(asAda.headers.get('etag')).not.toBe(anonymous.headers.get('etag'));
    expect(asAda.headers.get('cache-control')).toBe('private, no-cache');
    expect(Number(asAda.headers.get('content-length'))).toBe(Buffer.byteLength(asAda.text));
    expect((await list(ada, { 'if-none-match': asAda.headers.get('etag')! })).status).toBe(304);
    expect((await list(ada, { 'if-none-match': anonymous.headers.get('etag')! })).status).toBe(200);
    // Someone with no listed template gets exactly the anonymous bytes and ETag.
    const dave = await t.user('dave-shared@example.com', 'Dave');
    const asDave = await list(dave);
    expect(asDave.text).toBe(anonymous.text);
    expect(asDave.headers.get('etag')).toBe(anonymous.headers.get('etag'));
  });

  it('GET /api/templates lists every template without canvases: name, author, counts, a preview, time, mine', async () => {
    const res = await ada.client.get('/api/templates');
    expect(res.status).toBe(200);
    expect(res.json.map((x: { name: string }) => x.name)).toEqual(['medium 3', 'big', 'medium 2', 'medium 1', 'small']); // the big one too
    const adaImage = (await ada.client.get('/api/user')).json.image as string;
    expect(res.json[2]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'medium 2',
      author: { name: 'Ada', image: adaImage },
      nodeCount: 4,
      edgeCount: 1,
      previewUrl: 'https://img.example/first.png',
      createdAt: expect.any(String),
      mine: true,
    });
    expect(res.json[0].mine).toBe(false);
    expect(res.text).not.toContain('ppppp');
    for (const secret of [ada.email, ada.id, bob.email, bob.id]) expect(res.text).not.toContain(secret);
    expect(Buffer.byteLength(res.text)).toBeLessThan(5 * 500);
    // Shared and revalidated as the original list is.
    const anonymous = await t.client().get('/api/templates');
    expect(anonymous.json.every((x: { mine: boolean }) => !x.mine)).toBe(true);
    expect((await t.client().get('/api/templates', { 'if-none-match': anonymous.headers.get('etag')! })).status).toBe(304);
  });

  it('a preview is the first image that is a web address; none is null', async () => {
    const erin = await t.user('erin-preview@example.com', 'Erin');
    const noImage = { nodes: [{ id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'x' } }], edges: [] };
    // The first node has no image: the preview is the second node's (a non-web image such as ftp: is refused by
    // the canvas rules when published, tested in canvas-body and hostile-live-document).
    const secondHasOne = {
      nodes: [
        { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'x' } },
        { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: 'https://example.com/second.png' } },
      ],
      edges: [],
    };
    const ids = [await publish(erin, 'no image', noImage), await publish(erin, 'second image', secondHasOne)];
    const listed = (await t.client().get('/api/templates')).json as Array<{ id: string; previewUrl: string | null }>;
    expect(ids.map((id) => listed.find((x) => x.id === id)?.previewUrl)).toEqual([null, 'https://example.com/second.png']);
    for (const id of ids) expect((await remove(erin, id)).status).toBe(200);
  });

  it('GET /api/templates/:id answers one canvas, with its id as ETag (304 when current); a deleted or unknown one is 404', async () => {
    const frank = await t.user('frank-canvas@example.com', 'Frank');
    const canvas = canvasOf(60_000);
    const id = await publish(frank, 'whole', canvas);
    const res = await t.client().get(`/api/templates/${id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id, name: 'whole', canvas });
    expect(res.headers.get('etag')).toBe(`"${id}"`);
    expect((await t.client().get(`/api/templates/${id}`, { 'if-none-match': `"${id}"` })).status).toBe(304);
    expect(await frank.client.get(`/api/templates/${id}`)).toMatchObject({ status: 200, json: { id } });
    expect((await remove(frank, id)).status).toBe(200);
    expect(await t.client().get(`/api/templates/${id}`)).toMatchObject({ status: 404, json: { error: 'Template not found' } });
    expect(await t.client().get(`/api/templates/${id}`, { 'if-none-match': `"${id}"` })).toMatchObject({ status: 404, json: { error: 'Template not found' } });
    expect(await t.client().get('/api/templates/not-a-uuid')).toMatchObject({ status: 404, json: { error: 'Template not found' } });
  });

  it(`refuses a publish over TEMPLATES_PER_USER_MAX with 400 naming the cap, and stores nothing; a delete frees a place`, async () => {
    const gail = await t.user('gail-cap@example.com', 'Gail');
    const ids = [];
    for (let i = 0; i < LIMITS.perUser; i++) ids.push(await publish(gail, `cap ${i}`, canvasOf(400)));
    const before = await stored();
    const refused = await gail.client.post('/api/upload/templates', { templateName: 'one too many', canvas: canvasOf(400) });
    expect(refused).toMatchObject({ status: 400, json: { error: `A user has at most ${LIMITS.perUser} templates` } });
    expect(await stored()).toBe(before);
    expect((await remove(gail, ids[0])).status).toBe(200);
    await publish(gail, 'in its place', canvasOf(400));
  });

  it('two publishes at once cannot both take the last place', async () => {
    const hal = await t.user('hal-race@example.com', 'Hal');
    for (let i = 0; i < LIMITS.perUser - 1; i++) await publish(hal, `race ${i}`, canvasOf(300));
    const both = await Promise.all([0, 1].map((i) => hal.client.post('/api/upload/templates', { templateName: `last ${i}`, canvas: canvasOf(300) })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates WHERE user_id = $1', [hal.id]);
    expect(rows[0].n).toBe(LIMITS.perUser);
  });

  it('rate-limits publishing per user: 429 Too many requests with Retry-After, counted before the body is read', async () => {
    const ivan = await t.user('ivan-rate@example.com', 'Ivan');
    const before = await stored();
    for (let i = 0; i < LIMITS.publishesPerMinute; i++) {
      expect((await ivan.client.post('/api/upload/templates', { templateName: '' })).status).toBe(400); // each counts
    }
    const limited = await ivan.client.post('/api/upload/templates', { templateName: 'fine', canvas: canvasOf(300) });
    expect(limited).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Not parsed: broken JSON is 429 too, not 400 Invalid JSON.
    expect(await ivan.client.request('/api/upload/templates', { method: 'POST', json: '{"templateName":' })).toMatchObject({ status: 429 });
    expect(await stored()).toBe(before);
    // Per user: someone else still publishes.
    const judy = await t.user('judy-rate@example.com', 'Judy');
    await publish(judy, 'still fine', canvasOf(300));
  });
});

describe('the template lists on two instances', () => {
  let database: { url: string; drop(): Promise<void> };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await createOwnDatabase();
    const env = { AUTH_SECRET: 'two-instances-templates-secret-0123456789', DATABASE_CONNECTION_STRING: database.url };
    a = await startTestApp(env, 'embedded');
    b = await startTestApp(env, 'embedded');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a publish, a delete and a rename on one instance show at the next list on the other, which had rendered it before', async () => {
    const ada = await a.user('ada-two@example.com', 'Ada');
    const before = await b.client().get('/api/upload/templates');
    expect(before.json).toEqual([]);
    expect((await b.client().get('/api/templates')).json).toEqual([]);

    const id = await publish(ada, 'from a', canvasOf(500));
    const seen = await b.client().get('/api/upload/templates', { 'if-none-match': before.headers.get('etag')! });
    expect(seen.status).toBe(200);
    expect(names(seen)).toEqual(['from a']);
    expect((await b.client().get('/api/templates')).json.map((x: { id: string }) => x.id)).toEqual([id]);

    await a.pool.query('UPDATE users SET image = $1 WHERE id = $2', ['https://img.example/new.png', ada.id]);
    expect((await b.client().get('/api/upload/templates')).json[0].user.image).toBe('https://img.example/new.png');

    expect((await remove(ada, id)).status).toBe(200);
    expect((await b.client().get('/api/upload/templates')).json).toEqual([]);
    expect((await b.client().get('/api/templates')).json).toEqual([]);
  });
});
