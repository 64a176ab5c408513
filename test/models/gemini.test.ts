// The Gemini driver through the real @google/genai SDK against a local fake of the REST API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createImageModel, withFallback, withTimeoutAndLimit } from '../../src/models/index.js';
import { type ImageModel, ModelFailedError, ModelQuotaError } from '../../src/models/image-model.js';
import { type FakeGemini, startFakeGemini } from '../fakes/gemini-server.js';
import { gradient, png, request, solid } from './images.js';

const API_KEY = 'test-gemini-key-123';
let fake: FakeGemini;
let model: ImageModel;
let first: Buffer;
let second: Buffer;
let answer: Buffer;

beforeAll(async () => {
  fake = await startFakeGemini({ apiKey: API_KEY });
  model = await createImageModel({ model: 'gemini-2.5-flash-image', apiKey: API_KEY, baseUrl: fake.baseUrl, timeoutMs: 10_000 });
  [first, second, answer] = await Promise.all([gradient(40, 30), solid(20, 20, 'orange'), gradient(16, 16, 200)]);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('Gemini driver', () => {
  it('sends every image inline plus the prompt, and returns the image and joined text', async () => {
    fake.reply({ kind: 'image', image: answer, text: 'Here is your picture.' });
    const result = await model.generate(request([png(first), { data: second, mimeType: 'image/jpeg' }], 'Combine these'));

    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.image?.mimeType).toBe('image/png');
    expect(result.text).toBe('Here is your picture.');
    expect(result.model).toBe('gemini-2.5-flash-image');

    const [sent] = fake.requests;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(sent.apiKey).toBe(API_KEY);
    expect(sent.images.map((i) => i.mimeType)).toEqual(['image/png', 'image/jpeg']);
    expect(sent.images[0].data.equals(first)).toBe(true);
    expect(sent.images[1].data.equals(second)).toBe(true);
    expect(sent.texts).toEqual(['Combine these']);
    expect(sent.responseModalities).toEqual(['TEXT', 'IMAGE']);
  });

  it('joins several text parts and skips thought parts', async () => {
    const parts = [
      { text: 'thinking…', thought: true },
      { inlineData: { mimeType: 'image/png', data: first.toString('base64') }, thought: true },
      { text: 'Done: ' },
      { inlineData: { mimeType: 'image/png', data: answer.toString('base64') } },
      { text: 'enjoy.' },
    ];
    fake.reply({ kind: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] }) });
    const result = await model.generate(request([png(first)], 'x'));
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.text).toBe('Done: enjoy.');
  });

  it('returns { text } without an image when the model only talks', async () => {
    fake.reply({ kind: 'text', text: 'I cannot edit this image.' });
    const result = await model.generate(request([png(first)], 'Edit'));
    expect(result.image).toBeUndefined();
    expect(result.text).toBe('I cannot edit this image.');
  });

  it('maps 429 to ModelQuotaError with the retry delay', async () => {
    fake.reply({ kind: 'quota', retryAfterSeconds: 17 });
    const err = await model.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelQuotaError);
    expect((err as ModelQuotaError).retryAfterSeconds).toBe(17);
    expect((err as Error).message).toContain('quota');
    expect(fake.requests).toHaveLength(1); // no SDK retries
  });

  it('maps 500 to ModelFailedError with a short reason', async () => {
    fake.reply({ kind: 'error', status: 500 });
    const err = await model.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFailedError);
    expect((err as Error).message).toBe('Image model answered HTTP 500: Internal error encountered.');
  });

  it('maps a malformed answer to ModelFailedError', async () => {
    fake.reply({ kind: 'malformed' });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(ModelFailedError);
    fake.reply({ kind: 'raw', status: 200, body: '{"candidates": "nope"}' });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(/malformed/);
    const bad = [{ inlineData: { mimeType: 'image/png', data: '***' } }];
    fake.reply({ kind: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { parts: bad } }] }) });
    await expect(model.generate(request([png(first)], 'x'))).rejects.toThrow(/base64/);
  });

  it('maps a rejected key to ModelFailedError without echoing the key', async () => {
    const wrong = await createImageModel({ model: 'gemini-2.5-flash-image', apiKey: 'wrong-key', baseUrl: fake.baseUrl, timeoutMs: 5000 });
    const err = await wrong.generate(request([png(first)], 'x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFailedError);
    expect((err as Error).message).toContain('API key not valid');
    expect((err as Error).message).not.toContain('wrong-key');
  });

  it('maps an unreachable server to ModelFailedError', async () => {
    const closed = await startFakeGemini();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const gone = await createImageModel({ model: 'gemini-2.5-flash-image', apiKey: API_KEY, baseUrl, timeoutMs: 5000 });
    await expect(gone.generate(request([png(first)], 'x'))).rejects.toThrow(/Image model request failed/);
  });

  it('times out a call that never answers', async () => {
    fake.reply({ kind: 'hang' });
    const limited = withTimeoutAndLimit(model, { timeoutMs: 300, maxConcurrent: 2 });
    await expect(limited.generate(request([png(first)], 'x'))).rejects.toThrow(
      new ModelFailedError('Image model timed out after 300 ms'),
    );
    await expect.poll(() => fake.inFlight).toBe(0); // the SDK really aborted the request
  });

  it('falls back from a failing primary to a working fallback', async () => {
    const fallbackModel = await createImageModel({ model: 'gemini-3-pro-image-preview', apiKey: API_KEY, baseUrl: fake.baseUrl, timeoutMs: 5000 });
    fake.reply({ kind: 'error', status: 503, message: 'The model is overloaded.' });
    fake.reply({ kind: 'image', image: answer });
    const both = withFallback(model, fallbackModel);
    const result = await both.generate(request([png(first)], 'x'));
    expect(result.model).toBe('gemini-3-pro-image-preview');
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(fake.requests.map((r) => r.model)).toEqual(['gemini-2.5-flash-image', 'gemini-3-pro-image-preview']);
  });

  it('with maxConcurrent 1, concurrent calls reach the provider one at a time', async () => {
    const limited = withTimeoutAndLimit(model, { timeoutMs: 5000, maxConcurrent: 1 });
    fake.reply({ kind: 'image', image: answer, delayMs: 150 });
    fake.reply({ kind: 'image', image: answer, delayMs: 150 });
    const results = await Promise.all([1, 2].map(() => limited.generate(request([png(first)], 'x'))));
    expect(results.every((r) => r.image)).toBe(true);
    expect(fake.requests.map((r) => r.inFlightAtArrival)).toEqual([0, 0]);
  });

  it('the fake does see overlap when nothing limits it (control for the test above)', async () => {
    fake.reply({ kind: 'image', image: answer, delayMs: 150 });
    fake.reply({ kind: 'image', image: answer, delayMs: 150 });
    await Promise.all([1, 2].map(() => model.generate(request([png(first)], 'x'))));
    expect(fake.requests.map((r) => r.inFlightAtArrival).sort()).toEqual([0, 1]);
  });
});
