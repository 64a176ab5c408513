// Generations in flight per user (GENERATIONS_IN_FLIGHT_PER_USER, docs/api.md "Image generation"): a user may
// have that many generations running at once, counted across instances (their running job rows whose runner's
// heartbeat is alive); one more is 429 with Retry-After, before any model call and with nothing stored. Two instances share one database; a third on it runs
// without the limit. The model is an in-process ImageModel whose calls wait until the test releases them.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult, ImageModel } from '../../src/models/index.js';
import { HttpClient } from '../helpers/http-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * An image model that answers the first input image: at once, or, for the `n` calls after `hold(n)`, once the
 * test calls `release()` (a call beyond those answers at once, so a request that should have been refused fails
 * the test quickly instead of hanging). `reached(n)` resolves once `n` calls in all have reached it: the event
 * the test waits for, never a timer.
 */
function heldModel() {
  let calls = 0;
  let toHold = 0;
  let gate = Promise.resolve();
  let open = () => {};
  const waiting: { n: number; resolve: () => void }[] = [];
  const model: ImageModel = {
    id: 'held',
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      calls++;
      for (const w of waiting.filter((x) => calls >= x.n)) w.resolve();
      if (toHold > 0) {
        toHold--;
        await gate;
      }
      return { image: req.images[0], text: 'held' };
    },
  };
  return {
    model,
    get calls() {
      return calls;
    },
    /** The next `n` calls wait until `release()`. */
    hold(n: number) {
      toHold = n;
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    /** Lets every waiting call answer. */
    release() {
      toHold = 0;
      open();
    },
    reached(n: number): Promise<void> {
      return calls >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    },
  };
}

const held = heldModel();
let database: { url: string; drop(): Promise<void> };
let a: TestApp;
let b: TestApp;
let unlimited: TestApp;
let body: { images: string[]; prompt: string };

beforeAll(async () => {
  database = await createOwnDatabase();
  const env = {
    DATABASE_CONNECTION_STRING: database.url,
    AUTH_SECRET: 'in-flight-test-secret-0123456789abcdef',
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
  };
  // GENERATIONS_IN_FLIGHT_PER_USER left at its default (2) on A and B.
  a = await startTestApp(env, 'embedded', { imageModel: held.model }); // 'embedded': the env names the shared database
  b = await startTestApp(env, 'embedded', { imageModel: held.model });
  unlimited = await startTestApp({ ...env, GENERATIONS_IN_FLIGHT_PER_USER: '0' }, 'embedded', { imageModel: held.model });
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c63' } }).png().toBuffer();
  body = { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'hold on' };
});
afterAll(async () => {
  held.release();
  await a?.close();
  await b?.close();
  await unlimited?.close();
  await database?.drop();
});

const runningOf = async (userId: string) =>
  (await a.pool.query("SELECT count(*)::int AS n FROM generation_jobs WHERE user_id = $1 AND status = 'running'", [userId])).rows[0].n as number;
const jobsOf = async (userId: string) => (await a.pool.query('SELECT count(*)::int AS n FROM generation_jobs WHERE user_id = $1', [userId])).rows[0].n as number;
const generationsOf = async (userId: string) => (await a.pool.query('SELECT count(*)::int AS n FROM generations WHERE user_id = $1', [userId])).rows[0].n as number;

describe('generations in flight per user', () => {
  it('with the default limit of 2, across instances: a third is 429 with Retry-After and reaches no model; others are not held up', async () => {
    const ada = await a.user('ada@example.com');
    const adaOnB = new HttpClient(b.baseUrl, ada.client.jar); // the same browser, the other instance
    const bob = await b.user('bob@example.com');
    const calls = held.calls;
    held.hold(2);
    try {
      const first = ada.client.post('/api/image', body);
      const second = adaOnB.post('/api/image', body);
      await held.reached(calls + 2);
      expect(await runningOf(ada.id)).toBe(2);

      for (const client of [ada.client, adaOnB]) {
        const third = await client.post('/api/image', body);
        expect(third.status).toBe(429);
        expect(third.headers.get('retry-after')).toBe('5');
        expect(third.json).toEqual({ error: 'Too many generations in flight', details: 'at most 2 of your generations run at once; wait for one to finish' });
      }
      expect(held.calls).toBe(calls + 2); // the refused requests reached no model
      expect(await runningOf(ada.id)).toBe(2); // and hold nothing
      expect(await jobsOf(ada.id)).toBe(2); // nor are they jobs

      // Another user is not held up by ada's limit: bob generates while ada's two are still running.
      expect((await bob.client.post('/api/image', body)).status).toBe(200);
      expect(held.calls).toBe(calls + 3);

      held.release();
      for (const res of await Promise.all([first, second])) expect(res.status).toBe(200);
    } finally {
      held.release();
    }
    expect(await generationsOf(ada.id)).toBe(2); // the refused ones recorded nothing
    expect(await runningOf(ada.id)).toBe(0);
    // Once ada's generations have finished, she may generate again.
    expect((await ada.client.post('/api/image', body)).status).toBe(200);
    expect(held.calls).toBe(calls + 4);
  });

  it('a running job whose heartbeat lapsed (an instance that died) does not count', async () => {
    const cy = await a.user('cy@example.com');
    // Rows as a dead instance leaves them: running, their last heartbeat an hour old (the lapse is 30 s by default).
    const insert = (beat: string) =>
      a.pool.query(
        `INSERT INTO generation_jobs (id, user_id, prompt, images, status, attempts, held, heartbeat_at, created_at)
         VALUES ('job_' || gen_random_uuid(), $1, 'p', '[]', 'running', 1, true, now() + $2::interval, now() - interval '2 hours')`,
        [cy.id, beat],
      );
    await insert('-1 hour');
    await insert('-1 hour');
    expect((await cy.client.post('/api/image', body)).status).toBe(200);
    await insert('1 hour');
    await insert('1 hour');
    expect((await cy.client.post('/api/image', body)).status).toBe(429);
    await a.pool.query('DELETE FROM generation_jobs WHERE user_id = $1', [cy.id]);
  });

  it('with GENERATIONS_IN_FLIGHT_PER_USER=0 there is no limit: three at once all run', async () => {
    const dee = await unlimited.user('dee@example.com');
    const calls = held.calls;
    held.hold(3);
    const pending = [0, 1, 2].map(() => dee.client.post('/api/image', body));
    try {
      await held.reached(calls + 3);
      expect(await runningOf(dee.id)).toBe(3);
    } finally {
      held.release();
    }
    expect((await Promise.all(pending)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await generationsOf(dee.id)).toBe(3);
  });
});
