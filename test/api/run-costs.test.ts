// Prices, seeds and the daily budget in a run (DESIGN.md §12 "Prices", docs/api.md "Spend"), through fal's SDK against
// its local fake (FLUX.1 Kontext [pro] at its list price of $0.04 an image): the estimate prices each node's jobs, a
// node's seeds (data.seed + i for a count) reach the model as fal's `seed`, a run that would pass
// USER_DAILY_BUDGET_USD is refused with 402 and the numbers before anything is queued, and a run the cache answers
// costs nothing, passes the budget and adds nothing to the project's spend.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MODEL = 'fal-ai/flux-pro/kontext';
const WAIT = { timeout: 90_000, interval: 100 };

let t: TestApp;
let fal: FakeFal;

beforeAll(async () => {
  fal = await startFakeFal({ key: 'fal-key' });
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', FAL_KEY: 'fal-key', FAL_BASE_URL: fal.baseUrl, USER_DAILY_BUDGET_USD: '0.1' });
});
afterAll(async () => {
  await t?.close();
  await fal?.close();
});

describe('a run’s prices, seeds and budget', () => {
  it('estimates, sends the seeds, refuses what would pass the daily budget, and charges nothing for the cache', async () => {
    const ada = await t.user('ada@example.com', 'Ada');
    const form = new FormData();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'in.png');
    const image = (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Costs' })).json.id as string;
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'g', type: 'generation', position: { x: 300, y: 0 }, data: { type: 'generation', prompt: 'make it night', model: MODEL, seed: 4242, count: 2 } },
      { id: 'h', type: 'generation', position: { x: 300, y: 300 }, data: { type: 'generation', prompt: 'make it day', model: MODEL, seed: 7 } },
    ];
    const edges = [
      { id: 'e1', source: 'in', target: 'g' },
      { id: 'e2', source: 'in', target: 'h' },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 })).status).toBe(200);

    // The estimate: two images of $0.04.
    const estimate = await ada.client.post(`/api/projects/${projectId}/runs/estimate`, { mode: 'node', nodeIds: ['g'] });
    expect(estimate.status, estimate.text).toBe(200);
    expect(estimate.json).toEqual({ totalUsd: 0.08, unpriced: 0, nodes: [{ nodeId: 'g', jobs: 2, cached: false, costUsd: 0.08 }] });

    // The run: each job's seed reaches fal (the node's seed, then + 1 for the second of its count).
    const started = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['g'] });
    expect(started.status, started.text).toBe(202);
    const runPath = `/api/projects/${projectId}/runs/${started.json.id}`;
    await expect.poll(async () => (await ada.client.get(runPath)).json.status, WAIT).toBe('succeeded');
    expect(fal.requests.map((r) => r.input.seed).sort()).toEqual([4242, 4243]);
    expect(fal.requests.every((r) => r.endpoint === MODEL)).toBe(true);
    expect((await ada.client.get(`/api/projects/${projectId}/spend`)).json).toMatchObject({ totalUsd: 0.08, people: [{ userId: ada.id, usd: 0.08, generations: 2 }] });

    // $0.08 spent today of $0.10: another $0.04 would pass it — refused with the numbers, nothing queued, no call.
    const jobsBefore = (await t.pool.query('SELECT count(*)::int AS n FROM generation_jobs')).rows[0].n as number;
    const refused = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['h'] });
    expect(refused.status, refused.text).toBe(402);
    expect(refused.json).toEqual({
      error: 'This run would cost about $0.04; with $0.08 spent today it would pass your daily budget of $0.10',
      budgetUsd: 0.1,
      spentTodayUsd: 0.08,
      estimateUsd: 0.04,
    });
    expect((await t.pool.query('SELECT count(*)::int AS n FROM generation_jobs')).rows[0].n).toBe(jobsBefore);
    expect(fal.requests).toHaveLength(2);

    // The same node again, unchanged: every job from the cache, $0, so the budget lets it run; no model call, no spend.
    const again = await ada.client.post(`/api/projects/${projectId}/runs/estimate`, { mode: 'node', nodeIds: ['g'] });
    expect(again.json).toEqual({ totalUsd: 0, unpriced: 0, nodes: [{ nodeId: 'g', jobs: 2, cached: true, costUsd: 0 }] });
    const cached = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' });
    expect(cached.status, cached.text).toBe(402); // `all` takes h too: $0.04 more is refused
    const rerun = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['g'] });
    expect(rerun.status, rerun.text).toBe(202);
    await expect.poll(async () => (await ada.client.get(`/api/projects/${projectId}/runs/${rerun.json.id}`)).json.status, WAIT).toBe('succeeded');
    expect(fal.requests).toHaveLength(2);
    expect((await ada.client.get('/api/user/spend')).json).toMatchObject({ todayUsd: 0.08, budgetUsd: 0.1, projects: [{ projectId, usd: 0.08, generations: 2 }] });
  });

  it('counts what a run still running would cost: a second run that would pass the budget with it is refused', async () => {
    const bob = await t.user('bob@example.com', 'Bob');
    const form = new FormData();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c63' } }).png().toBuffer();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'in.png');
    const image = (await bob.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const projectId = (await bob.client.post('/api/user/project', { userId: bob.id, name: 'Held' })).json.id as string;
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'one', type: 'generation', position: { x: 300, y: 0 }, data: { type: 'generation', prompt: 'one', model: MODEL, seed: 1 } },
      { id: 'two', type: 'generation', position: { x: 300, y: 300 }, data: { type: 'generation', prompt: 'two', model: MODEL, seed: 2, count: 2 } },
    ];
    const edges = [
      { id: 'e1', source: 'in', target: 'one' },
      { id: 'e2', source: 'in', target: 'two' },
    ];
    expect((await bob.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 })).status).toBe(200);

    fal.script({ hold: true });
    const held = fal.held();
    const first = await bob.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['one'] });
    expect(first.status, first.text).toBe(202);
    await held; // its one $0.04 job is at the model: nothing recorded yet, but it will cost
    const second = await bob.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['two'] });
    expect(second.status, second.text).toBe(402);
    expect(second.json).toMatchObject({ budgetUsd: 0.1, spentTodayUsd: 0.04, estimateUsd: 0.08 });

    fal.release();
    await expect.poll(async () => (await bob.client.get(`/api/projects/${projectId}/runs/${first.json.id}`)).json.status, WAIT).toBe('succeeded');
    expect((await bob.client.get('/api/user/spend')).json).toMatchObject({ todayUsd: 0.04 });
  });
});
