// Lineage of generations (docs/api.md "Lineage"), the provenance XMP in their PNGs, a project's gallery and named
// downloads (docs/api.md "Project gallery"), and migration 0016 on a database of the previous release. Generations
// go through POST /api/image to a fake Gemini over HTTP; rows are read straight from PostgreSQL.
import { createHash } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase } from '../../src/db/index.js';
import { createGenerationsGalleryRepository } from '../../src/db/repositories/index.js';
import { presentLineage } from '../../src/routes/lineage.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { migrateUpTo } from '../helpers/migrations.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let gemini: FakeGemini;
let ada: Who;
let bob: Who;
let cat: Who;
let dan: Who;

const MODEL = 'gemini-2.5-flash-image';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const pngOf = (background: string, width = 8) => sharp({ create: { width, height: 8, channels: 3, background } }).png().toBuffer();
const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;
const fetchBytes = async (url: string) => {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};
const rowOf = async (outputUrl: string) => (await t.pool.query('SELECT * FROM generations WHERE output_image_url = $1', [outputUrl])).rows[0];
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });

/** POST /api/image as `who`, the model answering `image`: the answer. */
async function generate(who: Who, body: Record<string, unknown>, image?: Buffer): Promise<{ imageUrl: string; imageBase64: string }> {
  if (image) gemini.reply({ kind: 'image', image });
  const res = await who.client.post('/api/image', body);
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.json).sort()).toEqual(['imageBase64', 'imageUrl']); // SPEC's answer, nothing added
  return res.json;
}

/** The properties of the XMP packet in a PNG's iTXt `XML:com.adobe.xmp` chunk (null without one). */
function xmpOf(png: Buffer): Record<string, string> | null {
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'iTXt' && data.subarray(0, 18).toString('latin1') === 'XML:com.adobe.xmp\0') {
      const text = data.subarray(data.indexOf(0, data.indexOf(0, 21) + 1) + 1).toString('utf8');
      const props: Record<string, string> = {};
      for (const m of text.matchAll(/([\w]+:[\w]+)="([^"]*)"/g)) props[m[1]] = m[2].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      return props;
    }
    at += 12 + length;
  }
  return null;
}

/** The generation's row as the lineage repository reads it for ada (its author). */
async function galleryLineage(generationId: string) {
  const database = await openDatabase({ url: t.databaseUrl, poolSize: 1, statementTimeoutMs: 0, onError: () => undefined });
  try {
    return await createGenerationsGalleryRepository(database.db).lineageOf(ada.id, generationId);
  } finally {
    await database.close();
  }
}

async function project(owner: Who, name: string, nodes = ['n1', 'n2']): Promise<string> {
  const id = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
  const saved = await owner.client.post('/api/user/project/canvas', { projectId: id, nodes: nodes.map(node), edges: [] });
  expect(saved.status, saved.text).toBe(200);
  return id;
}

async function share(owner: Who, projectId: string, who: Who, role: 'editor' | 'viewer') {
  const res = await owner.client.post(`/api/user/project/${projectId}/members`, { email: who.email, role });
  expect(res.status, res.text).toBeLessThan(300);
}

