// The typed client's runs (client/runs.ts, wired into client/index.ts as `runs`): start, estimate, get and cancel
// send what docs/api.md "Runs" says and throw the service's refusals as ImageCanvasError; follow resolves with the
// run once it has ended, from its `event: run` events on GET /api/generations/events (other runs' and jobs' events
// ignored), from reading it when the stream opens (a run that ended before), and across a dropped stream (resumed
// with Last-Event-ID). Against real HTTP servers on loopback that speak the service's routes and event stream.
// test/process/runs-kill.test.ts follows a run with it against the service itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createImageCanvasClient, ImageCanvasError, type GenerationJob, type RunJob, type RunView } from '../../client/index.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

interface Seen {
  method: string;
  url: string;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A loopback server; every request it gets (with its body) is in `seen`, in order. */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const runJob = (nodeId: string, status: RunJob['status']): RunJob => ({
  nodeId,
  instance: 0,
  jobId: `job_${nodeId}`,
  status,
  cached: status === 'cached',
  key: 'a'.repeat(64),
  seed: 7,
  queuePosition: status === 'queued' ? 1 : null,
  costUsd: null,
  reason: null,
  imageUrl: status === 'succeeded' || status === 'cached' ? `/files/${nodeId}.png` : null,
});
const ESTIMATE = { totalUsd: 0.078, unpriced: 0, nodes: [{ nodeId: 'g1', jobs: 2, cached: false, costUsd: 0.078 }] };
const run = (id: string, status: RunView['status'], jobs: RunJob[] = [runJob('g1', status === 'running' ? 'running' : 'succeeded')]): RunView => ({
  id,
  projectId: 'p1',
  userId: 'u1',
  mode: 'all',
  nodeIds: ['g1'],
  status,
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: status === 'running' ? null : '2026-01-01T00:00:05.000Z',
  jobs,
  estimate: ESTIMATE,
  costUsd: status === 'succeeded' ? 0.039 : 0,
});
const job = (id: string): GenerationJob => ({
  id,
  status: 'succeeded',
  queuePosition: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  error: null,
  output: { imageUrl: '/files/x.png' },
  projectId: 'p1',
  nodeId: 'g1',
  model: 'local',
  attempts: 1,
  progress: null,
});
const runFrame = (id: number, r: RunView) => `id: ${id}\nevent: run\ndata: ${JSON.stringify(r)}\n\n`;
const jobFrame = (id: number, j: GenerationJob) => `id: ${id}\nevent: job\ndata: ${JSON.stringify(j)}\n\n`;
const openStream = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
const answer = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('runs: start, estimate, get, cancel', () => {
  it('sends each request to its route with the token and the body, and answers what the service answered', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      if (req.url?.endsWith('/estimate')) return answer(res, 200, ESTIMATE);
      if (req.url?.endsWith('/cancel')) return answer(res, 200, run('run_1', 'canceled'));
      answer(res, req.method === 'POST' ? 202 : 200, run('run_1', 'running'));
    });
    const runs = createImageCanvasClient({ baseUrl, token: 'ic_test' }).runs;
    expect(await runs.start('p 1', { mode: 'downstream', nodeIds: ['g1'] })).toMatchObject({ id: 'run_1', status: 'running', jobs: [{ nodeId: 'g1', status: 'running' }] });
    expect(await runs.estimate('p 1', { mode: 'all' })).toEqual(ESTIMATE);
    expect(await runs.get('p 1', 'run_1')).toMatchObject({ id: 'run_1' });
    expect(await runs.cancel('p 1', 'run_1')).toMatchObject({ status: 'canceled' });
    expect(seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['POST', '/api/projects/p%201/runs', '{"mode":"downstream","nodeIds":["g1"]}'],
      ['POST', '/api/projects/p%201/runs/estimate', '{"mode":"all"}'],
      ['GET', '/api/projects/p%201/runs/run_1', ''],
      ['POST', '/api/projects/p%201/runs/run_1/cancel', ''],
    ]);
    for (const s of seen) expect(s.headers.authorization).toBe('Bearer ic_test');
    expect(seen[0].headers['content-type']).toBe('application/json');
  });

  it("throws the service's refusal as ImageCanvasError with its status and body", async () => {
    const refusal = { error: 'The run would make 240 jobs; at most 200 (RUN_MAX_JOBS)', nodeIds: ['g1'] };
    const { baseUrl } = await serve((req, res) => {
      if (req.url?.endsWith('/cancel')) return answer(res, 409, { error: 'Run already finished', details: 'the run is succeeded' });
      answer(res, 400, refusal);
    });
    const runs = createImageCanvasClient({ baseUrl }).runs;
    const started = runs.start('p1', { mode: 'node', nodeIds: ['g1'] });
    await expect(started).rejects.toBeInstanceOf(ImageCanvasError);
    await expect(started).rejects.toMatchObject({ status: 400, body: refusal, message: `400 ${refusal.error}` });
    await expect(runs.cancel('p1', 'run_1')).rejects.toMatchObject({ status: 409, message: '409 Run already finished: the run is succeeded' });
  });
});

