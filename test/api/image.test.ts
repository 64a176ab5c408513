// POST /api/image (docs/api.md, "Image generation"): the offline engine end to end, Gemini and OpenAI through their
// real SDKs against local fakes, safe inputs, records and history.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

type User = { client: HttpClient; id: string; email: string };
const solid = (r: number, g: number, b: number, w = 40, h = 30) => sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } }).png().toBuffer();
const dataUrl = (buf: Buffer, mime = 'image/png') => `data:${mime};base64,${buf.toString('base64')}`;

async function uploadImage(user: User, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'in.png');
  const res = await user.client.request('/api/upload', { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.json.url;
}
const generate = (user: User, body: unknown) => user.client.post('/api/image', body);

describe('generation with the offline engine (embedded default)', () => {
  let t: TestApp;
  let ada: User;
  let bob: User;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
    [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
  });
  afterAll(() => t?.close());

  it('turns two stored images and a prompt into a stored PNG, returned inline and by URL, and records it', async () => {
    const [a, b] = await Promise.all([uploadImage(ada, await solid(250, 20, 20)), uploadImage(ada, await solid(20, 20, 250))]);
    const res = await generate(ada, { images: [a, b], prompt: 'grayscale side by side' });
    expect(res.status).toBe(200);
    expect(res.json.imageUrl).toMatch(/\/generated-\d{13}-[0-9a-f]{12}\.png$/);
    expect(res.json.imageBase64).toMatch(/^data:image\/png;base64,/);
    expect(res.json.text).toMatch(/offline image engine/i);
    expect(res.json.text).toMatch(/grayscale/);

    const stored = Buffer.from(await (await fetch(res.json.imageUrl)).arrayBuffer());
    expect(stored.equals(Buffer.from(res.json.imageBase64.split(',')[1], 'base64'))).toBe(true);
    const { width, height } = await sharp(stored).metadata();
    expect([width, height]).toEqual([80, 30]);
    const { data, info } = await sharp(stored).raw().toBuffer({ resolveWithObject: true });
    for (let i = 0; i < data.length; i += info.channels) {
      expect(data[i]).toBe(data[i + 1]);
      expect(data[i + 1]).toBe(data[i + 2]);
    }

    const history = await ada.client.get('/api/user/generations');
    expect(history.json.items[0]).toMatchObject({ id: expect.stringMatching(/^gen-\d{13}-[0-9a-f]{12}$/), userId: 'ada@example.com', prompt: 'grayscale side by side', inputImages: [a, b], outputImageUrl: res.json.imageUrl, model: 'local' });
    expect((await bob.client.get('/api/user/generations')).json.items).toEqual([]);
  });

  it('fails a prompt the engine can do nothing with (400 naming what it understands, nothing recorded), as POST /api/image and as a job into a node', async () => {
    const img = dataUrl(await solid(10, 200, 10));
    const before = await countRows(t, 'generations');
    // Before: 200, the input returned unchanged as the result.
    const refused = await generate(ada, { images: [img], prompt: 'watercolor tiger' });
    expect(refused).toMatchObject({
      status: 400,
      json: {
        error: 'Prompt not understood: the offline engine is not an AI model and did not understand “watercolor tiger”',
        details: expect.stringMatching(/^It understands: grayscale \(black and white, b&w\), sepia, invert/),
      },
    });
    expect(await generate(ada, { images: [img], prompt: 'side by side' })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/^Prompt not understood: “side by side” arranges several images, and there is one/) } });
    expect(await countRows(t, 'generations')).toBe(before);

    // A job into a canvas node fails with the same answer, and the node says so.
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Honest' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'watercolor tiger' } };
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
    const job = await ada.client.post('/api/generations', { images: [img], prompt: 'watercolor tiger', projectId, nodeId: 'g' });
    expect(job.status, job.text).toBe(202);
    expect(await untilJob(ada.client, job.json.id)).toMatchObject({ status: 'failed', output: null, error: { status: 400, error: refused.json.error, details: refused.json.details } });
    const nodeData = async () => (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data;
    await expect.poll(async () => (await nodeData()).error, { timeout: 30_000 }).toBe(refused.json.error);
    expect(await countRows(t, 'generations')).toBe(before);

    // A partly understood prompt succeeds and says what it did and what it ignored; the gallery keeps those words.
    const partly = await ada.client.post('/api/generations', { images: [img], prompt: 'watercolor tiger, grayscale', projectId, nodeId: 'g' });
    expect(await untilJob(ada.client, partly.json.id)).toMatchObject({ status: 'succeeded' });
    const said = 'Offline image engine (not an AI model): applied grayscale. Not understood, so ignored: “watercolor tiger”.';
    const gallery = await ada.client.get(`/api/projects/${projectId}/generations?nodeId=g`);
    expect(gallery.json.items).toMatchObject([{ prompt: 'watercolor tiger, grayscale', text: said }]);
    expect((await generate(ada, { images: [img], prompt: 'watercolor tiger, grayscale' })).json.text).toBe(said);
  });

  it('accepts a data-URL input and records it as a stored URL, never as data', async () => {
    const res = await generate(ada, { images: [dataUrl(await solid(10, 200, 10))], prompt: 'invert' });
    expect(res.status).toBe(200);
    const record = (await ada.client.get('/api/user/generations?limit=1')).json.items[0];
    expect(record.inputImages).toHaveLength(1);
    expect(record.inputImages[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/\d{13}-[0-9a-f]{12}-input\.png$/);
    expect((await fetch(record.inputImages[0])).status).toBe(200);
  });

  it('answers every documented error string for this route', async () => {
    const img = dataUrl(await solid(1, 2, 3));
    const cases: Array<[unknown, number, string]> = [
      [{ prompt: 'x' }, 400, 'No images provided'],
      [{ images: [], prompt: 'x' }, 400, 'No images provided'],
      [{ images: [img] }, 400, 'No prompt provided'],
      [{ images: [img], prompt: '' }, 400, 'No prompt provided'],
      [{ images: [img], prompt: '   ' }, 400, 'No prompt provided'],
      [{ images: Array(11).fill(img), prompt: 'x' }, 400, 'Too many images'],
      [{ images: [img], prompt: 'x'.repeat(10_001) }, 400, 'Prompt too long'],
    ];
    const before = await countRows(t, 'generations');
    for (const [body, status, error] of cases) expect(await generate(ada, body), error).toMatchObject({ status, json: { error } });
    expect(await generate({ ...ada, client: t.client() }, { images: [img], prompt: 'x' })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await countRows(t, 'generations')).toBe(before);
  });

  it('refuses inputs that are not images, missing from our store, or at private addresses: 400 Invalid image: <url>', async () => {
    const port = new URL(t.baseUrl).port;
    const refused = [
      `http://127.0.0.1:${port}/api/health`,
      `http://localhost:${port}/files/x.png`,
      `http://[::1]:${port}/`,
      'http://0.0.0.0/',
      'http://10.0.0.1/x.png',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.0.0.1:${port}/`,
      `http://0177.0.0.1:${port}/`,
      'file:///etc/passwd',
      'ftp://example.com/x.png',
      'gopher://example.com/',
      `${t.baseUrl}/files/1700000000000-aaaaaaaaaaaa-missing.png`,
      dataUrl(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png'),
      'data:image/png;base64,@@@',
      'not a url',
    ];
    const before = await countRows(t, 'generations');
    for (const url of refused) {
      const res = await generate(ada, { images: [dataUrl(await solid(1, 2, 3)), url], prompt: 'grayscale' });
      expect(res.status, url).toBe(400);
      expect(res.json.error, url).toBe(`Invalid image: ${url.length > 100 ? url.slice(0, 100) + '…' : url}`);
    }
    expect(await countRows(t, 'generations')).toBe(before);
  });

  it('answers a name that does not resolve as it answers one that resolves to a refused address (no leak of internal names)', async () => {
    const port = new URL(t.baseUrl).port;
    const answers = [];
    for (const url of ['http://nowhere.invalid/x.png', `http://localhost:${port}/x.png`, 'http://10.0.0.1/x.png']) {
      const res = await generate(ada, { images: [url], prompt: 'grayscale' });
      expect(res.status, url).toBe(400);
      answers.push({ ...res.json, error: res.json.error.replace(url, '<url>') });
    }
    expect(answers).toEqual(Array(3).fill({ error: 'Invalid image: <url>', details: 'host not found or not allowed' }));
  });

  it('pages the history newest first with a cursor', async () => {
    const img = dataUrl(await solid(5, 5, 5));
    for (const prompt of ['grayscale', 'sepia', 'invert']) expect((await generate(bob, { images: [img], prompt })).status).toBe(200);
    const first = await bob.client.get('/api/user/generations?limit=2');
    expect(first.json.items.map((g: { prompt: string }) => g.prompt)).toEqual(['invert', 'sepia']);
    const second = await bob.client.get(`/api/user/generations?limit=2&cursor=${first.json.nextCursor}`);
    expect(second.json.items.map((g: { prompt: string }) => g.prompt)).toEqual(['grayscale']);
    expect(second.json.nextCursor).toBeNull();
    expect((await bob.client.get('/api/user/generations?cursor=garbage')).status).toBe(400);
  });
});

