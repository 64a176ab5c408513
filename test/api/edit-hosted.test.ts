// An edit node (src/kinds/edit.ts) run with a hosted model that takes a mask, end to end: the upload and its mask
// node wired into the edit node, a run of it, the model reached through its official SDK against our fake of its
// wire protocol with the mask in that provider's form, and the result shown in the node with its lineage.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Rec = Record<string, any>;

let t: TestApp;
let fal: FakeFal;
let openai: FakeOpenAI;
let ada: { client: HttpClient; id: string };
let imageUrl: string;
let maskUrl: string;
let answer: Buffer;

const W = 24;
const H = 16;
/** The masked square, white in the mask: x 6..13, y 4..9. */
const inSquare = (x: number, y: number) => x >= 6 && x < 14 && y >= 4 && y < 10;
const WAIT = { timeout: 90_000, interval: 100 };

const node = (id: string, type: string, data: Rec, x = 0) => ({ id, type, position: { x, y: 0 }, data: { type, ...data } });
const edge = (source: string, target: string, sourceHandle?: string, targetHandle?: string) => ({ id: `${source}-${target}`, source, target, ...(sourceHandle ? { sourceHandle } : {}), ...(targetHandle ? { targetHandle } : {}) });

async function upload(data: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'image/png' }), name);
  const uploaded = await ada.client.request('/api/upload', { method: 'POST', body: form });
  expect(uploaded.status, uploaded.text).toBe(200);
  return uploaded.json.url as string;
}

/** A project of an upload, its mask node and an edit node with `data`; the edit node's run, once ended, and its node. */
async function runEdit(data: Rec) {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Edit' })).json.id as string;
  const nodes = [node('u', 'upload', { image: imageUrl }), node('m', 'mask', { mask: maskUrl }, 300), node('e', 'edit', { mode: 'inpaint', ...data }, 600)];
  const edges = [edge('u', 'm'), edge('u', 'e'), edge('m', 'e', undefined, 'mask')];
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 });
  expect(saved.status, saved.text).toBe(200);
  const started = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['e'] });
  expect(started.status, started.text).toBe(202);
  const runId = started.json.id as string;
  const runOf = async () => (await ada.client.get(`/api/projects/${projectId}/runs/${runId}`)).json as Rec;
  await expect.poll(async () => (await runOf()).status, WAIT).not.toBe('running');
  await expect
    .poll(async () => {
      const canvas = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: Rec[] };
      const run = canvas.nodes.find((n) => n.id === 'e')?.data.run as Rec | undefined;
      return run?.runId === runId && run.done === run.total;
    }, WAIT)
    .toBe(true);
  const canvas = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: Rec[] };
  return { run: await runOf(), data: canvas.nodes.find((n) => n.id === 'e')!.data as Rec };
}

const fromDataUri = (uri: unknown) => Buffer.from(String(uri).replace(/^data:image\/png;base64,/, ''), 'base64');
async function grey(png: Buffer) {
  const { data, info } = await sharp(png).flatten({ background: '#000' }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

beforeAll(async () => {
  [fal, openai] = await Promise.all([startFakeFal({ key: 'fal-key' }), startFakeOpenAI({ apiKey: 'openai-key' })]);
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', FAL_KEY: 'fal-key', FAL_BASE_URL: fal.baseUrl, OPENAI_API_KEY: 'openai-key', OPENAI_BASE_URL: openai.baseUrl, OPENAI_PARTIAL_IMAGES: '0' });
  ada = await t.user('ada@example.com');
  const raw = Buffer.alloc(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) raw[y * W + x] = inSquare(x, y) ? 255 : 0;
  const [image, mask] = await Promise.all([
    sharp({ create: { width: W, height: H, channels: 3, background: '#3366cc' } }).png().toBuffer(),
    sharp(raw, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer(),
  ]);
  answer = await sharp({ create: { width: W, height: H, channels: 3, background: '#cc3333' } }).png().toBuffer();
  [imageUrl, maskUrl] = await Promise.all([upload(image, 'photo.png'), upload(mask, 'mask.png')]);
});
afterAll(async () => {
  await t?.close();
  await Promise.all([fal?.close(), openai?.close()]);
});

describe('an edit node with a hosted mask model', () => {
  it("runs fal's FLUX.1 Fill: the image and its mask (mask_url, white edits), the prompt and the node's seed; the result in the node", async () => {
    fal.script({ result: { kind: 'image', image: answer } });
    const { run, data } = await runEdit({ model: 'fal-ai/flux-pro/v1/fill', prompt: 'a red balloon', seed: 42 });
    expect(run).toMatchObject({ status: 'succeeded' });
    expect(run.jobs).toMatchObject([{ nodeId: 'e', status: 'succeeded' }]);
    const [sent] = fal.requests;
    expect(sent).toMatchObject({ endpoint: 'fal-ai/flux-pro/v1/fill', key: 'fal-key', input: { prompt: 'a red balloon', seed: 42 } });
    const mask = await grey(fromDataUri(sent.input.mask_url));
    expect([mask.width, mask.height]).toEqual([W, H]);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(mask.data[y * W + x], `mask at ${x},${y}`).toBe(inSquare(x, y) ? 255 : 0);
    expect((await sharp(fromDataUri(sent.input.image_url)).metadata()).width).toBe(W);
    expect(data.image).toEqual(expect.stringMatching(/^http/));
    const rows = await t.pool.query('SELECT model, input_images FROM generations WHERE node_id = $1 ORDER BY created_at DESC LIMIT 1', ['e']);
    expect(rows.rows[0]).toMatchObject({ model: 'fal-ai/flux-pro/v1/fill', input_images: [imageUrl, maskUrl] });
  });

  it("runs gpt-image-1 with OpenAI's form of the mask: transparent where ours is white", async () => {
    openai.reply({ kind: 'image', image: answer });
    const { run } = await runEdit({ model: 'gpt-image-1', prompt: 'a kite' });
    expect(run).toMatchObject({ status: 'succeeded' });
    const sent = openai.requests.at(-1)!;
    expect(sent).toMatchObject({ model: 'gpt-image-1', prompt: 'a kite' });
    const { data, info } = await sharp(sent.mask!.data).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([W, H, 4]);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(data[(y * W + x) * 4 + 3], `alpha at ${x},${y}`).toBe(inSquare(x, y) ? 0 : 255);
  });

  it('refuses a hosted model without mask support, naming it; the provider is never called', async () => {
    const before = fal.requests.length;
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Edit' })).json.id as string;
    const nodes = [node('u', 'upload', { image: imageUrl }), node('m', 'mask', { mask: maskUrl }), node('e', 'edit', { mode: 'inpaint', model: 'fal-ai/flux-pro/kontext', prompt: 'x' })];
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [edge('u', 'm'), edge('u', 'e'), edge('m', 'e', undefined, 'mask')], version: 0 });
    expect(saved.status, saved.text).toBe(200);
    const refused = await ada.client.post(`/api/projects/${projectId}/runs`, { mode: 'node', nodeIds: ['e'] });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error).toContain('model "fal-ai/flux-pro/kontext" cannot take a mask');
    expect(fal.requests).toHaveLength(before);
  });
});
