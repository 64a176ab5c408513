// DESIGN.md §6 across instances: a canvas read settles `isGenerating` only when no generation of that user is
// running on any instance. Two apps share one database (`running_generations`); generations go to a fake Gemini
// that answers when the test says so.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { startFakeGemini, type FakeGemini, type GeminiReply } from '../fakes/gemini-server.js';
import { HttpClient } from '../helpers/http-client.js';
import { createTestDatabase, dbMode, startTestApp, type TestApp } from '../helpers/test-app.js';

/** One database for both apps: a fresh one on the harness's server, or an embedded server of our own. */
async function sharedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (dbMode() === 'external') return createTestDatabase();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-shared-pg-'));
  await fs.chmod(dir, 0o755); // the embedded server runs as the `postgres` user when we are root
  const server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), password: 'shared-password', database: 'shared', log: () => {} });
  return {
    url: server.url,
    async drop() {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

let database: { url: string; drop(): Promise<void> };
let gemini: FakeGemini;
let a: TestApp;
let b: TestApp;
let ada: { client: HttpClient; id: string };
let onB: HttpClient;

beforeAll(async () => {
  [database, gemini] = await Promise.all([sharedDatabase(), startFakeGemini({ apiKey: 'k' })]);
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
  ada = await a.user('ada@example.com');
  onB = new HttpClient(b.baseUrl, ada.client.jar); // the same browser, the other instance
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await gemini?.close();
  await database?.drop();
});

const png = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a3' } }).png().toBuffer();
const input = async () => `data:image/png;base64,${(await png()).toString('base64')}`;
const query = (text: string, values: unknown[] = []) => a.app.database.pool.query(text, values);
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

describe('isGenerating across instances (DESIGN.md §6)', () => {
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
});
