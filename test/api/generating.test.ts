// `isGenerating` and the free quota across instances: a generation is its job, and a job counts while it runs with a
// live heartbeat (JOBS_HEARTBEAT_LAPSE_MS), on whichever instance: a canvas read settles `isGenerating` only when no
// job of that user is running, and a running job's reservation of the free quota counts until it ends or its
// heartbeat lapses. Two apps share one database; generations go to a fake Gemini that answers when the test says so.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini, type GeminiReply } from '../fakes/gemini-server.js';
import { HttpClient } from '../helpers/http-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

let database: { url: string; drop(): Promise<void> };
let gemini: FakeGemini;
let a: TestApp;
let b: TestApp;
let c: TestApp;
let d: TestApp;
let ada: { client: HttpClient; id: string };
let onB: HttpClient;

beforeAll(async () => {
  [database, gemini] = await Promise.all([createOwnDatabase(), startFakeGemini({ apiKey: 'k' })]);
  const env = {
    DATABASE_CONNECTION_STRING: database.url,
    AUTH_SECRET: 'generating-test-secret-0123456789abcdef',
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'k',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
  };
  a = await startTestApp(env, 'embedded'); // 'embedded': no database of its own, the env names the shared one
  b = await startTestApp(env, 'embedded');
  // The same two instances with the free plan's quota on: C and D. Only the quota limits them here (the in-flight
  // limit is the job runner's, checked before the quota: test/api/in-flight.test.ts).
  const quotaOnly = { ...env, FREE_GENERATIONS_PER_DAY: '2', GENERATIONS_IN_FLIGHT_PER_USER: '0' };
  c = await startTestApp(quotaOnly, 'embedded');
  d = await startTestApp(quotaOnly, 'embedded');
  ada = await a.user('ada@example.com');
  onB = new HttpClient(b.baseUrl, ada.client.jar); // the same browser, the other instance
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await c?.close();
  await d?.close();
  await gemini?.close();
  await database?.drop();
});

const png = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a3' } }).png().toBuffer();
const input = async () => `data:image/png;base64,${(await png()).toString('base64')}`;
const query = (text: string, values: unknown[] = []) => a.pool.query(text, values);
const runningRows = async () => (await query(`SELECT count(*)::int AS n FROM generation_jobs WHERE status = 'running'`)).rows[0].n as number;
/**
 * A job of the user as another instance runs it: running, its heartbeat now (or `heartbeat` ago: an instance that
 * died), holding `reservedUsd` of the free quota when given. Held (POST /api/image's), so a runner that finds it
 * lapsed fails it rather than running it again.
 */
const foreignJob = async (userId: string, heartbeat = '0 seconds', reservedUsd: number | null = null) =>
  (
    await query(
      `INSERT INTO generation_jobs (id, user_id, prompt, images, status, attempts, held, heartbeat_at, reserved_usd)
       VALUES ('job_' || gen_random_uuid(), $1, 'p', '[]', 'running', 1, true, now() - $2::interval, $3) RETURNING id`,
      [userId, heartbeat, reservedUsd],
    )
  ).rows[0].id as string;

/** A project whose canvas has one node saved with `isGenerating: true`; returns a reader of that flag on B. */
async function canvasWithGeneratingNode() {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id as string;
  const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p', isGenerating: true } };
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
  return async (client = onB) => {
    const read = await client.get(`/api/user/project/canvas?projectId=${projectId}`);
    expect(read.status).toBe(200);
    return read.json.nodes[0].data.isGenerating as boolean;
  };
}

/** Starts a generation on A whose model call answers `reply` once released; resolves when the call reached the model. */
async function heldGeneration(reply: GeminiReply) {
  let release!: () => void;
  const calls = gemini.requests.length;
  gemini.reply({ ...reply, holdUntil: new Promise<void>((r) => (release = r)) });
  const pending = ada.client.post('/api/image', { images: [await input()], prompt: 'slow' });
  await expect.poll(() => gemini.requests.length, { timeout: 60_000 }).toBe(calls + 1); // the event, not a clock: a busy machine may take seconds
  return { release, pending };
}

