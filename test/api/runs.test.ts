// Runs of a project's graph (src/runs/, docs/api.md "Runs"): POST /api/projects/{id}/runs plans a run from the live
// document, runs its jobs on the job runner in order (branches side by side), takes what the project already made
// for a key from the cache (no model call), skips what depends on a failure, and writes each node's run state and
// result. The model is one the test holds and counts (test/helpers/held-model.ts): every image it answers is a small
// PNG of its own colour, and a prompt with `fail` in it fails. Waits follow the run (GET …/runs/{runId}) with generous
// timeouts, never a fixed clock.
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { graphOf, keysOf, marksOf } from '../../src/kinds/graph.js';
import { ModelFailedError } from '../../src/models/index.js';
import { heldModel, type HeldModel } from '../helpers/held-model.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type User = { client: HttpClient; id: string; email: string };
type Rec = Record<string, unknown>;
type Run = { id: string; status: string; jobs: Array<{ nodeId: string; instance: number; jobId: string; status: string; cached: boolean; key: string; seed: number | null; reason: string | null; imageUrl: string | null; costUsd: number | null }>; estimate: { totalUsd: number; nodes: Array<{ nodeId: string; cached: boolean }> }; costUsd: number };

let t: TestApp;
let model: HeldModel;
let ada: User;
let bob: User;
let vic: User;
let eve: User;
let inputUrl: string;
/** Each request the model answered: its prompt and how many input images. */
const requests: Array<{ prompt: string; images: number }> = [];

const WAIT = { timeout: 90_000, interval: 100 };

const png = (n: number) => sharp({ create: { width: 4, height: 4, channels: 3, background: { r: (n * 37) % 256, g: (n * 91) % 256, b: (n * 13) % 256 } } }).png().toBuffer();

const node = (id: string, type: string, data: Rec, x = 0) => ({ id, type, position: { x, y: 0 }, data: { type, ...data } });
const gen = (id: string, prompt: string, extra: Rec = {}) => node(id, 'generation', { prompt, ...extra });
const edge = (source: string, target: string, targetHandle?: string) => ({ id: `${source}-${target}${targetHandle ? `-${targetHandle}` : ''}`, source, target, ...(targetHandle ? { targetHandle } : {}) });

