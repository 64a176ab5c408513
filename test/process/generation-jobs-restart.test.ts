// Generation jobs across a kill -9 (docs/api.md "Generation jobs"): the service runs as a real process with one
// running job per user; its first job is held at a fake Gemini, the second waits queued. The process is killed
// with SIGKILL and started again on the same database: the queued job is still there and runs, and the job that
// was running is retried once by the runner when its heartbeat lapses (JOBS_HEARTBEAT_LAPSE_MS, small here), then
// succeeds with 2 attempts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import sharp from 'sharp';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { createCollabRepository } from '../../src/db/repositories/collab.js';
import { freePort } from '../../src/net-utils.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createOwnDatabase } from '../helpers/test-app.js';

let database: { url: string; drop(): Promise<void> };
let gemini: FakeGemini;
let dataDir: string;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  [database, gemini] = await Promise.all([createOwnDatabase(), startFakeGemini({ apiKey: 'k' })]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-jobs-restart-'));
});
afterAll(async () => {
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  await gemini?.close();
  await database?.drop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<HttpClient> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startService({
    PORT: String(port),
    AUTH_URL: url,
    AUTH_SECRET: 'jobs-restart-test-secret-0123456789abcdef',
    DATA_DIR: dataDir,
    DATABASE_CONNECTION_STRING: database.url,
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'k',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    JOBS_RUNNING_PER_USER: '1',
    JOBS_HEARTBEAT_MS: '100',
    JOBS_HEARTBEAT_LAPSE_MS: '600',
    ...env,
  });
  procs.push(proc);
  await proc.waitFor('Image Canvas is serving');
  const client = new HttpClient(url);
  await signIn(client, 'ada@example.com', 'Ada');
  return client;
}

/** Reads the job until `done` holds (bounded by the test's timeout; each read is a request, no fixed delays). */
async function until(client: HttpClient, id: string, done: (job: Record<string, unknown>) => boolean) {
  let job: Record<string, unknown> = {};
  await expect.poll(async () => done((job = (await client.get(`/api/generations/${id}`)).json)), { timeout: 40_000, interval: 100 }).toBe(true);
  return job;
}

describe('generation jobs across kill -9', () => {
  it('keeps a queued job, runs it after the restart, and retries the job that was running once', { timeout: 90_000 }, async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer();
    const input = `data:image/png;base64,${image.toString('base64')}`;
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });

    const first = await start();
    const running = await first.post('/api/generations', { images: [input], prompt: 'one' });
    expect(running.status).toBe(202);
    await expect.poll(() => gemini.requests.length, { timeout: 20_000, interval: 50 }).toBe(1); // held at the model
    const queued = await first.post('/api/generations', { images: [input], prompt: 'two' });
    expect(queued.json).toMatchObject({ status: 'queued', queuePosition: 1 });

    procs[0].child.kill('SIGKILL');
    await procs[0].exited;
    gemini.setDefaultReply({ kind: 'image', image }); // from now on the model answers at once
    release();

    const second = await start();
    // It survived the crash: still queued, or already taken by the new instance (it may start as soon as the dead
    // run's heartbeat lapses) — never failed.
    expect(['queued', 'running', 'succeeded']).toContain((await second.get(`/api/generations/${queued.json.id}`)).json.status);
    const retried = await until(second, running.json.id, (j) => j.status === 'succeeded' || j.status === 'failed');
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2, output: { imageUrl: expect.any(String) } });
    const ran = await until(second, queued.json.id, (j) => j.status === 'succeeded' || j.status === 'failed');
    expect(ran).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(gemini.requests.length).toBe(3); // the first job twice (its retry), the second once
  });

  it('SIGTERM hands a running job back to the queue (its node shows it queued, not failed) and exits 0; the next start runs it', { timeout: 90_000 }, async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c63' } }).png().toBuffer();
    const input = `data:image/png;base64,${image.toString('base64')}`;
    let release = () => {};
    gemini.setDefaultReply({ kind: 'image', image, holdUntil: new Promise<void>((r) => (release = r)) });
    // Only the instance this test starts may take the job: the earlier test's instances (same database) are stopped.
    for (const p of procs) p.kill();
    await Promise.all(procs.map((p) => p.exited));
    // A long grace: the exit must come from the drain, well before it.
    const ownDir = (name: string) => path.join(dataDir, name);
    const first = await start({ SHUTDOWN_GRACE_MS: '60000', DATA_DIR: ownDir('drain-1') });
    const proc = procs.at(-1)!;
    const projectId = (await first.post('/api/user/project', { userId: 'ada@example.com', name: 'Drained' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
    expect((await first.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [], version: 0 })).status).toBe(200);
    const calls = gemini.requests.length;
    const made = await first.post('/api/generations', { images: [input], prompt: 'drained', projectId, nodeId: 'g' });
    expect(made.status, made.text).toBe(202);
    await expect.poll(() => gemini.requests.length, { timeout: 20_000, interval: 50 }).toBe(calls + 1); // held at the model

    proc.child.kill('SIGTERM');
    expect(await proc.exited, proc.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(proc.output(), proc.output().split('\n').filter((l) => !l.includes('request')).slice(-25).join('\n')).toContain('a running job is handed back to the queue');
    const db = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const { rows } = await db.query('SELECT status, attempts, heartbeat_at FROM generation_jobs WHERE id = $1', [made.json.id]);
      expect(rows).toEqual([{ status: 'queued', attempts: 0, heartbeat_at: null }]);
      // The node, as stored: the job queued again, still generating, no error.
      const stored = await createCollabRepository(drizzle(db)).load(projectId);
      const doc = new Y.Doc();
      for (const update of [...(stored.snapshot ? [stored.snapshot] : []), ...stored.updates]) Y.applyUpdate(doc, update);
      const data = (canvasMaps(doc).nodes.get('g') as Y.Map<unknown>).get('data') as Y.Map<unknown>;
      expect(data.toJSON()).toMatchObject({ isGenerating: true, job: { id: made.json.id, status: 'queued' } });
      expect(data.has('error')).toBe(false);
    } finally {
      await db.end();
    }

    gemini.setDefaultReply({ kind: 'image', image });
    release();
    const second = await start({ DATA_DIR: ownDir('drain-2') });
    const ran = await until(second, made.json.id, (j) => j.status === 'succeeded' || j.status === 'failed');
    expect(ran).toMatchObject({ status: 'succeeded', attempts: 1 }); // the handed-back run is not counted
  });
});
