// An object-store outage during a generation (issue 32): the store is a real Azurite that the test stops. Reading a
// stored input or storing the result then fails as `503 Storage unavailable` — on POST /api/image, in the job, and
// in the job's node — never as a `400 Invalid image` blaming the input.
import sharp from 'sharp';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { startAzurite, type AzuriteHandle } from '../helpers/azurite.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let azurite: AzuriteHandle;
let ada: { client: HttpClient; id: string };
const live: LiveClient[] = [];

beforeAll(async () => {
  azurite = await startAzurite();
  t = await startTestApp({ OBJECT_STORAGE_CONNECTION_STRING: azurite.connectionString, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
  ada = await t.user('ada@example.com');
});
afterAll(async () => {
  for (const l of live) l.close();
  await t?.close();
  await azurite?.stop();
});

const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;
const unavailable = { error: 'Storage unavailable', details: expect.any(String) };

describe('an object-store outage during a generation', () => {
  it('is 503 Storage unavailable on POST /api/image, in the job and in its node, never 400 Invalid image', async () => {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#c36' } }).png().toBuffer();
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    // While the store is up: an image of ours in it, and a node to generate into.
    const made = await ada.client.post('/api/image', { images: [dataUrl], prompt: 'grayscale' });
    expect(made.status, made.text).toBe(200);
    const stored = made.json.imageUrl as string;
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Outage' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [], version: 0 })).status).toBe(200);
    const watcher = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    live.push(watcher);
    await watcher.saved();

    await azurite.stop();

    // A stored input that cannot be read: the store's fault, not the input's.
    const read = await ada.client.post('/api/image', { images: [stored], prompt: 'grayscale' });
    expect(read.status, read.text).toBe(503);
    expect(read.json).toEqual(unavailable);
    // A data-URL input is read, but the result cannot be stored.
    const write = await ada.client.post('/api/image', { images: [dataUrl], prompt: 'grayscale' });
    expect(write.status, write.text).toBe(503);
    expect(write.json).toEqual(unavailable);

    // The same as a job into a node: failed with 503, and the node says so.
    const queued = await ada.client.post('/api/generations', { images: [stored], prompt: 'grayscale', projectId, nodeId: 'g' });
    expect(queued.status, queued.text).toBe(202);
    const job = await untilJob(ada.client, queued.json.id as string);
    expect(job).toMatchObject({ status: 'failed', error: { status: 503, ...unavailable } });
    await docWhere(watcher.doc, (d) => dataOf(d, 'g')?.get('isGenerating') === false && dataOf(d, 'g')?.get('error') !== undefined);
    expect(dataOf(watcher.doc, 'g')?.get('error')).toBe('Storage unavailable');
  });
});