async function project(name: string, nodes: Rec[], edges: Rec[]): Promise<string> {
  const id = (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
  const saved = await ada.client.post('/api/user/project/canvas', { projectId: id, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
  return id;
}

async function canvasOf(projectId: string) {
  const read = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
  expect(read.status, read.text).toBe(200);
  return read.json as { nodes: Array<{ id: string; type: string; data: Rec }>; edges: Rec[]; version: number };
}

/** Changes nodes' data through a REST save of the canvas as it is (seeds and results kept). */
async function edit(projectId: string, changes: Record<string, Rec>) {
  const canvas = await canvasOf(projectId);
  const nodes = canvas.nodes.map((n) => (changes[n.id] ? { ...n, data: { ...n.data, ...changes[n.id] } } : n));
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: canvas.edges, version: canvas.version });
  expect(saved.status, saved.text).toBe(200);
}

async function start(projectId: string, body: Rec, as: User = ada): Promise<Run> {
  const started = await as.client.post(`/api/projects/${projectId}/runs`, body);
  expect(started.status, started.text).toBe(202);
  return started.json as Run;
}

async function runOf(projectId: string, runId: string, as: User = ada): Promise<Run> {
  const read = await as.client.get(`/api/projects/${projectId}/runs/${runId}`);
  expect(read.status, read.text).toBe(200);
  return read.json as Run;
}

/** The run once it has ended. */
async function ended(projectId: string, runId: string, as: User = ada): Promise<Run> {
  await expect.poll(async () => (await runOf(projectId, runId, as)).status, WAIT).not.toBe('running');
  return runOf(projectId, runId, as);
}

/** The canvas once every node of `ids` shows the run's end in `data.run`. */
async function nodesAfter(projectId: string, runId: string, ids: string[]) {
  await expect
    .poll(async () => {
      const canvas = await canvasOf(projectId);
      return ids.every((id) => {
        const run = canvas.nodes.find((n) => n.id === id)?.data.run as { runId?: string; done?: number; total?: number } | undefined;
        return run?.runId === runId && run.done === run.total;
      });
    }, WAIT)
    .toBe(true);
  return canvasOf(projectId);
}

const statuses = (run: Run) => Object.fromEntries(run.jobs.map((j) => [`${j.nodeId}${j.instance ? `#${j.instance}` : ''}`, j.status]));
const count = async (sql: string, params: unknown[]) => (await t.pool.query(sql, params)).rows[0].n as number;

beforeAll(async () => {
  model = heldModel(async (req, call) => {
    requests.push({ prompt: req.prompt, images: req.images.length });
    if (req.prompt.includes('fail')) throw new ModelFailedError('the model failed on purpose');
    return { image: { data: await png(call), mimeType: 'image/png' } };
  });
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', RUN_MAX_JOBS: '60', JOBS_HEARTBEAT_MS: '1000', JOBS_HEARTBEAT_LAPSE_MS: '30000' }, undefined, { imageModel: model.model });
  [ada, bob, vic, eve] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com'), t.user('vic@example.com'), t.user('eve@example.com')]);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await png(999))], { type: 'image/png' }), 'input.png');
  const uploaded = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(uploaded.status, uploaded.text).toBe(200);
  inputUrl = uploaded.json.url as string;
});
afterEach(() => model?.release()); // a test that failed while holding the model does not hold up the next
afterAll(async () => {
  model?.release();
  await t?.close();
});

describe('a chain runs in order, then from the cache', () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = await project('Chain', [node('u', 'upload', { image: inputUrl }), gen('a', 'first'), gen('b', 'second'), gen('c', 'third')], [edge('u', 'a'), edge('a', 'b'), edge('b', 'c')]);
  });

  it('runs a node after the stale nodes it depends on, each from the one before; results, keys and seeds land in the nodes', async () => {
    const calls = model.calls;
    const started = await start(projectId, { mode: 'node', nodeIds: ['c'] });
    expect(started.jobs.map((j) => j.nodeId)).toEqual(['a', 'b', 'c']);
    expect(started.jobs.map((j) => j.status)).toEqual([expect.stringMatching(/^(queued|running)$/), 'waiting', 'waiting']);
    expect(started.jobs.every((j) => Number.isInteger(j.seed))).toBe(true); // drawn for nodes that had none
    const run = await ended(projectId, started.id);
    expect(run.status).toBe('succeeded');
    expect(statuses(run)).toEqual({ a: 'succeeded', b: 'succeeded', c: 'succeeded' });
    expect(model.calls - calls).toBe(3);
    expect(requests.slice(-3).map((r) => r.prompt)).toEqual(['first', 'second', 'third']);
    // Each job took the image the one before it made.
    const jobs = await Promise.all(run.jobs.map(async (j) => (await ada.client.get(`/api/generations/${j.jobId}`)).json as { lineage: { inputs: Array<{ url: string }> } }));
    expect(jobs[1].lineage.inputs.map((i) => i.url)).toEqual([run.jobs[0].imageUrl]);
    expect(jobs[2].lineage.inputs.map((i) => i.url)).toEqual([run.jobs[1].imageUrl]);
    // The nodes: their images, the key they were made for (every node fresh by the marks), their seeds and run state.
    const canvas = await nodesAfter(projectId, run.id, ['a', 'b', 'c']);
    const graph = graphOf(canvas);
    const marks = marksOf(graph, keysOf(graph));
    for (const [i, id] of ['a', 'b', 'c'].entries()) {
      const data = canvas.nodes.find((n) => n.id === id)!.data;
      expect(data).toMatchObject({ image: run.jobs[i].imageUrl, resultKey: run.jobs[i].key, seed: run.jobs[i].seed, run: { runId: run.id, status: 'succeeded', done: 1, total: 1, cached: false } });
      expect(marks.get(id)).toBe('fresh');
    }
    // The generations carry their keys and seeds: the cache finds them.
    const rows = await t.pool.query('SELECT cache_key, seed FROM generations WHERE project_id = $1 ORDER BY created_at', [projectId]);
    expect(rows.rows).toEqual(run.jobs.map((j) => ({ cache_key: j.key, seed: j.seed })));
  });

  it('runs the unchanged chain again from the cache: every job cached, no model call, no new generation, cost 0', async () => {
    const calls = model.calls;
    const generations = await count('SELECT count(*)::int AS n FROM generations WHERE project_id = $1', [projectId]);
    const estimate = await ada.client.post(`/api/projects/${projectId}/runs/estimate`, { mode: 'all' });
    expect(estimate.status, estimate.text).toBe(200);
    expect(estimate.json).toMatchObject({ totalUsd: 0, nodes: [{ nodeId: 'a', cached: true }, { nodeId: 'b', cached: true }, { nodeId: 'c', cached: true }] });
    const started = await start(projectId, { mode: 'all' });
    // Taken from the cache before the answer: nothing was queued.
    expect(started).toMatchObject({ status: 'succeeded', costUsd: 0 });
    expect(statuses(started)).toEqual({ a: 'cached', b: 'cached', c: 'cached' });
    expect(model.calls).toBe(calls);
    expect(await count('SELECT count(*)::int AS n FROM generations WHERE project_id = $1', [projectId])).toBe(generations);
    expect(await count('SELECT count(*)::int AS n FROM generation_jobs WHERE run_id = $1 AND cache_hit AND status = $2', [started.id, 'succeeded'])).toBe(3);
    // Each cached job reads as a job that reuses the earlier generation.
    const job = await ada.client.get(`/api/generations/${started.jobs[2].jobId}`);
    expect(job.json).toMatchObject({ status: 'succeeded', output: { imageUrl: started.jobs[2].imageUrl }, runId: started.id, cacheHit: true });
    // Its lineage is the generation it reuses: made by another job (the first run's), with that output.
    const lineage = (job.json as { lineage: { generationId: string; jobId: string; output: { url: string } } }).lineage;
    expect(lineage.output.url).toBe(started.jobs[2].imageUrl);
    expect(lineage.jobId).not.toBe(started.jobs[2].jobId);
    expect(await count('SELECT count(*)::int AS n FROM generations WHERE id = $1', [lineage.generationId])).toBe(1);
    const canvas = await nodesAfter(projectId, started.id, ['a', 'b', 'c']);
    expect(canvas.nodes.find((n) => n.id === 'c')!.data.run).toMatchObject({ status: 'cached', cached: true });
  });

  it('re-runs exactly a changed node and what depends on it', async () => {
    await edit(projectId, { b: { prompt: 'second, changed' } });
    const calls = model.calls;
    const run = await ended(projectId, (await start(projectId, { mode: 'all' })).id);
    expect(statuses(run)).toEqual({ a: 'cached', b: 'succeeded', c: 'succeeded' });
    expect(model.calls - calls).toBe(2);
    expect(requests.slice(-2).map((r) => r.prompt)).toEqual(['second, changed', 'third']);
  });

  it('downstream runs the node and everything after it; selection runs the nodes named (here from the cache)', async () => {
    const calls = model.calls;
    const downstream = await start(projectId, { mode: 'downstream', nodeIds: ['b'] });
    expect(statuses(downstream)).toEqual({ b: 'cached', c: 'cached' });
    const selection = await start(projectId, { mode: 'selection', nodeIds: ['a', 'c', 'u'] });
    expect(statuses(selection)).toEqual({ a: 'cached', c: 'cached' });
    expect(model.calls).toBe(calls);
  });

  it('a run event on the job stream tells each change of the run, replayed after Last-Event-ID', async () => {
    const cookie = await ada.client.jar.getCookieString(ada.client.baseUrl);
    const run = await start(projectId, { mode: 'all' });
    const read = async (after: string) => {
      const abort = new AbortController();
      const res = await fetch(new URL('/api/generations/events', ada.client.baseUrl), { headers: { cookie, 'last-event-id': after }, signal: abort.signal });
      expect(res.status).toBe(200);
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes(`"id":"${run.id}"`) && text.includes('"status":"succeeded"')) break;
      }
      abort.abort();
      return text;
    };
    const text = await read('0');
    const events = text.split('\n\n').filter((e) => e.includes('event: run'));
    const last = events.map((e) => JSON.parse(e.split('\ndata: ')[1]) as Run).filter((r) => r.id === run.id).at(-1)!;
    expect(last).toMatchObject({ id: run.id, status: 'succeeded', jobs: [{ status: 'cached' }, { status: 'cached' }, { status: 'cached' }] });
  });
});

