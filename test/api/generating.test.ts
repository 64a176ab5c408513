// `isGenerating` across instances: a canvas read settles `isGenerating` only when no generation of that user is
// running on any instance. Two apps share one database (`running_generations`); generations go to a fake Gemini
// that answers when the test says so.
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
    GENERATION_LEASE_MS: '6000', // renewed every 2 s
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
const runningRows = async () => (await query('SELECT count(*)::int AS n FROM running_generations')).rows[0].n as number;

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
  await expect.poll(() => gemini.requests.length).toBe(calls + 1);
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

  it("counts only the user's own rows that have not expired, and prunes expired rows", async () => {
    const isGeneratingOnB = await canvasWithGeneratingNode();
    const bob = await b.user('bob@example.com');
    const insert = (userId: string, expires: string) =>
      query(`INSERT INTO running_generations (id, user_id, expires_at) VALUES (gen_random_uuid(), $1, now() + $2::interval) RETURNING id`, [userId, expires]);

    // The row of an instance that died mid-generation: expired, it no longer counts.
    await insert(ada.id, '-1 second');
    expect(await isGeneratingOnB()).toBe(false);
    // Another user's running generation is not ada's.
    const bobs = (await insert(bob.id, '1 hour')).rows[0].id;
    expect(await isGeneratingOnB()).toBe(false);
    // A live row of ada's counts, whichever instance wrote it.
    const live = (await insert(ada.id, '1 hour')).rows[0].id;
    expect(await isGeneratingOnB()).toBe(true);
    await query('DELETE FROM running_generations WHERE id = ANY($1::uuid[])', [[live, bobs]]);
    expect(await isGeneratingOnB()).toBe(false);

    // The next generation to end takes expired rows with it.
    await insert(bob.id, '-1 second');
    expect((await ada.client.post('/api/image', { images: [await input()], prompt: 'quick' })).status).toBe(200);
    expect((await query('SELECT id FROM running_generations')).rows).toEqual([]);
  });

  it('a session that outlived its user: 401, nothing left running', async () => {
    const eve = await a.user('eve@example.com');
    const calls = gemini.requests.length;
    await query('DELETE FROM users WHERE id = $1', [eve.id]);
    expect(await eve.client.post('/api/image', { images: [await input()], prompt: 'x' })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(gemini.requests.length).toBe(calls);
    expect(await runningRows()).toBe(0);
  });

  it('a running row is a lease renewed while the generation runs: a row lost to a stall is written again', async () => {
    const isGeneratingOnB = await canvasWithGeneratingNode();
    const held = await heldGeneration({ kind: 'image', image: await png() });
    try {
      // As if A stalled past its lease and another instance pruned the row.
      await query('DELETE FROM running_generations');
      await expect.poll(() => isGeneratingOnB(), { timeout: 20_000, interval: 200 }).toBe(true);
      const { rows } = await query(`SELECT (expires_at - now()) > interval '1 second' AS ahead FROM running_generations`);
      expect(rows).toEqual([{ ahead: true }]);
    } finally {
      held.release();
    }
    expect((await held.pending).status).toBe(200);
    expect(await isGeneratingOnB()).toBe(false);
    expect(await runningRows()).toBe(0); // no renewal in flight brought it back
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
    // The test holds the table lock that reserving a slot needs, so all five requests check the quota before
    // any of them can reserve: without the per-user lock around check and reservation, all five would pass.
    const locker = await a.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE running_generations IN EXCLUSIVE MODE');
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
