// Job events and job progress in the canvas (docs/api.md "Generation jobs"): GET /api/generations/events streams
// each change of the caller's jobs with increasing ids, and a reconnection with Last-Event-ID gets exactly what it
// missed; a job tied to a node shows in the node's `data.job` (queued with its position, running) to every live
// editor, and leaves it when it ends. The model is held by the test, so every state is an event the test waits
// for, never a timer.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSseParser } from '../../client/sse.js';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { heldModel } from '../helpers/held-model.js';
import { untilJob } from '../helpers/jobs.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

interface Received {
  id: number;
  job: { id: string; status: string; queuePosition: number | null };
}

/** An open event stream of `client`'s user: the events so far, and a wait for the next ones. */
async function stream(t: TestApp, client: HttpClient, lastEventId?: string) {
  const cookie = await client.jar.getCookieString(t.baseUrl);
  const abort = new AbortController();
  const res = await fetch(`${t.baseUrl}/api/generations/events`, { headers: { cookie, ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) }, signal: abort.signal });
  const events: Received[] = [];
  const wakers = new Set<() => void>();
  const parser = createSseParser({
    onEvent(e) {
      if (e.event !== 'job') return;
      events.push({ id: Number(e.id), job: JSON.parse(e.data) as Received['job'] });
      for (const wake of wakers) wake();
    },
  });
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(chunk);
    } catch {
      // aborted by close()
    }
  })();
  return {
    res,
    events,
    /** Resolves once an event satisfies `check`. */
    until(check: (e: Received) => boolean): Promise<Received> {
      const found = events.find(check);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        const wake = () => {
          const hit = events.find(check);
          if (hit) {
            wakers.delete(wake);
            resolve(hit);
          }
        };
        wakers.add(wake);
      });
    },
    close: () => abort.abort(),
  };
}

const held = heldModel((req) => ({ image: req.images[0] }));
let t: TestApp;
let ada: { client: HttpClient; id: string; email: string };
let bob: { client: HttpClient; id: string; email: string };
let image: string;
const live: LiveClient[] = [];
const streams: Array<{ close(): void }> = [];

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', JOBS_RUNNING_PER_USER: '1' }, undefined, { imageModel: held.model });
  [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer();
  image = `data:image/png;base64,${png.toString('base64')}`;
});
afterAll(async () => {
  held.release();
  for (const s of streams) s.close();
  for (const l of live) l.close();
  await t?.close();
});

const ended = (e: Received) => ['succeeded', 'failed', 'canceled'].includes(e.job.status);

describe('GET /api/generations/events', () => {
  it('streams each change of the caller’s jobs with increasing ids; Last-Event-ID gets exactly what was missed', async () => {
    const adaStream = await stream(t, ada.client);
    const bobStream = await stream(t, bob.client);
    streams.push(adaStream, bobStream);
    expect(adaStream.res.status).toBe(200);
    expect(adaStream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const first = (await ada.client.post('/api/generations', { images: [image], prompt: 'first' })).json.id as string;
    const firstEnd = await adaStream.until((e) => e.job.id === first && ended(e));
    const mine = adaStream.events.filter((e) => e.job.id === first);
    expect(mine.map((e) => e.job.status)).toEqual(['queued', 'running', 'succeeded']);
    const ids = adaStream.events.map((e) => e.id);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);

    // Away: a second job runs while ada's stream is closed.
    adaStream.close();
    const second = (await ada.client.post('/api/generations', { images: [image], prompt: 'second' })).json.id as string;
    const watcher = await stream(t, ada.client, String(firstEnd.id - 1)); // one event back: replays from there
    streams.push(watcher);
    await watcher.until((e) => e.job.id === second && ended(e));
    expect(watcher.events[0]).toEqual(firstEnd); // the one after the given id, and nothing before it
    expect(watcher.events.slice(1).map((e) => [e.job.id, e.job.status])).toEqual([
      [second, 'queued'],
      [second, 'running'],
      [second, 'succeeded'],
    ]);
    // Bob saw none of ada's jobs.
    expect(bobStream.events).toEqual([]);
  });

  it('answers 400 for a Last-Event-ID that is not an event id, 401 without a session', async () => {
    for (const bad of ['abc', '-1', '1e5', '12345678901234567890', "1' OR 1=1"]) {
      const res = await ada.client.get('/api/generations/events', { 'last-event-id': bad });
      expect(res.status, bad).toBe(400);
      expect(res.json).toEqual({ error: 'Invalid Last-Event-ID: not an event id' });
    }
    expect((await fetch(`${t.baseUrl}/api/generations/events`)).status).toBe(401);
  });
});