describe('a 50-node chain of adjust nodes (image steps, no model)', () => {
  it('runs in order, each node from the one before, then again all from the cache with no job run', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `s${i}`);
    const nodes = [node('u', 'upload', { image: inputUrl }), ...ids.map((id, i) => node(id, 'adjust', { brightness: 1 + (i % 5) / 100 }))];
    const edges = ids.map((id, i) => edge(i === 0 ? 'u' : ids[i - 1], id));
    const projectId = await project('Long chain', nodes, edges);
    const first = await ended(projectId, (await start(projectId, { mode: 'node', nodeIds: ['s49'] })).id);
    expect(first.status).toBe('succeeded');
    expect(first.jobs.map((j) => j.nodeId)).toEqual(ids);
    const jobs = await count('SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1', [projectId]);
    // The chain handoff: a node's job ending on this instance hands it the next one, which never went through pg-boss.
    expect(await count('SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1 AND NOT cache_hit AND boss_job_id IS NULL', [projectId])).toBeGreaterThan(0);
    const again = await start(projectId, { mode: 'all' });
    expect(again.status).toBe('succeeded');
    expect(again.jobs.every((j) => j.status === 'cached')).toBe(true);
    // Only the cached jobs' records were added: no task ran.
    expect(await count('SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1 AND NOT cache_hit', [projectId])).toBe(jobs);
    const canvas = await nodesAfter(projectId, again.id, ids);
    const graph = graphOf(canvas);
    const marks = marksOf(graph, keysOf(graph));
    expect(ids.every((id) => marks.get(id) === 'fresh')).toBe(true);
  });
});

