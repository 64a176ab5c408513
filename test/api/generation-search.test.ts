// Prompt search and filters of GET /api/user/generations (docs/api.md "Prompt search"): PostgreSQL full text
// (config `simple`), the last word a prefix, combined with the cursor paging; only the user's own generations;
// hostile search text never a 500. Generations are made through POST /api/image against a fake Gemini.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let gemini: FakeGemini;
let ada: Who;
let bob: Who;
let projectId = '';
let input = '';

const PROMPTS = ['a red cat on a mat', 'A BLUE dog', 'red car, fast', 'Über Gato naranja', "the cat's \"toy\" & (ball)"];

async function generate(who: Who, prompt: string, extra: Record<string, unknown> = {}) {
  const res = await who.client.post('/api/image', { images: [input], prompt, ...extra });
  expect(res.status, res.text).toBe(200);
}

const search = (who: Who, query: string) => who.client.get(`/api/user/generations${query}`);
async function prompts(who: Who, query: string): Promise<string[]> {
  const res = await search(who, query);
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  return res.json.items.map((g: { prompt: string }) => g.prompt);
}
const q = (text: string) => `?q=${encodeURIComponent(text)}`;

beforeAll(async () => {
  gemini = await startFakeGemini({ apiKey: 'k' });
  t = await startTestApp({ IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
  [ada, bob] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')]);
  input = `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } }).png().toBuffer()).toString('base64')}`;
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id;
  const node = { id: 'n1', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
  for (const prompt of PROMPTS) await generate(ada, prompt, prompt.startsWith('red car') ? { projectId, nodeId: 'n1' } : {});
  await generate(bob, 'a red cat of bob');
  // One of ada's generations recorded under another model name (a fallback answered, or an earlier setting).
  await t.pool.query("UPDATE generations SET model = 'gpt-image-1' WHERE prompt = 'A BLUE dog'");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await gemini?.close();
});

describe('prompt search', () => {
  it('finds words of the prompt in any case and order, the last word as a prefix, only among your own', async () => {
    expect(await prompts(ada, q('red ca'))).toEqual(['red car, fast', 'a red cat on a mat']);
    expect(await prompts(ada, q('cat red'))).toEqual(['a red cat on a mat']);
    expect(await prompts(ada, q('RED CAT'))).toEqual(['a red cat on a mat']);
    expect(await prompts(ada, q('blue'))).toEqual(['A BLUE dog']);
    // Any language's words (upper and lower case of letters outside ASCII fold only where the database's locale
    // knows them: not in the embedded server's C locale).
    expect(await prompts(ada, q('Über gat'))).toEqual(['Über Gato naranja']);
    expect(await prompts(ada, q('naranj'))).toEqual(['Über Gato naranja']);
    expect(await prompts(ada, q('ca'))).toEqual(["the cat's \"toy\" & (ball)", 'red car, fast', 'a red cat on a mat']);
    expect(await prompts(ada, q('dog cat'))).toEqual([]);
    expect(await prompts(bob, q('red cat'))).toEqual(['a red cat of bob']);
  });

  it('never fails on hostile text: quotes and tsquery operators are only separators', async () => {
    const hostile = ["'", '"', "''", '\\', '&', '|', '!', ':', '*', '(', ')', ':*', '&|!:*()', "red' & '", 'red & | cat', '!red', 'cat:*', 'ca:* | !', '(red', 'red)', '<->', 'red <-> cat', "cat's", '"toy"', '%', '%00', '\u0000', '😀', 'a'.repeat(200), 'x '.repeat(100), ' ', 'ñ\u0301'];
    for (const text of hostile) {
      const res = await search(ada, q(text));
      expect(res.status, JSON.stringify(text)).toBe(200);
      expect(Array.isArray(res.json.items), JSON.stringify(text)).toBe(true);
    }
    expect(await prompts(ada, q('&|!:*()'))).toEqual([]); // no word: nothing matches
    expect(await prompts(ada, q("red' & '"))).toEqual(['red car, fast', 'a red cat on a mat']);
    expect(await prompts(ada, q('"toy" (ball'))).toEqual(["the cat's \"toy\" & (ball)"]);
    expect(await prompts(ada, q('!red | cat:*'))).toEqual(['a red cat on a mat']);
  });

  it('is 400 for search text over 200 characters; empty text is no search', async () => {
    expect(await search(ada, q('a'.repeat(201)))).toMatchObject({ status: 400, json: { error: 'Search text is too long (at most 200 characters)' } });
    expect(await prompts(ada, '?q=')).toHaveLength(PROMPTS.length);
    expect(await prompts(ada, q('   '))).toHaveLength(PROMPTS.length);
  });

  it('pages through the matches with the cursor, as the unfiltered history does', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await search(ada, `${q('ca')}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.items).toHaveLength(1);
      seen.push(res.json.items[0].prompt);
      cursor = res.json.nextCursor;
    } while (cursor);
    expect(seen).toEqual(await prompts(ada, q('ca')));
    expect(seen).toHaveLength(3);
  });
});

describe('filters', () => {
  it('by project and by model; a project id that is no UUID matches nothing', async () => {
    expect(await prompts(ada, `?projectId=${projectId}`)).toEqual(['red car, fast']);
    expect(await prompts(ada, `?projectId=${projectId}${q('red').replace('?', '&')}`)).toEqual(['red car, fast']);
    expect(await prompts(bob, `?projectId=${projectId}`)).toEqual([]);
    expect(await prompts(ada, '?projectId=not-a-uuid')).toEqual([]);
    expect(await prompts(ada, '?model=gpt-image-1')).toEqual(['A BLUE dog']);
    expect(await prompts(ada, `?model=gpt-image-1${q('red').replace('?', '&')}`)).toEqual([]);
    expect(await prompts(ada, '?model=gemini-2.5-flash-image')).toHaveLength(PROMPTS.length - 1);
    expect((await search(ada, '?model=%00')).status).toBe(400);
  });

  it('without filters the answer keeps its shape: exactly the Generation fields', async () => {
    const res = await search(ada, '');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['items', 'nextCursor']);
    expect(res.json.items).toHaveLength(PROMPTS.length);
    for (const item of res.json.items) {
      expect(Object.keys(item)).toEqual(['id', 'userId', 'prompt', 'inputImages', 'outputImageUrl', 'model', 'createdAt']);
      expect(item.userId).toBe(ada.email);
    }
    expect(res.json.items.map((g: { prompt: string }) => g.prompt)).toEqual([...PROMPTS].reverse());
  });
});
