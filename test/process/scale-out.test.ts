// Two instances of the service (separate processes) on one PostgreSQL and one object store (Azurite) behave
// as one: a session from one works on the other, canvas versions protect saves across them, and rate limits
// are shared (RATE_LIMIT_STORE=postgres).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net-utils.js';
import { startAzurite, type AzuriteHandle } from '../helpers/azurite.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createTestDatabase } from '../helpers/test-app.js';

let azurite: AzuriteHandle;
let database: { url: string; drop(): Promise<void> };
const dirs: string[] = [];
const instances: Array<{ proc: ServiceProcess; url: string }> = [];

beforeAll(async () => {
  [azurite, database] = await Promise.all([startAzurite(), createTestDatabase()]);
  const secret = 'scale-out-test-secret-0123456789abcdef';
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-scale-'));
    dirs.push(dataDir);
    const url = `http://127.0.0.1:${port}`;
    const proc = startService({
      PORT: String(port),
      AUTH_URL: url,
      AUTH_SECRET: secret,
      DATA_DIR: dataDir,
      DATABASE_CONNECTION_STRING: database.url,
      OBJECT_STORAGE_CONNECTION_STRING: azurite.connectionString,
      RATE_LIMIT_STORE: 'postgres',
      RATE_LIMIT_UPLOADS_PER_MINUTE: '4',
    });
    instances.push({ proc, url });
  }
  // Both start at once: migrations run under an advisory lock, the container is created if missing.
  await Promise.all(instances.map((i) => i.proc.waitFor('Image Canvas is serving')));
});

afterAll(async () => {
  for (const i of instances) i.proc.kill();
  await Promise.all(instances.map((i) => i.proc.exited));
  await azurite?.stop();
  await database?.drop();
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

const png = (r: number) => sharp({ create: { width: 20, height: 20, channels: 3, background: { r, g: 100, b: 50 } } }).png().toBuffer();
function uploadForm(bytes: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'x.png');
  return form;
}

describe('two instances on one database and one store', () => {
  it('share sessions, data, canvas versions and rate limits', async () => {
    const [a, b] = instances.map((i) => i.url);
    const onA = new HttpClient(a);
    await signIn(onA, 'ada@example.com', 'Ada');
    const onB = new HttpClient(b, onA.jar); // the same browser, the other instance

    // A session made on A works on B.
    const meA = (await onA.get('/api/user')).json;
    const meB = await onB.get('/api/user');
    expect(meB.status).toBe(200);
    expect(meB.json.id).toBe(meA.id);

    // Projects and canvases made on B are there on A.
    const project = (await onB.post('/api/user/project', { userId: meA.id, name: 'Shared' })).json;
    expect((await onA.get(`/api/user/project?userId=${meA.id}`)).json.map((p: { id: string }) => p.id)).toContain(project.id);
    const v1 = await onB.post('/api/user/project/canvas', { projectId: project.id, nodes: [], edges: [], version: 0 });
    expect(v1.json.version).toBe(1);
    const node = { id: 'n', type: 'upload', position: { x: 1, y: 1 }, data: { type: 'upload' } };
    const v2 = await onA.post('/api/user/project/canvas', { projectId: project.id, nodes: [node], edges: [], version: 1 });
    expect(v2.json.version).toBe(2);
    // A stale save on the other instance is refused, and the newer canvas stays.
    const stale = await onB.post('/api/user/project/canvas', { projectId: project.id, nodes: [], edges: [], version: 1 });
    expect(stale).toMatchObject({ status: 409, json: { error: 'Canvas was changed elsewhere', version: 2 } });
    expect((await onB.get(`/api/user/project/canvas?projectId=${project.id}`)).json.nodes).toEqual([node]);

    // Upload on B, generate on A from B's upload, read the record on B.
    const uploaded = await onB.request('/api/upload', { method: 'POST', body: uploadForm(await png(200)) });
    expect(uploaded.status).toBe(200);
    expect(uploaded.json.url).toContain('/devstoreaccount1/images/');
    const generated = await onA.post('/api/image', { images: [uploaded.json.url], prompt: 'grayscale' });
    expect(generated.status).toBe(200);
    expect((await fetch(generated.json.imageUrl)).status).toBe(200);
    expect((await onB.get('/api/user/generations')).json.items[0].outputImageUrl).toBe(generated.json.imageUrl);

    // The upload limit (4 a minute) is counted across both instances: 1 done on B, 2 on A, 1 on B, then none.
    for (const client of [onA, onA, onB]) expect((await client.request('/api/upload', { method: 'POST', body: uploadForm(await png(1)) })).status).toBe(200);
    const limitedA = await onA.request('/api/upload', { method: 'POST', body: uploadForm(await png(2)) });
    expect(limitedA).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect((await onB.request('/api/upload', { method: 'POST', body: uploadForm(await png(3)) })).status).toBe(429);
  });
});
