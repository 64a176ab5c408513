// Image work runs in worker processes of its own (src/imaging/pool.ts), so it cannot hold up requests that do no
// image work: with the only image worker stopped (SIGSTOP) in the middle of a generation, stored files, the
// health check and project lists are still served; when it continues, the generation completes. A generation
// that times out ends its worker's process (the CPU is not spent on abandoned work), and the next ones run on a new
// process. (A worker that dies mid-task: test/unit/image-workers.test.ts.)
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asDataUrl } from '../helpers/bad-images.js';
import { imageWorkerPids, isRunning, until } from '../helpers/child-processes.js';
import type { HttpClient } from '../helpers/http-client.js';
import { openObjectStore, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Settles to the response and records that it did, so a test can say "still pending" without a clock. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const p = promise.finally(() => (done = true));
  return { promise: p, settled: () => done };
}

describe('image workers', () => {
  let t: TestApp;
  let ada: { client: HttpClient; id: string };
  let input = '';
  let fileUrl = '';
  beforeAll(async () => {
    t = await startTestApp({ IMAGE_WORKERS: '1', IMAGE_MODEL_TIMEOUT_MS: '3000', RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', GENERATIONS_IN_FLIGHT_PER_USER: '0' });
    ada = await t.user('ada@example.com');
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#258' } }).png().toBuffer();
    input = asDataUrl(png);
    const store = await openObjectStore(t);
    fileUrl = (await store.put(`${Date.now()}-0123456789ab-stored.png`, png, { contentType: 'image/png', maxBytes: 1024 * 1024 }).finally(() => store.close())).url;
  });
  afterAll(async () => {
    await t?.close();
  });

  const generate = (images = [input]) => ada.client.post('/api/image', { images, prompt: 'grayscale' });

  it('runs the offline engine in a worker process, not in the service', async () => {
    expect(imageWorkerPids()).toEqual([]); // started on first use
    expect(await generate()).toMatchObject({ status: 200, json: { text: expect.stringContaining('grayscale') } });
    expect(imageWorkerPids()).toHaveLength(1); // that it did the work: the next test stops it
  });

  it('serves files and other requests while the image worker is stopped mid-generation', async () => {
    await generate(); // the worker is up
    const [worker] = imageWorkerPids();
    process.kill(worker, 'SIGSTOP');
    let generation: ReturnType<typeof tracked<Awaited<ReturnType<typeof generate>>>>;
    try {
      generation = tracked(generate());
      // Waiting on its worker, the generation cannot finish; everything else is served meanwhile.
      for (let i = 0; i < 5; i++) {
        const file = await fetch(fileUrl);
        expect(file.status).toBe(200);
        expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
        expect((await fetch(`${t.baseUrl}/api/health`)).status).toBe(200);
        expect((await ada.client.get(`/api/user/project?userId=${ada.id}`)).status).toBe(200);
      }
      expect(generation.settled()).toBe(false);
    } finally {
      process.kill(worker, 'SIGCONT');
    }
    expect(await generation.promise).toMatchObject({ status: 200 });
  });

  it('a generation that times out ends its worker process; the next one runs on a new process', async () => {
    await generate();
    const [worker] = imageWorkerPids();
    process.kill(worker, 'SIGSTOP'); // the engine cannot answer: the model timeout (3 s here) ends the call
    // A BMP input goes to the model as it is (this build has no BMP decoder to check it with), so the only image
    // work of this request is the model call on the stopped worker.
    const bmp = asDataUrl(await bmpOf(8, 8), 'image/bmp');
    const timedOut = await generate([bmp]);
    expect(timedOut).toMatchObject({ status: 500, json: { details: expect.stringContaining('timed out') } });
    await until(() => !isRunning(worker));
    expect(await generate()).toMatchObject({ status: 200 });
    expect(imageWorkerPids()).not.toContain(worker);
  });
});

/** A minimal 24-bit BMP (bottom-up rows padded to 4 bytes). */
function bmpOf(width: number, height: number): Promise<Buffer> {
  const row = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + row * height;
  const b = Buffer.alloc(size);
  b.write('BM', 0, 'ascii');
  b.writeUInt32LE(size, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  b.writeUInt32LE(row * height, 34);
  b.fill(0x80, 54);
  return Promise.resolve(b);
}