describe('a job tied to a node', () => {
  const nodeData = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;
  const jobIn = (doc: Y.Doc, id: string) => nodeData(doc, id)?.get('job') as { id: string; status: string; queuePosition: number | null; startedAt: string | null } | undefined;
  const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: id } });

  it('shows queued with its position and running to every live editor, and leaves the node when it ends or is canceled', async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Jobs in nodes' })).json.id as string;
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('g'), node('h'), node('i')], edges: [], version: 0 })).status).toBe(200);
    const bobLive = await connectLive({ baseUrl: t.baseUrl, as: bob.client, projectId });
    live.push(bobLive);
    await bobLive.saved();

    held.hold();
    const running = (await ada.client.post('/api/generations', { images: [image], prompt: 'g', projectId, nodeId: 'g' })).json.id as string;
    await docWhere(bobLive.doc, (d) => jobIn(d, 'g')?.status === 'running');
    expect(jobIn(bobLive.doc, 'g')).toMatchObject({ id: running, status: 'running', queuePosition: null });
    expect(typeof jobIn(bobLive.doc, 'g')?.startedAt).toBe('string');
    expect(nodeData(bobLive.doc, 'g')?.get('isGenerating')).toBe(true);

    // Ada may run one job at a time (JOBS_RUNNING_PER_USER=1): the next waits, first in the queue.
    const waiting = await ada.client.post('/api/generations', { images: [image], prompt: 'h', projectId, nodeId: 'h' });
    expect(waiting.json).toMatchObject({ status: 'queued', queuePosition: 1 });
    await docWhere(bobLive.doc, (d) => jobIn(d, 'h')?.status === 'queued');
    expect(jobIn(bobLive.doc, 'h')).toMatchObject({ id: waiting.json.id, status: 'queued', queuePosition: 1, startedAt: null });
    const behind = await ada.client.post('/api/generations', { images: [image], prompt: 'i', projectId, nodeId: 'i' });
    expect(behind.json).toMatchObject({ status: 'queued', queuePosition: 2 });
    await docWhere(bobLive.doc, (d) => jobIn(d, 'i')?.queuePosition === 2);

    // Canceled while queued: the node says Canceled, and the job behind it moves up.
    expect((await ada.client.post(`/api/generations/${waiting.json.id}/cancel`, {})).status).toBe(200);
    await docWhere(bobLive.doc, (d) => jobIn(d, 'h') === undefined && nodeData(d, 'h')?.get('isGenerating') === false);
    expect(nodeData(bobLive.doc, 'h')?.get('error')).toBe('Canceled');
    await docWhere(bobLive.doc, (d) => jobIn(d, 'i')?.queuePosition === 1);

    held.release();
    await docWhere(bobLive.doc, (d) => jobIn(d, 'g') === undefined && typeof nodeData(d, 'g')?.get('image') === 'string');
    await docWhere(bobLive.doc, (d) => jobIn(d, 'i') === undefined && typeof nodeData(d, 'i')?.get('image') === 'string');
    expect(nodeData(bobLive.doc, 'g')?.get('isGenerating')).toBe(false);
    expect((await ada.client.get(`/api/generations/${running}`)).json).toMatchObject({ status: 'succeeded' });
  });
  it("a running job canceled: the node says Canceled, not the previous run's error", async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Cancel in a node' })).json.id as string;
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('c')], edges: [], version: 0 })).status).toBe(200);
    const watcher = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    live.push(watcher);
    await watcher.saved();
    // The previous run failed.
    nodeData(watcher.doc, 'c')!.set('error', 'Failed to generate image');
    await watcher.saved();

    held.hold();
    const calls = held.calls;
    const job = (await ada.client.post('/api/generations', { images: [image], prompt: 'c', projectId, nodeId: 'c' })).json.id as string;
    await held.reached(calls + 1);
    await docWhere(watcher.doc, (d) => jobIn(d, 'c')?.status === 'running');
    expect((await ada.client.post(`/api/generations/${job}/cancel`, {})).json).toMatchObject({ status: 'canceled' });
    held.release();
    await docWhere(watcher.doc, (d) => jobIn(d, 'c') === undefined && nodeData(d, 'c')?.get('isGenerating') === false);
    expect(nodeData(watcher.doc, 'c')?.get('error')).toBe('Canceled');
  });

  it('a node with a queued or running job refuses a second start, from any editor: 409 naming the job', async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'One job a node' })).json.id as string;
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('n'), node('m')], edges: [], version: 0 })).status).toBe(200);
    held.hold();
    const calls = held.calls;
    const first = (await ada.client.post('/api/generations', { images: [image], prompt: 'n', projectId, nodeId: 'n' })).json.id as string;
    await held.reached(calls + 1);
    const busy = { status: 409, json: { error: 'Node is already running', details: `job ${first} is running for this node; cancel it or wait for it to end`, jobId: first } };
    expect(await ada.client.post('/api/generations', { images: [image], prompt: 'again', projectId, nodeId: 'n' })).toMatchObject(busy);
    expect(await bob.client.post('/api/generations', { images: [image], prompt: 'bob too', projectId, nodeId: 'n' })).toMatchObject(busy);
    expect(await bob.client.post('/api/image', { images: [image], prompt: 'bob, at once', projectId, nodeId: 'n' })).toMatchObject(busy);
    // A queued job holds its node too (ada runs one job at a time, so her job into m waits).
    const queued = await ada.client.post('/api/generations', { images: [image], prompt: 'm', projectId, nodeId: 'm' });
    expect(queued.json).toMatchObject({ status: 'queued' });
    expect(await bob.client.post('/api/generations', { images: [image], prompt: 'm again', projectId, nodeId: 'm' })).toMatchObject({ status: 409, json: { jobId: queued.json.id } });
    const jobsOf = async () => (await t.pool.query('SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1', [projectId])).rows[0].n as number;
    expect(await jobsOf()).toBe(2); // the refused starts stored nothing
    held.release();
    for (const id of [first, queued.json.id as string]) await untilJob(ada.client, id);
    // Once the node's job has ended, it starts again.
    const later = await bob.client.post('/api/generations', { images: [image], prompt: 'n, later', projectId, nodeId: 'n' });
    expect(later.status).toBe(202);
    expect(await untilJob(bob.client, later.json.id as string)).toMatchObject({ status: 'succeeded' });
  });

  describe('a cancel racing the job\'s last write (the user\'s job lock held by the test, so the order is chosen)', () => {
    /** Holds the lock the job's writes take (an advisory lock on the user), on a connection of the test's. */
    async function holdJobLock(userId: string) {
      const locker = await t.pool.connect();
      await locker.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`generation-jobs:${userId}`]);
      return async () => {
        await locker.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`generation-jobs:${userId}`]);
        locker.release();
      };
    }
    /** Waits (bounded) until `n` sessions wait for that lock. */
    async function waitersAt(userId: string, n: number) {
      for (let i = 0; i < 6_000; i++) {
        const { rows } = await t.pool.query(
          `SELECT count(*)::int AS n FROM pg_locks, (SELECT hashtextextended($1, 0) AS key) k
           WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
             AND classid::bigint = (k.key >> 32) & 4294967295 AND objid::bigint = k.key & 4294967295`,
          [`generation-jobs:${userId}`],
        );
        if (rows[0].n >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`${n} waiters for the job lock never came`);
    }
    const objects = async () => (await fs.readdir(path.join(t.dataDir, 'objects'), { recursive: true }).catch(() => [])).length;
    const recorded = async (jobId: string) => (await t.pool.query('SELECT count(*)::int AS n FROM generations WHERE job_id = $1', [jobId])).rows[0].n as number;

    async function setUp(name: string) {
      const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
      expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('r')], edges: [], version: 0 })).status).toBe(200);
      const watcher = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
      live.push(watcher);
      await watcher.saved();
      return { projectId, watcher };
    }

    it('the cancel first: the job is canceled, no generation is recorded and nothing it stored stays', async () => {
      const { projectId, watcher } = await setUp('Race, cancel first');
      const objectsBefore = await objects();
      held.hold();
      const callsBefore = held.calls;
      const job = (await ada.client.post('/api/generations', { images: [image], prompt: 'race', projectId, nodeId: 'r' })).json.id as string;
      await held.reached(callsBefore + 1);
      const unlock = await holdJobLock(ada.id);
      const cancel = ada.client.post(`/api/generations/${job}/cancel`, {});
      await waitersAt(ada.id, 1); // the cancel waits for the lock…
      held.release();
      await waitersAt(ada.id, 2); // …and so does the job's last write, behind it, its output already stored
      await unlock();
      expect(await cancel).toMatchObject({ status: 200, json: { id: job, status: 'canceled', output: null } });
      // The runner has ended once the node no longer shows the job.
      await docWhere(watcher.doc, (d) => jobIn(d, 'r') === undefined && nodeData(d, 'r')?.get('isGenerating') === false);
      expect((await ada.client.get(`/api/generations/${job}`)).json).toMatchObject({ status: 'canceled', output: null, lineage: null });
      expect(await recorded(job)).toBe(0);
      expect(await objects()).toBe(objectsBefore); // the output (and the stored data-URL input) went again
      expect(nodeData(watcher.doc, 'r')?.has('image')).toBe(false);
      await docWhere(watcher.doc, (d) => nodeData(d, 'r')?.get('error') === 'Canceled');
    });

    it('the last write first: the job succeeds with its generation recorded, and the cancel is 409', async () => {
      const { projectId, watcher } = await setUp('Race, job first');
      held.hold();
      const callsBefore = held.calls;
      const job = (await ada.client.post('/api/generations', { images: [image], prompt: 'race', projectId, nodeId: 'r' })).json.id as string;
      await held.reached(callsBefore + 1);
      const unlock = await holdJobLock(ada.id);
      held.release();
      await waitersAt(ada.id, 1); // the job's last write waits for the lock…
      const cancel = ada.client.post(`/api/generations/${job}/cancel`, {});
      await waitersAt(ada.id, 2); // …and the cancel behind it
      await unlock();
      expect(await cancel).toMatchObject({ status: 409, json: { error: 'Job already finished' } });
      await docWhere(watcher.doc, (d) => jobIn(d, 'r') === undefined && typeof nodeData(d, 'r')?.get('image') === 'string');
      const done = (await ada.client.get(`/api/generations/${job}`)).json;
      expect(done).toMatchObject({ status: 'succeeded', output: { imageUrl: nodeData(watcher.doc, 'r')?.get('image') }, lineage: { jobId: job } });
      expect(await recorded(job)).toBe(1);
    });
  });
});

