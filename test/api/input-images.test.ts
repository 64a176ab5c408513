// Input images are checked before any model is called (docs/api.md "Image generation"): a header declaring more
// pixels than INPUT_IMAGE_MAX_PIXELS, inputs declaring more than GENERATION_MAX_PIXELS together, a truncated or
// corrupt file → 400 naming the problem, with no call to the model nor to its fallback, whether the input is a
// data URL or a stored file.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { asDataUrl, badImages, pngDeclaring, type BadImages } from '../helpers/bad-images.js';
import type { HttpClient } from '../helpers/http-client.js';
import { countRows, openObjectStore, startTestApp, type TestApp } from '../helpers/test-app.js';

type User = { client: HttpClient; id: string; email: string };

describe('malformed input images', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  let ada: User;
  let bad: BadImages;
  let good = '';
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'k' });
    // The fallback is the offline engine: a refused input must not reach it either (it would answer 200).
    t = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_FALLBACK: 'local', IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
    ada = await t.user('ada@example.com');
    bad = await badImages();
    good = asDataUrl(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#363' } }).png().toBuffer());
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });

  const generate = (images: string[]) => ada.client.post('/api/image', { images, prompt: 'grayscale' });

  it('answers 400 naming the problem, calls no model, records and stores nothing', async () => {
    const cases: Array<[keyof BadImages, string, string]> = [
      ['hugePng', 'image/png', 'Invalid image: 100000×100000 is more than the 40000000-pixel limit'],
      ['hugeJpeg', 'image/jpeg', 'Invalid image: 60000×60000 is more than the 40000000-pixel limit'],
      ['truncatedPng', 'image/png', 'Invalid image: the image is truncated'],
      ['truncatedJpeg', 'image/jpeg', 'Invalid image: the image is truncated'],
      ['truncatedWebp', 'image/webp', 'Invalid image: the image is truncated'],
      ['truncatedGif', 'image/gif', 'Invalid image: the image is truncated'],
      ['pngHeaderOnly', 'image/png', 'Invalid image: the image is truncated'],
      ['corruptPng', 'image/png', 'Invalid image: the image is corrupt'],
    ];
    const calls = gemini.requests.length;
    for (const [name, mime, error] of cases) {
      const res = await generate([good, asDataUrl(bad[name], mime)]);
      expect(res, name).toMatchObject({ status: 400, json: { error, details: expect.stringMatching(/^images\[1\]: data:image\//) } });
    }
    // Garbage behind a valid header: refused (it ends without the format's end marker, so it reads as truncated).
    for (const [data, mime] of [[bad.garbageAfterPngHeader, 'image/png'], [bad.garbageAfterJpegHeader, 'image/jpeg']] as const) {
      expect(await generate([asDataUrl(data, mime)]), mime).toMatchObject({ status: 400, json: { error: expect.stringMatching(/^Invalid image: the image is (truncated|corrupt)$/) } });
    }
    expect(gemini.requests.length).toBe(calls);
    expect(await countRows(t, 'generations')).toBe(0);
  });

  it('a stored file is checked the same way', async () => {
    // Written straight into the app's store (whatever the upload route would have said about it).
    const store = await openObjectStore(t);
    const { url } = await store.put(`${Date.now()}-0123456789ab-cut.png`, bad.truncatedPng, { contentType: 'image/png', maxBytes: 1024 * 1024 }).finally(() => store.close());
    const calls = gemini.requests.length;
    expect(await generate([url])).toMatchObject({ status: 400, json: { error: 'Invalid image: the image is truncated', details: `images[0]: ${url}` } });
    expect(gemini.requests.length).toBe(calls);
  });

  it('a valid image at the limit passes; one pixel more does not (INPUT_IMAGE_MAX_PIXELS)', async () => {
    const small = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, INPUT_IMAGE_MAX_PIXELS: '1200' });
    try {
      const bob = await small.user('bob@example.com');
      const at = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#888' } }).png().toBuffer();
      const over = await sharp({ create: { width: 41, height: 30, channels: 3, background: '#888' } }).png().toBuffer();
      expect((await bob.client.post('/api/image', { images: [asDataUrl(at)], prompt: 'x' })).status).toBe(200);
      const calls = gemini.requests.length;
      expect(await bob.client.post('/api/image', { images: [asDataUrl(over)], prompt: 'x' })).toMatchObject({ status: 400, json: { error: 'Invalid image: 41×30 is more than the 1200-pixel limit' } });
      expect(await bob.client.post('/api/image', { images: [asDataUrl(pngDeclaring(2000, 2000))], prompt: 'x' })).toMatchObject({ status: 400, json: { error: 'Invalid image: 2000×2000 is more than the 1200-pixel limit' } });
      expect(gemini.requests.length).toBe(calls);
    } finally {
      await small.close();
    }
  });

  it('the inputs of one request share a pixel budget, read from their headers before any decoding (GENERATION_MAX_PIXELS)', async () => {
    const budget = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, GENERATION_MAX_PIXELS: '5000' });
    try {
      const cy = await budget.user('cy@example.com');
      const square = asDataUrl(await sharp({ create: { width: 40, height: 40, channels: 3, background: '#468' } }).png().toBuffer());
      // 3 × 1600 = 4800 pixels: within the budget.
      expect((await cy.client.post('/api/image', { images: [square, square, square], prompt: 'x' })).status).toBe(200);
      const calls = gemini.requests.length;
      expect(await cy.client.post('/api/image', { images: [square, square, square, square], prompt: 'x' })).toMatchObject({
        status: 400,
        json: { error: 'Invalid image: the 4 images are 6400 pixels together, more than the 5000-pixel limit of one generation', details: 'images: all inputs together' },
      });
      // The second input declares 60×60 (3600 pixels) but holds far too little data: decoding it would refuse it.
      // The budget answers first, so nothing was decoded.
      expect(await cy.client.post('/api/image', { images: [square, asDataUrl(pngDeclaring(60, 60))], prompt: 'x' })).toMatchObject({
        status: 400,
        json: { error: 'Invalid image: the 2 images are 5200 pixels together, more than the 5000-pixel limit of one generation' },
      });
      expect(gemini.requests.length).toBe(calls);
    } finally {
      await budget.close();
    }
  });
});
