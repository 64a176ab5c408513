// A run across a kill -9 (docs/api.md "Runs", issue 35 "Bad input and faults"): the service runs as a real process
// against a fake Gemini that holds its answers, with one user's running jobs limited to two (JOBS_RUNNING_PER_USER)
// and a small heartbeat (JOBS_HEARTBEAT_MS, JOBS_HEARTBEAT_LAPSE_MS) so a dead instance's jobs lapse quickly; the
// second instance starts on the same database and port.
//  - A run of the whole canvas — a chain upload → g1 → g2 → g3 and two more nodes g4, g5 fed by the upload — has two
//    jobs held at the model, one queued and two waiting for their inputs when the process is killed with SIGKILL. The
//    run goes on by itself: the cut jobs are retried, the queued one runs, the waiting ones are queued once their
//    inputs are made, and the run ends `succeeded`: every job succeeded as GET /api/generations/{jobId} answers it,
//    and every node shows its result, its key and the run's end.
//  - An instance killed between a job's end and its run's next step (the coordinator's advance, held back by a lock
//    the test takes on the run's row, as a slow database would) leaves a run with nothing queued or running, so no
//    job's end will move it: the next instance goes on with it by itself (the coordinator advances the running runs
//    when the runner resumes and at each heartbeat). Without that, the run stays `running` for ever.
// Runs are followed with the typed client (client/runs.ts) over an API token: every wait is for events (the run's,
// the jobs'), or reads polled with a generous bound, never a fixed delay.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createImageCanvasClient, type ImageCanvasClient, type RunView } from '../../client/index.js';
import { freePort } from '../../src/net-utils.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createOwnDatabase } from '../helpers/test-app.js';

let database: { url: string; drop(): Promise<void> };
let gemini: FakeGemini;
let dataDir: string;
let image: Buffer;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  [database, gemini] = await Promise.all([createOwnDatabase(), startFakeGemini({ apiKey: 'k' })]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-runs-kill-'));
  image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#369' } }).png().toBuffer();
});
/** One instance at a time on the data folder. */
async function killAll() {
  for (const p of procs) p.kill();
  await Promise.all(procs.splice(0).map((p) => p.exited));
}
afterEach(killAll);
afterAll(async () => {
  await killAll();
  await gemini?.close();
  await database?.drop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

/** The service on `port` (the same one after the restart: stored URLs name the service's origin). */
async function start(port: number): Promise<ServiceProcess> {
  const url = `http://127.0.0.1:${port}`;
  const proc = startService({
    PORT: String(port),
    AUTH_URL: url,
    AUTH_SECRET: 'runs-kill-test-secret-0123456789abcdef',
    DATA_DIR: dataDir,
    DATABASE_CONNECTION_STRING: database.url,
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'k',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '0',
    JOBS_RUNNING_PER_USER: '2',
    GENERATIONS_IN_FLIGHT_PER_USER: '2',
    JOBS_HEARTBEAT_MS: '100',
    JOBS_HEARTBEAT_LAPSE_MS: '600',
  });
  procs.push(proc);
  await proc.waitFor('Image Canvas is serving');
  return proc;
}

/** Signs `email` in on the service at `port`: the HTTP client (cookie) and the typed client (an API token). */
async function signedIn(port: number, email: string) {
  const http = new HttpClient(`http://127.0.0.1:${port}`);
  await signIn(http, email, 'Ada');
  const made = await http.post('/api/user/tokens', { name: 'runs', scopes: ['read', 'write', 'generate'] });
  expect(made.status, made.text).toBe(201);
  return { http, api: createImageCanvasClient({ baseUrl: http.baseUrl, token: made.json.token as string }) };
}

/** A new project of `email`'s with this canvas. */
async function project(http: HttpClient, email: string, nodes: unknown[], edges: unknown[]): Promise<string> {
  const projectId = (await http.post('/api/user/project', { userId: email, name: 'Runs across a kill' })).json.id as string;
  const saved = await http.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
  return projectId;
}

const node = (id: string, type: 'upload' | 'generation', data: Record<string, unknown>, x: number) => ({ id, type, position: { x, y: 0 }, data: { type, ...data } });
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });
/** `node status` of each of the run's jobs, in node order. */
const states = (run: RunView) => run.jobs.map((j) => `${j.nodeId} ${j.status}`).sort();

