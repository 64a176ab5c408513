// The projects page's service side (docs/api.md "Thumbnails"): GET /api/user/project/:id/thumbnail draws the live
// canvas as a PNG for the owner and members (404 for anyone else, 401 signed out), revalidated by ETag, drawn anew
// after an edit, with stored images inside their boxes; GET /api/user/project/activity says when each project was
// last edited.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let owner: Who;
let editor: Who;
let viewer: Who;
let stranger: Who;

const COOKIE = 'authlib.session-token';
const project = async (who: Who, name = 'Thumbs') => (await who.client.post('/api/user/project', { userId: who.id, name })).json.id as string;
const saveCanvas = (who: Who, body: Record<string, unknown>) => who.client.post('/api/user/project/canvas', body);
const uploadNode = (id: string, x: number, y: number, image?: string) => ({ id, type: 'upload', position: { x, y }, data: { type: 'upload', ...(image ? { image } : {}) } });
const generationNode = (id: string, x: number, y: number) => ({ id, type: 'generation', position: { x, y }, data: { type: 'generation', prompt: 'grayscale' } });

/** The thumbnail as bytes (the test client reads text), with the caller's session when one is given. */
async function thumbnail(who: Who | null, id: string, headers: Record<string, string> = {}) {
  const cookie = who ? `${COOKIE}=${await who.client.cookie(COOKIE)}` : undefined;
  const res = await fetch(`${t.baseUrl}/api/user/project/${id}/thumbnail`, { headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
}

/** The colour of one pixel of a PNG. */
async function pixel(png: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

async function upload(who: Who, png: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
  const res = await who.client.request('/api/upload', { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return res.json.url as string;
}

beforeAll(async () => {
  t = await startTestApp({ THUMBNAIL_CACHE_ENTRIES: '2' });
  [owner, editor, viewer, stranger] = await Promise.all([
    t.user('owner@example.com', 'Olive'),
    t.user('editor@example.com', 'Ed'),
    t.user('viewer@example.com', 'Vi'),
    t.user('stranger@example.com', 'Stan'),
  ]);
});
afterAll(() => t?.close());

describe('canvas thumbnails', () => {
  it('draws a plain placeholder for a project without a canvas, as a 320×200 PNG kept private and revalidated', async () => {
    const id = await project(owner);
    const res = await thumbnail(owner, id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('etag')).toMatch(/^"v0\.\d+"$/);
    const meta = await sharp(res.body).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 320, height: 200 });
  });

  it('answers the owner, an editor and a viewer; 404 for anyone else or no such project; 401 signed out', async () => {
    const id = await project(owner);
    await saveCanvas(owner, { projectId: id, nodes: [uploadNode('a', 0, 0)], edges: [] });
    expect((await owner.client.post(`/api/user/project/${id}/members`, { email: editor.email, role: 'editor' })).status).toBe(201);
    expect((await owner.client.post(`/api/user/project/${id}/members`, { email: viewer.email, role: 'viewer' })).status).toBe(201);
    for (const who of [owner, editor, viewer]) {
      const res = await thumbnail(who, id);
      expect(res.status, who.email).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
    }
    for (const missing of [id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await thumbnail(stranger, missing);
      expect(res.status, missing).toBe(404);
      expect(res.json()).toEqual({ error: 'Project not found' });
    }
    const signedOut = await thumbnail(null, id);
    expect(signedOut.status).toBe(401);
    expect(signedOut.json()).toEqual({ error: 'Unauthorized' });
  });

  it('answers 304 to the current ETag, and a new drawing with a new ETag after a canvas save', async () => {
    const id = await project(owner);
    const first = await saveCanvas(owner, { projectId: id, nodes: [uploadNode('a', 0, 0)], edges: [] });
    const before = await thumbnail(owner, id);
    const etag = before.headers.get('etag')!;
    expect(etag).toBe(`"v${first.json.version}.1"`);

    const again = await thumbnail(owner, id, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await thumbnail(owner, id, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);

    const saved = await saveCanvas(owner, { projectId: id, nodes: [uploadNode('a', 0, 0), generationNode('g', 400, 0)], edges: [{ id: 'e', source: 'a', target: 'g' }] });
    expect(saved.json.version).toBeGreaterThan(first.json.version);
    const after = await thumbnail(owner, id, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toBe(`"v${saved.json.version}.1"`);
    expect(after.body.equals(before.body)).toBe(false);
  });

  it('draws each node’s box where it is, and a stored image inside its box; an image that cannot be read stays a box', async () => {
    const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const url = await upload(owner, red);
    const id = await project(owner);
    // Two nodes side by side: the stored image on the left, a missing stored image on the right.
    const missing = url.replace(/[^/]+$/, '1-0000-missing.png');
    await saveCanvas(owner, { projectId: id, nodes: [uploadNode('left', 0, 0, url), uploadNode('right', 300, 0, missing)], edges: [] });
    const res = await thumbnail(owner, id);
    expect(res.status).toBe(200);
    // The nodes span 560×260 canvas units, scaled to fit 296×176 and centred: the left box's middle is red.
    const [r, g, b] = await pixel(res.body, 90, 100);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    // The right box is white (a plain box), the background between them is not.
    expect(await pixel(res.body, 230, 100)).toEqual([255, 255, 255]);
    expect(await pixel(res.body, 160, 100)).not.toEqual([255, 255, 255]);
  });

  it('does not fetch images that are not ours: an external URL is drawn as a box', async () => {
    const id = await project(owner);
    await saveCanvas(owner, { projectId: id, nodes: [uploadNode('a', 0, 0, 'http://127.0.0.1:9/never.png')], edges: [] });
    const res = await thumbnail(owner, id);
    expect(res.status).toBe(200);
    expect(await pixel(res.body, 160, 100)).toEqual([255, 255, 255]);
  });
});

describe('project activity', () => {
  it('lists each own and shared project with its canvas version and when it was last edited', async () => {
    const fresh = await t.user('fresh@example.com', 'Fresh');
    const mine = await project(fresh, 'Mine');
    const created = (await fresh.client.get(`/api/user/project?userId=${fresh.id}`)).json[0].createdDate as string;
    const theirs = await project(owner, 'Theirs');
    await owner.client.post(`/api/user/project/${theirs}/members`, { email: fresh.email, role: 'viewer' });
    const saved = await saveCanvas(owner, { projectId: theirs, nodes: [uploadNode('a', 0, 0)], edges: [] });

    const res = await fresh.client.get('/api/user/project/activity');
    expect(res.status).toBe(200);
    const byId = new Map((res.json as Array<{ projectId: string; version: number; lastEditedAt: string }>).map((a) => [a.projectId, a]));
    expect(byId.size).toBe(2);
    expect(byId.get(mine)).toEqual({ projectId: mine, version: 0, lastEditedAt: created });
    expect(byId.get(theirs)).toEqual({ projectId: theirs, version: saved.json.version, lastEditedAt: expect.any(String) });
    const edited = new Date(byId.get(theirs)!.lastEditedAt).getTime();
    expect(Math.abs(Date.now() - edited)).toBeLessThan(60_000);

    // An edit moves it on.
    await saveCanvas(owner, { projectId: theirs, nodes: [uploadNode('a', 10, 0)], edges: [] });
    const later = (await fresh.client.get('/api/user/project/activity')).json.find((a: { projectId: string }) => a.projectId === theirs);
    expect(later.version).toBeGreaterThan(saved.json.version);
    expect(new Date(later.lastEditedAt).getTime()).toBeGreaterThanOrEqual(edited);

    expect((await t.client().get('/api/user/project/activity')).status).toBe(401);
  });
});
