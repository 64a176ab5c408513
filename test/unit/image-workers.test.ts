// The image workers (src/imaging/pool.ts) through their own interface: each kind of task crosses to a worker
// process and back with its bytes intact; expected failures come back as the same errors; a cancelled task, and
// a worker that dies mid-task, end only that task; close() ends every process.
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createImageWorkers, type ImageWorkers } from '../../src/imaging/pool.js';
import { ModelFailedError, ModelInputError } from '../../src/models/index.js';
import { badImages } from '../helpers/bad-images.js';
import { imageWorkerPids, isRunning, until } from '../helpers/child-processes.js';

const warnings: object[] = [];
const log = { warn: (o: object) => void warnings.push(o) };
let workers: ImageWorkers | undefined;
afterEach(async () => {
  await workers?.close();
  workers = undefined;
  warnings.length = 0;
});

const png = (width: number, height: number, background = '#2a6') => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
const request = (images: Buffer[], prompt: string, signal = new AbortController().signal) => ({ images: images.map((data) => ({ data, mimeType: 'image/png' })), prompt, signal });

describe('image workers', () => {
  it('runs the offline engine, decode checks, SVG drawing and PNG conversion in a worker process', async () => {
    workers = createImageWorkers({ workers: 1, log });
    const model = workers.offlineModel({ maxSide: 32 });
    const result = await model.generate(request([await png(64, 40)], 'grayscale'));
    expect(result.text).toContain('grayscale');
    expect(Buffer.isBuffer(result.image?.data)).toBe(true);
    const meta = await sharp(result.image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 32, 20]); // the limits crossed too

    const bad = await badImages();
    expect(await workers.decodeProblem(bad.truncatedPng, 'image/png', 40_000_000)).toBe('the image is truncated');
    expect(await workers.decodeProblem(await png(10, 10), 'image/png', 40_000_000)).toBeUndefined();

    const drawn = await workers.renderSvg(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="12" height="8"/>'), 1000);
    expect(drawn.ok && Buffer.isBuffer(drawn.png) && (await sharp(drawn.png).metadata()).width).toBe(12);
    expect(await workers.renderSvg(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>'), 1000)).toEqual({ ok: false, stage: 'size', width: 100, height: 100 });
    // A PNG over the byte limit stays in the worker: a small SVG can draw far more bytes than it has.
    const noise = Array.from({ length: 400 }, (_, i) => `<rect x="${i % 20}" y="${Math.floor(i / 20)}" width="1" height="1" fill="#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}"/>`).join('');
    const noisy = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">${noise}</svg>`);
    expect(await workers.renderSvg(noisy, 1000, 100)).toEqual({ ok: false, stage: 'bytes' });
    expect((await workers.renderSvg(noisy, 1000, 100_000)).ok).toBe(true);

    const jpeg = await sharp(await png(5, 5)).jpeg().toBuffer();
    const converted = await workers.toPng(jpeg);
    expect(converted && (await sharp(converted).metadata()).format).toBe('png');
    expect(await workers.toPng(Buffer.from('not an image'))).toBeUndefined();
  });

  it('an input the engine cannot read is the same ModelInputError, with its index', async () => {
    workers = createImageWorkers({ workers: 1, log });
    const err = await workers.offlineModel({}).generate({ ...request([await png(4, 4)], 'x'), images: [{ data: await png(4, 4), mimeType: 'image/png' }, { data: Buffer.from('BM nonsense'), mimeType: 'image/bmp' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelInputError);
    expect((err as ModelInputError).index).toBe(1);
  });

  it('a cancelled generation ends its worker process; the next task gets a new one', async () => {
    workers = createImageWorkers({ workers: 1, log });
    const model = workers.offlineModel({});
    await model.generate(request([await png(8, 8)], 'grayscale'));
    const controller = new AbortController();
    const input = await png(8, 8);
    // Handed to the worker as generate() is called, and cancelled before this process can read any answer.
    const pending = model.generate(request([input], 'blur 3', controller.signal));
    const [pid] = imageWorkerPids();
    controller.abort();
    await expect(pending).rejects.toThrow(new ModelFailedError('Image generation was cancelled'));
    await until(() => !isRunning(pid));
    expect((await model.generate(request([input], 'invert'))).text).toContain('invert');
  });

  it('a worker that dies mid-task fails only that task; the pool goes on with a new process', async () => {
    workers = createImageWorkers({ workers: 1, log });
    const model = workers.offlineModel({});
    await model.generate(request([await png(8, 8)], 'grayscale'));
    const [pid] = imageWorkerPids();
    process.kill(pid, 'SIGSTOP');
    // The task is handed to the (stopped, idle, ready) worker as generate() is called: it is on that process now.
    const pending = model.generate(request([await png(8, 8)], 'grayscale'));
    process.kill(pid, 'SIGKILL');
    await expect(pending).rejects.toThrow(new ModelFailedError('the offline image engine stopped unexpectedly'));
    expect((await model.generate(request([await png(8, 8)], 'sepia'))).text).toContain('sepia');
    expect(isRunning(pid)).toBe(false);
  });

  it("one owner's generations hold at most IMAGE_WORKERS − 1 workers; another owner's run at once", async () => {
    workers = createImageWorkers({ workers: 2, log });
    const model = workers.offlineModel({});
    const input = await png(16, 16);
    const abuser = [0, 1, 2].map(() => model.generate({ ...request([input], 'blur 2'), owner: 'abuser' }));
    expect(workers.load()).toEqual({ active: 1, waiting: 2 });
    const ada = model.generate({ ...request([input], 'invert'), owner: 'ada' });
    expect(workers.load()).toEqual({ active: 2, waiting: 2 }); // ada did not wait behind the abuser's queue
    expect((await ada).text).toContain('invert');
    await Promise.all(abuser);
    expect(workers.load()).toEqual({ active: 0, waiting: 0 });
  });

  it('close() ends every worker process', async () => {
    workers = createImageWorkers({ workers: 2, log });
    const model = workers.offlineModel({});
    await Promise.all([model.generate(request([await png(8, 8)], 'grayscale')), model.generate(request([await png(8, 8)], 'grayscale'))]);
    const pids = imageWorkerPids();
    expect(pids.length).toBeGreaterThan(0);
    await workers.close();
    workers = undefined;
    expect(pids.filter(isRunning)).toEqual([]);
  });
});