beforeAll(async () => {
  gemini = await startFakeGemini({ apiKey: 'k' });
  t = await startTestApp({ IMAGE_MODEL: MODEL, IMAGE_MODEL_API_KEY: 'k', IMAGE_MODEL_BASE_URL: gemini.baseUrl, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
  [ada, bob, cat, dan] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob'), t.user('cat@example.com', 'Cat'), t.user('dan@example.com', 'Dan')]);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await gemini?.close();
});

describe('lineage of a generation', () => {
  it('records project, node, canvas version, model version, input and output digests and durations; the PNG carries the id and the model', async () => {
    const projectId = await project(ada, 'Lineage');
    const canvasVersion = async () => (await t.pool.query('SELECT version FROM canvases WHERE project_id = $1', [projectId])).rows[0].version as number;
    const before = await canvasVersion();
    const input = await pngOf('#123456', 12);
    const output = await pngOf('#abcdef', 16);
    // The provider states its own model version: it is recorded as sent.
    gemini.reply({
      kind: 'raw',
      status: 200,
      body: JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: output.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-2.5-flash-image-001',
      }),
    });
    const answer = await generate(ada, { images: [dataUrl(input)], prompt: 'a secret <recipe> & more', projectId, nodeId: 'n1' });

    const after = await canvasVersion();
    const row = await rowOf(answer.imageUrl);
    const stored = await fetchBytes(answer.imageUrl);
    expect(Buffer.from(answer.imageBase64.replace(/^data:image\/png;base64,/, ''), 'base64').equals(stored)).toBe(true);
    expect(row).toMatchObject({
      user_id: ada.id,
      project_id: projectId,
      node_id: 'n1',
      model: MODEL,
      model_version: 'gemini-2.5-flash-image-001',
      output_sha256: sha256(stored),
      output_bytes: stored.length,
      // Gemini states no cost: the model's list price per image (GET /api/models).
      cost: { amount: 0.039, currency: 'USD', basis: 'list price' },
      parent_ids: [],
      prompt_in_metadata: false,
    });
    // The canvas version when the generation started: the node's own state changes (queued, running, the result)
    // come on top of the version before the request.
    expect(row.canvas_version).toBeGreaterThanOrEqual(before);
    expect(row.canvas_version).toBeLessThanOrEqual(after);
    // Made by a generation job (POST /api/image waits for one) when the job passed its lineage: that job, and its queue time.
    const job = (await t.pool.query('SELECT id FROM generation_jobs WHERE generation_id = $1', [row.id])).rows[0];
    if (row.job_id !== null) expect(row.job_id).toBe(job?.id);
    expect(row.queued_ms === null).toBe(row.job_id === null);
    expect(row.inputs).toEqual([{ url: row.input_images[0], sha256: sha256(input), bytes: input.length }]);
    expect(row.input_images[0]).toMatch(/^http/); // the data URL was stored, its URL recorded
    expect(row.model_ms).toBeGreaterThanOrEqual(0);
    expect(row.total_ms).toBeGreaterThanOrEqual(row.model_ms + (row.queued_ms ?? 0));

    // Provenance: IPTC digital source type, our id and the model; never the prompt unless opted in.
    const xmp = xmpOf(stored);
    expect(xmp).toMatchObject({
      'Iptc4xmpExt:DigitalSourceType': 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
      'ic:GenerationId': row.id,
      'ic:Model': MODEL,
    });
    expect(xmp).not.toHaveProperty('ic:Prompt');
    expect(stored.toString('latin1')).not.toContain('secret');
    // The pixels are the model's.
    expect(await sharp(stored).raw().toBuffer()).toEqual(await sharp(output).raw().toBuffer());
  });

  it("without a project: no project, node nor canvas version; the model's id stands for the version the provider did not state", async () => {
    gemini.reply({ kind: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: (await pngOf('#0f0')).toString('base64') } }] }, finishReason: 'STOP', index: 0 }] }) });
    const answer = await generate(ada, { images: [dataUrl(await pngOf('#f00'))], prompt: 'plain' });
    expect(await rowOf(answer.imageUrl)).toMatchObject({ project_id: null, node_id: null, canvas_version: null, model_version: MODEL, parent_ids: [] });
  });

  it('parents: generations whose output is an input, when the user may see them (their own, or of the same project)', async () => {
    const projectId = await project(ada, 'Family');
    const first = await generate(ada, { images: [dataUrl(await pngOf('#111'))], prompt: 'first' }, await pngOf('#222'));
    const firstId = (await rowOf(first.imageUrl)).id;
    // ada's own output as an input: a parent. Two inputs, one of them ours, one an upload-like data URL.
    const second = await generate(ada, { images: [first.imageUrl, dataUrl(await pngOf('#333'))], prompt: 'second', projectId, nodeId: 'n1' }, await pngOf('#444'));
    const secondRow = await rowOf(second.imageUrl);
    expect(secondRow.parent_ids).toEqual([firstId]);
    expect(secondRow.inputs.map((i: { url: string }) => i.url)).toEqual(secondRow.input_images);
    expect(secondRow.inputs[0].sha256).toBe(sha256(await fetchBytes(first.imageUrl)));

    // bob, a stranger, uses ada's outputs: the image is public, but her generations are not his to see.
    const strangers = await generate(bob, { images: [second.imageUrl], prompt: 'copy' }, await pngOf('#555'));
    expect((await rowOf(strangers.imageUrl)).parent_ids).toEqual([]);

    // cat, an editor of the project, into the same project: ada's generation in that project is a parent;
    // ada's generation outside it (first) is not.
    await share(ada, projectId, cat, 'editor');
    const cats = await generate(cat, { images: [second.imageUrl, first.imageUrl], prompt: 'together', projectId, nodeId: 'n2' }, await pngOf('#666'));
    expect((await rowOf(cats.imageUrl)).parent_ids).toEqual([secondRow.id]);
  });

  it('a job: GET /api/generations/{id} answers its lineage once it succeeded; promptInMetadata puts the prompt in the PNG, only when true', async () => {
    const projectId = await project(ada, 'Job lineage');
    const settle = (id: string) => untilJob(ada.client, id);
    const queue = async (body: Record<string, unknown>, output: Buffer) => {
      gemini.reply({ kind: 'image', image: output });
      const made = await ada.client.post('/api/generations', body);
      expect(made.status, made.text).toBe(202);
      expect(made.json).toMatchObject({ id: expect.stringMatching(/^job_/), status: 'queued' });
      // Until it succeeds, no lineage.
      const early = await ada.client.get(`/api/generations/${made.json.id}`);
      if (early.json.status !== 'succeeded') expect(early.json.lineage).toBeNull();
      return settle(made.json.id);
    };
    const input = await pngOf('#010203');
    const job = await queue({ images: [dataUrl(input)], prompt: 'a "quoted" <prompt> & more', projectId, nodeId: 'n1', promptInMetadata: true }, await pngOf('#0a0b0c'));
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const stored = await fetchBytes(job.output.imageUrl);
    const row = await rowOf(job.output.imageUrl);
    expect(job.lineage).toEqual(presentLineage((await galleryLineage(row.id))!));
    expect(job.lineage).toMatchObject({
      generationId: row.id,
      jobId: job.id,
      projectId,
      nodeId: 'n1',
      model: MODEL,
      inputs: [{ url: expect.stringMatching(/^http/), sha256: sha256(input), bytes: input.length }],
      output: { url: job.output.imageUrl, sha256: sha256(stored), bytes: stored.length },
      durations: { queuedMs: expect.any(Number), modelMs: expect.any(Number), totalMs: expect.any(Number) },
      parentIds: [],
      promptInMetadata: true,
    });
    expect(xmpOf(stored)).toMatchObject({ 'ic:GenerationId': row.id, 'ic:Prompt': 'a "quoted" <prompt> & more' });

    // Without the opt-in (or with false), the PNG has no prompt.
    for (const promptInMetadata of [undefined, false]) {
      const plain = await queue({ images: [dataUrl(input)], prompt: 'kept out of the file', ...(promptInMetadata === undefined ? {} : { promptInMetadata }) }, await pngOf('#0d0e0f'));
      expect(plain.lineage).toMatchObject({ jobId: plain.id, promptInMetadata: false });
      const bytes = await fetchBytes(plain.output.imageUrl);
      expect(xmpOf(bytes)).not.toHaveProperty('ic:Prompt');
      expect(bytes.toString('latin1')).not.toContain('kept out');
    }

    // A failed job has no lineage; someone else's job is 404 (and shows nothing of it).
    gemini.reply({ kind: 'text', text: 'no image today' });
    const failing = await ada.client.post('/api/generations', { images: [dataUrl(input)], prompt: 'fails' });
    expect(failing.status).toBe(202);
    expect(await settle(failing.json.id)).toMatchObject({ status: 'failed', lineage: null, output: null });
    expect(await bob.client.get(`/api/generations/${job.id}`)).toMatchObject({ status: 404, json: { error: 'Job not found' } });

    // Not a boolean: 400 naming the field, and no job.
    const count = async () => Number((await t.pool.query('SELECT count(*) FROM generation_jobs WHERE user_id = $1', [ada.id])).rows[0].count);
    const before = await count();
    for (const bad of ['yes', 1, null, {}]) {
      expect(await ada.client.post('/api/generations', { images: [dataUrl(input)], prompt: 'x', promptInMetadata: bad })).toMatchObject({ status: 400, json: { error: 'Invalid promptInMetadata: not a boolean' } });
    }
    expect(await count()).toBe(before);
  });

  it('lineageOf: the author and the project members read it, nobody else', async () => {
    const projectId = await project(ada, 'Lineage access');
    await share(ada, projectId, dan, 'viewer');
    const made = await generate(ada, { images: [dataUrl(await pngOf('#777'))], prompt: 'seen', projectId, nodeId: 'n1' }, await pngOf('#888'));
    const own = await generate(ada, { images: [dataUrl(await pngOf('#999'))], prompt: 'own' }, await pngOf('#aaa'));
    const database = await openDatabase({ url: t.databaseUrl, poolSize: 2, statementTimeoutMs: 0, onError: () => undefined });
    try {
      const repo = createGenerationsGalleryRepository(database.db);
      const id = (await rowOf(made.imageUrl)).id as string;
      const ownId = (await rowOf(own.imageUrl)).id as string;
      const byAda = await repo.lineageOf(ada.id, id);
      expect(byAda?.id).toBe(id);
      expect((await repo.lineageOf(dan.id, id))?.id).toBe(id); // a viewer of the project
      expect(await repo.lineageOf(bob.id, id)).toBeNull();
      expect(await repo.lineageOf(dan.id, ownId)).toBeNull(); // ada's, outside the project
      expect((await repo.lineageOf(ada.id, ownId))?.id).toBe(ownId);
      expect(await repo.lineageOf(ada.id, 'gen-0-nothing')).toBeNull();
      for (const hostile of ['gen\u0000', "gen-1' OR '1'='1", '\ud800', '']) expect(await repo.lineageOf(ada.id, hostile)).toBeNull();
      expect(presentLineage(byAda!)).toMatchObject({ generationId: id, projectId, nodeId: 'n1', model: MODEL, output: { url: made.imageUrl, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }, parentIds: [] });
    } finally {
      await database.close();
    }
  });
});