describe('branches, failures and refusals', () => {
  it('runs independent branches side by side', async () => {
    const projectId = await project('Branches', [node('u', 'upload', { image: inputUrl }), gen('p', 'left'), gen('q', 'right')], [edge('u', 'p'), edge('u', 'q')]);
    model.hold();
    const calls = model.calls;
    const started = await start(projectId, { mode: 'all' });
    expect(started.jobs.map((j) => j.status)).toEqual([expect.stringMatching(/^(queued|running)$/), expect.stringMatching(/^(queued|running)$/)]);
    await model.reached(calls + 2); // both reached the model while neither had answered
    model.release();
    expect((await ended(projectId, started.id)).status).toBe('succeeded');
  });

  it('skips what depends on a failed job, with the reason, and the run fails', async () => {
    const projectId = await project('Failure', [node('u', 'upload', { image: inputUrl }), gen('f', 'please fail'), gen('d', 'after'), gen('e', 'after that'), gen('ok', 'fine')], [edge('u', 'f'), edge('f', 'd'), edge('d', 'e'), edge('u', 'ok')]);
    const run = await ended(projectId, (await start(projectId, { mode: 'all' })).id);
    expect(run.status).toBe('failed');
    expect(statuses(run)).toEqual({ f: 'failed', d: 'skipped', e: 'skipped', ok: 'succeeded' });
    const reason = run.jobs.find((j) => j.nodeId === 'd')!.reason!;
    expect(reason).toMatch(/^node "f" failed: Failed to generate image/);
    expect(run.jobs.find((j) => j.nodeId === 'e')!.reason).toBe(reason);
    const canvas = await nodesAfter(projectId, run.id, ['f', 'd', 'e', 'ok']);
    expect(canvas.nodes.find((n) => n.id === 'd')!.data.run).toMatchObject({ status: 'skipped', reason });
    expect(canvas.nodes.find((n) => n.id === 'f')!.data).toMatchObject({ run: { status: 'failed' }, error: 'Failed to generate image' });
  });

  it('refuses bad runs with a 4xx naming the problem, and queues nothing', async () => {
    const projectId = await project('Refusals', [node('u', 'upload', { image: inputUrl }), gen('x', 'one'), gen('y', 'two'), gen('alone', 'three')], [edge('u', 'x'), edge('x', 'y'), edge('y', 'x', 'images')]);
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' })).status).toBe(201);
    const before = await count("SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1", [projectId]);
    const cycle = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' });
    expect(cycle.status, cycle.text).toBe(400);
    expect(cycle.json.error).toMatch(/cycle/);
    expect([...(cycle.json.nodeIds as string[])].sort()).toEqual(['x', 'y']);
    const missing = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['nope'] });
    expect(missing).toMatchObject({ status: 404, json: { nodeIds: ['nope'] } });
    expect(await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node' })).toMatchObject({ status: 400, json: { error: expect.any(String) } });
    expect(await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'sideways' })).toMatchObject({ status: 400 });
    expect(await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['alone'] })).toMatchObject({ status: 400, json: { nodeIds: ['alone'] } }); // no input image
    expect(await vic.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' })).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await eve.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    const empty = await project('Empty', [], []);
    expect(await ada.client.post(`/api/projects/${empty}/runs`, { mode: 'all' })).toMatchObject({ status: 400, json: { error: expect.any(String) } });
    expect(await count("SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1", [projectId])).toBe(before);
    expect(await count('SELECT count(*)::int AS n FROM runs WHERE project_id IN ($1, $2)', [projectId, empty])).toBe(0);
    // A viewer reads runs; a stranger does not see them.
    expect((await vic.client.get(`/api/projects/${projectId}/runs`)).json).toEqual({ items: [] });
    expect((await eve.client.get(`/api/projects/${projectId}/runs`)).status).toBe(404);
  });
});

