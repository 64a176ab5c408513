// The OpenAI driver through the real openai SDK against a local fake of the Images REST API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createImageModel, withFallback, withTimeoutAndLimit } from '../../src/models/index.js';
import { type ImageModel, ModelFailedError, type ModelProgress, ModelQuotaError } from '../../src/models/image-model.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-server.js';
import { gradient, png, request, solid } from './images.js';

const API_KEY = 'sk-test-openai-key-456';
let fake: FakeOpenAI;
let model: ImageModel;
let first: Buffer;
let second: Buffer;
let answer: Buffer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY });
  model = await createImageModel({ model: 'gpt-image-1', apiKey: API_KEY, baseUrl: fake.baseUrl, timeoutMs: 10_000 });
  [first, second, answer] = await Promise.all([gradient(40, 30), solid(20, 20, 'orange'), gradient(16, 16, 200)]);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('OpenAI driver', () => {
  it('uploads every image as image[] with the prompt and model, and returns the image', async () => {
    fake.reply({ kind: 'image', image: answer, revisedPrompt: 'A combined picture' });
    const result = await model.generate(request([png(first), { data: second, mimeType: 'image/jpeg' }], 'Combine these'));

    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.image?.mimeType).toBe('image/png');
    expect(result.text).toBe('A combined picture');
    expect(result.model).toBe('gpt-image-1');

    const [sent] = fake.requests;
    expect(sent.path).toBe('/v1/images/edits');
    expect(sent.apiKey).toBe(API_KEY);
    expect(sent.model).toBe('gpt-image-1');
    expect(sent.prompt).toBe('Combine these');
    expect(sent.images.map((i) => [i.field, i.name, i.mimeType])).toEqual([
      ['image[]', 'image-1.png', 'image/png'],
      ['image[]', 'image-2.jpg', 'image/jpeg'],
    ]);
    expect(sent.images[0].data.equals(first)).toBe(true);
    expect(sent.images[1].data.equals(second)).toBe(true);
  });

  it('reports the output format the provider chose', async () => {
    fake.reply({ kind: 'image', image: answer, outputFormat: 'webp' });
    expect((await model.generate(request([png(first)], 'x'))).image?.mimeType).toBe('image/webp');
  });

  it('returns { text } without an image when no image data comes back', async () => {
    fake.reply({ kind: 'text', text: 'A prompt it rewrote' });
    const result = await model.generate(request([png(first)], 'Edit'));
    expect(result.image).toBeUndefined();
    expect(result.text).toBe('A prompt it rewrote');
  });

  it('maps 429 to ModelQuotaError with Retry-After', async () => {
    fake.reply({ kind: 'quota', retryAfterSeconds: 7 });
    const err = await model.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelQuotaError);
    expect((err as ModelQuotaError).retryAfterSeconds).toBe(7);
    expect(fake.requests).toHaveLength(1); // maxRetries 0
  });

  it('maps 500 to ModelFailedError with a short reason', async () => {
    fake.reply({ kind: 'error', status: 500 });
    const err = await model.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFailedError);
    expect((err as Error).message).toBe('Image model answered HTTP 500: The server had an error while processing your request.');
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a malformed answer to ModelFailedError', async () => {
    fake.reply({ kind: 'malformed' });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(ModelFailedError);
    fake.reply({ kind: 'raw', status: 200, body: '<html>gateway</html>', contentType: 'text/html' });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(/malformed/);
    fake.reply({ kind: 'raw', status: 200, body: JSON.stringify({ created: 1, data: [{ b64_json: '%%%' }] }) });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(/base64/);
  });

  it('never puts the API key into an error message', async () => {
    const wrongKey = 'sk-wrong-secret-789';
    const wrong = await createImageModel({ model: 'gpt-image-1', apiKey: wrongKey, baseUrl: fake.baseUrl, timeoutMs: 5000 });
    const err = await wrong.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFailedError);
    expect((err as Error).message).toMatch(/^Image model answered HTTP 401: Incorrect API key provided/);
    expect((err as Error).message).not.toContain(wrongKey);
  });

  it('maps an unreachable server to ModelFailedError', async () => {
    const closed = await startFakeOpenAI();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const gone = await createImageModel({ model: 'gpt-image-1', apiKey: API_KEY, baseUrl, timeoutMs: 5000 });
    await expect(gone.generate(request([png(first)], 'x'))).rejects.toThrow(/Image model request failed/);
  });

  it('times out a call that never answers', async () => {
    fake.reply({ kind: 'hang' });
    const limited = withTimeoutAndLimit(model, { timeoutMs: 300, maxConcurrent: 2 });
    await expect(limited.generate(request([png(first)], 'x'))).rejects.toThrow(
      new ModelFailedError('Image model timed out after 300 ms'),
    );
    await expect.poll(() => fake.inFlight).toBe(0);
  });

  it("the SDK's own timeout (ModelConfig.timeoutMs) also gives ModelFailedError", async () => {
    const short = await createImageModel({ model: 'gpt-image-1', apiKey: API_KEY, baseUrl: fake.baseUrl, timeoutMs: 300 });
    fake.reply({ kind: 'hang' });
    await expect(short.generate(request([png(first)], 'x'))).rejects.toThrow(new ModelFailedError('Image model timed out after 300 ms'));
  });

  it('falls back from a failing primary (over quota) to a working fallback', async () => {
    const local = await createImageModel({ model: 'local', timeoutMs: 5000 });
    fake.reply({ kind: 'quota' });
    const both = withFallback(model, local);
    const result = await both.generate(request([png(first)], 'grayscale'));
    expect(result.model).toBe('local');
    expect(result.text).toContain('Offline image engine');
    expect(fake.requests).toHaveLength(1);
  });

  it("answers the primary's failure when the offline fallback can do nothing with the prompt", async () => {
    const local = await createImageModel({ model: 'local', timeoutMs: 5000 });
    fake.reply({ kind: 'quota' });
    await expect(withFallback(model, local).generate(request([png(first)], 'watercolor tiger'))).rejects.toBeInstanceOf(ModelQuotaError);
  });

  it('does not fall back when the primary answers', async () => {
    const local = await createImageModel({ model: 'local', timeoutMs: 5000 });
    fake.reply({ kind: 'image', image: answer });
    const result = await withFallback(model, local).generate(request([png(first)], 'x'));
    expect(result.model).toBe('gpt-image-1');
  });

  it('with maxConcurrent 1, concurrent calls reach the provider one at a time', async () => {
    const limited = withTimeoutAndLimit(model, { timeoutMs: 5000, maxConcurrent: 1 });
    for (let i = 0; i < 3; i++) fake.reply({ kind: 'image', image: answer, delayMs: 100 });
    const results = await Promise.all([1, 2, 3].map(() => limited.generate(request([png(first)], 'x'))));
    expect(results.every((r) => r.image)).toBe(true);
    expect(fake.requests.map((r) => r.inFlightAtArrival)).toEqual([0, 0, 0]);
    expect(fake.maxInFlight).toBeGreaterThanOrEqual(1);
  });

  it('a queued caller that gives up leaves the queue without a provider call', async () => {
    const limited = withTimeoutAndLimit(model, { timeoutMs: 5000, maxConcurrent: 1 });
    fake.reply({ kind: 'image', image: answer, delayMs: 200 });
    const quitter = new AbortController();
    const running = limited.generate(request([png(first)], 'first'));
    const queued = limited.generate(request([png(first)], 'second', quitter.signal));
    quitter.abort();
    await expect(queued).rejects.toThrow(ModelFailedError);
    await expect(running).resolves.toMatchObject({ model: 'gpt-image-1' });
    expect(fake.requests.map((r) => r.prompt)).toEqual(['first']);
  });
});

