// Generation jobs (docs/api.md "Generation jobs"): POST /api/generations queues a job (202), a runner executes it
// through the same generation service as POST /api/image, and GET / cancel / list follow it. One app runs the
// offline engine (the default model); another, with JOBS_RUNNING_PER_USER=1, an in-process model whose calls wait
// until the test releases them, so "running" and "queued behind" are states the test waits for, never timers.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldModel } from '../helpers/held-model.js';
import { settled, untilJob } from '../helpers/jobs.js';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A model that answers its first input: at once, or, while held, once released — even after its call was aborted. */
const held = heldModel((req) => ({ image: req.images[0], text: 'held' }), { abortable: false });
let offline: TestApp;
let limited: TestApp;
let ada: { client: HttpClient; id: string };
let bob: { client: HttpClient; id: string };
let cy: { client: HttpClient; id: string };
let image: string;

beforeAll(async () => {
  const env = { RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' };
  offline = await startTestApp(env);
  limited = await startTestApp({ ...env, JOBS_RUNNING_PER_USER: '1' }, undefined, { imageModel: held.model });
  [ada, bob, cy] = await Promise.all([offline.user('ada@example.com'), offline.user('bob@example.com'), limited.user('cy@example.com')]);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c63' } }).png().toBuffer();
  image = `data:image/png;base64,${png.toString('base64')}`;
});
afterAll(async () => {
  held.release();
  await Promise.all([offline?.close(), limited?.close()]);
});

/** Reads the job (bounded: 400 reads, no fixed delays beyond the request itself) until `done` holds. */
const until = (client: HttpClient, id: string, done: (job: Record<string, unknown>) => boolean) => untilJob(client, id, done);
const create = (client: HttpClient, body: Record<string, unknown>): Promise<Sent> => client.post('/api/generations', body);
const rows = async (app: TestApp, sql: string, values: unknown[] = []) => (await app.pool.query(sql, values)).rows;

describe('generation jobs', () => {
  it('queues a job (202), runs it with the offline engine and answers its output', async () => {
    const made = await create(ada.client, { images: [image], prompt: 'grayscale' });
    expect(made.status).toBe(202);
    expect(made.json).toEqual({ id: expect.stringMatching(/^job_[0-9a-f-]{36}$/), status: expect.stringMatching(/^(queued|running|succeeded)$/), queuePosition: expect.anything() });
    const job = await until(ada.client, made.json.id, settled);
    expect(job).toMatchObject({ id: made.json.id, status: 'succeeded', error: null, projectId: null, nodeId: null, attempts: 1, queuePosition: null, output: { imageUrl: expect.stringMatching(/generated-\d+-[0-9a-f]+\.png$/) } });
    expect(Date.parse(job.createdAt as string)).toBeLessThanOrEqual(Date.parse(job.startedAt as string));
    expect(Date.parse(job.startedAt as string)).toBeLessThanOrEqual(Date.parse(job.finishedAt as string));
    const out = await ada.client.get(new URL((job.output as { imageUrl: string }).imageUrl).pathname);
    expect(out.status).toBe(200);
    // The generation is recorded as one of POST /api/image's would be, and the job names it.
    const [row] = await rows(offline, 'SELECT generation_id, output_url FROM generation_jobs WHERE id = $1', [made.json.id]);
    const history = await ada.client.get('/api/user/generations');
    expect(history.json.items.map((g: { id: string }) => g.id)).toContain(row.generation_id);
  });

  it('answers 404 for a job of someone else, or an id that is not one, on read and cancel', async () => {
    const made = await create(ada.client, { images: [image], prompt: 'sepia' });
    expect(await bob.client.get(`/api/generations/${made.json.id}`)).toMatchObject({ status: 404, json: { error: 'Job not found' } });
    expect(await bob.client.post(`/api/generations/${made.json.id}/cancel`, {})).toMatchObject({ status: 404, json: { error: 'Job not found' } });
    for (const id of ['nope', 'job_123', `job_${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`, '%00']) {
      expect(await ada.client.get(`/api/generations/${id}`)).toMatchObject({ status: 404, json: { error: 'Job not found' } });
    }
    await until(ada.client, made.json.id, settled);
  });

  it('refuses a bad request with 400 and stores nothing', async () => {
    const before = (await rows(offline, 'SELECT count(*)::int AS n FROM generation_jobs'))[0].n;
    const bad: [Record<string, unknown>, string][] = [
      [{ prompt: 'x' }, 'No images provided'],
      [{ images: [], prompt: 'x' }, 'No images provided'],
      [{ images: [image] }, 'No prompt provided'],
      [{ images: [image], prompt: '   ' }, 'No prompt provided'],
      [{ images: [image], prompt: 'x', projectId: 'p' }, 'projectId and nodeId go together'],
      [{ images: [image], prompt: 'x', model: 'dall-e-9' }, 'Unknown model: "dall-e-9" is not one this service runs (GET /api/models lists them)'],
      [{ images: [image], prompt: 'x', model: 'gemini-2.5-flash-image' }, 'Unknown model: "gemini-2.5-flash-image" is not one this service runs (GET /api/models lists them)'],
    ];
    for (const [body, error] of bad) expect(await create(ada.client, body)).toMatchObject({ status: 400, json: { error } });
    // A project the user cannot see: 404 at once, as POST /api/image answers it.
    expect(await create(ada.client, { images: [image], prompt: 'x', projectId: '00000000-0000-4000-8000-000000000000', nodeId: 'n' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect((await rows(offline, 'SELECT count(*)::int AS n FROM generation_jobs'))[0].n).toBe(before);
  });

  it('accepts the configured model by name and records it', async () => {
    const made = await create(ada.client, { images: [image], prompt: 'invert', model: 'local' });
    expect(made.status).toBe(202);
    expect(await until(ada.client, made.json.id, settled)).toMatchObject({ status: 'succeeded', model: 'local' });
  });

  it('records a failed generation with the error POST /api/image would have answered', async () => {
    const made = await create(ada.client, { images: ['https://127.0.0.1:1/nothing.png'], prompt: 'grayscale' });
    const job = await until(ada.client, made.json.id, settled);
    expect(job).toMatchObject({ status: 'failed', output: null, error: { status: 400, error: 'Invalid image: https://127.0.0.1:1/nothing.png' } });
  });

  it('lists the caller’s jobs newest first, filtered by status and project, in pages', async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Jobs' })).json.id as string;
    const inProject = await create(ada.client, { images: [image], prompt: 'blur', projectId, nodeId: 'n1' });
    expect(inProject.status).toBe(202);
    await until(ada.client, inProject.json.id, settled);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Sent = await ada.client.get(`/api/generations?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.json.items.length).toBeLessThanOrEqual(2);
      all.push(...page.json.items.map((j: { id: string }) => j.id));
      cursor = page.json.nextCursor;
    } while (cursor);
    const [{ ids }] = await rows(offline, 'SELECT array_agg(id ORDER BY created_at DESC, id DESC) AS ids FROM generation_jobs WHERE user_id = $1', [ada.id]);
    expect(all).toEqual(ids);
    expect(all[0]).toBe(inProject.json.id);
    const byProject = await ada.client.get(`/api/generations?projectId=${projectId}`);
    expect(byProject.json.items.map((j: { id: string }) => j.id)).toEqual([inProject.json.id]);
    expect(byProject.json.items[0]).toMatchObject({ projectId, nodeId: 'n1' });
    const failed = await ada.client.get('/api/generations?status=failed');
    expect(failed.json.items.length).toBeGreaterThan(0);
    expect(failed.json.items.every((j: { status: string }) => j.status === 'failed')).toBe(true);
    expect((await bob.client.get('/api/generations')).json).toEqual({ items: [], nextCursor: null });
    expect(await ada.client.get('/api/generations?cursor=garbage')).toMatchObject({ status: 400, json: { error: 'Invalid cursor' } });
    expect((await ada.client.get('/api/generations?status=done')).status).toBe(400);
  });

  it('cancels a finished job with 409', async () => {
    const made = await create(ada.client, { images: [image], prompt: 'flip' });
    await until(ada.client, made.json.id, settled);
    expect(await ada.client.post(`/api/generations/${made.json.id}/cancel`, {})).toMatchObject({ status: 409, json: { error: 'Job already finished', details: 'the job is succeeded; only a queued or running job can be canceled' } });
  });

  it('a read-only token cannot create or cancel jobs (403); a generate token can', async () => {
    const token = async (scopes: string[]) => (await ada.client.post('/api/user/tokens', { name: scopes.join('+'), scopes })).json.token as string;
    const [reader, generator] = [await token(['read']), await token(['generate', 'read'])];
    const as = (secret: string, path: string, json?: unknown) => offline.client().request(path, { method: json ? 'POST' : 'GET', json, headers: { authorization: `Bearer ${secret}` } });
    expect(await as(reader, '/api/generations', { images: [image], prompt: 'x' })).toMatchObject({ status: 403, json: { error: 'Token lacks the generate scope' } });
    const made = await as(generator, '/api/generations', { images: [image], prompt: 'grayscale' });
    expect(made.status).toBe(202);
    expect((await as(reader, `/api/generations/${made.json.id}`)).status).toBe(200);
    expect((await as(reader, '/api/generations')).status).toBe(200);
    expect(await as(reader, `/api/generations/${made.json.id}/cancel`, {})).toMatchObject({ status: 403, json: { error: 'Token lacks the generate scope' } });
    await until(ada.client, made.json.id, settled);
  });
});

describe('generation jobs, one running per user (JOBS_RUNNING_PER_USER=1, a held model)', () => {
  it('keeps a second job queued at position 1 until the first finishes, cancels a queued job (it never runs) and a running one (nothing recorded)', async () => {
    held.hold();
    const callsBefore = held.calls;
    const first = await create(cy.client, { images: [image], prompt: 'first' });
    expect(first.status).toBe(202);
    await held.reached(callsBefore + 1); // the first job's model call, held
    expect((await cy.client.get(`/api/generations/${first.json.id}`)).json).toMatchObject({ status: 'running', queuePosition: null, attempts: 1 });
    const second = await create(cy.client, { images: [image], prompt: 'second' });
    const third = await create(cy.client, { images: [image], prompt: 'third' });
    expect(second.json).toMatchObject({ status: 'queued', queuePosition: 1 });
    expect(third.json).toMatchObject({ status: 'queued', queuePosition: 2 });

    // Cancel the queued third: it never runs.
    const canceledQueued = await cy.client.post(`/api/generations/${third.json.id}/cancel`, {});
    expect(canceledQueued).toMatchObject({ status: 200, json: { id: third.json.id, status: 'canceled', queuePosition: null, output: null, error: null, attempts: 0 } });
    expect((await cy.client.get(`/api/generations/${second.json.id}`)).json).toMatchObject({ status: 'queued', queuePosition: 1 });

    // Cancel the running first: its model call's signal aborts; the model answers anyway once released, and
    // nothing is stored nor recorded.
    const generationsBefore = (await cy.client.get('/api/user/generations')).json.items.length;
    const objectsBefore = (await rows(limited, "SELECT count(*)::int AS n FROM generations WHERE user_id = $1", [cy.id]))[0].n;
    const canceledRunning = await cy.client.post(`/api/generations/${first.json.id}/cancel`, {});
    expect(canceledRunning.json).toMatchObject({ status: 'canceled', output: null, attempts: 1 });
    expect(held.signals[callsBefore].aborted).toBe(true);
    // Held: the second starts once the first's runner has let go; let every held call answer.
    held.release();
    const second_ = await until(cy.client, second.json.id, settled);
    expect(second_).toMatchObject({ status: 'succeeded' });
    expect((await cy.client.get(`/api/generations/${first.json.id}`)).json).toMatchObject({ status: 'canceled', output: null });
    expect((await cy.client.get(`/api/generations/${third.json.id}`)).json).toMatchObject({ status: 'canceled', startedAt: null });
    // Two model calls: the first (canceled) and the second; the third never ran.
    expect(held.calls - callsBefore).toBe(2);
    const recorded = (await cy.client.get('/api/user/generations')).json.items;
    expect(recorded.length).toBe(generationsBefore + 1); // the second's only
    expect((await rows(limited, "SELECT count(*)::int AS n FROM generations WHERE user_id = $1", [cy.id]))[0].n).toBe(objectsBefore + 1);
    expect(await cy.client.post(`/api/generations/${first.json.id}/cancel`, {})).toMatchObject({ status: 409, json: { error: 'Job already finished' } });
  });
});
