// Hostile cases against fair turns (docs/api.md "Generation jobs"): a user trying to get ahead of others or to
// spend their turns. Ann's job runs (its model call held), bob's first job and ann's second are queued; mallory
// then tries each case below. For EVERY case: the status is below 500 with a JSON `{ error }` naming the
// problem, nothing is stored (mallory has no job, no generation job row was added), and the queue is as it was
// (bob's job first, ann's second). Afterwards mallory's first accepted job, sent with made-up priority fields,
// takes exactly a first job's turn: the refusals spent none of it, and the fields gave nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult, ImageModel } from '../../src/models/index.js';
import { TINY_PNG } from '../fakes/gemini-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const image = `data:image/png;base64,${TINY_PNG.toString('base64')}`;

/** A model whose calls wait until the test ends (the running job holds the runner). */
let open = () => {};
const gate = new Promise<void>((resolve) => (open = resolve));
let arrived = () => {};
const reached = new Promise<void>((resolve) => (arrived = resolve));
const held: ImageModel = {
  id: 'held',
  async generate(req: GenerateRequest): Promise<GenerateResult> {
    arrived();
    await Promise.race([gate, new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))]);
    return { image: { data: TINY_PNG, mimeType: 'image/png' } };
  },
};

let t: TestApp;
let ann: { client: HttpClient; id: string };
let bob: { client: HttpClient; id: string };
let mallory: { client: HttpClient; id: string };
let bobsJob: string;
let annsSecond: string;

const queue = async (user: { client: HttpClient }, body: Record<string, unknown>) => {
  const res = await user.client.post('/api/generations', body);
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return (res.json as { id: string }).id;
};
/** What a case could have stored: jobs, their events, generations, and pg-boss's jobs. */
const stored = async () =>
  (
    await t.pool.query(`SELECT (SELECT count(*) FROM generation_jobs)::int AS jobs, (SELECT count(*) FROM generation_job_events)::int AS events,
      (SELECT count(*) FROM generations)::int AS generations, (SELECT count(*) FROM pgboss.job)::int AS queued`)
  ).rows[0] as Record<string, number>;
const positionOf = async (user: { client: HttpClient }, id: string) => ((await user.client.get(`/api/generations/${id}`)).json as { queuePosition: number | null }).queuePosition;

beforeAll(async () => {
  t = await startTestApp({ JOBS_CONCURRENCY: '1', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, undefined, { imageModel: held });
  [ann, bob, mallory] = await Promise.all(['ann', 'bob', 'mallory'].map((n) => t.user(`${n}-hostile-fair@example.com`)));
  await queue(ann, { images: [image], prompt: 'ann 1' });
  await reached;
  annsSecond = await queue(ann, { images: [image], prompt: 'ann 2' });
  bobsJob = await queue(bob, { images: [image], prompt: 'bob 1' });
});

afterAll(async () => {
  open();
  await t?.close();
});

type Case = [name: string, act: () => Promise<{ status: number; json: any }>, status: number, error: RegExp];

const cases: Case[] = [
  ["cancel another user's queued job", () => mallory.client.post(`/api/generations/${bobsJob}/cancel`, {}), 404, /Job not found/],
  ["read another user's job (its place)", () => mallory.client.get(`/api/generations/${bobsJob}`), 404, /Job not found/],
  ['cancel an id that is no job', () => mallory.client.post('/api/generations/job_not-a-job/cancel', {}), 404, /Job not found/],
  ['queue with no images', () => mallory.client.post('/api/generations', { images: [], prompt: 'p', priority: 1000 }), 400, /No images provided/],
  ['queue with too many images', () => mallory.client.post('/api/generations', { images: Array(11).fill(image), prompt: 'p' }), 400, /Too many images/],
  ['queue with an empty prompt', () => mallory.client.post('/api/generations', { images: [image], prompt: ' ', queuePriority: 1000 }), 400, /No prompt provided/],
  ['queue with an unknown model', () => mallory.client.post('/api/generations', { images: [image], prompt: 'p', model: 'first-in-line' }), 400, /Unknown model/],
  ['queue with a projectId and no nodeId', () => mallory.client.post('/api/generations', { images: [image], prompt: 'p', projectId: 'x' }), 400, /projectId and nodeId go together/],
  ['queue into a node of a project that is not theirs', () => mallory.client.post('/api/generations', { images: [image], prompt: 'p', projectId: '00000000-0000-4000-8000-000000000000', nodeId: 'n' }), 404, /Project not found/],
  ['list with a status that is none', () => mallory.client.get('/api/generations?status=first'), 400, /.+/],
];

describe(`hostile fair turns (${cases.length} cases)`, () => {
  it.each(cases)('%s: refused, nothing stored, the queue unchanged', async (_name, act, status, error) => {
    const before = await stored();
    const res = await act();
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ error: expect.stringMatching(error) });
    expect(await stored()).toEqual(before);
    expect(((await mallory.client.get('/api/generations')).json as { items: unknown[] }).items).toEqual([]);
    expect(await positionOf(bob, bobsJob)).toBe(1);
    expect(await positionOf(ann, annsSecond)).toBe(2);
  });

  it('after them, a first job with made-up priority fields takes a first job’s turn, no more', async () => {
    const id = await queue(mallory, { images: [image], prompt: 'mallory 1', priority: 1000, queuePriority: 1000, group: { id: bob.id } });
    expect(await positionOf(mallory, id)).toBe(2); // behind bob's first job, ahead of ann's second
    expect(await positionOf(bob, bobsJob)).toBe(1);
    expect(await positionOf(ann, annsSecond)).toBe(3);
  });
});