describe('lists and counts', () => {
  it('fans a node out over a list (one job per item, results in item order) and times its count', async () => {
    const projectId = await project('List', [node('u', 'upload', { image: inputUrl }), node('l', 'list', { items: ['red', 'green', 'blue'] }), gen('g', 'paint', { count: 2 })], [edge('u', 'g'), edge('l', 'g', 'prompt')]);
    const run = await ended(projectId, (await start(projectId, { mode: 'all' })).id);
    expect(run.status).toBe('succeeded');
    expect(run.jobs.map((j) => j.instance)).toEqual([0, 1, 2, 3, 4, 5]);
    // Queued in one batch, each in the turn it would have had queued one by one: the first as a first job, then
    // one round after another.
    const byJob = new Map((await t.pool.query('SELECT id, queue_priority AS p FROM generation_jobs WHERE run_id = $1', [run.id])).rows.map((r) => [r.id as string, r.p as number]));
    const inOrder = run.jobs.map((j) => byJob.get(j.jobId)!);
    expect(byJob.size).toBe(6);
    expect(inOrder[0]).toBe(1);
    expect(inOrder.slice(2).map((p, i) => p - inOrder[i + 1])).toEqual([-1, -1, -1, -1]);
    const seeds = run.jobs.map((j) => j.seed!);
    expect(seeds[1]).toBe(seeds[0] + 1);
    expect(seeds[2]).toBe(seeds[0]);
    const prompts = requests.slice(-6).map((r) => r.prompt).sort();
    expect(prompts).toEqual(['paint\nblue', 'paint\nblue', 'paint\ngreen', 'paint\ngreen', 'paint\nred', 'paint\nred']);
    const canvas = await nodesAfter(projectId, run.id, ['g']);
    const data = canvas.nodes.find((n) => n.id === 'g')!.data;
    expect(data.results).toEqual(run.jobs.map((j) => j.imageUrl));
    expect(data.image).toBe(run.jobs[0].imageUrl);
    expect(data.run).toMatchObject({ status: 'succeeded', done: 6, total: 6 });
  });

  it('refuses a fan-out over RUN_MAX_JOBS before anything runs, saying how many jobs', async () => {
    const items = Array.from({ length: 10 }, (_, i) => `item ${i}`);
    const projectId = await project('Too many', [node('u', 'upload', { image: inputUrl }), node('l', 'list', { items }), gen('g', 'paint', { count: 7 })], [edge('u', 'g'), edge('l', 'g', 'prompt')]);
    const refused = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error).toBe('The run would make 70 jobs; at most 60 (RUN_MAX_JOBS)');
    expect(await count('SELECT count(*)::int AS n FROM runs WHERE project_id = $1', [projectId])).toBe(0);
  });
});

