// Crop, resize and adjust nodes run (src/jobs/tasks/image-steps.ts): POST /api/generations with { projectId, nodeId }
// starts the node's job on the image of the node wired into it; the runner shows the result in the node (the live
// document) and the job records its lineage. The input is an uploaded PNG whose every pixel says where it is
// (red = 4·x, green = 4·y), so a crop's pixels can be checked exactly. Waits follow the job's events and the
// document's updates, never a clock.
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
let inputUrl: string;

const W = 40;
const H = 30;
/** The input: pixel (x, y) is rgb(4x, 4y, 100). */
async function positionPng(): Promise<Buffer> {
  const raw = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) raw.set([4 * x, 4 * y, 100], (y * W + x) * 3);
  return sharp(raw, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

const node = (id: string, type: string, data: Record<string, unknown>, x = 0) => ({ id, type, position: { x, y: 0 }, data: { type, ...data } });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;

/** The node's pixels once its job ended and its node shows the outcome: the job, the node's data, and the result's RGBA. */
async function run(nodeId: string) {
  const started = await ada.client.post('/api/generations', { projectId, nodeId });
  expect(started.status, started.text).toBe(202);
  const job = await untilJob(ada.client, started.json.id as string);
  await docWhere(watcher.doc, (d) => dataOf(d, nodeId)?.get('isGenerating') === false);
  return { job, data: dataOf(watcher.doc, nodeId)!.toJSON() as Record<string, unknown> };
}

async function bytesOf(url: string) {
  const cookie = await ada.client.jar.getCookieString(ada.client.baseUrl);
  const res = await fetch(new URL(new URL(url).pathname, ada.client.baseUrl), { headers: { cookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function pixelsOf(url: string) {
  return sharp(await bytesOf(url)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
}

beforeAll(async () => {
  t = await startTestApp({ FREE_GENERATIONS_PER_DAY: '1' });
  [ada, vic] = await Promise.all([t.user('ada@example.com'), t.user('vic@example.com')]);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await positionPng())], { type: 'image/png' }), 'positions.png');
  const uploaded = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(uploaded.status, uploaded.text).toBe(200);
  inputUrl = uploaded.json.url as string;
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Steps' })).json.id as string;
  const nodes = [
    node('u', 'upload', { image: inputUrl }),
    node('c', 'crop', { x: 5, y: 7, width: 12, height: 9 }, 300),
    node('r', 'resize', { width: 20, fit: 'contain' }, 300),
    node('a', 'adjust', { grayscale: true }, 300),
    node('out', 'crop', { x: 30, y: 0, width: 20, height: 10 }, 300),
    node('alone', 'adjust', { invert: true }, 300),
  ];
  const edges = ['c', 'r', 'a', 'out'].map((target) => ({ id: `e-${target}`, source: 'u', target }));
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

describe('steps nodes run as jobs', () => {
  it('crops the upload wired into a crop node: the node shows the exact region, with its lineage', async () => {
    const { job, data } = await run('c');
    expect(job).toMatchObject({ status: 'succeeded', projectId, nodeId: 'c', model: 'crop', output: { imageUrl: expect.any(String) } });
    const imageUrl = (job.output as { imageUrl: string }).imageUrl;
    expect(data).toMatchObject({ image: imageUrl, isGenerating: false });
    expect(data.error).toBeUndefined();
    const { data: px, info } = await pixelsOf(imageUrl);
    expect([info.width, info.height]).toEqual([12, 9]);
    for (let y = 0; y < 9; y++) for (let x = 0; x < 12; x++) expect([...px.subarray((y * 12 + x) * 4, (y * 12 + x) * 4 + 4)]).toEqual([4 * (x + 5), 4 * (y + 7), 100, 255]);
    // Its lineage: the job's record, the input as the node received it, no prompt and no cost.
    const lineage = job.lineage as { jobId: string; model: string; inputs: Array<{ url: string }>; nodeId: string; cost: { amount: number } | null };
    expect(lineage).toMatchObject({ jobId: job.id, model: 'crop', nodeId: 'c', cost: { amount: 0 } });
    expect(lineage.inputs.map((i) => i.url)).toEqual([inputUrl]);
    // A crop of a photo is not model output: its metadata says a classical algorithm changed it.
    expect((await sharp(await bytesOf(imageUrl)).metadata()).xmp?.toString('utf8')).toContain('digitalsourcetype/algorithmicallyEnhanced"');
    const rows = await t.pool.query('SELECT node_id, model, input_images FROM generations WHERE job_id = $1', [job.id]);
    expect(rows.rows).toEqual([{ node_id: 'c', model: 'crop', input_images: [inputUrl] }]);
  });

  it("keeps a steps node's result through a REST save of the canvas (its kind's data has it)", async () => {
    const read = async () => (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: Array<{ id: string; data: Record<string, unknown> }>; edges: unknown[]; version: number };
    const before = await read();
    const image = before.nodes.find((n) => n.id === 'c')!.data.image;
    expect(image).toEqual(expect.stringMatching(/^http/));
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: before.nodes, edges: before.edges, version: before.version });
    expect(saved.status, saved.text).toBe(200);
    expect((await read()).nodes.find((n) => n.id === 'c')!.data).toMatchObject({ type: 'crop', x: 5, image });
  });

  it('resizes (aspect kept from the width) and adjusts (grayscale: equal channels)', async () => {
    const resized = await run('r');
    expect(resized.job).toMatchObject({ status: 'succeeded', model: 'resize' });
    const r = await pixelsOf(resized.data.image as string);
    expect([r.info.width, r.info.height]).toEqual([20, 15]);

    const adjusted = await run('a');
    expect(adjusted.job).toMatchObject({ status: 'succeeded', model: 'adjust' });
    const a = await pixelsOf(adjusted.data.image as string);
    expect([a.info.width, a.info.height]).toEqual([W, H]);
    for (let i = 0; i < a.data.length; i += 4) {
      expect(a.data[i + 1]).toBe(a.data[i]);
      expect(a.data[i + 2]).toBe(a.data[i]);
    }
    expect(new Set(Array.from({ length: a.data.length / 4 }, (_, i) => a.data[i * 4])).size).toBeGreaterThan(10); // grey, not flat
  });

  it('fails a crop outside its input with the coded error, shown in its node', async () => {
    const { job, data } = await run('out');
    const error = 'Unusable settings: the crop box (20×10 at 30,0) does not lie inside the 40×30 input image';
    expect(job).toMatchObject({ status: 'failed', output: null, error: { status: 400, error, details: 'node "out"' } });
    expect(data).toMatchObject({ error, isGenerating: false });
    expect(data.image).toBeUndefined();
    expect((await t.pool.query('SELECT error_code FROM generation_jobs WHERE id = $1', [job.id])).rows[0]).toEqual({ error_code: 'node_settings_unusable' });
  });

  it('refuses a node with no input connected (4xx naming it), and a viewer as a generation refuses one; nothing queued', async () => {
    const count = async () => (await t.pool.query("SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1 AND node_id IN ('alone', 'c')", [projectId])).rows[0].n as number;
    const before = await count();
    expect(await ada.client.post('/api/generations', { projectId, nodeId: 'alone' })).toMatchObject({
      status: 400,
      json: { error: 'No input image: node "alone" (adjust) has nothing connected to its image input (connect a node with an image to it)' },
    });
    const viewerStart = await vic.client.post('/api/generations', { projectId, nodeId: 'c' });
    expect(viewerStart).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await count()).toBe(before);
  });

  it("leaves a free user's daily generation unused: the steps jobs above called no model", async () => {
    expect(Number((await t.pool.query('SELECT count(*) FROM generations WHERE user_id = $1', [ada.id])).rows[0].count)).toBeGreaterThanOrEqual(3);
    const made = await ada.client.post('/api/image', { images: [inputUrl], prompt: 'grayscale' });
    expect(made.status, made.text).toBe(200);
    expect((await ada.client.post('/api/image', { images: [inputUrl], prompt: 'grayscale' })).status).toBe(402); // the one of the day
  });
});