/** The run once it has ended, followed through its events; a run still unfinished after two minutes fails the test with its state. */
async function untilEnded(api: ImageCanvasClient, projectId: string, runId: string): Promise<RunView> {
  let last: RunView | undefined;
  try {
    return await api.runs.follow(projectId, runId, { signal: AbortSignal.timeout(120_000), onUpdate: (run) => (last = run) });
  } catch (err) {
    throw new Error(`the run did not end: ${last ? `${last.status}, ${states(last).join(', ')}` : 'never read'}`, { cause: err });
  }
}

/**
 * Each node of the run shows its result, for the key it was made for, and the run's end (`data.run`). Read until it
 * does: the coordinator writes the document just after the transaction that records the run's last event.
 */
async function expectNodesShow(http: HttpClient, projectId: string, run: RunView) {
  const shown = async () => {
    const canvas = (await http.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: { id: string; data: Record<string, unknown> }[] };
    return run.jobs
      .map((j) => canvas.nodes.find((n) => n.id === j.nodeId)?.data)
      .map((d) => ({ image: d?.image, resultKey: d?.resultKey, run: (d?.run as { status?: string } | undefined)?.status }));
  };
  await expect.poll(shown, { timeout: 30_000, interval: 200 }).toEqual(run.jobs.map((j) => ({ image: j.imageUrl, resultKey: j.key, run: 'succeeded' })));
}

