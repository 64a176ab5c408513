// Upscale and remove-background nodes in runs (src/kinds/upscale.ts, remove-background.ts): each runs as a
// `generation` job with the node's model and no prompt, its result recorded as a generation (lineage, cost) and
// answered from the cache on a rerun. Offline: ESRGAN 2× in the image workers. Hosted: fal's and Replicate's
// upscalers and background removers through their SDKs against our fakes (FAL_BASE_URL, REPLICATE_BASE_URL). A node
// with no model of its role is blocked with the reason; a broken input fails its job with one.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const WAIT = { timeout: 120_000, interval: 100 };

type RunJob = { nodeId: string; jobId: string; status: string; cached: boolean; reason: string | null; imageUrl: string | null; costUsd: number | null };
type Run = { id: string; status: string; jobs: RunJob[]; costUsd: number };

let t: TestApp;
let fal: FakeFal;
let replicate: FakeReplicate;
let ada: { client: HttpClient; id: string };

const node = (id: string, type: string, data: Record<string, unknown>, y = 0) => ({ id, type, position: { x: id === 'in' ? 0 : 320, y }, data: { type, ...data } });

async function upload(png: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'in.png');
  const res = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(res.status, res.text).toBe(200);
  return res.json.url as string;
}

/** A project whose canvas is an upload `in` wired into each of `steps` (id → type and data). */
async function project(name: string, image: string, steps: Record<string, { type: string; data?: Record<string, unknown> }>): Promise<string> {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
  const nodes = [node('in', 'upload', { image }), ...Object.entries(steps).map(([id, s], i) => node(id, s.type, s.data ?? {}, i * 420))];
  const edges = Object.keys(steps).map((id) => ({ id: `e-${id}`, source: 'in', target: id }));
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
  return projectId;
}

/** Runs the nodes and waits for the run to end. */
async function run(projectId: string, nodeIds: string[]): Promise<Run> {
  const started = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds });
  expect(started.status, started.text).toBe(202);
  const path = `/api/projects/${projectId}/runs/${started.json.id}`;
  await expect.poll(async () => (await ada.client.get(path)).json.status, WAIT).toMatch(/^(succeeded|failed|canceled)$/);
  return (await ada.client.get(path)).json as Run;
}