describe('generation limits', () => {
  let t: TestApp;
  let ada: User;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '2', INPUT_IMAGE_MAX_BYTES: '2000' });
    ada = await t.user('ada@example.com');
  });
  afterAll(() => t?.close());

  it('refuses an input over the size limit, and rate-limits per user with Retry-After', async () => {
    const big = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#888' } }).jpeg({ quality: 100 }).toBuffer();
    const noisy = Buffer.concat([big, Buffer.alloc(3000, 7)]);
    expect(await generate(ada, { images: [dataUrl(noisy, 'image/jpeg')], prompt: 'blur' })).toMatchObject({ status: 400, json: { error: 'Input image too large' } });
    const small = dataUrl(await solid(9, 9, 9, 4, 4));
    expect((await generate(ada, { images: [small], prompt: 'blur' })).status).toBe(200); // the refused one counted as the first
    const limited = await generate(ada, { images: [small], prompt: 'blur' });
    expect(limited).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('generation with Gemini through its SDK', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  let ada: User;
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'test-key' });
    t = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'test-key', IMAGE_MODEL_BASE_URL: gemini.baseUrl, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
    ada = await t.user('ada@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });

  it('sends the images inline with the prompt appended, stores the first image part and joins the text', async () => {
    const out = await solid(1, 200, 1, 8, 8);
    gemini.reply({ kind: 'image', image: out, text: 'Here you go.' });
    const inputs = [await solid(200, 0, 0), await solid(0, 0, 200)];
    const url = await uploadImage(ada, inputs[0]);
    const res = await generate(ada, { images: [url, dataUrl(inputs[1])], prompt: 'make it green' });
    expect(res.status).toBe(200);
    expect(res.json.text).toBe('Here you go.');
    // The model's PNG is kept byte for byte, with our provenance (XMP) chunk added after its header.
    const stored = Buffer.from(await (await fetch(res.json.imageUrl)).arrayBuffer());
    expect(stored.equals(out)).toBe(false);
    expect(Buffer.concat([stored.subarray(0, 33), stored.subarray(33 + 12 + stored.readUInt32BE(33))]).equals(out)).toBe(true);
    expect(stored.subarray(33 + 8, 33 + 8 + 17).toString('latin1')).toBe('XML:com.adobe.xmp');
    const sent = gemini.requests.at(-1)!;
    expect(sent.model).toBe('gemini-2.5-flash-image');
    expect(sent.apiKey).toBe('test-key');
    expect(sent.images.map((i) => i.data.equals(inputs[0]) || i.data.equals(inputs[1]))).toEqual([true, true]);
    expect(sent.texts).toEqual(['make it green']);
    expect((await ada.client.get('/api/user/generations?limit=1')).json.items[0].model).toBe('gemini-2.5-flash-image');
  });

  it('maps the model outcomes to the documented errors and records nothing', async () => {
    const img = dataUrl(await solid(3, 3, 3));
    const before = await countRows(t, 'generations');
    gemini.reply({ kind: 'text', text: 'I cannot draw that.' });
    expect(await generate(ada, { images: [img], prompt: 'x' })).toMatchObject({ status: 500, json: { error: 'No image was generated', text: 'I cannot draw that.' } });
    gemini.reply({ kind: 'quota', retryAfterSeconds: 17 });
    const busy = await generate(ada, { images: [img], prompt: 'x' });
    expect(busy).toMatchObject({ status: 429, json: { error: 'Image model is busy' } });
    expect(busy.headers.get('retry-after')).toBe('17');
    gemini.reply({ kind: 'error', status: 500, message: 'backend exploded' });
    const failed = await generate(ada, { images: [img], prompt: 'x' });
    expect(failed).toMatchObject({ status: 500, json: { error: 'Failed to generate image', details: expect.any(String) } });
    expect(failed.text).not.toContain('test-key');
    gemini.reply({ kind: 'malformed' });
    expect(await generate(ada, { images: [img], prompt: 'x' })).toMatchObject({ status: 500, json: { error: 'Failed to generate image' } });
    expect(await countRows(t, 'generations')).toBe(before);
  });
});

