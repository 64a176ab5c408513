// The fal driver through the real @fal-ai/client against a local fake of fal's queue API (submit, status with
// queue position and logs, result, cancel).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createImageModel } from '../../src/models/index.js';
import { type ImageModel, type ModelProgress, ModelFailedError, ModelQuotaError } from '../../src/models/image-model.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-server.js';
import { gradient, png, request, solid } from './images.js';

const KEY = 'fal-test-key-0123456789';
let fake: FakeFal;
let nano: ImageModel;
let kontext: ImageModel;
let first: Buffer;
let second: Buffer;
let answer: Buffer;

beforeAll(async () => {
  fake = await startFakeFal({ key: KEY });
  nano = await createImageModel({ model: 'fal-ai/nano-banana/edit', apiKey: KEY, baseUrl: fake.baseUrl, timeoutMs: 10_000 });
  kontext = await createImageModel({ model: 'fal-ai/flux-pro/kontext', apiKey: KEY, baseUrl: fake.baseUrl, timeoutMs: 10_000 });
  [first, second, answer] = await Promise.all([gradient(24, 16), solid(8, 8, 'teal'), gradient(12, 12, 30)]);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('fal driver', () => {
  it('submits the images as data URIs with the prompt, follows the queue and the logs, and returns the image', async () => {
    fake.script({ steps: [{ status: 'IN_QUEUE', position: 1 }, { status: 'IN_QUEUE', position: 0 }, { status: 'IN_PROGRESS', logs: ['loading model'] }, { status: 'IN_PROGRESS', logs: ['loading model', 'step 10/20'] }], result: { kind: 'image', image: answer, description: 'A combined picture' } });
    const progress: ModelProgress[] = [];
    let answered = 0;
    const result = await nano.generate({ ...request([png(first), { data: second, mimeType: 'image/jpeg' }], 'Combine these'), onProgress: (p) => progress.push(p), onAnswered: () => answered++ });

    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result).toMatchObject({ text: 'A combined picture', model: 'fal-ai/nano-banana/edit', modelVersion: 'fal-ai/nano-banana/edit' });
    expect(answered).toBe(1);
    const [sent] = fake.requests;
    expect(sent).toMatchObject({ endpoint: 'fal-ai/nano-banana/edit', key: KEY, input: { prompt: 'Combine these', num_images: 1, output_format: 'png', sync_mode: true } });
    expect(sent.input.image_urls).toEqual([`data:image/png;base64,${first.toString('base64')}`, `data:image/jpeg;base64,${second.toString('base64')}`]);
    expect(sent.statusReads.every((r) => r.logs)).toBe(true);
    // fal's positions count from 0; ours from 1. Each new log line is told once.
    expect(progress).toEqual([{ queuePosition: 2 }, { queuePosition: 1 }, { message: 'loading model' }, { message: 'step 10/20' }]);
  });

  it('sends the one image the Kontext editor takes as image_url', async () => {
    const result = await kontext.generate(request([png(first)], 'Make it night'));
    expect(result.image?.mimeType).toBe('image/png');
    expect(fake.requests[0]).toMatchObject({ endpoint: 'fal-ai/flux-pro/kontext', input: { prompt: 'Make it night', image_url: `data:image/png;base64,${first.toString('base64')}` } });
    expect(fake.requests[0].input.image_urls).toBeUndefined();
  });

  it("sends a generation's seed as fal's `seed` input, and none when it has none", async () => {
    await kontext.generate({ ...request([png(first)], 'Make it night'), seed: 2_147_483_647 });
    await nano.generate({ ...request([png(first)], 'Make it day'), seed: 0 });
    await nano.generate(request([png(first)], 'Make it dusk'));
    expect(fake.requests.map((r) => r.input.seed)).toEqual([2_147_483_647, 0, undefined]);
    expect(fake.requests[2].input).not.toHaveProperty('seed');
  });

  it('answers no image when the model made none, with its description', async () => {
    fake.script({ result: { kind: 'no-image', description: 'I cannot edit that' } });
    const result = await nano.generate(request([png(first)], 'x'));
    expect(result.image).toBeUndefined();
    expect(result.text).toBe('I cannot edit that');
  });

  it("fails with the model's own error once it ran (the call counts as answered)", async () => {
    fake.script({ steps: [{ status: 'IN_PROGRESS' }], result: { kind: 'error', status: 500, detail: 'CUDA out of memory' } });
    let answered = 0;
    const failure = await nano.generate({ ...request([png(first)], 'x'), onAnswered: () => answered++ }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelFailedError);
    expect((failure as Error).message).toBe('HTTP 500: CUDA out of memory');
    expect(answered).toBe(1);
  });

  it('refuses a wrong key, and names invalid input, without retrying', async () => {
    const wrong = await createImageModel({ model: 'fal-ai/nano-banana/edit', apiKey: 'not-the-key-at-all', baseUrl: fake.baseUrl, timeoutMs: 10_000 });
    await expect(wrong.generate(request([png(first)], 'x'))).rejects.toThrow('HTTP 401: Cannot access application: invalid key');
    fake.script({ submitStatus: 422 });
    await expect(nano.generate(request([png(first)], 'x'))).rejects.toThrow('invalid input (body.prompt): field required');
    expect(fake.requests).toHaveLength(0);
  });

  it('cancels the request at fal when the call is aborted while it runs', async () => {
    fake.script({ hold: true });
    const abort = new AbortController();
    const call = nano.generate({ ...request([png(first)], 'x'), signal: abort.signal }).catch((e: unknown) => e);
    const held = await fake.held();
    const canceled = fake.canceled();
    abort.abort();
    const failure = await call;
    expect(failure).toBeInstanceOf(ModelFailedError);
    expect((failure as Error).message).toBe('Image model call was aborted');
    // The cancel is sent on its way without waiting for its answer: it arrives, for this request.
    expect((await canceled).requestId).toBe(held.requestId);
  });

  it("is busy when fal keeps answering 429 (after its client's own retries)", { timeout: 60_000 }, async () => {
    const before = fake.refusedSubmits;
    for (let i = 0; i < 4; i++) fake.script({ submitStatus: 429 });
    await expect(nano.generate(request([png(first)], 'x'))).rejects.toBeInstanceOf(ModelQuotaError);
    expect(fake.refusedSubmits - before).toBe(4); // the first try and the client's three retries
  });
});
