// The free quota counts model calls (docs/api.md "The free quota"): a request that reached the model uses a slot
// whatever the model answered (an image, text only, a refusal, an answer we cannot read); a request that failed
// before any model answered (our own 400s, provider errors, timeouts) gives its slot back. Gemini and OpenAI
// through their real SDKs against local fakes, with FREE_GENERATIONS_PER_DAY=1 unless said otherwise; and the
// monthly free budget in USD that can replace it (FREE_BUDGET_USD_PER_MONTH).
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere } from '../helpers/live-client.js';
import { untilJob } from '../helpers/jobs.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

type User = { client: HttpClient; id: string; email: string };
const png = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer();
let input = '';
beforeAll(async () => {
  input = `data:image/png;base64,${(await png()).toString('base64')}`;
});
const generate = (user: User, images = [input]) => user.client.post('/api/image', { images, prompt: 'tint it blue' });
const upgradeRequired = { status: 402, json: { error: 'Upgrade required' } };

describe('free quota with Gemini through its SDK', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'quota-key' });
    t = await startTestApp({
      IMAGE_MODEL: 'gemini-2.5-flash-image',
      IMAGE_MODEL_API_KEY: 'quota-key',
      IMAGE_MODEL_BASE_URL: gemini.baseUrl,
      IMAGE_MODEL_TIMEOUT_MS: '1500',
      FREE_GENERATIONS_PER_DAY: '1',
      RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });

  it('a text-only answer uses the slot: the next request is 402 and reaches no model', async () => {
    const ada = await t.user('text-only@example.com');
    const calls = gemini.requests.length;
    gemini.reply({ kind: 'text', text: 'I would rather describe it in words.' });
    expect(await generate(ada)).toMatchObject({ status: 500, json: { error: 'No image was generated', text: 'I would rather describe it in words.' } });
    for (let i = 0; i < 3; i++) expect(await generate(ada)).toMatchObject(upgradeRequired);
    expect(gemini.requests.length).toBe(calls + 1);
    expect(await countRows(t, 'generations')).toBe(0); // used, but nothing to show in the history
  });

  it('a job into a canvas node over the quota fails 402, and the node shows the error to every editor', async () => {
    const ada = await t.user('quota-node@example.com');
    expect((await generate(ada)).status).toBe(200); // the day's one free generation
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Over quota' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [], version: 0 })).status).toBe(200);
    const live = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    try {
      await live.saved();
      const calls = gemini.requests.length;
      const made = await ada.client.post('/api/generations', { images: [input], prompt: 'p', projectId, nodeId: 'g' });
      expect(made.status, made.text).toBe(202);
      // The quota refuses it before its generation reaches the node: the job's end shows the error all the same.
      const data = (d: Y.Doc) => (canvasMaps(d).nodes.get('g') as Y.Map<unknown>).get('data') as Y.Map<unknown>;
      await docWhere(live.doc, (d) => data(d).get('error') === 'Upgrade required' && data(d).get('isGenerating') === false && !data(d).has('job'));
      expect((await ada.client.get(`/api/generations/${made.json.id}`)).json).toMatchObject({ status: 'failed', error: { status: 402, error: 'Upgrade required' } });
      expect(gemini.requests.length).toBe(calls);
    } finally {
      live.close();
    }
  });

  it('a refusal (the prompt blocked) and answers we cannot read use the slot too', async () => {
    const answers = [
      { kind: 'raw', status: 200, body: JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' } }) },
      { kind: 'malformed' },
      { kind: 'image', image: Buffer.from('these bytes are not an image') },
    ] as const;
    for (const [i, answer] of answers.entries()) {
      const user = await t.user(`unreadable-${i}@example.com`);
      gemini.reply(answer);
      const first = await generate(user);
      expect(first.status, answer.kind).toBe(500);
      const calls = gemini.requests.length;
      expect(await generate(user), answer.kind).toMatchObject(upgradeRequired);
      expect(gemini.requests.length).toBe(calls);
    }
  });

  it('a provider 500 gives the slot back: the next request reaches the model', async () => {
    const bob = await t.user('provider-500@example.com');
    gemini.reply({ kind: 'error', status: 500, message: 'backend exploded' });
    expect(await generate(bob)).toMatchObject({ status: 500, json: { error: 'Failed to generate image' } });
    gemini.reply({ kind: 'error', status: 503, message: 'overloaded' });
    expect((await generate(bob)).status).toBe(500);
    const calls = gemini.requests.length;
    expect((await generate(bob)).status).toBe(200);
    expect(gemini.requests.length).toBe(calls + 1);
    expect(await generate(bob)).toMatchObject(upgradeRequired);
  });

  it("a timeout and the provider's own quota (429) give the slot back", async () => {
    const cy = await t.user('timeout@example.com');
    gemini.reply({ kind: 'hang' });
    expect(await generate(cy)).toMatchObject({ status: 500, json: { error: 'Failed to generate image', details: expect.stringMatching(/timed out/) } });
    gemini.reply({ kind: 'quota', retryAfterSeconds: 3 });
    expect((await generate(cy)).status).toBe(429);
    expect((await generate(cy)).status).toBe(200);
    expect(await generate(cy)).toMatchObject(upgradeRequired);
  });

  it('an invalid input (400) gives the slot back, and reaches no model', async () => {
    const dee = await t.user('invalid-input@example.com');
    const calls = gemini.requests.length;
    expect((await generate(dee, ['data:image/png;base64,AAAA'])).status).toBe(400);
    expect((await generate(dee, [input, 'http://127.0.0.1/private.png'])).status).toBe(400);
    expect(gemini.requests.length).toBe(calls);
    expect((await generate(dee)).status).toBe(200);
    expect(await generate(dee)).toMatchObject(upgradeRequired);
  });

  it('a Pro user is not counted, whatever the model answers', async () => {
    const pro = await t.user('pro@example.com');
    await t.pool.query('UPDATE users SET is_pro = true WHERE id = $1', [pro.id]);
    for (let i = 0; i < 3; i++) {
      gemini.reply({ kind: 'text', text: 'words' });
      expect((await generate(pro)).status).toBe(500);
    }
    expect((await generate(pro)).status).toBe(200);
  });
});