describe('generation with OpenAI through its SDK', () => {
  let t: TestApp;
  let openai: FakeOpenAI;
  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    t = await startTestApp({ IMAGE_MODEL: 'gpt-image-1', IMAGE_MODEL_API_KEY: 'sk-test', IMAGE_MODEL_BASE_URL: openai.baseUrl });
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  it('edits several input images into one stored PNG', async () => {
    const ada = await t.user('ada@example.com');
    const res = await generate(ada, { images: [dataUrl(await solid(1, 1, 1)), dataUrl(await solid(2, 2, 2))], prompt: 'combine' });
    expect(res.status).toBe(200);
    expect(res.json.imageUrl).toMatch(/generated-.*\.png$/);
    expect(openai.requests.at(-1)!.images ?? openai.requests.at(-1)).toBeTruthy();
    expect((await ada.client.get('/api/user/generations?limit=1')).json.items[0].model).toBe('gpt-image-1');
  });
});

describe('a model that never answers', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'k' });
    gemini.setDefaultReply({ kind: 'hang' });
    t = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, IMAGE_MODEL_TIMEOUT_MS: '500' });
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });

  it('is cut off by the timeout: 500 Failed to generate image, nothing recorded', async () => {
    const ada = await t.user('ada@example.com');
    const res = await generate(ada, { images: [dataUrl(await solid(1, 1, 1))], prompt: 'x' });
    expect(res).toMatchObject({ status: 500, json: { error: 'Failed to generate image', details: expect.stringMatching(/timed out/) } });
    expect(await countRows(t, 'generations')).toBe(0);
  });

  it('a generation job is cut off the same way: the job fails with the reason, nothing recorded', async () => {
    const cy = await t.user('cy@example.com');
    const made = await cy.client.post('/api/generations', { images: [dataUrl(await solid(1, 1, 1))], prompt: 'x' });
    expect(made.status, made.text).toBe(202);
    const job = await untilJob(cy.client, made.json.id);
    expect(job).toMatchObject({ status: 'failed', output: null, lineage: null, error: { status: 500, error: 'Failed to generate image', details: expect.stringMatching(/timed out/) } });
    expect(await countRows(t, 'generations')).toBe(0);
  });

  it('refuses a 25 MB data-URL input as too large before any model call', async () => {
    const ada = await t.user('bob@example.com');
    const calls = gemini.requests.length;
    const huge = Buffer.alloc(25 * 1024 * 1024, 1);
    huge.set(await solid(1, 1, 1)); // starts like a PNG
    const res = await generate(ada, { images: [dataUrl(huge)], prompt: 'x' });
    expect(res).toMatchObject({ status: 400, json: { error: 'Input image too large' } });
    expect(gemini.requests.length).toBe(calls);
  });
});

describe('a provider model without its key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image' });
  });
  afterAll(() => t?.close());

  it('answers 500 naming the missing key and asking for it in the local environment file', async () => {
    const ada = await t.user('ada@example.com');
    const res = await generate(ada, { images: [dataUrl(await solid(1, 1, 1))], prompt: 'x' });
    expect(res.status).toBe(500);
    expect(res.json.error).toContain('IMAGE_MODEL_API_KEY');
    expect(res.json.error).toMatch(/environment file/);
  });
});