describe('runs.follow', () => {
  it("answers the run once an event shows it ended, ignoring other runs' and jobs' events", async () => {
    const { baseUrl } = await serve((req, res) => {
      if (req.url === '/api/projects/p1/runs/run_a') return answer(res, 200, run('run_a', 'running', [runJob('g1', 'queued'), runJob('g2', 'waiting')]));
      openStream(res);
      res.write(
        runFrame(1, run('run_b', 'succeeded')) +
          jobFrame(2, job('job_g1')) +
          runFrame(3, run('run_a', 'running', [runJob('g1', 'succeeded'), runJob('g2', 'running')])) +
          runFrame(4, run('run_a', 'succeeded', [runJob('g1', 'succeeded'), runJob('g2', 'succeeded')])),
      );
    });
    const updates: string[] = [];
    const ended = await createImageCanvasClient({ baseUrl }).runs.follow('p1', 'run_a', { onUpdate: (r) => updates.push(`${r.status} ${r.jobs.map((j) => j.status).join(',')}`) });
    expect(ended).toMatchObject({ id: 'run_a', status: 'succeeded', finishedAt: expect.any(String) });
    expect(updates).toEqual(['running queued,waiting', 'running succeeded,running', 'succeeded succeeded,succeeded']);
  });

  it('answers a run that ended before the stream opened, from reading it', async () => {
    const { baseUrl } = await serve((req, res) => {
      if (req.url === '/api/projects/p1/runs/run_a') return answer(res, 200, run('run_a', 'failed', [runJob('g1', 'failed'), { ...runJob('g2', 'skipped'), reason: 'g1 failed' }]));
      openStream(res);
      res.write(': ping\n\n');
    });
    await expect(createImageCanvasClient({ baseUrl }).runs.follow('p1', 'run_a')).resolves.toMatchObject({ status: 'failed', jobs: [{ status: 'failed' }, { status: 'skipped', reason: 'g1 failed' }] });
  });

  it('reconnects after the stream drops, with Last-Event-ID, and reads the run again', async () => {
    let reads = 0;
    const { baseUrl, seen } = await serve((req, res) => {
      if (req.url === '/api/projects/p1/runs/run_a') return answer(res, 200, run('run_a', 'running', [runJob('g1', ++reads === 1 ? 'queued' : 'running')]));
      openStream(res);
      const streams = seen.filter((s) => s.url === '/api/generations/events').length;
      if (streams === 1) return res.end(runFrame(5, run('run_a', 'running', [runJob('g1', 'running')]))); // ends: the client reconnects
      res.write(runFrame(6, run('run_a', 'canceled', [runJob('g1', 'canceled')])));
    });
    const client = createImageCanvasClient({ baseUrl, token: 'ic_test' });
    const ended = await client.runs.follow('p1', 'run_a');
    expect(ended).toMatchObject({ status: 'canceled' });
    expect(seen.filter((s) => s.url === '/api/generations/events').map((s) => s.headers['last-event-id'])).toEqual([undefined, '5']);
    expect(reads).toBe(2); // once per opening of the stream
  });

  it('rejects with the reason when its signal aborts, and with the refusal when the run cannot be read', async () => {
    const { baseUrl } = await serve((req, res) => {
      if (req.url === '/api/projects/p1/runs/run_gone') return answer(res, 404, { error: 'Run not found' });
      if (req.url?.startsWith('/api/projects/')) return answer(res, 200, run('run_a', 'running'));
      openStream(res);
      res.write(': ping\n\n');
    });
    const client = createImageCanvasClient({ baseUrl });
    await expect(client.runs.follow('p1', 'run_gone')).rejects.toMatchObject({ status: 404, body: { error: 'Run not found' } });
    const stop = new AbortController();
    const followed = client.runs.follow('p1', 'run_a', { signal: stop.signal, onUpdate: () => stop.abort(new Error('enough')) });
    await expect(followed).rejects.toThrow('enough');
  });
});

describe('followJobEvents', () => {
  it('hands run events to onRun and job events to onEvent, in the order of the stream', async () => {
    const { baseUrl } = await serve((_req, res) => {
      openStream(res);
      res.write(jobFrame(1, job('job_a')) + runFrame(2, run('run_a', 'running')) + jobFrame(3, job('job_b')) + runFrame(4, run('run_a', 'succeeded')));
    });
    const stop = new AbortController();
    const got: string[] = [];
    await createImageCanvasClient({ baseUrl }).followJobEvents({
      signal: stop.signal,
      onEvent: (j, id) => void got.push(`${id} job ${j.id}`),
      onRun: (r, id) => {
        got.push(`${id} run ${r.id} ${r.status}`);
        if (r.status === 'succeeded') stop.abort();
      },
    });
    expect(got).toEqual(['1 job job_a', '2 run run_a running', '3 job job_b', '4 run run_a succeeded']);
  });
});