describe('free quota with OpenAI through its SDK', () => {
  let t: TestApp;
  let openai: FakeOpenAI;
  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-quota' });
    t = await startTestApp({ IMAGE_MODEL: 'gpt-image-1', IMAGE_MODEL_API_KEY: 'sk-quota', IMAGE_MODEL_BASE_URL: openai.baseUrl, FREE_GENERATIONS_PER_DAY: '1', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  it('an answer without an image uses the slot', async () => {
    const ada = await t.user('ada@example.com');
    openai.reply({ kind: 'text', text: 'a revised prompt, but no image' });
    // Streamed (OPENAI_PARTIAL_IMAGES defaults to 2): a final event without an image.
    expect(await generate(ada)).toMatchObject({ status: 500, json: { error: 'No image was generated', text: 'The model returned no image.' } });
    const calls = openai.requests.length;
    expect(await generate(ada)).toMatchObject(upgradeRequired);
    expect(openai.requests.length).toBe(calls);
  });

  it("the safety system's refusal (400 moderation_blocked) uses the slot", async () => {
    const bob = await t.user('bob@example.com');
    const refusal = { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'moderation_blocked' } };
    openai.reply({ kind: 'raw', status: 400, body: JSON.stringify(refusal) });
    expect(await generate(bob)).toMatchObject({ status: 500, json: { error: 'Failed to generate image', details: expect.stringMatching(/safety system/) } });
    expect(await generate(bob)).toMatchObject(upgradeRequired);
  });

  it('a provider 500 gives the slot back', async () => {
    const cy = await t.user('cy@example.com');
    openai.reply({ kind: 'error', status: 500 });
    expect((await generate(cy)).status).toBe(500);
    expect((await generate(cy)).status).toBe(200);
    expect(await generate(cy)).toMatchObject(upgradeRequired);
  });
});

describe('free quota with a fallback model (FREE_GENERATIONS_PER_DAY=2)', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'k' });
    t = await startTestApp({
      IMAGE_MODEL: 'gemini-2.5-flash-image',
      IMAGE_MODEL_FALLBACK: 'local',
      IMAGE_MODEL_API_KEY: 'k',
      IMAGE_MODEL_BASE_URL: gemini.baseUrl,
      FREE_GENERATIONS_PER_DAY: '2',
      RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });

  it('the fallback reached after a primary 500 uses one slot, not two', async () => {
    const ada = await t.user('ada@example.com');
    gemini.reply({ kind: 'error', status: 500 });
    expect((await generate(ada)).status).toBe(200);
    expect((await ada.client.get('/api/user/generations?limit=1')).json.items[0].model).toBe('local');
    expect((await generate(ada)).status).toBe(200);
    expect(await generate(ada)).toMatchObject(upgradeRequired);
  });

  it('a primary answer we cannot read, then the fallback: still one slot', async () => {
    const bob = await t.user('bob@example.com');
    gemini.reply({ kind: 'malformed' });
    expect((await generate(bob)).status).toBe(200);
    expect((await generate(bob)).status).toBe(200);
    expect(await generate(bob)).toMatchObject(upgradeRequired);
  });
});