describe('overlapping runs, edits while running, cancel', () => {
  it('two people running the same node at once: it runs once, the second run takes it from the cache', async () => {
    const projectId = await project('Overlap', [node('u', 'upload', { image: inputUrl }), gen('s', 'shared'), gen('n', 'next')], [edge('u', 's'), edge('s', 'n')]);
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' })).status).toBe(201);
    model.hold();
    const calls = model.calls;
    const first = await start(projectId, { mode: 'node', nodeIds: ['s'] });
    await model.reached(calls + 1);
    const second = await start(projectId, { mode: 'all' }, bob);
    expect(second.jobs.find((j) => j.nodeId === 's')).toMatchObject({ status: 'waiting', reason: expect.stringMatching(/^waiting for job job_/) });
    model.release();
    const [a, b] = await Promise.all([ended(projectId, first.id), ended(projectId, second.id, bob)]);
    expect(a.status).toBe('succeeded');
    expect(statuses(b)).toEqual({ s: 'cached', n: 'succeeded' });
    expect(model.calls - calls).toBe(2); // s once, n once
    expect(requests.slice(-2).map((r) => r.prompt)).toEqual(['shared', 'next']);
  });

  it('two runs of one node started at the same moment: one job, the other run waits and takes it from the cache', async () => {
    const projectId = await project('Same moment', [node('u', 'upload', { image: inputUrl }), gen('s', 'at once')], [edge('u', 's')]);
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' })).status).toBe(201);
    // The seed first, so both runs plan the same key.
    await ended(projectId, (await start(projectId, { mode: 'node', nodeIds: ['s'] })).id);
    await edit(projectId, { s: { prompt: 'at once, again' } });
    const calls = model.calls;
    const [one, two] = await Promise.all([start(projectId, { mode: 'all' }), start(projectId, { mode: 'all' }, bob)]);
    const runs = await Promise.all([ended(projectId, one.id), ended(projectId, two.id, bob)]);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(runs.flatMap((r) => r.jobs.map((j) => j.status)).sort()).toEqual(['cached', 'succeeded']);
    expect(model.calls - calls).toBe(1);
  });

  it('a node edited while its job runs: the result lands, and the node is marked stale', async () => {
    const projectId = await project('Edited', [node('u', 'upload', { image: inputUrl }), gen('g', 'before')], [edge('u', 'g')]);
    model.hold();
    const calls = model.calls;
    const started = await start(projectId, { mode: 'all' });
    await model.reached(calls + 1);
    // Every editor sees it running (its run state in the document, beside the job the runner shows).
    await expect.poll(async () => ((await canvasOf(projectId)).nodes.find((n) => n.id === 'g')!.data.run as { status?: string } | undefined)?.status, WAIT).toBe('running');
    await edit(projectId, { g: { prompt: 'after' } });
    model.release();
    const run = await ended(projectId, started.id);
    const canvas = await nodesAfter(projectId, run.id, ['g']);
    const data = canvas.nodes.find((n) => n.id === 'g')!.data;
    expect(data).toMatchObject({ prompt: 'after', image: run.jobs[0].imageUrl, resultKey: run.jobs[0].key });
    const graph = graphOf(canvas);
    expect(marksOf(graph, keysOf(graph)).get('g')).toBe('stale');
  });

  it('cancel ends the run: the running job is aborted, the waiting ones canceled; a second cancel is 409', async () => {
    const projectId = await project('Cancel', [node('u', 'upload', { image: inputUrl }), gen('a', 'one'), gen('b', 'two')], [edge('u', 'a'), edge('a', 'b')]);
    model.hold();
    const calls = model.calls;
    const started = await start(projectId, { mode: 'all' });
    await model.reached(calls + 1);
    const canceled = await ada.client.post(`/api/projects/${projectId}/runs/${started.id}/cancel`, {});
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json).toMatchObject({ status: 'canceled' });
    expect(statuses(canceled.json as Run)).toEqual({ a: 'canceled', b: 'canceled' });
    expect(model.signals.at(-1)!.aborted).toBe(true);
    model.release();
    expect(await ada.client.post(`/api/projects/${projectId}/runs/${started.id}/cancel`, {})).toMatchObject({ status: 409, json: { error: 'Run already finished' } });
    expect(model.calls - calls).toBe(1);
    expect((await ada.client.get(`/api/projects/${projectId}/runs`)).json).toMatchObject({ items: [{ id: started.id, status: 'canceled' }] });
  });
});

