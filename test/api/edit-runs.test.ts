// Edit nodes run (src/jobs/tasks/edit.ts, docs/api.md "Node kinds" → edit): an upload, a mask node whose `data.mask`
// is an uploaded PNG, and an edit node with the offline classical inpainting (`inpaint-telea`, opencv.js in the image
// workers). Runs and POST /api/generations with a node record the result as a generation (lineage: image and mask),
// take it from the cache on a rerun; an outpaint grows the image by its sides; a mask of another size is resized and
// said so; an empty, broken or missing mask, a model that cannot take a mask and an outpaint over the pixel limit
// fail or are refused with their reason, nothing stored. Waits follow the run or the job, never a clock.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Rec = Record<string, unknown>;
type Run = { id: string; status: string; jobs: Array<{ nodeId: string; jobId: string; status: string; cached: boolean; reason: string | null; imageUrl: string | null }> };

let t: TestApp;
let ada: { client: HttpClient; id: string; email: string };
let projectId: string;
const url: Record<string, string> = {};

const WAIT = { timeout: 90_000, interval: 100 };
/** INPUT_IMAGE_MAX_PIXELS here: small, so an outpaint can pass it. */
const MAX_PIXELS = 40_000;
const W = 64;
const H = 48;

/** A horizontal gradient (red = 4x, green 100, blue = 255 − 4x) with a magenta 12×12 square at (26, 18). */
function holedRaw(): Buffer {
  const px = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const hole = x >= 26 && x < 38 && y >= 18 && y < 30;
      px.set(hole ? [255, 0, 255] : [4 * x, 100, 255 - 4 * x], (y * W + x) * 3);
    }
  return px;
}
/** White over [x0, x1) × [y0, y1), black elsewhere, of size w×h. */
function maskPng(w: number, h: number, box?: [number, number, number, number]): Promise<Buffer> {
  const px = Buffer.alloc(w * h);
  if (box) for (let y = box[1]; y < box[3]; y++) px.fill(255, y * w + box[0], y * w + box[2]);
  return sharp(px, { raw: { width: w, height: h, channels: 1 } }).png().toBuffer();
}

const node = (id: string, type: string, data: Rec) => ({ id, type, position: { x: 0, y: 0 }, data: { type, ...data } });
const edge = (source: string, target: string, targetHandle?: string) => ({ id: `${source}-${target}${targetHandle ? `-${targetHandle}` : ''}`, source, target, ...(targetHandle ? { targetHandle } : {}) });

async function upload(name: string, data: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'image/png' }), `${name}.png`);
  const uploaded = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(uploaded.status, uploaded.text).toBe(200);
  url[name] = uploaded.json.url as string;
}

async function runOf(runId: string): Promise<Run> {
  const read = await ada.client.get(`/api/projects/${projectId}/runs/${runId}`);
  expect(read.status, read.text).toBe(200);
  return read.json as Run;
}
/** Runs one node (and what it needs), to its end. */
async function runNode(nodeId: string): Promise<Run> {
  const started = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: [nodeId] });
  expect(started.status, started.text).toBe(202);
  const id = (started.json as Run).id;
  await expect.poll(async () => (await runOf(id)).status, WAIT).not.toBe('running');
  return runOf(id);
}
const jobOf = (run: Run, nodeId: string) => run.jobs.find((j) => j.nodeId === nodeId)!;

async function pixelsOf(imageUrl: string) {
  const cookie = await ada.client.jar.getCookieString(ada.client.baseUrl);
  const res = await fetch(new URL(new URL(imageUrl).pathname, ada.client.baseUrl), { headers: { cookie } });
  expect(res.status).toBe(200);
  return sharp(Buffer.from(await res.arrayBuffer())).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}
const generationsOf = async (nodeId: string) => (await t.pool.query('SELECT model, input_images FROM generations WHERE project_id = $1 AND node_id = $2', [projectId, nodeId])).rows as Array<{ model: string; input_images: string[] }>;

