// The hosted upscalers and background removers (src/models/hosted-steps.ts) through the real fal and Replicate SDKs
// against our fakes: each model's own input (one image, no prompt, the upscalers' scale), fal's one-`image` answer,
// Real-ESRGAN (a community model) run by its latest version, asked once, and Bria on Replicate by its name.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createImageModel } from '../../src/models/index.js';
import { ModelFailedError, ModelInputError } from '../../src/models/image-model.js';
import { createSafeFetcher } from '../../src/net/safe-fetch.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-server.js';
import { type FakeReplicate, startFakeReplicate } from '../fakes/replicate-server.js';
import { gradient, png, request } from './images.js';

const KEY = 'fal-test-key-0123456789';
const TOKEN = 'r8_test_token_0123456789';
let fal: FakeFal;
let replicate: FakeReplicate;
let input: Buffer;
let answer: Buffer;
const outputFetcher = createSafeFetcher({ maxBytes: 1 << 20, timeoutMs: 10_000, network: { lookup: async () => [], isAllowed: (ip) => ip === '127.0.0.2' } });

beforeAll(async () => {
  [fal, replicate] = await Promise.all([startFakeFal({ key: KEY }), startFakeReplicate({ token: TOKEN, host: '127.0.0.2' })]);
  [input, answer] = await Promise.all([gradient(16, 12), gradient(32, 24, 20)]);
});
afterAll(async () => {
  await Promise.all([fal.close(), replicate.close(), outputFetcher.close()]);
});
beforeEach(() => {
  fal.requests.length = 0;
  replicate.predictions.length = 0;
});

const uri = () => `data:image/png;base64,${input.toString('base64')}`;

describe('hosted upscalers and background removers', () => {
  it('fal: Clarity gets the image and a 2× factor, Bria the image alone; each answers one `image`, read back', async () => {
    for (const [model, expected] of [
      ['fal-ai/clarity-upscaler', { image_url: uri(), sync_mode: true, upscale_factor: 2 }],
      ['fal-ai/bria/background/remove', { image_url: uri(), sync_mode: true }],
    ] as const) {
      const m = await createImageModel({ model, apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000 });
      fal.script({ result: { kind: 'image', image: answer } });
      const result = await m.generate(request([png(input)], ''));
      expect(result.image?.data.equals(answer), model).toBe(true);
      expect(result.model).toBe(model);
      expect(fal.requests.at(-1)).toMatchObject({ endpoint: model, key: KEY });
      expect(fal.requests.at(-1)!.input).toEqual(expected); // no prompt, no seed
    }
  });

  it('Replicate: Real-ESRGAN by its latest version (asked once), with scale 2; Bria by name; a URL output through the SSRF guard', async () => {
    const esrgan = await createImageModel({ model: 'nightmareai/real-esrgan', apiKey: TOKEN, baseUrl: replicate.baseUrl, timeoutMs: 10_000, outputFetcher });
    replicate.script({ end: { kind: 'succeeded', image: answer, asUrl: true } });
    replicate.script({ end: { kind: 'succeeded', image: answer } });
    for (let i = 0; i < 2; i++) expect((await esrgan.generate(request([png(input)], ''))).image?.data.equals(answer)).toBe(true);
    expect(replicate.modelReads).toBe(1);
    const version = createHash('sha256').update('nightmareai/real-esrgan').digest('hex'); // the fake's made-up version id
    expect(replicate.predictions.map((p) => [p.model, p.version])).toEqual([
      ['nightmareai/real-esrgan', version],
      ['nightmareai/real-esrgan', version],
    ]);
    expect(replicate.predictions[0].input).toEqual({ image: uri(), scale: 2, face_enhance: false });

    const bria = await createImageModel({ model: 'bria/remove-background', apiKey: TOKEN, baseUrl: replicate.baseUrl, timeoutMs: 10_000, outputFetcher });
    replicate.script({ end: { kind: 'succeeded', image: answer, asUrl: true } });
    const cut = await bria.generate(request([png(input)], ''));
    expect(cut.image?.data.equals(answer)).toBe(true);
    expect(replicate.predictions[2]).toMatchObject({ model: 'bria/remove-background', input: { image: uri() } });
    expect(replicate.predictions[2].version).toBeUndefined();
  });

  it('a hosted upscaler refuses, before any call, an input whose 2× result would pass the result limit (INPUT_IMAGE_MAX_PIXELS)', async () => {
    // 16 × 12 = 192 pixels: a 2× result of 768. With a limit of 700 the input may have at most 175 pixels.
    const clarity = await createImageModel({ model: 'fal-ai/clarity-upscaler', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000, maxResultPixels: 700 });
    const err = await clarity.generate(request([png(input)], '')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelInputError);
    expect((err as Error).message).toBe('the image is 16 × 12 pixels (192); this upscaler takes images of at most 175 pixels');
    expect(fal.requests).toHaveLength(0);
    // Within it, the call is made; a background remover is not held to it (its result is its input's size).
    const roomy = await createImageModel({ model: 'fal-ai/clarity-upscaler', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000, maxResultPixels: 768 });
    fal.script({ result: { kind: 'image', image: answer } });
    await roomy.generate(request([png(input)], ''));
    const bria = await createImageModel({ model: 'fal-ai/bria/background/remove', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000, maxResultPixels: 100 });
    fal.script({ result: { kind: 'image', image: answer } });
    await bria.generate(request([png(input)], ''));
    expect(fal.requests.map((r) => r.endpoint)).toEqual(['fal-ai/clarity-upscaler', 'fal-ai/bria/background/remove']);
  });

  it('Replicate: a version that cannot be read (a refused token) fails the call with the reason, and is asked again next time', async () => {
    const esrgan = await createImageModel({ model: 'nightmareai/real-esrgan', apiKey: 'r8_wrong', baseUrl: replicate.baseUrl, timeoutMs: 10_000, outputFetcher });
    for (let i = 0; i < 2; i++) {
      const err = await esrgan.generate(request([png(input)], '')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelFailedError);
      expect((err as Error).message).toMatch(/HTTP 401/);
    }
    expect(replicate.predictions).toHaveLength(0);
  });
});