describe('monthly free budget (FREE_BUDGET_USD_PER_MONTH=0.1, Gemini 2.5 Flash Image at its list price of $0.039)', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: 'budget-key' });
    t = await startTestApp({
      IMAGE_MODEL: 'gemini-2.5-flash-image',
      IMAGE_MODEL_API_KEY: 'budget-key',
      IMAGE_MODEL_BASE_URL: gemini.baseUrl,
      FREE_BUDGET_USD_PER_MONTH: '0.1',
      RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await gemini?.close();
  });
  const spend = async (user: User) => (await user.client.get('/api/user/spend')).json;

  it('refuses a priced generation that would pass the budget (402, what is left in the details) before any model call; unpriced models still run', async () => {
    const ada = await t.user('budget@example.com');
    expect((await spend(ada)).freeBudget).toEqual({ usd: 0.1, usedUsd: 0, leftUsd: 0.1 });
    expect((await generate(ada)).status).toBe(200);
    expect((await generate(ada)).status).toBe(200);
    expect(await spend(ada)).toMatchObject({ usd: 0.078, freeBudget: { usd: 0.1, usedUsd: 0.078, leftUsd: 0.022 } });
    const calls = gemini.requests.length;
    const refused = await generate(ada);
    expect(refused).toMatchObject({ status: 402, json: { error: 'Upgrade required', details: 'this generation costs about $0.039 and $0.022 of your $0.100 free budget is left this month' } });
    expect(gemini.requests.length).toBe(calls);
    // A job of a priced model fails the same way; the offline engine has no price and is not counted.
    const job = await ada.client.post('/api/generations', { images: [input], prompt: 'p', model: 'gemini-2.5-flash-image' });
    expect(await untilJob(ada.client, job.json.id)).toMatchObject({ status: 'failed', error: { status: 402, error: 'Upgrade required' } });
    const offline = await ada.client.post('/api/generations', { images: [input], prompt: 'grayscale', model: 'local' });
    expect(await untilJob(ada.client, offline.json.id)).toMatchObject({ status: 'succeeded', model: 'local' });
    expect(gemini.requests.length).toBe(calls);
  });

  it('a running generation holds its price until it ends; a call the model answered without an image costs its price; a provider error costs nothing', async () => {
    const bob = await t.user('budget-running@example.com');
    let release!: () => void;
    gemini.reply({ kind: 'text', text: 'words', holdUntil: new Promise<void>((r) => (release = r)) });
    const calls = gemini.requests.length;
    const first = generate(bob);
    // Held in the fake: the generation is running, and holds $0.039 of the budget.
    for (let i = 0; i < 10_000 && gemini.requests.length === calls; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await spend(bob)).freeBudget).toEqual({ usd: 0.1, usedUsd: 0.039, leftUsd: 0.061 });
    expect((await generate(bob)).status).toBe(200); // 0.039 held + 0.039 made
    expect(await generate(bob)).toMatchObject({ status: 402 }); // 0.078 + 0.039 > 0.1
    release();
    expect(await first).toMatchObject({ status: 500, json: { error: 'No image was generated' } });
    // The answer without an image was a call all the same: it keeps its price.
    expect((await spend(bob)).freeBudget).toEqual({ usd: 0.1, usedUsd: 0.078, leftUsd: 0.022 });
    expect((await t.pool.query('SELECT cost_usd::float8 AS c FROM spent_model_calls WHERE user_id = $1', [bob.id])).rows).toEqual([{ c: 0.039 }]);

    const cy = await t.user('budget-error@example.com');
    gemini.reply({ kind: 'error', status: 500 });
    expect((await generate(cy)).status).toBe(500);
    expect((await spend(cy)).freeBudget).toEqual({ usd: 0.1, usedUsd: 0, leftUsd: 0.1 }); // no model answered: nothing counted
  });

  it('a Pro user has no budget', async () => {
    const pro = await t.user('budget-pro@example.com');
    await t.pool.query('UPDATE users SET is_pro = true WHERE id = $1', [pro.id]);
    for (let i = 0; i < 3; i++) expect((await generate(pro)).status).toBe(200);
    expect(await spend(pro)).toEqual({ month: expect.any(String), usd: 0.117, generations: 3, priced: 3, todayUsd: 0.117, monthUsd: 0.117, budgetUsd: null, projects: [] });
  });
});
