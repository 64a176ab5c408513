// The job queue's metrics and logs (issue 33 point 8): GET /api/metrics shows the jobs queued and running and the
// oldest queued job's age, read from the job rows, and counts the jobs retried and given up ("dead"); each retry and
// each dead job is one JSON log line with the job's id, task kind, attempt and code. The failing job is a row as an
// instance that died left it (running, heartbeat lapsed): the runner queues it again (a retry), runs it through a
// task that throws, and gives up on it (dead) — every step the runner's own; the test waits for the log lines and
// the job's events, never a clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/jobs/task.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { captureLogs } from '../helpers/log-capture.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = 'job-queue-metrics-token';
const logs = captureLogs();
let t: TestApp;
let ada: { client: HttpClient; id: string };

/** A task that always fails, as a provider outage does. */
const failing: Task = {
  kind: 'always-fails',
  run() {
    throw new TypeError('the provider is down');
  },
};

beforeAll(async () => {
  t = await startTestApp({ METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info', JOBS_HEARTBEAT_MS: '100', JOBS_HEARTBEAT_LAPSE_MS: '600' }, undefined, { tasks: [failing], logStream: logs.stream });
  ada = await t.user('ada@example.com');
});
afterAll(async () => {
  await t?.close();
});

/** The samples of GET /api/metrics whose line starts with `prefix` (name and labels), by that line's value. */
async function sample(prefix: string): Promise<number | undefined> {
  const res = await t.client().get('/api/metrics', { authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`${prefix} `));
  return line === undefined ? undefined : Number(line.slice(prefix.length + 1));
}

describe('job-queue metrics and logs', () => {
  it('a job whose run was lost is retried, then given up: both counted and each one JSON log line', async () => {
    const id = (
      await t.pool.query(
        `INSERT INTO generation_jobs (id, task_kind, user_id, prompt, images, status, attempts, heartbeat_at)
         VALUES ('job_' || gen_random_uuid(), 'always-fails', $1, 'p', '[]', 'running', 1, now() - interval '1 hour') RETURNING id`,
        [ada.id],
      )
    ).rows[0].id as string;

    const retried = await logs.line((l) => l.jobId === id && /^job retried/.test(l.msg));
    expect(retried).toMatchObject({ level: 40, jobId: id, task: 'always-fails', attempt: 1, code: 'instance_stopped' });
    expect(await untilJob(ada.client, id)).toMatchObject({ status: 'failed', attempts: 2 });
    const dead = await logs.line((l) => l.jobId === id && /^job dead/.test(l.msg));
    expect(dead).toMatchObject({ level: 40, jobId: id, task: 'always-fails', attempt: 2, code: 'internal' });
    expect(logs.lines.filter((l) => l.jobId === id && /^job (retried|dead)/.test(l.msg))).toHaveLength(2);

    expect(await sample('image_canvas_job_retries_total{task="always-fails",code="instance_stopped"}')).toBe(1);
    expect(await sample('image_canvas_jobs_dead_total{task="always-fails",code="internal"}')).toBe(1);
  });

  it('a queued job shows in the queued count and the oldest queued age', async () => {
    expect(await sample('image_canvas_jobs_queued')).toBe(0);
    expect(await sample('image_canvas_jobs_oldest_queued_age_seconds')).toBe(0);
    // Queued an hour ago and never offered to the queue (as a job waiting behind a long backlog): it stays queued.
    await t.pool.query(
      `INSERT INTO generation_jobs (id, task_kind, user_id, prompt, images, status, created_at)
       VALUES ('job_' || gen_random_uuid(), 'always-fails', $1, 'p', '[]', 'queued', now() - interval '1 hour')`,
      [ada.id],
    );
    expect(await sample('image_canvas_jobs_queued')).toBe(1);
    expect(await sample('image_canvas_jobs_running')).toBe(0);
    expect(await sample('image_canvas_jobs_oldest_queued_age_seconds')).toBeGreaterThanOrEqual(3600);
  });
});