describe('POST /api/image is a job: cancelable on its instance and from another', () => {
  it('a cancel on the same instance, and one through a second instance, abort its model call; the request answers canceled', async () => {
    // A second instance on the same database that only serves the cancel (it runs no jobs of its own).
    const other = await startTestApp({ DATABASE_CONNECTION_STRING: t.databaseUrl, JOBS_START: 'first-job' }, 'embedded');
    try {
      const made = await ada.client.post('/api/user/tokens', { name: 'canceler', scopes: ['read', 'generate'] });
      expect(made.status, made.text).toBe(201);
      const bearer = { authorization: `Bearer ${made.json.token}` };
      for (const via of [t, other]) {
        held.hold();
        const callsBefore = held.calls;
        const answer = ada.client.post('/api/image', { images: [image], prompt: `canceled via ${via === t ? 'this' : 'another'} instance` });
        await held.reached(callsBefore + 1);
        const running = (await ada.client.get('/api/generations?status=running')).json.items as { id: string }[];
        expect(running.length).toBe(1);
        const canceled = await fetch(`${via.baseUrl}/api/generations/${running[0].id}/cancel`, { method: 'POST', headers: bearer });
        expect(canceled.status).toBe(200);
        // The held call ends only through its aborted signal: the answer comes because the abort reached it.
        expect(await answer).toMatchObject({ status: 500, json: { error: 'Failed to generate image', details: 'the generation was canceled' } });
        expect(held.signals[callsBefore].aborted).toBe(true);
        held.release();
        expect((await ada.client.get(`/api/generations/${running[0].id}`)).json).toMatchObject({ status: 'canceled', output: null });
      }
    } finally {
      held.release();
      await other.close();
    }
  });
});