describe('project gallery', () => {
  let projectId = '';
  let made: { imageUrl: string }[] = [];

  beforeAll(async () => {
    projectId = await project(ada, 'Gallery');
    await share(ada, projectId, bob, 'editor');
    await share(ada, projectId, dan, 'viewer');
    made = [];
    made.push(await generate(ada, { images: [dataUrl(await pngOf('#101'))], prompt: 'a red cat on a mat', projectId, nodeId: 'n1' }, await pngOf('#202')));
    made.push(await generate(bob, { images: [dataUrl(await pngOf('#303'))], prompt: 'a blue dog', projectId, nodeId: 'n2' }, await pngOf('#404')));
    made.push(await generate(ada, { images: [dataUrl(await pngOf('#505'))], prompt: 'a red car', projectId, nodeId: 'n1' }, await pngOf('#606')));
    await generate(ada, { images: [dataUrl(await pngOf('#707'))], prompt: 'a red cat, not in the project' }, await pngOf('#808'));
  });

  const list = (who: Who, query = '') => who.client.get(`/api/projects/${projectId}/generations${query}`);

  it('lists every generation into the project, by anyone, newest first, with author and lineage, to owner, editor and viewer', async () => {
    const res = await list(dan);
    expect(res.status, res.text).toBe(200);
    expect(res.json.items.map((g: { outputImageUrl: string }) => g.outputImageUrl)).toEqual(made.map((m) => m.imageUrl).reverse());
    const [newest, middle] = res.json.items;
    expect(newest).toEqual({
      id: expect.stringMatching(/^gen-/),
      prompt: 'a red car',
      outputImageUrl: made[2].imageUrl,
      model: MODEL,
      createdAt: expect.any(String),
      nodeId: 'n1',
      author: { id: ada.id, name: 'Ada' },
      lineage: expect.objectContaining({ generationId: newest.id, projectId, nodeId: 'n1', canvasVersion: expect.any(Number), parentIds: [], promptInMetadata: false }),
      text: null, // the model said nothing beside its image
      cacheKey: null, // not made by a run (docs/api.md "Runs")
      seed: null,
    });
    expect(newest.lineage.output).toEqual({ url: made[2].imageUrl, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) });
    expect(middle.author).toEqual({ id: bob.id, name: 'Bob' });
    for (const who of [ada, bob]) expect((await list(who)).json).toEqual(res.json);
    expect(res.json.nextCursor).toBeNull();
  });

  it('filters by node, by model and by prompt words (the last a prefix), and pages with the cursor', async () => {
    const prompts = async (query: string) => {
      const res = await list(ada, query);
      expect(res.status, res.text).toBe(200);
      return res.json.items.map((g: { prompt: string }) => g.prompt);
    };
    expect(await prompts('?nodeId=n2')).toEqual(['a blue dog']);
    expect(await prompts('?q=red%20ca')).toEqual(['a red car', 'a red cat on a mat']);
    expect(await prompts('?q=RED%20CAT')).toEqual(['a red cat on a mat']);
    expect(await prompts('?q=red&nodeId=n2')).toEqual([]);
    expect(await prompts(`?model=${MODEL}&nodeId=n1`)).toEqual(['a red car', 'a red cat on a mat']);
    expect(await prompts('?model=another-model')).toEqual([]);
    expect((await list(ada, `?model=${'m'.repeat(101)}`)).status).toBe(400);
    expect(await prompts(`?q=${encodeURIComponent(`"red" & !(cat:* | <-> ')`)}`)).toEqual(['a red cat on a mat']);
    const first = await list(ada, '?q=red&limit=1');
    expect(first.json.items.map((g: { prompt: string }) => g.prompt)).toEqual(['a red car']);
    const second = await list(ada, `?q=red&limit=1&cursor=${first.json.nextCursor}`);
    expect(second.json.items.map((g: { prompt: string }) => g.prompt)).toEqual(['a red cat on a mat']);
    expect(second.json.nextCursor).toBeNull();
    expect((await list(ada, `?q=${'x'.repeat(201)}`)).json).toEqual({ error: 'Search text is too long (at most 200 characters)' });
    expect((await list(ada, '?cursor=nope')).status).toBe(400);
  });

  it('is 404 for anyone without a role, and for ids that are not projects', async () => {
    for (const path of [`/api/projects/${projectId}/generations`, `/api/projects/${projectId}/generations/x/download`]) {
      expect(await cat.client.get(path), path).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect(await ada.client.get(`/api/projects/${id}/generations`)).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    }
    expect((await t.client().get(`/api/projects/${projectId}/generations`)).status).toBe(401);
  });
});

describe('named downloads', () => {
  it('streams the stored PNG as an attachment named after the project and the prompt (ASCII and UTF-8 names)', async () => {
    const projectId = await project(ada, 'Ünïcode "Cats" / Dogs');
    await share(ada, projectId, dan, 'viewer');
    const prompt = 'a red cat 🐈 sitting on a mat, watercolor; soft light\nand a second line that is far too long to keep';
    const made = await generate(ada, { images: [dataUrl(await pngOf('#121'))], prompt, projectId, nodeId: 'n1' }, await pngOf('#232'));
    const id = (await rowOf(made.imageUrl)).id as string;

    const res = await fetch(`${t.baseUrl}/api/projects/${projectId}/generations/${id}/download`, { headers: { cookie: await dan.client.jar.getCookieString(t.baseUrl) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(await fetchBytes(made.imageUrl))).toBe(true);
    expect(res.headers.get('content-length')).toBe(String(body.length));

    const disposition = res.headers.get('content-disposition')!;
    const ascii = /filename="([^"]*)"/.exec(disposition)![1];
    const utf8 = decodeURIComponent(/filename\*=UTF-8''(\S+)/.exec(disposition)![1]);
    expect(disposition).toMatch(/^attachment; /);
    const stem = Array.from('Ünïcode Cats Dogs - a red cat 🐈 sitting on a mat, watercolor; soft light and a second line').slice(0, 76).join('').trimEnd();
    expect(utf8).toBe(`${stem}.png`);
    expect(Array.from(utf8).length).toBeLessThanOrEqual(80);
    expect(ascii).toBe(`${stem.replace('Ünïcode', 'Unicode').replace('🐈', '_')}.png`);
    expect(ascii).toMatch(/^[\x20-\x7e]+$/);
  });

  it('is 404 for a generation of another project, an unknown id, and for strangers', async () => {
    const p1 = await project(ada, 'One');
    const p2 = await project(ada, 'Two');
    const made = await generate(ada, { images: [dataUrl(await pngOf('#343'))], prompt: 'x', projectId: p1, nodeId: 'n1' }, await pngOf('#454'));
    const id = (await rowOf(made.imageUrl)).id as string;
    expect((await ada.client.get(`/api/projects/${p1}/generations/${id}/download`)).status).toBe(200);
    expect(await ada.client.get(`/api/projects/${p2}/generations/${id}/download`)).toMatchObject({ status: 404, json: { error: 'Generation not found' } });
    for (const other of ['gen-0-nothing', '%00', 'gen%00', "x' OR '1'='1"]) {
      expect(await ada.client.get(`/api/projects/${p1}/generations/${other}/download`), other).toMatchObject({ status: 404, json: { error: 'Generation not found' } });
    }
    expect(await ada.client.get(`/api/projects/${p1}/generations/%ED%A0%80/download`)).toMatchObject({ status: 400, json: { error: 'Invalid URL encoding' } });
    expect(await bob.client.get(`/api/projects/${p1}/generations/${id}/download`)).toMatchObject({ status: 404, json: { error: 'Project not found' } });
  });
});

describe('migration 0016_generation_lineage', () => {
  it('keeps the generations of the previous release: lineage empty, defaults set, their prompts searchable', async () => {
    const database = await createOwnDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await migrateUpTo(database.url, '0015_generation_job_events');
      await client.connect();
      const { rows } = await client.query("INSERT INTO users (email, name, provider, provider_subject) VALUES ('old@example.com', 'Old', 'oauth', 's1') RETURNING id");
      const userId = rows[0].id;
      await client.query(
        `INSERT INTO generations (id, user_id, user_email, prompt, input_images, output_image_url, model, created_at)
         VALUES ('gen-1-aa', $1, 'old@example.com', 'An old Red Cat', '["https://example.com/in.png"]', 'https://example.com/out.png', 'gemini-2.5-flash-image', '2024-01-01T00:00:00Z')`,
        [userId],
      );
      await migrateDatabase(database.url);
      const row = (await client.query("SELECT * FROM generations WHERE id = 'gen-1-aa'")).rows[0];
      expect(row).toMatchObject({
        prompt: 'An old Red Cat',
        input_images: ['https://example.com/in.png'],
        job_id: null,
        project_id: null,
        node_id: null,
        canvas_version: null,
        model_version: null,
        inputs: null,
        output_sha256: null,
        output_bytes: null,
        queued_ms: null,
        model_ms: null,
        total_ms: null,
        cost: null,
        parent_ids: [],
        prompt_in_metadata: false,
      });
      expect((await client.query("SELECT id FROM generations WHERE prompt_search @@ to_tsquery('simple', 'red & ca:*')")).rows).toEqual([{ id: 'gen-1-aa' }]);
      const opened = await openDatabase({ url: database.url, poolSize: 2, statementTimeoutMs: 0, onError: () => undefined });
      try {
        const old = await createGenerationsGalleryRepository(opened.db).lineageOf(userId, 'gen-1-aa');
        expect(presentLineage(old!)).toMatchObject({
          inputs: [{ url: 'https://example.com/in.png', sha256: null, bytes: null }],
          output: { url: 'https://example.com/out.png', sha256: null, bytes: null },
          durations: { queuedMs: null, modelMs: null, totalMs: null },
          modelVersion: null,
          parentIds: [],
        });
      } finally {
        await opened.close();
      }
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});