beforeAll(async () => {
  t = await startTestApp({ INPUT_IMAGE_MAX_PIXELS: String(MAX_PIXELS), RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
  ada = await t.user('ada@example.com');
  await upload('image', await sharp(holedRaw(), { raw: { width: W, height: H, channels: 3 } }).png().toBuffer());
  await upload('mask', await maskPng(W, H, [24, 16, 40, 32]));
  await upload('small', await maskPng(16, 12, [6, 4, 10, 8])); // the same area, a quarter of the size
  await upload('empty', await maskPng(W, H));
  await upload('broken', (await maskPng(W, H, [24, 16, 40, 32])).subarray(0, 70)); // a PNG cut short
  await upload('huge', await maskPng(250, 250, [0, 0, 10, 10])); // over INPUT_IMAGE_MAX_PIXELS
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Edits' })).json.id as string;
  const masks = ['mask', 'small', 'empty', 'broken'];
  const nodes = [
    node('u', 'upload', { image: url.image }),
    ...masks.map((m) => node(`m-${m}`, 'mask', { mask: url[m] })),
    ...masks.map((m) => node(`e-${m}`, 'edit', { mode: 'inpaint', model: 'inpaint-telea', prompt: 'ignored' })),
    node('e-none', 'edit', { mode: 'inpaint' }),
    node('e-gemini', 'edit', { mode: 'inpaint', model: 'local' }),
    node('o', 'edit', { mode: 'outpaint', outpaint: { top: 4, right: 8, bottom: 0, left: 2 } }),
    node('o-big', 'edit', { mode: 'outpaint', outpaint: { top: 100, right: 100, bottom: 100, left: 100 } }),
  ];
  const edges = [
    ...masks.map((m) => edge('u', `m-${m}`)),
    ...masks.flatMap((m) => [edge('u', `e-${m}`), edge(`m-${m}`, `e-${m}`, 'mask')]),
    edge('u', 'e-none'),
    edge('u', 'e-gemini'),
    edge('m-mask', 'e-gemini', 'mask'),
    edge('u', 'o'),
    edge('u', 'o-big'),
  ];
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('edit nodes', () => {
  it('inpaints inside the mask with inpaint-telea: a generation with its lineage (image and mask), then the cache', async () => {
    const run = await runNode('e-mask');
    const job = jobOf(run, 'e-mask');
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(job).toMatchObject({ status: 'succeeded', cached: false, imageUrl: expect.any(String) });
    const { data, info } = await pixelsOf(job.imageUrl!);
    expect([info.width, info.height]).toEqual([W, H]);
    // The magenta square is gone: each of its pixels is near the gradient around it; outside the mask nothing moved.
    for (let y = 18; y < 30; y++)
      for (let x = 26; x < 38; x++) {
        const i = (y * W + x) * 3;
        expect(Math.abs(data[i] - 4 * x) + Math.abs(data[i + 1] - 100) + Math.abs(data[i + 2] - (255 - 4 * x))).toBeLessThan(90);
      }
    expect([...data.subarray(0, 3)]).toEqual([0, 100, 255]);
    expect(await generationsOf('e-mask')).toEqual([{ model: 'inpaint-telea', input_images: [url.image, url.mask] }]);
    const detail = await ada.client.get(`/api/generations/${job.jobId}`);
    expect(detail.json).toMatchObject({ status: 'succeeded', model: 'inpaint-telea', lineage: { model: 'inpaint-telea', nodeId: 'e-mask' } });
    expect((detail.json.lineage as { inputs: Array<{ url: string }> }).inputs.map((i) => i.url)).toEqual([url.image, url.mask]);

    const again = await runNode('e-mask');
    expect(jobOf(again, 'e-mask')).toMatchObject({ status: 'cached', cached: true, imageUrl: job.imageUrl });
    expect(await generationsOf('e-mask')).toHaveLength(1);
  });

  it('outpaints: the image grows by its sides', async () => {
    const run = await runNode('o');
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    const { data, info } = await pixelsOf(jobOf(run, 'o').imageUrl!);
    expect([info.width, info.height]).toEqual([W + 10, H + 4]);
    expect([...data.subarray(((4 + 0) * info.width + 2) * 3, ((4 + 0) * info.width + 2) * 3 + 3)]).toEqual([0, 100, 255]); // the old corner, moved
    expect(await generationsOf('o')).toEqual([{ model: 'inpaint-telea', input_images: [url.image] }]);
  });

  it('resizes a mask of another size to the image and says so (a node started by POST /api/generations)', async () => {
    const started = await ada.client.post('/api/generations', { projectId, nodeId: 'e-small' });
    expect(started.status, started.text).toBe(202);
    const job = await untilJob(ada.client, started.json.id as string);
    expect(job).toMatchObject({ status: 'succeeded', model: 'inpaint-telea' });
    // Said in the job's text (and its progress while it ran).
    const said = (await t.pool.query('SELECT output_text FROM generation_jobs WHERE id = $1', [job.id])).rows[0].output_text as string;
    expect(said).toContain("The mask was 16×12; it was resized to the image's 64×48");
    expect(await generationsOf('e-small')).toEqual([{ model: 'inpaint-telea', input_images: [url.image, url.small] }]);
  });

  it('fails an empty mask with its reason; nothing stored', async () => {
    const run = await runNode('e-empty');
    expect(run.status).toBe('failed');
    expect(jobOf(run, 'e-empty')).toMatchObject({ status: 'failed', imageUrl: null, reason: expect.stringContaining('the mask is empty: nothing to edit') });
    expect(await generationsOf('e-empty')).toEqual([]);
  });

  it('fails a broken mask with its reason, and the image workers go on (the next edit runs)', async () => {
    const run = await runNode('e-broken');
    expect(run.status).toBe('failed');
    expect(jobOf(run, 'e-broken')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^Invalid image/) });
    expect(await generationsOf('e-broken')).toEqual([]);
    const next = await ada.client.post('/api/generations', { projectId, nodeId: 'e-mask' });
    expect(next.status, next.text).toBe(202);
    expect(await untilJob(ada.client, next.json.id as string)).toMatchObject({ status: 'succeeded' });
  });

  it('fails an outpaint over the pixel limit with its reason, before any model call; nothing stored', async () => {
    const run = await runNode('o-big');
    expect(jobOf(run, 'o-big')).toMatchObject({ status: 'failed', reason: expect.stringContaining(`the outpainted image would be 264×248, over the ${MAX_PIXELS}-pixel limit`) });
    expect(await generationsOf('o-big')).toEqual([]);
  });

  it('refuses a run of an inpaint with no mask connected, and a model that cannot take a mask (naming it)', async () => {
    const none = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['e-none'] });
    expect(none.status, none.text).toBe(400);
    expect(none.json.error).toContain('mask');
    const wrong = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['e-gemini'] });
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.json.error).toBe('model "local" cannot take a mask: node "e-gemini" (edit) needs a model that does inpaint (GET /api/models)');
    const alone = await ada.client.post('/api/generations', { projectId, nodeId: 'e-gemini' });
    expect(alone.status, alone.text).toBe(400);
    expect(alone.json.error).toBe(wrong.json.error);
    expect(await generationsOf('e-none')).toEqual([]);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM generation_jobs WHERE node_id IN ('e-none', 'e-gemini')")).rows[0].n).toBe(0);
  });
});
