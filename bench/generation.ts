// Generation pipeline: the time POST /api/image spends beyond the model call, with an instant
// in-process model and three 1-megapixel inputs read from our store; and what the job queue adds: the same
// generation as an asynchronous job (POST /api/generations, run by pg-boss's worker, followed to its `succeeded`
// event), against POST /api/image (a job too, but run by the instance holding the request, without the queue).
// Runs its own service instance.
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { ImageModel } from '../src/models/index.js';
import { openObjectStore, startTestApp } from '../test/helpers/test-app.js';
import type { ApiContext } from './api.js';
import { toRow } from './load.js';
import type { Section } from './table.js';

const LOAD = { requests: 300, warmup: 30 };

export const generationSection: Section<ApiContext> = async ({ load, notes }, rows) => {
  const output = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } }).png().toBuffer();
  let calls = 0;
  const instant: ImageModel = {
    id: 'instant',
    async generate() {
      calls++;
      return { image: { data: output, mimeType: 'image/png' }, text: 'instant', model: 'instant' };
    },
  };
  // No per-user caps: 4 in flight are 4 running (JOBS_CONCURRENCY is 4 by default).
  const t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', GENERATIONS_IN_FLIGHT_PER_USER: '0', JOBS_RUNNING_PER_USER: '0' }, 'embedded', { imageModel: instant });
  try {
    const user = await t.user('bench-generator@example.com', 'Bench Generator');
    const cookie = await user.client.jar.getCookieString(`${t.baseUrl}/api/image`);
    // Three photo-like 1000×1000 JPEGs (a gradient with noise), stored the way uploads are.
    const urls: string[] = [];
    const store = await openObjectStore(t);
    for (let i = 0; i < 3; i++) {
      const noise = Buffer.alloc(1000 * 1000 * 3);
      for (let p = 0; p < noise.length; p++) noise[p] = ((p % 3000) / 12 + ((p * 7919 + i * 31) % 23)) & 0xff;
      const jpeg = await sharp(noise, { raw: { width: 1000, height: 1000, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
      urls.push((await store.put(`bench-input-${i}.jpg`, Readable.from([jpeg]), { contentType: 'image/jpeg', maxBytes: 20e6 })).url);
    }
    await store.close();
    const body = new TextEncoder().encode(JSON.stringify({ images: urls, prompt: 'benchmark' }));
    const request = { method: 'POST' as const, path: '/api/image', headers: { cookie, 'content-type': 'application/json' }, body };
    const added: string[] = [];
    for (const concurrency of [1, 4]) {
      const direct = await load.http(t.baseUrl, { name: 'generation', ...LOAD, concurrency }, [[request]], [200]);
      const directRow = toRow(`POST /api/image, instant model, 3 × 1 MP inputs from the store`, direct);
      const queued = await load.jobs(t.baseUrl, { name: 'generation job', ...LOAD, concurrency }, { cookie }, new TextDecoder().decode(body));
      rows.push(directRow, toRow('  the same as a job: POST /api/generations → `succeeded` event', queued, directRow));
      added.push(`${concurrency} in flight: ${(queued.p50Ms - direct.p50Ms).toFixed(1)} ms`);
    }
    notes.push(`Generation overhead: with an instant in-process model, each request's whole time is the pipeline (read inputs from the store, detect types, store the PNG result, write the record, answer with the inline copy); goal p50 ≤ 30 ms at 1 in flight. Model calls: ${calls}.`);
    notes.push(`Job queue: what the asynchronous path adds to a generation (p50 of the job, from POST /api/generations to its \`succeeded\` event, minus p50 of POST /api/image; pg-boss send, pickup through NOTIFY, the claim, and the event through LISTEN): ${added.join('; ')}. Goal ≤ 20 ms at 1 in flight.`);
  } finally {
    await t.close();
  }
};
