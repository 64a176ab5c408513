// The web client's one follower of the user's job events per tab (web/src/api/job-events.ts), on the typed client's
// followJobEvents, against loopback servers that speak the event stream of GET /api/generations/events: one stream
// while anything holds it, whatever the number of holders, closed when the last lets go; `ready` says at once whether
// it is open; a gap — a reconnection with no event id to resume from, or a stream the service stopped — is told to
// its listeners, a resumption with Last-Event-ID is not.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GenerationJob } from '../../client/index.js';
import { JobEvents } from '../../web/src/api/job-events.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const job = (id: string, status: GenerationJob['status']): GenerationJob => ({
  id,
  status,
  queuePosition: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  error: null,
  output: null,
  projectId: 'p',
  nodeId: 'n',
  model: 'local',
  attempts: 1,
  progress: null,
});
const frame = (id: number, j: GenerationJob) => `id: ${id}\nevent: job\ndata: ${JSON.stringify(j)}\n\n`;
const openStream = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });

/** Resolves with the nth call of `push`'s values, now or later. */
function collector<T>() {
  const items: T[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  return {
    items,
    push(item: T) {
      items.push(item);
      for (const w of waiting.filter((x) => items.length >= x.n)) w.resolve();
    },
    reached: (n: number) => (items.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))),
  };
}

describe('JobEvents', () => {
  it('opens one stream while held, whatever the number of holders, hands every event to every listener, and closes it when the last lets go', async () => {
    const connections = collector<http.ServerResponse>();
    const closed = collector<true>();
    const baseUrl = await serve((req, res) => {
      openStream(res);
      res.write(': connected\n\n');
      req.on('close', () => closed.push(true));
      connections.push(res);
    });
    const events = new JobEvents(baseUrl);
    expect(await events.ready()).toBe(false); // nothing holds it: no stream
    const seen = [collector<string>(), collector<string>()];
    for (const s of seen) events.subscribe({ onJob: (j) => s.push(`${j.id} ${j.status}`), onGap: () => s.push('gap') });

    const releaseOne = events.hold();
    const releaseTwo = events.hold();
    expect(await events.ready()).toBe(true);
    expect(connections.items).toHaveLength(1);
    connections.items[0].write(frame(1, job('job_a', 'running')) + frame(2, job('job_a', 'succeeded')));
    for (const s of seen) await s.reached(2);
    expect(seen.map((s) => s.items)).toEqual([
      ['job_a running', 'job_a succeeded'],
      ['job_a running', 'job_a succeeded'],
    ]);

    releaseOne();
    releaseOne(); // twice is once
    expect(await events.ready()).toBe(true); // still held
    releaseTwo();
    await closed.reached(1);
    expect(await events.ready()).toBe(false);
    expect(connections.items).toHaveLength(1);
    expect(seen[0].items).not.toContain('gap'); // our own release is no gap
  });

  it('says at once that it is not open when the service cannot be reached, also while the client waits to try again', async () => {
    const asked = collector<true>();
    const baseUrl = await serve((_req, res) => {
      asked.push(true);
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Service unavailable"}');
    });
    const events = new JobEvents(baseUrl);
    const release = events.hold();
    expect(await events.ready()).toBe(false); // the first attempt failed (the client tries again after a second)
    expect(await events.ready()).toBe(false); // and says so at once meanwhile
    expect(asked.items).toHaveLength(1);
    release();
  });

  it('tells its listeners of a gap when it reconnects with no event id to resume from, not when it resumes from one', async () => {
    const asked = collector<string | undefined>();
    const baseUrl = await serve((req, res) => {
      asked.push(req.headers['last-event-id'] as string | undefined);
      openStream(res);
      // 1st: ends with no event; 2nd: one event, then ends; 3rd (resumes after 1): stays open.
      if (asked.items.length === 1) return res.end(': connected\n\n');
      if (asked.items.length === 2) return res.end(frame(1, job('job_a', 'queued')));
      res.write(': connected\n\n');
    });
    const seen = collector<string>();
    const events = new JobEvents(baseUrl, () => {}, 0);
    events.subscribe({ onJob: (j) => seen.push(`${j.id} ${j.status}`), onGap: () => seen.push('gap') });
    const release = events.hold();
    await seen.reached(2);
    await asked.reached(3);
    expect(await events.ready()).toBe(true);
    expect(seen.items).toEqual(['gap', 'job_a queued']);
    expect(asked.items).toEqual([undefined, undefined, '1']);
    release();
  });

  it('stops when the service refuses the stream, telling of a gap (and of a 401); the next hold opens it again', async () => {
    let refuse = true;
    const baseUrl = await serve((_req, res) => {
      if (refuse) return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
      openStream(res);
      res.write(': connected\n\n');
    });
    const unauthorized = collector<true>();
    const seen = collector<string>();
    const events = new JobEvents(baseUrl, () => unauthorized.push(true), 0);
    events.subscribe({ onJob: () => {}, onGap: () => seen.push('gap') });
    const release = events.hold();
    await seen.reached(1);
    await unauthorized.reached(1);
    expect(await events.ready()).toBe(false);
    release();
    refuse = false;
    const again = events.hold();
    expect(await events.ready()).toBe(true);
    again();
  });
});
