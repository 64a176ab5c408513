// The Replicate driver through the real `replicate` SDK against a local fake of its predictions API (create, read
// until it ends, cancel), with step progress read from the model's logs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createImageModel } from '../../src/models/index.js';
import { type ImageModel, type ModelProgress, ModelFailedError, ModelQuotaError } from '../../src/models/image-model.js';
import { createSafeFetcher } from '../../src/net/safe-fetch.js';
import { type FakeReplicate, startFakeReplicate } from '../fakes/replicate-server.js';
import { gradient, png, request, solid } from './images.js';

const TOKEN = 'r8_test_token_0123456789';
let fake: FakeReplicate;
let nano: ImageModel;
let kontext: ImageModel;
let first: Buffer;
let second: Buffer;
let answer: Buffer;

// Outputs named by URL go through the SSRF guard: the fake stands on 127.0.0.2, the one address its network allows
// (test/models/output-urls.test.ts covers what it refuses).
const outputFetcher = createSafeFetcher({ maxBytes: 1 << 20, timeoutMs: 10_000, network: { lookup: async () => [], isAllowed: (ip) => ip === '127.0.0.2' } });

beforeAll(async () => {
  fake = await startFakeReplicate({ token: TOKEN, host: '127.0.0.2' });
  nano = await createImageModel({ model: 'google/nano-banana', apiKey: TOKEN, baseUrl: fake.baseUrl, timeoutMs: 10_000, outputFetcher });
  kontext = await createImageModel({ model: 'black-forest-labs/flux-kontext-pro', apiKey: TOKEN, baseUrl: fake.baseUrl, timeoutMs: 10_000, outputFetcher });
  [first, second, answer] = await Promise.all([gradient(20, 10), solid(6, 6, 'navy'), gradient(10, 10, 10)]);
});
afterAll(async () => {
  await fake.close();
  await outputFetcher.close();
});
beforeEach(() => {
  fake.predictions.length = 0;
});

describe('Replicate driver', () => {
  it('creates a prediction with the images as data URIs, reports its steps from the logs, and returns the image', async () => {
    fake.script({ logs: ['Loading pipeline', '  5%|▌         | 1/20 [00:01<00:19]', ' 50%|█████     | 10/20 [00:05<00:05]'], end: { kind: 'succeeded', image: answer } });
    const progress: ModelProgress[] = [];
    let answered = 0;
    const result = await nano.generate({ ...request([png(first), { data: second, mimeType: 'image/jpeg' }], 'Swap the colours'), onProgress: (p) => progress.push(p), onAnswered: () => answered++ });
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result).toMatchObject({ model: 'google/nano-banana', modelVersion: 'google/nano-banana' });
    expect(answered).toBe(1);
    const [sent] = fake.predictions;
    expect(sent).toMatchObject({ model: 'google/nano-banana', token: TOKEN, input: { prompt: 'Swap the colours', output_format: 'png' } });
    expect(sent.input.image_input).toEqual([`data:image/png;base64,${first.toString('base64')}`, `data:image/jpeg;base64,${second.toString('base64')}`]);
    expect(progress).toEqual([{ step: { done: 1, total: 20 } }, { step: { done: 10, total: 20 } }]);
  });

  it('sends the one image the Kontext editor takes, and fetches an output given as a URL (alone or in a list)', async () => {
    fake.script({ end: { kind: 'succeeded', image: answer, asUrl: true } });
    expect((await kontext.generate(request([png(first)], 'Make it dusk'))).image?.data.equals(answer)).toBe(true);
    expect(fake.predictions[0]).toMatchObject({ model: 'black-forest-labs/flux-kontext-pro', input: { input_image: `data:image/png;base64,${first.toString('base64')}` } });
    fake.script({ end: { kind: 'succeeded', image: answer, asUrl: true, list: true } });
    expect((await nano.generate(request([png(first)], 'x'))).image?.data.equals(answer)).toBe(true);
  });

  it("sends a generation's seed to the Kontext editor, and none to Nano Banana, whose input has no seed", async () => {
    fake.script({ end: { kind: 'succeeded', image: answer } });
    await kontext.generate({ ...request([png(first)], 'Make it dusk'), seed: 42 });
    fake.script({ end: { kind: 'succeeded', image: answer } });
    await nano.generate({ ...request([png(first)], 'Make it dawn'), seed: 42 });
    expect(fake.predictions[0].input).toMatchObject({ seed: 42 });
    expect(fake.predictions[1].input).not.toHaveProperty('seed');
  });

  it("fails with the model's error once it ran (the call counts as answered), and answers no image without output", async () => {
    fake.script({ end: { kind: 'failed', error: 'NSFW content detected' } });
    let answered = 0;
    const failure = await nano.generate({ ...request([png(first)], 'x'), onAnswered: () => answered++ }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelFailedError);
    expect((failure as Error).message).toBe('the model failed: NSFW content detected');
    expect(answered).toBe(1);
    fake.script({ end: { kind: 'no-output' } });
    expect((await nano.generate(request([png(first)], 'x'))).image).toBeUndefined();
  });

  it('refuses a wrong token with the reason Replicate gives', async () => {
    const wrong = await createImageModel({ model: 'google/nano-banana', apiKey: 'r8_not_the_token_at_all', baseUrl: fake.baseUrl, timeoutMs: 10_000 });
    await expect(wrong.generate(request([png(first)], 'x'))).rejects.toThrow('HTTP 401: You did not pass a valid authentication token');
    expect(fake.predictions).toHaveLength(0);
  });

  it('cancels the prediction when the call is aborted while it runs', async () => {
    fake.script({ hold: true });
    const abort = new AbortController();
    const call = nano.generate({ ...request([png(first)], 'x'), signal: abort.signal }).catch((e: unknown) => e);
    const held = await fake.held();
    const canceled = fake.canceled();
    abort.abort();
    expect(((await call) as Error).message).toBe('Image model call was aborted');
    expect((await canceled).id).toBe(held.id);
  });

  it('is busy when Replicate keeps answering 429 (after its client retried)', async () => {
    const before = fake.refusedCreates;
    for (let i = 0; i < 6; i++) fake.script({ createStatus: 429 });
    await expect(nano.generate(request([png(first)], 'x'))).rejects.toBeInstanceOf(ModelQuotaError);
    expect(fake.refusedCreates - before).toBe(6); // the first try and the SDK's five retries
  });
});
