// Jobs across a kill -9 (docs/api.md "Generation jobs", issue 32's defects): the service runs as a real process
// against a fake Gemini that holds its answers, is killed with SIGKILL and started again on the same database, with a
// small heartbeat (JOBS_HEARTBEAT_MS, JOBS_HEARTBEAT_LAPSE_MS) so a dead instance's jobs lapse quickly. Every wait is
// for the jobs' own events (test/helpers/jobs.ts untilJob), never a clock.
//  - A user's queued jobs stay queued and all run after the restart: the dead instance's running jobs count against
//    no limit (neither JOBS_RUNNING_PER_USER nor GENERATIONS_IN_FLIGHT_PER_USER) and are retried once — no job fails
//    with 429 Too many generations in flight; nor do their reservations of the free quota (FREE_GENERATIONS_PER_DAY:
//    five, exactly the user's jobs), which count only while their heartbeat lives — no job fails with 402.
//  - A POST /api/image cut by the kill is failed with a reason once its heartbeat lapses (not minutes later).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net-utils.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { settled, untilJob } from '../helpers/jobs.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createOwnDatabase } from '../helpers/test-app.js';

let database: { url: string; drop(): Promise<void> };
let gemini: FakeGemini;
let dataDir: string;
let input: string;
let image: Buffer;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  [database, gemini] = await Promise.all([createOwnDatabase(), startFakeGemini({ apiKey: 'k' })]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-jobs-kill-'));
  image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#693' } }).png().toBuffer();
  input = `data:image/png;base64,${image.toString('base64')}`;
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

async function start(email: string): Promise<{ client: HttpClient; proc: ServiceProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startService({
    PORT: String(port),
    AUTH_URL: url,
    AUTH_SECRET: 'jobs-kill-test-secret-0123456789abcdef',
    DATA_DIR: dataDir,
    DATABASE_CONNECTION_STRING: database.url,
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'k',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '0',
    // The defaults of both per-user limits: 2 running at once.
    JOBS_RUNNING_PER_USER: '2',
    GENERATIONS_IN_FLIGHT_PER_USER: '2',
    JOBS_HEARTBEAT_MS: '100',
    JOBS_HEARTBEAT_LAPSE_MS: '600',
    // The free quota: a user's five jobs fit exactly, if a dead instance's reservations stop counting.
    FREE_GENERATIONS_PER_DAY: '5',
  });
  procs.push(proc);
  await proc.waitFor('Image Canvas is serving');
  const client = new HttpClient(url);
  await signIn(client, email, 'Ada');
  return { client, proc };
}

/** Kills the process with SIGKILL, with the model still holding its calls, and lets the model answer at once from now on. */
async function killHolding(proc: ServiceProcess, release: () => void) {
  proc.child.kill('SIGKILL');
  await proc.exited;
  gemini.setDefaultReply({ kind: 'image', image });
  release();
}

describe('jobs across kill -9', () => {
  it("keeps a user's queued jobs queued and runs all of them after the restart: none fails with 429 nor 402", { timeout: 120_000 }, async () => {
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });
    const calls = gemini.requests.length;
    const { client: first, proc } = await start('ada@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await first.post('/api/generations', { images: [input], prompt: `job ${i}` });
      expect(res.status, res.text).toBe(202);
      ids.push(res.json.id as string);
    }
    // Two run (held at the model), three wait.
    for (const id of ids.slice(0, 2)) await untilJob(first, id, (j) => j.status === 'running');
    await expect.poll(() => gemini.requests.length - calls, { timeout: 20_000, interval: 50 }).toBe(2);
    for (const id of ids.slice(2)) expect((await first.get(`/api/generations/${id}`)).json).toMatchObject({ status: 'queued' });

    await killHolding(proc, release);

    const { client: second } = await start('ada@example.com');
    const ended = [];
    for (const id of ids) ended.push(await untilJob(second, id, settled));
    for (const job of ended) expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'succeeded', output: { imageUrl: expect.any(String) } });
    expect(ended.map((j) => j.attempts)).toEqual([2, 2, 1, 1, 1]); // the two cut by the kill were retried once
  });

  it('fails a POST /api/image cut by kill -9 with a reason once its heartbeat lapses', { timeout: 120_000 }, async () => {
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });
    const calls = gemini.requests.length;
    const { client: first, proc } = await start('bea@example.com');
    const pending = first.post('/api/image', { images: [input], prompt: 'held' }).catch((err: unknown) => err);
    await expect.poll(() => gemini.requests.length - calls, { timeout: 20_000, interval: 50 }).toBe(1);
    const listed = (await first.get('/api/generations')).json.items as Array<{ id: string; status: string }>;
    expect(listed).toHaveLength(1);
    expect(listed[0].status).toBe('running');

    await killHolding(proc, release);
    await pending; // its connection died with the process

    const { client: second } = await start('bea@example.com');
    const job = await untilJob(second, listed[0].id, settled);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { status: 500, error: 'Failed to generate image', details: 'the instance running the job stopped' } });
  });
});
