// Generation state in the live document (docs/api.md "Image generation"): a generation with `projectId` and
// `nodeId` shows `isGenerating`, then the `image` or an `error`, to every live editor; only owners and editors may
// ask for one; an old-style request is unchanged; a node left generating by a dead instance is settled once its
// job's heartbeat lapses. Generations go to a fake Gemini that answers when the test says so.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { INTERRUPTED } from '../../src/jobs/node-state.js';
import { startFakeGemini, type FakeGemini, type GeminiReply } from '../fakes/gemini-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let gemini: FakeGemini;
let ada: Who; // owner
let bob: Who; // editor
let vic: Who; // viewer
let eve: Who; // no role
const open: LiveClient[] = [];

beforeAll(async () => {
  gemini = await startFakeGemini({ apiKey: 'k' });
  t = await startTestApp({
    IMAGE_MODEL: 'gemini-2.5-flash-image',
    IMAGE_MODEL_API_KEY: 'k',
    IMAGE_MODEL_BASE_URL: gemini.baseUrl,
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    JOBS_HEARTBEAT_MS: '100', // lapsed jobs are looked for ten times a second
    JOBS_HEARTBEAT_LAPSE_MS: '1000',
  });
  [ada, bob, vic, eve] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com'), t.user('vic@example.com'), t.user('eve@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
  await gemini?.close();
});

const png = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a3' } }).png().toBuffer();
const input = async () => `data:image/png;base64,${(await png()).toString('base64')}`;
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;
const field = (doc: Y.Doc, id: string, key: string) => dataOf(doc, id)?.get(key);
/** The running jobs (a generation is its job: running while it runs, whichever instance runs it). */
const runningRows = async () => (await t.pool.query(`SELECT project_id, node_id FROM generation_jobs WHERE status = 'running'`)).rows as Array<{ project_id: string | null; node_id: string | null }>;
/** A job as an instance that died left it: running into node `g`, its last heartbeat an hour old. */
const deadJob = async (userId: string, projectId: string) =>
  (
    await t.pool.query(
      `INSERT INTO generation_jobs (id, user_id, project_id, node_id, prompt, images, status, attempts, held, heartbeat_at)
       VALUES ('job_' || gen_random_uuid(), $1, $2, 'g', 'p', '[]', 'running', 1, true, now() - interval '1 hour') RETURNING id`,
      [userId, projectId],
    )
  ).rows[0].id as string;
const statusOf = async (jobId: string) => (await t.pool.query('SELECT status FROM generation_jobs WHERE id = $1', [jobId])).rows[0].status as string;

/** A project of ada's, bob editor and vic viewer, with node `g`, and ada connected live to it. */
async function sharedProject() {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Live generation' })).json.id as string;
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' });
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('g')], edges: [], version: 0 })).status).toBe(200);
  const editor = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
  open.push(editor);
  await editor.saved();
  expect(field(editor.doc, 'g', 'prompt')).toBe('p');
  return { projectId, editor };
}

/** Starts bob's generation (body `extra` added) whose model call answers `reply` once released; resolves when it reached the model. */
async function heldGeneration(extra: object, reply: GeminiReply) {
  let release!: () => void;
  const calls = gemini.requests.length;
  gemini.reply({ ...reply, holdUntil: new Promise<void>((r) => (release = r)) });
  const pending = bob.client.post('/api/image', { images: [await input()], prompt: 'slow', ...extra });
  await expect.poll(() => gemini.requests.length, { timeout: 60_000 }).toBe(calls + 1); // the event, not a clock: a busy machine may take seconds
  return { release, pending };
}