async function bytesOf(url: string): Promise<Buffer> {
  const cookie = await ada.client.jar.getCookieString(ada.client.baseUrl);
  const res = await fetch(new URL(new URL(url).pathname, ada.client.baseUrl), { headers: { cookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const count = async (sql: string, params: unknown[] = []) => (await t.pool.query(sql, params)).rows[0].n as number;
const generationOf = async (jobId: string) => (await t.pool.query('SELECT model, cost, node_id FROM generations WHERE job_id = $1', [jobId])).rows[0] as { model: string; cost: { amount: number; currency: string } | null; node_id: string } | undefined;

beforeAll(async () => {
  [fal, replicate] = await Promise.all([startFakeFal({ key: 'fal-key' }), startFakeReplicate({ token: 'r8-token' })]);
  t = await startTestApp({
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    FAL_KEY: 'fal-key',
    FAL_BASE_URL: fal.baseUrl,
    REPLICATE_API_TOKEN: 'r8-token',
    REPLICATE_BASE_URL: replicate.baseUrl,
  });
  ada = await t.user('ada@example.com', 'Ada');
});
afterAll(async () => {
  await t?.close();
  await Promise.all([fal?.close(), replicate?.close()]);
});

describe('upscale and remove-background nodes', () => {
  it('upscales offline with ESRGAN in a run: 2× the input, recorded as a generation with lineage; a rerun is the cache, no model call', async () => {
    const input = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#3a7' } }).png().toBuffer();
    const image = await upload(input);
    const projectId = await project('Upscale offline', image, { up: { type: 'upscale' } }); // no model: the kind's default, esrgan-slim-2x

    const first = await run(projectId, ['up']);
    expect(first.status, JSON.stringify(first.jobs)).toBe('succeeded');
    const job = first.jobs[0];
    expect(job).toMatchObject({ nodeId: 'up', status: 'succeeded', cached: false });
    expect(await sharp(await bytesOf(job.imageUrl!)).metadata()).toMatchObject({ width: 48, height: 32 });
    expect(await generationOf(job.jobId)).toMatchObject({ model: 'esrgan-slim-2x', node_id: 'up' });
    const read = await ada.client.get(`/api/generations/${job.jobId}`);
    expect(read.json).toMatchObject({ status: 'succeeded', runId: first.id, cacheHit: false, lineage: { inputs: [{ url: image }], output: { url: job.imageUrl } } });

    const generations = await count('SELECT count(*)::int AS n FROM generations');
    const again = await run(projectId, ['up']);
    expect(again.status).toBe('succeeded');
    expect(again.jobs[0]).toMatchObject({ cached: true, imageUrl: job.imageUrl });
    expect(await count('SELECT count(*)::int AS n FROM generations')).toBe(generations); // nothing ran
    expect(await count('SELECT count(*)::int AS n FROM generation_jobs WHERE run_id = $1 AND cache_hit', [again.id])).toBe(1);
  });

  it('upscales and removes backgrounds through fal and Replicate: each model’s input, no prompt, the result and its cost recorded', async () => {
    const input = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#c63' } }).png().toBuffer();
    const image = await upload(input);
    const big = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#c63' } }).png().toBuffer();
    const cutout = await sharp({ create: { width: 20, height: 20, channels: 4, background: { r: 200, g: 100, b: 50, alpha: 0 } } }).png().toBuffer();
    const projectId = await project('Hosted', image, {
      falUp: { type: 'upscale', data: { model: 'fal-ai/clarity-upscaler' } },
      falBg: { type: 'remove-background', data: { model: 'fal-ai/bria/background/remove' } },
      repUp: { type: 'upscale', data: { model: 'nightmareai/real-esrgan' } },
      repBg: { type: 'remove-background', data: { model: 'bria/remove-background' } },
    });

    // The hosted upscalers take inputs whose 2× result stays within INPUT_IMAGE_MAX_PIXELS (40 million by default).
    const models = (await ada.client.get('/api/models')).json.models as { id: string; maxInputPixels?: number }[];
    expect(models.find((m) => m.id === 'fal-ai/clarity-upscaler')?.maxInputPixels).toBe(10_000_000);
    expect(models.find((m) => m.id === 'bria/remove-background')?.maxInputPixels).toBe(40_000_000);
    const estimate = await ada.client.post(`/api/projects/${projectId}/runs/estimate`, { mode: 'all' });
    expect(estimate.json).toMatchObject({ totalUsd: 0.164, unpriced: 0 });

    // One node at a time, so each fake's script goes to its own request.
    const ran: Record<string, RunJob> = {};
    for (const [id, result] of [
      ['falUp', big],
      ['falBg', cutout],
    ] as const) {
      fal.script({ result: { kind: 'image', image: result } });
      const r = await run(projectId, [id]);
      expect(r.status, JSON.stringify(r.jobs)).toBe('succeeded');
      ran[id] = r.jobs[0];
    }
    for (const [id, result] of [
      ['repUp', big],
      ['repBg', cutout],
    ] as const) {
      replicate.script({ end: { kind: 'succeeded', image: result } });
      const r = await run(projectId, [id]);
      expect(r.status, JSON.stringify(r.jobs)).toBe('succeeded');
      ran[id] = r.jobs[0];
    }

    // What reached fal: each endpoint's own input, the image inline, no prompt, no seed.
    expect(fal.requests.map((r) => r.endpoint)).toEqual(['fal-ai/clarity-upscaler', 'fal-ai/bria/background/remove']);
    expect(fal.requests[0].input).toEqual({ image_url: expect.stringMatching(/^data:image\/png;base64,/), sync_mode: true, upscale_factor: 2 });
    expect(fal.requests[1].input).toEqual({ image_url: expect.stringMatching(/^data:image\/png;base64,/), sync_mode: true });
    // Replicate: Real-ESRGAN (a community model) by its latest version, Bria (official) by name.
    expect(replicate.predictions.map((p) => p.model)).toEqual(['nightmareai/real-esrgan', 'bria/remove-background']);
    expect(replicate.predictions[0].version).toMatch(/^[0-9a-f]{64}$/);
    expect(replicate.predictions[0].input).toEqual({ image: expect.stringMatching(/^data:image\/png;base64,/), scale: 2, face_enhance: false });
    expect(replicate.predictions[1].version).toBeUndefined();
    expect(replicate.predictions[1].input).toEqual({ image: expect.stringMatching(/^data:image\/png;base64,/) });

    // The results as the models gave them (the cut-out keeps its alpha), each a generation with its model and cost.
    expect(await sharp(await bytesOf(ran.falUp.imageUrl!)).metadata()).toMatchObject({ width: 40, height: 40 });
    expect(await sharp(await bytesOf(ran.repBg.imageUrl!)).metadata()).toMatchObject({ width: 20, height: 20, hasAlpha: true });
    const costs = { falUp: 0.126, falBg: 0.018, repUp: 0.002, repBg: 0.018 };
    const modelOf = { falUp: 'fal-ai/clarity-upscaler', falBg: 'fal-ai/bria/background/remove', repUp: 'nightmareai/real-esrgan', repBg: 'bria/remove-background' };
    for (const id of Object.keys(costs) as (keyof typeof costs)[]) {
      expect(ran[id]).toMatchObject({ status: 'succeeded', costUsd: costs[id] });
      const g = await generationOf(ran[id].jobId);
      expect(g?.model.startsWith(modelOf[id]), `${id}: ${g?.model}`).toBe(true);
      expect(g?.cost, id).toMatchObject({ amount: costs[id], currency: 'USD' });
    }
    expect((await ada.client.get(`/api/projects/${projectId}/spend`)).json).toMatchObject({ totalUsd: 0.164 });
  });

  it('blocks a remove-background node with no model (none is offline), saying which keys make one; nothing queued', async () => {
    const image = await upload(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer());
    const projectId = await project('No model', image, { bg: { type: 'remove-background' } });
    const jobs = await count('SELECT count(*)::int AS n FROM generation_jobs');
    const refused = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['bg'] });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error).toMatch(/has no model: choose a background-removal model \(none is configured unless FAL_KEY or REPLICATE_API_TOKEN is set\)/);
    // Started as a node's generation (POST /api/generations with the node), the same: 400, not the default model.
    const started = await ada.client.post('/api/generations', { projectId, nodeId: 'bg' });
    expect(started.status, started.text).toBe(400);
    expect(started.json.error).toBe('No model: node "bg" (remove-background) has no model: choose a background-removal model (none is configured unless FAL_KEY or REPLICATE_API_TOKEN is set)');
    expect(await count('SELECT count(*)::int AS n FROM generation_jobs')).toBe(jobs);
  });

  it('fails an upscale of a broken image with a reason, storing nothing', async () => {
    // A PNG cut off inside its pixel data: its header reads (the upload takes it), its pixels do not decode.
    const raw = Buffer.alloc(32 * 32 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 37) % 251;
    const whole = await sharp(raw, { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer();
    const image = await upload(whole.subarray(0, 200));
    const projectId = await project('Broken', image, { up: { type: 'upscale' } });
    const generations = await count('SELECT count(*)::int AS n FROM generations');
    const r = await run(projectId, ['up']);
    expect(r.status).toBe('failed');
    expect(r.jobs[0]).toMatchObject({ status: 'failed', imageUrl: null });
    const job = (await ada.client.get(`/api/generations/${r.jobs[0].jobId}`)).json as { error: { status: number; error: string } };
    expect(job.error).toMatchObject({ status: 400, error: 'Invalid image: the image is truncated' });
    expect(r.jobs[0].reason).toMatch(/^Invalid image: the image is truncated/);
    expect(await count('SELECT count(*)::int AS n FROM generations')).toBe(generations);
  });
});
