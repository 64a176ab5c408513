// Generation pipeline: the time POST /api/image spends beyond the model call, with an instant
// in-process model and three 1-megapixel inputs read from our store. Runs its own service instance.
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
  const t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', GENERATIONS_IN_FLIGHT_PER_USER: '0' }, 'embedded', { imageModel: instant });
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
    for (const concurrency of [1, 4]) {
      const r = await load.http(t.baseUrl, { name: 'generation', ...LOAD, concurrency }, [[request]], [200]);
      rows.push(toRow(`POST /api/image, instant model, 3 × 1 MP inputs from the store`, r));
    }
    notes.push(`Generation overhead: with an instant in-process model, each request's whole time is the pipeline (read inputs from the store, detect types, store the PNG result, write the record, answer with the inline copy); goal p50 ≤ 30 ms at 1 in flight. Model calls: ${calls}.`);
  } finally {
    await t.close();
  }
};