describe('a generation into a canvas node', () => {
  it("shows every live editor isGenerating, then the image, clearing an earlier error; REST reads it", async () => {
    const { projectId, editor } = await sharedProject();
    // An earlier generation failed: its error goes once one succeeds.
    dataOf(editor.doc, 'g')!.set('error', 'Failed to generate image');
    await editor.saved();

    const held = await heldGeneration({ projectId, nodeId: 'g' }, { kind: 'image', image: await png() });
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === true);
    expect(await runningRows()).toEqual([{ project_id: projectId, node_id: 'g' }]);
    held.release();
    const res = await held.pending;
    expect(res.status).toBe(200);
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === false);
    expect(field(editor.doc, 'g', 'image')).toBe(res.json.imageUrl);
    expect(dataOf(editor.doc, 'g')!.has('error')).toBe(false);
    expect(field(editor.doc, 'g', 'prompt')).toBe('p'); // the rest of the node is untouched

    const read = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect(read.nodes).toEqual([{ ...node('g'), data: { type: 'generation', image: res.json.imageUrl, prompt: 'p', isGenerating: false } }]);
    expect(await runningRows()).toEqual([]);
  });

  it('a failed generation writes its error text into the node', async () => {
    const { projectId, editor } = await sharedProject();
    const held = await heldGeneration({ projectId, nodeId: 'g' }, { kind: 'error', status: 500 });
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === true);
    held.release();
    expect(await held.pending).toMatchObject({ status: 500, json: { error: 'Failed to generate image' } });
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === false);
    expect(field(editor.doc, 'g', 'error')).toBe('Failed to generate image');
    expect(field(editor.doc, 'g', 'image')).toBeUndefined();
  });

  it('never creates a node: a generation into a missing node only generates', async () => {
    const { projectId, editor } = await sharedProject();
    const res = await bob.client.post('/api/image', { images: [await input()], prompt: 'x', projectId, nodeId: 'missing' });
    expect(res.status).toBe(200);
    await editor.saved();
    expect(canvasMaps(editor.doc).nodes.has('missing')).toBe(false);
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes.map((n: { id: string }) => n.id)).toEqual(['g']);
  });

  it('is refused to a viewer (403) and to anyone without a role (404), before any model call; the fields go together (400)', async () => {
    const { projectId, editor } = await sharedProject();
    const calls = gemini.requests.length;
    const body = { images: [await input()], prompt: 'x' };
    expect(await vic.client.post('/api/image', { ...body, projectId, nodeId: 'g' })).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await eve.client.post('/api/image', { ...body, projectId, nodeId: 'g' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await bob.client.post('/api/image', { ...body, projectId: '00000000-0000-4000-8000-000000000000', nodeId: 'g' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await bob.client.post('/api/image', { ...body, projectId: 'not-a-project', nodeId: 'g' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await bob.client.post('/api/image', { ...body, projectId })).toMatchObject({ status: 400, json: { error: 'projectId and nodeId go together' } });
    expect(await bob.client.post('/api/image', { ...body, nodeId: 'g' })).toMatchObject({ status: 400, json: { error: 'projectId and nodeId go together' } });
    expect(gemini.requests.length).toBe(calls);
    expect(await runningRows()).toEqual([]);
    await editor.saved();
    expect(dataOf(editor.doc, 'g')!.has('isGenerating')).toBe(false);
  });

  it('an old-style request (no projectId, nodeId) behaves as before and writes no document', async () => {
    const { editor } = await sharedProject();
    const held = await heldGeneration({}, { kind: 'image', image: await png() });
    expect(await runningRows()).toEqual([{ project_id: null, node_id: null }]);
    held.release();
    const res = await held.pending;
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ imageBase64: expect.stringMatching(/^data:image\/png;base64,/), imageUrl: expect.stringMatching(/\/generated-\d{13}-[0-9a-f]{12}\.png$/) });
    await editor.saved();
    expect(dataOf(editor.doc, 'g')!.toJSON()).toEqual({ type: 'generation', prompt: 'p' });
  });
});

describe('a job whose heartbeat lapsed (its instance died)', () => {
  it('settles its node: isGenerating false with an error, and the job failed', async () => {
    const { projectId, editor } = await sharedProject();
    // As a generation of an instance that died left it: the node generating, the job's heartbeat lapsed.
    dataOf(editor.doc, 'g')!.set('isGenerating', true);
    await editor.saved();
    const dead = await deadJob(bob.id, projectId);
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === false);
    expect(field(editor.doc, 'g', 'error')).toBe(INTERRUPTED);
    expect(await statusOf(dead)).toBe('failed');
  });

  it('leaves a node alone while another generation into it still runs', async () => {
    const { projectId, editor } = await sharedProject();
    const held = await heldGeneration({ projectId, nodeId: 'g' }, { kind: 'image', image: await png() });
    try {
      await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === true);
      const dead = await deadJob(bob.id, projectId);
      // The runner fails the lapsed job but the running generation keeps the node generating.
      await expect.poll(() => statusOf(dead), { timeout: 10_000 }).toBe('failed');
      await editor.saved();
      expect(field(editor.doc, 'g', 'isGenerating')).toBe(true);
    } finally {
      held.release();
    }
    expect((await held.pending).status).toBe(200);
    await docWhere(editor.doc, (d) => field(d, 'g', 'isGenerating') === false);
    expect(dataOf(editor.doc, 'g')!.has('error')).toBe(false);
  });
});