describe('prices and the daily budget', () => {
  let b: TestApp;
  afterAll(async () => {
    await b?.close();
  });

  it('estimates per node by the catalogue, and refuses a run whose estimate would pass USER_DAILY_BUDGET_USD (402, nothing queued)', async () => {
    b = await startTestApp({ USER_DAILY_BUDGET_USD: '0.05' }, undefined, { imageModel: model.model });
    const cy = await b.user('cy@example.com');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await png(7))], { type: 'image/png' }), 'input.png');
    const image = (await cy.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const projectId = (await cy.client.post('/api/user/project', { userId: cy.id, name: 'Priced' })).json.id as string;
    const nodes = [node('u', 'upload', { image }), node('l', 'list', { items: ['one', 'two'] }), gen('g', 'paint', { model: 'gemini-2.5-flash-image' })];
    expect((await cy.client.post('/api/user/project/canvas', { projectId, nodes, edges: [edge('u', 'g'), edge('l', 'g', 'prompt')], version: 0 })).status).toBe(200);
    const estimate = await cy.client.post(`/api/projects/${projectId}/runs/estimate`, { mode: 'all' });
    expect(estimate.json).toEqual({ totalUsd: 0.078, unpriced: 0, nodes: [{ nodeId: 'g', jobs: 2, cached: false, costUsd: 0.078 }] });
    const refused = await cy.client.post(`/api/projects/${projectId}/runs`, { mode: 'all' });
    expect(refused).toMatchObject({ status: 402, json: { budgetUsd: 0.05, spentTodayUsd: 0, estimateUsd: 0.078 } });
    expect((await b.pool.query('SELECT count(*)::int AS n FROM runs')).rows[0].n).toBe(0);
    expect((await b.pool.query('SELECT count(*)::int AS n FROM generation_jobs')).rows[0].n).toBe(0);
  });
});
