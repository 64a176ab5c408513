// Faults: the real dependency is stopped and started again. The service answers clearly meanwhile, loses
// nothing it acknowledged, and recovers by itself.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/net-utils.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { startAzurite, type AzuriteHandle } from '../helpers/azurite.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { countRows, createTestDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});
const tempDir = async (prefix: string) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o755);
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
};
const png = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#a33' } }).png().toBuffer();
const dataUrl = async () => `data:image/png;base64,${(await png()).toString('base64')}`;
function uploadForm(bytes: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'x.png');
  return form;
}
/** Bounded wait for a condition that another process makes true (no fixed sleeps). */
async function until(what: string, done: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 2_400; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('faults', () => {
  it('PostgreSQL stopped: 503 Service unavailable and /api/ready 503, no job queued; recovers without a restart, acknowledged jobs kept', async () => {
    const dir = await tempDir('image-canvas-fault-pg-');
    const port = await freePort();
    const options = { dir: path.join(dir, 'pg'), password: 'fault-password', database: 'faults', log: () => {}, port };
    let server: EmbeddedPostgres = await startEmbeddedPostgres(options);
    cleanups.push(() => server.stop());
    const t: TestApp = await startTestApp({ DATABASE_CONNECTION_STRING: server.url }, 'embedded');
    cleanups.push(() => t.close());
    const ada = await t.user('ada@example.com');
    const project = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Kept' })).json;
    const jobState = async (id: string) => (await ada.client.get(`/api/generations/${id}`)).json as { status: string; output: { imageUrl: string } | null };
    const acknowledged = await ada.client.post('/api/generations', { images: [await dataUrl()], prompt: 'grayscale' });
    expect(acknowledged.status, acknowledged.text).toBe(202);
    await until('the acknowledged job to succeed', async () => (await jobState(acknowledged.json.id)).status === 'succeeded');
    const kept = await jobState(acknowledged.json.id);

    await server.stop();
    expect(await t.client().get('/api/ready')).toMatchObject({ status: 503, json: { checks: { database: 'unavailable' } } });
    expect(await ada.client.get(`/api/user/project?userId=${ada.id}`)).toMatchObject({ status: 503, json: { error: 'Service unavailable' } });
    expect(await ada.client.post('/api/user/project/canvas', { projectId: project.id, nodes: [], edges: [] })).toMatchObject({ status: 503, json: { error: 'Service unavailable' } });
    // A generation is a job, recorded before anything else: it cannot start either.
    expect(await ada.client.post('/api/image', { images: [await dataUrl()], prompt: 'x' })).toMatchObject({ status: 503, json: { error: 'Service unavailable' } });
    // A job cannot be queued: 503, and nothing of it is found once the database is back.
    expect(await ada.client.post('/api/generations', { images: [await dataUrl()], prompt: 'refused while down' })).toMatchObject({ status: 503, json: { error: 'Service unavailable' } });
    expect((await ada.client.get('/api/user/session')).status).toBe(200); // sessions need no database

    server = await startEmbeddedPostgres(options); // same folder, same port
    expect((await t.client().get('/api/ready')).status).toBe(200);
    const projects = await ada.client.get(`/api/user/project?userId=${ada.id}`);
    expect(projects.status).toBe(200);
    expect(projects.json.map((p: { id: string }) => p.id)).toContain(project.id);
    // The job acknowledged before the outage is as it was; none of the refused one was stored; the queue and the
    // event listener came back by themselves: a new job runs to the end.
    expect(await jobState(acknowledged.json.id)).toEqual(kept);
    const jobs = (await ada.client.get('/api/generations')).json.items as { id: string; status: string }[];
    expect(jobs.map((j) => j.id)).toEqual([acknowledged.json.id]);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM generation_jobs WHERE prompt = 'refused while down'")).rows[0].n).toBe(0);
    const after = await ada.client.post('/api/generations', { images: [await dataUrl()], prompt: 'grayscale' });
    expect(after.status, after.text).toBe(202);
    await until('a job queued after the outage to succeed', async () => (await jobState(after.json.id)).status === 'succeeded');
  });

  it('Azurite stopped: upload 503 Storage unavailable, generation 503 Storage unavailable with nothing recorded; recovers', async () => {
    const location = await tempDir('image-canvas-fault-azurite-');
    const port = await freePort();
    let azurite: AzuriteHandle = await startAzurite({ port, location });
    cleanups.push(() => azurite.stop());
    const t = await startTestApp({ OBJECT_STORAGE_CONNECTION_STRING: azurite.connectionString });
    cleanups.push(() => t.close());
    const ada = await t.user('ada@example.com');
    const before = await ada.client.request('/api/upload', { method: 'POST', body: uploadForm(await png()) });
    expect(before.status).toBe(200);

    await azurite.stop();
    expect(await ada.client.request('/api/upload', { method: 'POST', body: uploadForm(await png()) })).toMatchObject({ status: 503, json: { error: 'Storage unavailable' } });
    const failed = await ada.client.post('/api/image', { images: [await dataUrl()], prompt: 'grayscale' });
    expect(failed).toMatchObject({ status: 503, json: { error: 'Storage unavailable' } }); // the store's outage, never the input's fault (issue 32)
    expect(await countRows(t, 'generations')).toBe(0);
    expect((await t.client().get('/api/ready')).json.checks.storage).toBe('unavailable');

    azurite = await startAzurite({ port, location });
    expect((await t.client().get('/api/ready')).status).toBe(200);
    expect((await ada.client.request('/api/upload', { method: 'POST', body: uploadForm(await png()) })).status).toBe(200);
    expect((await ada.client.post('/api/image', { images: [before.json.url], prompt: 'grayscale' })).status).toBe(200);
    expect(await countRows(t, 'generations')).toBe(1);
    expect((await fetch(before.json.url)).status).toBe(200); // stored before the outage, still there
  });

  it('SIGTERM during a generation: it finishes, is stored and answered before the process exits', async () => {
    const gemini: FakeGemini = await startFakeGemini({ apiKey: 'k' });
    cleanups.push(() => gemini.close());
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const port = await freePort();
    const proc: ServiceProcess = startService({
      PORT: String(port),
      DATA_DIR: await tempDir('image-canvas-fault-term-'),
      DATABASE_CONNECTION_STRING: database.url,
      IMAGE_MODEL: 'gemini-2.5-flash-image',
      IMAGE_MODEL_API_KEY: 'k',
      IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    });
    cleanups.push(async () => proc.kill());
    await proc.waitFor('Image Canvas is serving');
    const client = new HttpClient(`http://localhost:${port}`);
    await signIn(client, 'ada@example.com', 'Ada');

    let release!: () => void;
    gemini.reply({ kind: 'image', image: await png(), holdUntil: new Promise<void>((r) => (release = r)) });
    const pending = client.post('/api/image', { images: [await dataUrl()], prompt: 'slow' });
    await until('the model call to start', () => gemini.requests.length === 1);
    proc.child.kill('SIGTERM');
    await proc.waitFor('SIGTERM: finishing in-flight requests');
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    const exit = await proc.exited;
    expect(exit, proc.output().split('\n').filter((l) => /SIGTERM|grace|error|Error|close/.test(l)).join('\n').slice(-3000)).toEqual({ code: 0, signal: null });
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const { rows } = await db.query('SELECT output_image_url FROM generations');
    await db.end();
    expect(rows.map((r) => r.output_image_url)).toEqual([res.json.imageUrl]);
  });

  it('kill -9 during canvas saves: every save answered 200 is in the database after the restart', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: await tempDir('image-canvas-fault-kill-'), DATABASE_CONNECTION_STRING: database.url, AUTH_SECRET: 'kill-test-secret-0123456789abcdefghij' };
    const proc = startService(env);
    cleanups.push(async () => proc.kill());
    await proc.waitFor('Image Canvas is serving');
    const client = new HttpClient(`http://localhost:${port}`);
    await signIn(client, 'ada@example.com', 'Ada');
    const me = (await client.get('/api/user')).json;
    const projects: string[] = [];
    for (let i = 0; i < 4; i++) projects.push((await client.post('/api/user/project', { userId: me.id, name: `p${i}` })).json.id);

    // Four editors save as fast as they can; the process is killed while saves are in flight.
    const acknowledged = new Map<string, number>();
    let killed = false;
    const editor = async (projectId: string) => {
      let version = 0;
      while (!killed) {
        const nodes = [{ id: 'n', type: 'upload', position: { x: version, y: 0 }, data: { type: 'upload' } }];
        const res = await client.post('/api/user/project/canvas', { projectId, nodes, edges: [], version }).catch(() => undefined);
        if (res?.status !== 200) break;
        version = res.json.version;
        acknowledged.set(projectId, version);
      }
    };
    const editors = projects.map(editor);
    await until('some saves to be acknowledged', () => [...acknowledged.values()].reduce((a, b) => a + b, 0) >= 40);
    proc.child.kill('SIGKILL');
    killed = true;
    await Promise.all(editors);
    await proc.exited;

    const restarted = startService(env);
    cleanups.push(async () => restarted.kill());
    await restarted.waitFor('Image Canvas is serving');
    for (const projectId of projects) {
      const stored = await client.get(`/api/user/project/canvas?projectId=${projectId}`);
      expect(stored.status).toBe(200);
      expect(stored.json.version).toBeGreaterThanOrEqual(acknowledged.get(projectId) ?? 0);
      expect(stored.json.nodes[0].position.x).toBe(stored.json.version - 1);
    }
  });
});