describe('isGenerating across instances', () => {
  it('a generation running on A keeps the flag on reads from B; once it ends, B settles it', async () => {
    const isGeneratingOnB = await canvasWithGeneratingNode();
    expect(await isGeneratingOnB()).toBe(false); // nothing running: settled

    const held = await heldGeneration({ kind: 'image', image: await png() });
    expect(await isGeneratingOnB()).toBe(true);
    expect(await isGeneratingOnB(ada.client)).toBe(true); // and on A
    expect(await runningRows()).toBe(1);
    held.release();
    expect((await held.pending).status).toBe(200);
    expect(await isGeneratingOnB()).toBe(false);
    expect(await runningRows()).toBe(0);
  });

  it('a generation that fails ends too: B settles the flag afterwards', async () => {
    const isGeneratingOnB = await canvasWithGeneratingNode();
    const held = await heldGeneration({ kind: 'error', status: 500 });
    expect(await isGeneratingOnB()).toBe(true);
    held.release();
    expect(await held.pending).toMatchObject({ status: 500, json: { error: 'Failed to generate image' } });
    expect(await isGeneratingOnB()).toBe(false);
    expect(await runningRows()).toBe(0);
  });

  it("counts only the user's own running jobs whose heartbeat lives", async () => {
    const isGeneratingOnB = await canvasWithGeneratingNode();
    const bob = await b.user('bob@example.com');
    // The job of an instance that died mid-generation: its heartbeat lapsed, it no longer counts.
    const dead = await foreignJob(ada.id, '1 hour');
    expect(await isGeneratingOnB()).toBe(false);
    // Another user's running job is not ada's.
    const bobs = await foreignJob(bob.id);
    expect(await isGeneratingOnB()).toBe(false);
    // A live job of ada's counts, whichever instance runs it.
    const live = await foreignJob(ada.id);
    expect(await isGeneratingOnB()).toBe(true);
    await query('DELETE FROM generation_jobs WHERE id = ANY($1::text[])', [[dead, bobs, live]]);
    expect(await isGeneratingOnB()).toBe(false);
  });

  it('a session that outlived its user: 401, nothing left running', async () => {
    const eve = await a.user('eve@example.com');
    const calls = gemini.requests.length;
    await query('DELETE FROM users WHERE id = $1', [eve.id]);
    expect(await eve.client.post('/api/image', { images: [await input()], prompt: 'x' })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(gemini.requests.length).toBe(calls);
    expect(await runningRows()).toBe(0);
  });
});

describe('free plan quota across instances', () => {
  /** Sends each request as soon as asked; `statuses` fills as answers arrive. */
  function fire(requests: (() => Promise<{ status: number }>)[]) {
    const statuses: number[] = [];
    const all = Promise.all(requests.map((send) => send().then((r) => (statuses.push(r.status), r))));
    return { statuses, all };
  }

  it('simultaneous requests on two instances cannot pass the quota together; running generations count', async () => {
    const quinn = await c.user('quinn@example.com');
    const onD = new HttpClient(d.baseUrl, quinn.client.jar);
    const body = { images: [await input()], prompt: 'race' };
    let release!: () => void;
    gemini.setDefaultReply({ kind: 'image', image: await png(), holdUntil: new Promise<void>((r) => (release = r)) });
    // The test holds a table lock that checking the quota needs, so all five requests have their jobs running and
    // wait to check before any of them can reserve: without the per-user lock around check and reservation (on the
    // job's row), all five would pass.
    const locker = await a.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE spent_model_calls IN ACCESS EXCLUSIVE MODE');
      const calls = gemini.requests.length;
      const race = fire([0, 1, 2, 3, 4].map((i) => () => (i % 2 ? onD : quinn.client).post('/api/image', body)));
      const waiting = async () =>
        (await query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n as number;
      await expect.poll(waiting, { timeout: 20_000 }).toBe(5);
      await locker.query('COMMIT');
      // Every request has either reached the (held) model or been refused; none has finished generating.
      await expect.poll(() => gemini.requests.length - calls + race.statuses.filter((s) => s === 402).length, { timeout: 20_000 }).toBe(5);
      expect(gemini.requests.length - calls).toBe(2);
      release();
      await race.all;
      expect(race.statuses.sort()).toEqual([200, 200, 402, 402, 402]);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      locker.release();
      release();
      gemini.setDefaultReply({ kind: 'image', image: await png() });
    }
    expect(await runningRows()).toBe(0);
    expect(await onD.post('/api/image', body)).toMatchObject({ status: 402, json: { error: 'Upgrade required' } });
    // A Pro user is not counted.
    await query('UPDATE users SET is_pro = true WHERE id = $1', [quinn.id]);
    expect((await onD.post('/api/image', body)).status).toBe(200);
  });

  it("a running job's reservation counts while its heartbeat lives, and stops counting once it lapses (its instance died)", async () => {
    const lena = await c.user('lena@example.com');
    const body = { images: [await input()], prompt: 'lapse' };
    // A generation of lena's running on an instance that stops: its job holds its place in the quota.
    const other = await foreignJob(lena.id, '0 seconds', 0);
    expect((await lena.client.post('/api/image', body)).status).toBe(200);
    await query('UPDATE generation_jobs SET heartbeat_at = now() WHERE id = $1', [other]); // still beating
    expect(await lena.client.post('/api/image', body)).toMatchObject({ status: 402, json: { error: 'Upgrade required' } });
    // Its instance died: once its heartbeat lapses its reservation counts no more — nothing else holds it.
    await query(`UPDATE generation_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [other]);
    expect((await lena.client.post('/api/image', body)).status).toBe(200);
    expect(await lena.client.post('/api/image', body)).toMatchObject({ status: 402, json: { error: 'Upgrade required' } });
    await query('DELETE FROM generation_jobs WHERE id = $1', [other]);
  });

  it('a generation that fails gives its slot back', async () => {
    const rita = await c.user('rita@example.com');
    const body = { images: [await input()], prompt: 'fail' };
    gemini.reply({ kind: 'error', status: 500 });
    expect((await rita.client.post('/api/image', body)).status).toBe(500);
    expect((await rita.client.post('/api/image', body)).status).toBe(200);
    expect((await rita.client.post('/api/image', body)).status).toBe(200);
    expect((await rita.client.post('/api/image', body)).status).toBe(402);
    expect(await runningRows()).toBe(0);
  });
});