describe('OpenAI driver streaming partial images (OPENAI_PARTIAL_IMAGES)', () => {
  let streamed: ImageModel;
  beforeAll(async () => {
    streamed = await createImageModel({ model: 'gpt-image-1', apiKey: API_KEY, baseUrl: fake.baseUrl, timeoutMs: 10_000, partialImages: 2 });
  });

  it('asks for the partial images, reports each as a preview with its place, and returns the final image', async () => {
    const [rough, finer] = await Promise.all([solid(8, 8, 'gray'), solid(8, 8, 'silver')]);
    fake.reply({ kind: 'image', image: answer, partials: [rough, finer] });
    const seen: ModelProgress[] = [];
    let answered = 0;
    const result = await streamed.generate({ ...request([png(first)], 'Edit'), onProgress: (p) => seen.push(p), onAnswered: () => answered++ });
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.image?.mimeType).toBe('image/png');
    expect(answered).toBe(1);
    expect(seen.map((p) => p.message)).toEqual(['Preview 1 of 2', 'Preview 2 of 2']);
    expect(seen[0].preview?.data.equals(rough)).toBe(true);
    expect(seen[1].preview?.data.equals(finer)).toBe(true);
    expect(fake.requests[0].fields).toMatchObject({ stream: 'true', partial_images: '2', model: 'gpt-image-1', prompt: 'Edit' });
  });

  it('a stream that ends without the final image fails (the call was answered); a final event without an image is text', async () => {
    fake.reply({ kind: 'image', image: answer, cutAfterPartials: true });
    let answered = 0;
    const cut = await streamed.generate({ ...request([png(first)], 'x'), onAnswered: () => answered++ }).catch((e: unknown) => e);
    expect(cut).toEqual(new ModelFailedError('Image model stream ended without the final image'));
    expect(answered).toBe(1);
    fake.reply({ kind: 'text', text: 'unused' });
    expect(await streamed.generate(request([png(first)], 'x'))).toEqual({ text: 'The model returned no image.', model: 'gpt-image-1' });
  });

  it('a malformed event is a malformed answer; HTTP errors before the stream map as without streaming', async () => {
    fake.reply({ kind: 'malformed' });
    await expect(streamed.generate(request([png(first)], 'x'))).rejects.toThrow(/malformed/);
    fake.reply({ kind: 'quota', retryAfterSeconds: 4 });
    const err = await streamed.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelQuotaError);
    expect((err as ModelQuotaError).retryAfterSeconds).toBe(4);
  });

  it('an abort while the stream is open ends the call', async () => {
    let release!: () => void;
    fake.reply({ kind: 'image', image: answer, completeAfter: new Promise<void>((r) => (release = r)) });
    const stop = new AbortController();
    const previews: ModelProgress[] = [];
    const call = streamed.generate({ ...request([png(first)], 'x', stop.signal), onProgress: (p) => {
      previews.push(p);
      if (previews.length === 2) stop.abort();
    } }).catch((e: unknown) => e);
    const err = await call;
    release();
    expect(err).toEqual(new ModelFailedError('Image model call was aborted'));
    await expect.poll(() => fake.inFlight).toBe(0);
  });
});
