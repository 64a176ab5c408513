// The job queue of a deployment from before the runner's own retries (issue 32): pg-boss's dead-letter queue
// `generation-dead`, which nothing sends to nor works any more, and the generation queue's pointer to it, go when an
// instance's queue starts.
import { PgBoss } from 'pg-boss';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { settled, untilJob } from '../helpers/jobs.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

let database: { url: string; drop(): Promise<void> };
let app: TestApp;

beforeAll(async () => {
  database = await createOwnDatabase();
  // The queues as the runner of before left them.
  const boss = new PgBoss({ connectionString: database.url });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue('generation-dead');
  await boss.createQueue('generation', { deadLetter: 'generation-dead' });
  await boss.stop({ graceful: false });
  app = await startTestApp({ DATABASE_CONNECTION_STRING: database.url, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, 'embedded');
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

it('drops the retired dead-letter queue and the pointer to it once the queue has started', async () => {
  const ada = await app.user('ada@example.com');
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c63' } }).png().toBuffer();
  const made = await ada.client.post('/api/generations', { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'grayscale' });
  expect(made.status).toBe(202);
  expect(await untilJob(ada.client, made.json.id as string, settled)).toMatchObject({ status: 'succeeded' });
  const { rows } = await app.pool.query(`SELECT name, dead_letter FROM pgboss.queue WHERE name LIKE 'generation%' ORDER BY name`);
  expect(rows).toEqual([{ name: 'generation', dead_letter: null }]);
});
