// The job runner's faults (issue 32): a task that throws something unexpected fails its job with a code and a
// reason — never leaves it running — and so does a job of a kind no task on the instance runs. The jobs are rows as
// an instance that died left them (running, heartbeat lapsed): the runner queues them again for their retry and runs
// them through its task list, so every step is the runner's own; the test waits for the jobs' events. And a node is
// started by its id (POST /api/generations with { projectId, nodeId }): its inputs from its incoming edges, its
// settings from its data.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/jobs/task.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
let ran = 0;

/** A task (as a node kind would add one) that fails the way a bug does: not with an AppError. */
const explode: Task = {
  kind: 'explode',
  run() {
    ran++;
    throw new TypeError("Cannot read properties of undefined (reading 'width')");
  },
};

beforeAll(async () => {
  t = await startTestApp({ JOBS_HEARTBEAT_MS: '100', JOBS_HEARTBEAT_LAPSE_MS: '600' }, undefined, { tasks: [explode] });
  ada = await t.user('ada@example.com');
});
afterAll(async () => {
  await t?.close();
});

/** A job of `kind` as a dead instance left it: running, its heartbeat an hour old, never started here. */
const deadJob = async (kind: string) =>
  (
    await t.pool.query(
      `INSERT INTO generation_jobs (id, task_kind, user_id, prompt, images, status, attempts, heartbeat_at)
       VALUES ('job_' || gen_random_uuid(), $1, $2, 'p', '[]', 'running', 0, now() - interval '1 hour') RETURNING id`,
      [kind, ada.id],
    )
  ).rows[0].id as string;
const row = async (id: string) => (await t.pool.query('SELECT status, error_code, error_details FROM generation_jobs WHERE id = $1', [id])).rows[0] as Record<string, unknown>;

describe('the job runner', () => {
  it('fails a job whose task throws something unexpected with a code and a reason, never leaving it running', async () => {
    const id = await deadJob('explode');
    const job = await untilJob(ada.client, id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { status: 500, error: 'Failed to generate image', details: 'the job failed unexpectedly' }, output: null, progress: null });
    expect(ran).toBe(1);
    expect(await row(id)).toEqual({ status: 'failed', error_code: 'internal', error_details: 'the job failed unexpectedly' }); // a code, not a status
  });

  it('fails a job of a kind no task runs the same way', async () => {
    const id = await deadJob('no-such-kind');
    expect(await untilJob(ada.client, id)).toMatchObject({ status: 'failed', error: { status: 500, error: 'Failed to generate image', details: 'the job failed unexpectedly' } });
    expect(await row(id)).toMatchObject({ status: 'failed', error_code: 'internal' });
  });
});

describe('a node started by its id', () => {
  it('runs the node with the images wired into it and its own prompt, texts wired to its prompt port joined; refuses what cannot run with 4xx, storing nothing', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#39c' } }).png().toBuffer();
    const made = await ada.client.post('/api/image', { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'grayscale' });
    expect(made.status, made.text).toBe(200);
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Run a node' })).json.id as string;
    const nodes = [
      { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: made.json.imageUrl } },
      { id: 'g', type: 'generation', position: { x: 300, y: 0 }, data: { type: 'generation', prompt: 'sepia' } },
      { id: 'lonely', type: 'generation', position: { x: 0, y: 300 }, data: { type: 'generation', prompt: 'sepia' } },
      { id: 't', type: 'text', position: { x: 0, y: 600 }, data: { type: 'text', text: 'grayscale' } },
    ];
    // SPEC's edge names no port (the default: images); a text reaches the prompt port by its name.
    const edges = [
      { id: 'e', source: 'u', target: 'g' },
      { id: 'e2', source: 't', target: 'g', targetHandle: 'prompt' },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 })).status).toBe(200);
    const count = async () => (await t.pool.query('SELECT count(*)::int AS n FROM generation_jobs WHERE project_id = $1', [projectId])).rows[0].n as number;

    expect(await ada.client.post('/api/generations', { projectId, nodeId: 'nope' })).toMatchObject({ status: 404, json: { error: 'Node not found' } });
    expect(await ada.client.post('/api/generations', { projectId, nodeId: 'u' })).toMatchObject({ status: 400, json: { error: 'Invalid nodeId: node "u" is a "upload" node, which does not run' } });
    expect((await ada.client.post('/api/generations', { projectId, nodeId: 'lonely' })).json.error).toMatch(/^No images provided: node "lonely" has no input image/);
    expect(await ada.client.post('/api/generations', {})).toMatchObject({ status: 400, json: { error: 'No images provided' } });
    expect(await count()).toBe(0);

    const started = await ada.client.post('/api/generations', { projectId, nodeId: 'g' });
    expect(started.status, started.text).toBe(202);
    const job = await untilJob(ada.client, started.json.id as string);
    expect(job).toMatchObject({ status: 'succeeded', projectId, nodeId: 'g', output: { imageUrl: expect.any(String) } });
    expect((job.lineage as { inputs: Array<{ url: string }>; prompt: string }).inputs.map((i) => i.url)).toEqual([made.json.imageUrl]);
    expect((await t.pool.query('SELECT prompt FROM generation_jobs WHERE id = $1', [started.json.id])).rows).toEqual([{ prompt: 'sepia\ngrayscale' }]);
  });
});