describe('a run across kill -9', () => {
  it('goes on after the restart: queued and waiting jobs run, the cut ones are retried, and the run ends succeeded as its jobs did', { timeout: 240_000 }, async () => {
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });
    const port = await freePort();
    const first = await start(port);
    const { http, api } = await signedIn(port, 'ada@example.com');
    const input = `data:image/png;base64,${image.toString('base64')}`;
    const nodes = [
      node('u', 'upload', { image: input }, 0),
      node('g1', 'generation', { prompt: 'one' }, 300),
      node('g2', 'generation', { prompt: 'two' }, 600),
      node('g3', 'generation', { prompt: 'three' }, 900),
      node('g4', 'generation', { prompt: 'four' }, 300),
      node('g5', 'generation', { prompt: 'five' }, 300),
    ];
    const edges = [edge('u', 'g1'), edge('g1', 'g2'), edge('g2', 'g3'), edge('u', 'g4'), edge('u', 'g5')];
    const projectId = await project(http, 'ada@example.com', nodes, edges);

    const calls = gemini.requests.length;
    const started = await api.runs.start(projectId, { mode: 'all' });
    expect(started).toMatchObject({ status: 'running', mode: 'all' });
    expect(started.jobs.map((j) => j.nodeId).sort()).toEqual(['g1', 'g2', 'g3', 'g4', 'g5']);
    // Two of g1, g4, g5 are held at the model, the third is queued behind the user's limit; g2 and g3 wait for g1.
    await expect.poll(() => gemini.requests.length - calls, { timeout: 30_000, interval: 50 }).toBe(2);
    let before!: RunView;
    await expect
      .poll(async () => (before = await api.runs.get(projectId, started.id)).jobs.map((j) => j.status).sort(), { timeout: 30_000, interval: 100 })
      .toEqual(['queued', 'running', 'running', 'waiting', 'waiting']);
    expect(states(before).filter((s) => s.endsWith('waiting'))).toEqual(['g2 waiting', 'g3 waiting']);
    const cut = before.jobs.filter((j) => j.status === 'running').map((j) => j.jobId);

    first.child.kill('SIGKILL');
    await first.exited;
    gemini.setDefaultReply({ kind: 'image', image }); // from now on the model answers at once
    release(); // the dead instance's calls end too, unheard

    await start(port);
    const ended = await untilEnded(api, projectId, started.id);
    expect(ended, JSON.stringify(ended.jobs, null, 1)).toMatchObject({ id: started.id, status: 'succeeded', finishedAt: expect.any(String) });
    expect(states(ended)).toEqual(['g1 succeeded', 'g2 succeeded', 'g3 succeeded', 'g4 succeeded', 'g5 succeeded']);

    // The run's state matches its jobs': each succeeded with the image the run says, the cut ones after one retry.
    for (const runJob of ended.jobs) {
      const { data: job } = await api.GET('/api/generations/{id}', { params: { path: { id: runJob.jobId } } });
      expect(job, runJob.nodeId).toMatchObject({ id: runJob.jobId, status: 'succeeded', projectId, nodeId: runJob.nodeId, output: { imageUrl: runJob.imageUrl } });
      expect(job?.attempts, runJob.nodeId).toBe(cut.includes(runJob.jobId) ? 2 : 1);
    }
    await expectNodesShow(http, projectId, ended);
    expect(gemini.requests.length - calls).toBe(7); // five jobs, two of them twice (their retry)
  });

  it("goes on after the restart when the instance died between a job's end and the run's next step", { timeout: 240_000 }, async () => {
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });
    const port = await freePort();
    const first = await start(port);
    const { http, api } = await signedIn(port, 'bea@example.com');
    const input = `data:image/png;base64,${image.toString('base64')}`;
    const nodes = [node('u', 'upload', { image: input }, 0), node('g1', 'generation', { prompt: 'one' }, 300), node('g2', 'generation', { prompt: 'two' }, 600), node('g3', 'generation', { prompt: 'three' }, 900)];
    const projectId = await project(http, 'bea@example.com', nodes, [edge('u', 'g1'), edge('g1', 'g2'), edge('g2', 'g3')]);

    const calls = gemini.requests.length;
    const started = await api.runs.start(projectId, { mode: 'downstream', nodeIds: ['g1'] });
    expect(states(started).slice(1)).toEqual(['g2 waiting', 'g3 waiting']);
    await expect.poll(() => gemini.requests.length - calls, { timeout: 30_000, interval: 50 }).toBe(1); // g1 held at the model
    const g1 = started.jobs.find((j) => j.nodeId === 'g1')!.jobId;

    // The run's row locked, as a slow database would hold it: g1 ends (its job is stored), but the run cannot move on.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query('BEGIN');
      await db.query('SELECT 1 FROM runs WHERE id = $1 FOR NO KEY UPDATE', [started.id]);
      gemini.setDefaultReply({ kind: 'image', image });
      release();
      await untilJob(http, g1, (j) => j.status === 'succeeded');
      expect(states(await api.runs.get(projectId, started.id))).toEqual(['g1 succeeded', 'g2 waiting', 'g3 waiting']);
      first.child.kill('SIGKILL');
      await first.exited;
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
      await db.end();
    }

    // Nothing of the run is queued or running: only the next instance's own look at its running runs moves it on.
    await start(port);
    const ended = await untilEnded(api, projectId, started.id);
    expect(ended, JSON.stringify(ended.jobs, null, 1)).toMatchObject({ status: 'succeeded' });
    expect(states(ended)).toEqual(['g1 succeeded', 'g2 succeeded', 'g3 succeeded']);
    for (const runJob of ended.jobs) {
      const { data: job } = await api.GET('/api/generations/{id}', { params: { path: { id: runJob.jobId } } });
      expect(job, runJob.nodeId).toMatchObject({ status: 'succeeded', attempts: 1, output: { imageUrl: runJob.imageUrl } });
    }
    await expectNodesShow(http, projectId, ended);
    expect(gemini.requests.length - calls).toBe(3); // each node once: nothing ran twice
  });
});
