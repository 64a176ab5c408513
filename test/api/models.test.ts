// The model catalogue and a model per generation (docs/api.md "Models"): GET /api/models lists what the deployment
// runs — the offline engine always, a provider's models when its key is configured (its own variable, or
// IMAGE_MODEL_API_KEY for the default model's provider) — and a generation job runs the model it names, through that
// provider's SDK against a local fake that speaks its protocol, and records it.
import sharp from 'sharp';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { startFakeComfyUI, type FakeComfyUI } from '../fakes/comfyui-server.js';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';
import { HttpClient } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { connectLive, docWhere } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let gemini: FakeGemini;
let openai: FakeOpenAI;
let fal: FakeFal;
let replicate: FakeReplicate;
let comfy: FakeComfyUI;
/** Offline default, no provider key. */
let plain: TestApp;
/** Offline default; Gemini, OpenAI, fal and Replicate each with their own key, and a ComfyUI server. */
let several: TestApp;
/** Gemini default with IMAGE_MODEL_API_KEY only. */
let geminiDefault: TestApp;
let image: string;

beforeAll(async () => {
  [gemini, openai, fal, replicate, comfy] = await Promise.all([
    startFakeGemini({ apiKey: 'gemini-key' }),
    startFakeOpenAI({ apiKey: 'openai-key' }),
    startFakeFal({ key: 'fal-key' }),
    startFakeReplicate({ token: 'r8-key' }),
    startFakeComfyUI(),
  ]);
  const env = { RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', GENERATION_MAX_IMAGES: '8' };
  plain = await startTestApp(env);
  several = await startTestApp({ ...env, GEMINI_API_KEY: 'gemini-key', GEMINI_BASE_URL: gemini.baseUrl, OPENAI_API_KEY: 'openai-key', OPENAI_BASE_URL: openai.baseUrl, FAL_KEY: 'fal-key', FAL_BASE_URL: fal.baseUrl, REPLICATE_API_TOKEN: 'r8-key', REPLICATE_BASE_URL: replicate.baseUrl, COMFYUI_URL: comfy.baseUrl });
  geminiDefault = await startTestApp({ ...env, IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'gemini-key', IMAGE_MODEL_BASE_URL: gemini.baseUrl });
  image = `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer()).toString('base64')}`;
});
afterAll(async () => {
  await Promise.all([plain?.close(), several?.close(), geminiDefault?.close()]);
  await Promise.all([gemini?.close(), openai?.close(), fal?.close(), replicate?.close(), comfy?.close()]);
});

const ids = (json: { models: { id: string }[] }) => json.models.map((m) => m.id);

/**
 * The `data` of the project's node `g` once the live document shows what `check` waits for, as an editor sees it.
 * A job's state and its node's are two writes (the job's row, then the document), so a read of the node just after
 * the job changed may not show it yet: the test waits for the document's own change instead.
 */
async function untilNode(client: HttpClient, projectId: string, check: (data: Record<string, unknown>) => boolean): Promise<Record<string, any>> {
  const live = await connectLive({ baseUrl: client.baseUrl, as: client, projectId });
  const dataOf = (doc: Y.Doc) => {
    const data = (canvasMaps(doc).nodes.get('g') as Y.Map<unknown> | undefined)?.get('data');
    return data instanceof Y.Map ? (data.toJSON() as Record<string, unknown>) : undefined;
  };
  try {
    await docWhere(live.doc, (doc) => {
      const data = dataOf(doc);
      return data !== undefined && check(data);
    });
    return dataOf(live.doc)!;
  } finally {
    live.close();
  }
}

/** The node `g` once its job has left it, read over REST after the live document showed it. */
async function untilNodeSettled(client: HttpClient, projectId: string) {
  await untilNode(client, projectId, (data) => !('job' in data));
  return ((await client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes as Array<{ id: string; data: Record<string, unknown> }>).find((n) => n.id === 'g')!;
}

/** The node's `data.job.progress` field `key`, if the document shows one. */
const nodeProgress = (data: Record<string, any>, key: string): unknown => (data.job as { progress?: Record<string, unknown> } | undefined)?.progress?.[key];

describe('GET /api/models', () => {
  it('lists only the offline models without provider keys (the engine as the default, and the upscalers); needs sign-in', async () => {
    expect((await new HttpClient(plain.baseUrl).get('/api/models')).status).toBe(401);
    const { client } = await plain.user('ada@example.com');
    const read = await client.get('/api/models');
    expect(read.status).toBe(200);
    expect(read.json).toEqual({
      models: [
        {
          id: 'local',
          provider: 'offline',
          label: expect.stringContaining('not AI'),
          maxInputs: 8,
          progress: 'none',
          offline: true,
          // The words it understands, one operation each, for the web client's prompt chips.
          promptHints: expect.arrayContaining(['grayscale', 'sepia', 'blur 4', 'side by side', 'grid']),
          default: true,
          // It needs a prompt; its inputs are held to the service's own pixel limit (INPUT_IMAGE_MAX_PIXELS).
          takesPrompt: true,
          maxInputPixels: 40_000_000,
          // Free: it runs on this service; no seed reaches it.
          price: { perImageUsd: 0, source: 'offline: runs on this service' },
          takesSeed: false,
          // It generates (generation nodes offer it); it takes no mask.
          does: ['generate'],
          takesMask: false,
        },
        // The upscalers use no prompt, and take inputs up to UPSCALE_MAX_INPUT_PIXELS (512 × 512 by default).
        { id: 'esrgan-slim-2x', provider: 'offline', label: 'Upscale 2× with ESRGAN (offline machine learning; the prompt is not used)', maxInputs: 1, progress: 'none', offline: true, default: false, takesPrompt: false, maxInputPixels: 262_144, price: { perImageUsd: 0, source: 'offline: runs on this service' }, takesSeed: false, does: ['generate', 'upscale'], takesMask: false },
        { id: 'esrgan-slim-4x', provider: 'offline', label: 'Upscale 4× with ESRGAN (offline machine learning; the prompt is not used)', maxInputs: 1, progress: 'none', offline: true, default: false, takesPrompt: false, maxInputPixels: 262_144, price: { perImageUsd: 0, source: 'offline: runs on this service' }, takesSeed: false, does: ['generate', 'upscale'], takesMask: false },
        // Classical inpainting (edit nodes offer it): it takes a mask and no prompt, and is labelled as not AI.
        { id: 'inpaint-telea', provider: 'offline', label: 'Fill from surroundings (offline, classical inpainting — not AI: good for small areas; the prompt is not used)', maxInputs: 1, progress: 'none', offline: true, default: false, takesPrompt: false, maxInputPixels: 40_000_000, price: { perImageUsd: 0, source: 'offline: runs on this service' }, takesSeed: false, does: ['inpaint'], takesMask: true },
        { id: 'inpaint-ns', provider: 'offline', label: 'Fill from surroundings, Navier–Stokes (offline, classical inpainting — not AI: good for small areas; the prompt is not used)', maxInputs: 1, progress: 'none', offline: true, default: false, takesPrompt: false, maxInputPixels: 40_000_000, price: { perImageUsd: 0, source: 'offline: runs on this service' }, takesSeed: false, does: ['inpaint'], takesMask: true },
      ],
    });
  });

  const byIdOf = (json: { models: { id: string }[] }, id: string) => json.models.find((m) => m.id === id);
  it("adds each provider's models when its key is set, with their limits and published prices", async () => {
    const { client } = await several.user('ada@example.com');
    const { json } = await client.get('/api/models');
    expect(ids(json)).toEqual([
      'local',
      'esrgan-slim-2x',
      'esrgan-slim-4x',
      'inpaint-telea',
      'inpaint-ns',
      'gemini-2.5-flash-image',
      'gemini-3-pro-image-preview',
      'gemini-2.5-flash-image-preview',
      'gpt-image-1',
      'fal-ai/nano-banana/edit',
      'fal-ai/flux-pro/kontext',
      'fal-ai/qwen-image-edit',
      'fal-ai/flux-pro/v1/fill',
      'google/nano-banana',
      'black-forest-labs/flux-kontext-pro',
      'qwen/qwen-image-edit',
      'black-forest-labs/flux-fill-pro',
      'fal-ai/clarity-upscaler',
      'fal-ai/bria/background/remove',
      'nightmareai/real-esrgan',
      'bria/remove-background',
      'comfyui',
      'comfyui-inpaint',
    ]);
    // The hosted upscalers and background removers do only their role, with no prompt.
    expect(byIdOf(json, 'nightmareai/real-esrgan')).toMatchObject({ provider: 'replicate', maxInputs: 1, takesPrompt: false, takesSeed: false, does: ['upscale'], costPerImageUsd: 0.002 });
    expect(byIdOf(json, 'fal-ai/bria/background/remove')).toMatchObject({ provider: 'fal', maxInputs: 1, takesPrompt: false, does: ['remove-background'], costPerImageUsd: 0.018 });
    const byId = (id: string) => json.models.find((m: { id: string }) => m.id === id);
    // The shipped workflow takes one image.
    expect(byId('comfyui')).toMatchObject({ id: 'comfyui', provider: 'comfyui', progress: 'steps', maxInputs: 1, offline: false });
    expect(byId('qwen/qwen-image-edit')).toMatchObject({ id: 'qwen/qwen-image-edit', provider: 'replicate', progress: 'steps', maxInputs: 1 });
    expect(byId('fal-ai/flux-pro/kontext')).toEqual({ id: 'fal-ai/flux-pro/kontext', provider: 'fal', label: 'FLUX.1 Kontext [pro] on fal', maxInputs: 1, progress: 'none', costPerImageUsd: 0.04, offline: false, default: false, takesPrompt: true, maxInputPixels: 40_000_000, price: { perImageUsd: 0.04, source: 'https://fal.ai/models/fal-ai/flux-pro/kontext (read 2026-11)' }, takesSeed: true, does: ['generate'], takesMask: false });
    expect(json.models.filter((m: { default: boolean }) => m.default).map((m: { id: string }) => m.id)).toEqual(['local']);
    expect(byId('gemini-2.5-flash-image')).toEqual({ id: 'gemini-2.5-flash-image', provider: 'gemini', label: 'Gemini 2.5 Flash Image', maxInputs: 3, progress: 'none', costPerImageUsd: 0.039, offline: false, default: false, takesPrompt: true, maxInputPixels: 40_000_000, price: { perImageUsd: 0.039, source: 'https://ai.google.dev/gemini-api/docs/pricing (read 2026-11)' }, takesSeed: false, does: ['generate'], takesMask: false });
    // The service's own cap (GENERATION_MAX_IMAGES=8) lowers a model's; gpt-image-1 publishes no price per image but per 1,000 tokens, and streams partial images (OPENAI_PARTIAL_IMAGES, default 2).
    expect(byId('gpt-image-1')).toEqual({
      id: 'gpt-image-1', provider: 'openai', label: 'OpenAI GPT Image 1', maxInputs: 8, progress: 'previews', offline: false, default: false, takesPrompt: true, maxInputPixels: 40_000_000,
      price: { per1kTokensUsd: 0.04, tokensPerImage: 1056, source: 'https://platform.openai.com/docs/pricing (read 2026-11)' }, takesSeed: false, does: ['generate', 'inpaint'], takesMask: true,
    });
    // The models that take a mask do inpaint (edit nodes offer them); the fill models and ComfyUI's inpainting workflow do nothing else.
    expect(byId('fal-ai/flux-pro/v1/fill')).toMatchObject({ provider: 'fal', maxInputs: 1, takesSeed: true, does: ['inpaint'], takesMask: true });
    expect(byId('fal-ai/flux-pro/v1/fill')).not.toHaveProperty('price'); // fal prices it per megapixel
    expect(byId('black-forest-labs/flux-fill-pro')).toMatchObject({ provider: 'replicate', maxInputs: 1, costPerImageUsd: 0.05, takesSeed: true, does: ['inpaint'], takesMask: true });
    expect(byId('comfyui-inpaint')).toMatchObject({ provider: 'comfyui', maxInputs: 1, takesSeed: true, does: ['inpaint'], takesMask: true, price: { perImageUsd: 0, source: 'self-hosted' } });
    // Published prices with their sources; the Qwen editors publish none per image; ComfyUI runs on your own server.
    expect(byId('google/nano-banana').price).toEqual({ perImageUsd: 0.039, source: 'https://replicate.com/google/nano-banana (read 2026-11)' });
    expect(byId('fal-ai/qwen-image-edit')).not.toHaveProperty('price');
    expect(byId('comfyui')).toMatchObject({ price: { perImageUsd: 0, source: 'self-hosted' } });
  });

  it("gives IMAGE_MODEL_API_KEY to the default model's provider, and names the default", async () => {
    const { client } = await geminiDefault.user('ada@example.com');
    const { json } = await client.get('/api/models');
    expect(ids(json)).toEqual(['local', 'esrgan-slim-2x', 'esrgan-slim-4x', 'inpaint-telea', 'inpaint-ns', 'gemini-2.5-flash-image', 'gemini-3-pro-image-preview', 'gemini-2.5-flash-image-preview']);
    expect(json.models.find((m: { default: boolean }) => m.default).id).toBe('gemini-2.5-flash-image');
  });
});

describe('a model per generation', () => {
  it("runs the model a job names, with its provider's key, and records it on the job and the generation", async () => {
    const { client } = await several.user('bob@example.com');
    const before = { gemini: gemini.requests.length, openai: openai.requests.length };
    const viaOpenAI = await client.post('/api/generations', { images: [image], prompt: 'make it a watercolour', model: 'gpt-image-1' });
    expect(viaOpenAI.status).toBe(202);
    expect(await untilJob(client, viaOpenAI.json.id)).toMatchObject({ status: 'succeeded', model: 'gpt-image-1' });
    expect(openai.requests.slice(before.openai)).toMatchObject([{ apiKey: 'openai-key', model: 'gpt-image-1', prompt: 'make it a watercolour' }]);

    const viaGemini = await client.post('/api/generations', { images: [image], prompt: 'add a hat', model: 'gemini-3-pro-image-preview' });
    expect(await untilJob(client, viaGemini.json.id)).toMatchObject({ status: 'succeeded', model: 'gemini-3-pro-image-preview' });
    expect(gemini.requests.slice(before.gemini)).toMatchObject([{ apiKey: 'gemini-key', model: 'gemini-3-pro-image-preview', texts: ['add a hat'] }]);

    const viaFal = await client.post('/api/generations', { images: [image], prompt: 'as a pencil sketch', model: 'fal-ai/nano-banana/edit' });
    expect(await untilJob(client, viaFal.json.id)).toMatchObject({ status: 'succeeded', model: 'fal-ai/nano-banana/edit' });
    expect(fal.requests.at(-1)).toMatchObject({ endpoint: 'fal-ai/nano-banana/edit', key: 'fal-key', input: { prompt: 'as a pencil sketch', image_urls: [image] } });

    const viaReplicate = await client.post('/api/generations', { images: [image], prompt: 'in winter', model: 'google/nano-banana' });
    expect(await untilJob(client, viaReplicate.json.id)).toMatchObject({ status: 'succeeded', model: 'google/nano-banana' });
    expect(replicate.predictions.at(-1)).toMatchObject({ model: 'google/nano-banana', token: 'r8-key', input: { prompt: 'in winter', image_input: [image] } });

    comfy.script({ steps: 4 });
    const viaComfy = await client.post('/api/generations', { images: [image], prompt: 'as a woodcut', model: 'comfyui' });
    expect(await untilJob(client, viaComfy.json.id)).toMatchObject({ status: 'succeeded', model: 'comfyui' });
    expect(comfy.prompts.at(-1)!.prompt['6'].inputs.prompt).toBe('as a woodcut');

    // Without a model: the default (the offline engine here), named on the job from the start.
    const viaDefault = await client.post('/api/generations', { images: [image], prompt: 'grayscale' });
    expect((await client.get(`/api/generations/${viaDefault.json.id}`)).json.model).toBe('local');
    expect(await untilJob(client, viaDefault.json.id)).toMatchObject({ status: 'succeeded', model: 'local' });

    // The month's spend: the models' list prices (gpt-image-1, ComfyUI and the offline engine have none).
    const spend = await client.get('/api/user/spend');
    expect(spend.json).toMatchObject({ month: new Date().toISOString().slice(0, 7), usd: 0.212, generations: 6, priced: 3, todayUsd: 0.212 }); // 0.134 + 0.039 + 0.039, summed exactly
    const { lineage } = (await client.get(`/api/generations/${viaGemini.json.id}`)).json;
    expect(lineage.cost).toEqual({ amount: 0.134, currency: 'USD', basis: 'list price' });

    const history = await client.get('/api/user/generations');
    expect(history.json.items.map((g: { model: string }) => g.model).sort()).toEqual(['comfyui', 'fal-ai/nano-banana/edit', 'gemini-3-pro-image-preview', 'google/nano-banana', 'gpt-image-1', 'local']);
    expect(gemini.requests.length + openai.requests.length).toBe(before.gemini + before.openai + 2);
  });

  it('refuses a model the deployment does not run, or more images than the model takes, with 400 and queues nothing', async () => {
    const { client, id } = await several.user('cy@example.com');
    const jobs = async () => (await several.pool.query('SELECT count(*)::int AS n FROM generation_jobs WHERE user_id = $1', [id])).rows[0].n as number;
    expect(await client.post('/api/generations', { images: [image], prompt: 'x', model: 'flux-9' })).toMatchObject({
      status: 400,
      json: { error: 'Unknown model: "flux-9" is not one this service runs (GET /api/models lists them)' },
    });
    expect(await client.post('/api/generations', { images: [image, image, image, image], prompt: 'x', model: 'gemini-2.5-flash-image' })).toMatchObject({
      status: 400,
      json: { error: 'Too many images: Gemini 2.5 Flash Image accepts at most 3' },
    });
    expect((await client.post('/api/generations', { images: [image], prompt: 'x', model: 'm'.repeat(101) })).status).toBe(400);
    expect(await jobs()).toBe(0);
    // The same images with a model that takes them are queued.
    const ok = await client.post('/api/generations', { images: [image, image, image, image], prompt: 'grayscale', model: 'local' });
    expect(ok.status).toBe(202);
    expect(await untilJob(client, ok.json.id)).toMatchObject({ status: 'succeeded', model: 'local' });
  });

  it("shows a provider's progress in the running job and in its node, and clears it when the job ends", async () => {
    const { client, id } = await several.user('eve@example.com');
    const projectId = (await client.post('/api/user/project', { userId: id, name: 'Progress' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
    expect((await client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
    fal.script({ steps: [{ status: 'IN_QUEUE', position: 1 }, { status: 'IN_PROGRESS', logs: ['step 3/20'] }], hold: true });
    const held = fal.held();
    const made = await client.post('/api/generations', { images: [image], prompt: 'moody', model: 'fal-ai/nano-banana/edit', projectId, nodeId: 'g' });
    expect(made.status).toBe(202);
    await held;
    // The latest report is stored (at most once a second), each an event of the job: read again on each until it shows.
    const running = await untilJob(client, made.json.id, (j) => (j.progress as { message?: string } | null)?.message === 'step 3/20');
    expect(running).toMatchObject({ status: 'running', progress: { message: 'step 3/20' } });
    // The node shows it too, once the document's own change comes (after the job's row: it is a second write).
    const shown = await untilNode(client, projectId, (data) => nodeProgress(data, 'message') === 'step 3/20');
    expect(shown.job).toMatchObject({ id: made.json.id, status: 'running', progress: { message: 'step 3/20' } });
    fal.release();
    expect(await untilJob(client, made.json.id)).toMatchObject({ status: 'succeeded', progress: null });
    expect((await untilNodeSettled(client, projectId)).data.job).toBeUndefined();
  });

  it("shows OpenAI's partial images as a small preview in the running job and its node, then the result", async () => {
    const { client, id } = await several.user('gus@example.com');
    const projectId = (await client.post('/api/user/project', { userId: id, name: 'Previews' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
    expect((await client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
    const big = await sharp({ create: { width: 1024, height: 768, channels: 3, background: '#c63' } }).png().toBuffer();
    let complete!: () => void;
    openai.reply({ kind: 'image', image: big, partials: [big, big], completeAfter: new Promise<void>((r) => (complete = r)) });
    const made = await client.post('/api/generations', { images: [image], prompt: 'warmer', model: 'gpt-image-1', projectId, nodeId: 'g' });
    expect(made.status).toBe(202);
    const previewOf = (j: Record<string, unknown>) => (j.progress as { preview?: string } | null)?.preview;
    const running = await untilJob(client, made.json.id, (j) => (j.status !== 'running' && j.status !== 'queued') || (previewOf(j) !== undefined && (j.progress as { message?: string }).message === 'Preview 2 of 2'));
    expect(running).toMatchObject({ status: 'running', progress: { message: 'Preview 2 of 2', preview: expect.stringMatching(/^data:image\/webp;base64,/) } });
    // Made small: at most 256 pixels a side, the shape kept.
    const preview = Buffer.from(previewOf(running)!.split(',')[1], 'base64');
    expect(await sharp(preview).metadata()).toMatchObject({ format: 'webp', width: 256, height: 192 });
    const shown = await untilNode(client, projectId, (data) => nodeProgress(data, 'message') === 'Preview 2 of 2' && nodeProgress(data, 'preview') !== undefined);
    expect(shown.job.progress.preview).toBe(previewOf(running));
    complete();
    expect(await untilJob(client, made.json.id)).toMatchObject({ status: 'succeeded', progress: null, model: 'gpt-image-1' });
    const after = await untilNodeSettled(client, projectId);
    expect(after.data.job).toBeUndefined();
    expect(after.data.image).toMatch(/\.png$/);
  });

  it('upscales with ESRGAN offline, in the image workers, with no prompt, and refuses an image over UPSCALE_MAX_INPUT_PIXELS in plain words', async () => {
    const { client } = await plain.user('hal@example.com');
    // The upscaler uses no prompt: an empty one, or none, is taken; a model that uses one still needs it.
    expect((await client.post('/api/generations', { images: [image], prompt: '', model: 'local' })).json).toEqual({ error: 'No prompt provided' });
    expect((await client.post('/api/generations', { images: [image], prompt: ' ' })).json).toEqual({ error: 'No prompt provided' });
    expect((await client.post('/api/generations', { images: [image] })).json).toEqual({ error: 'No prompt provided' });
    const made = await client.post('/api/generations', { images: [image], prompt: '', model: 'esrgan-slim-4x' });
    expect(made.status).toBe(202);
    // The workers load TensorFlow.js and the model on first use: the job's events say when it ends.
    const job = await untilJob(client, made.json.id);
    expect(job).toMatchObject({ status: 'succeeded', model: 'esrgan-slim-4x' });
    const output = (job.output as { imageUrl: string }).imageUrl;
    const png = Buffer.from(await (await fetch(output)).arrayBuffer());
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 32, height: 32 }); // 8×8, 4×
    const big = `data:image/png;base64,${(await sharp({ create: { width: 600, height: 500, channels: 3, background: '#36c' } }).png().toBuffer()).toString('base64')}`;
    const refused = await client.post('/api/generations', { images: [big], model: 'esrgan-slim-2x' });
    expect(refused.status).toBe(202);
    // The same 400 as ever, in words a person reads: no setting's name, and the input named by its place, not its URL.
    expect((await untilJob(client, refused.json.id)).error).toEqual({
      status: 400,
      error: 'Invalid image: the image is 600 × 500 pixels (300,000); this upscaler takes images of at most 262,144 pixels (512 × 512)',
      details: 'images[0] (input image 1)',
    });
  });

  it("starts a node's upscale by its id with no prompt; a node whose model uses one still needs it", async () => {
    const { client, id } = await plain.user('ivy@example.com');
    const projectId = (await client.post('/api/user/project', { userId: id, name: 'Upscale node' })).json.id as string;
    const nodes = [
      { id: 'i', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'g', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: '', model: 'esrgan-slim-2x' } },
      { id: 'h', type: 'generation', position: { x: 400, y: 400 }, data: { type: 'generation', prompt: '' } },
    ];
    const edges = [
      { id: 'e1', source: 'i', target: 'g' },
      { id: 'e2', source: 'i', target: 'h' },
    ];
    expect((await client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    expect(await client.post('/api/generations', { projectId, nodeId: 'h' })).toMatchObject({ status: 400, json: { error: 'No prompt provided: node "h" has no prompt' } });
    // The start may also name the upscaler for a node without one.
    expect(await client.post('/api/generations', { projectId, nodeId: 'h', model: 'esrgan-slim-2x' })).toMatchObject({ status: 202 });
    const made = await client.post('/api/generations', { projectId, nodeId: 'g' });
    expect(made.status).toBe(202);
    expect(await untilJob(client, made.json.id)).toMatchObject({ status: 'succeeded', model: 'esrgan-slim-2x' });
  });

  it("keeps a generation node's data.model through REST saves and reads (the live document holds it)", async () => {
    const { client, id } = await several.user('fay@example.com');
    const projectId = (await client.post('/api/user/project', { userId: id, name: 'Models' })).json.id as string;
    const node = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p', model: 'gpt-image-1' } };
    expect((await client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
    expect((await client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data).toMatchObject({ prompt: 'p', model: 'gpt-image-1' });
    const tooLong = { ...node, data: { ...node.data, model: 'm'.repeat(101) } };
    expect((await client.post('/api/user/project/canvas', { projectId, nodes: [tooLong], edges: [] })).status).toBe(400);
    expect((await client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.model).toBe('gpt-image-1');
  });

  it('a model not offered without its key is unknown, while the default keeps answering SPEC’s routes', async () => {
    const { client } = await geminiDefault.user('dee@example.com');
    expect((await client.post('/api/generations', { images: [image], prompt: 'x', model: 'gpt-image-1' })).json).toEqual({
      error: 'Unknown model: "gpt-image-1" is not one this service runs (GET /api/models lists them)',
    });
    const before = gemini.requests.length;
    const direct = await client.post('/api/image', { images: [image], prompt: 'a red scarf' });
    expect(direct.status).toBe(200);
    expect(gemini.requests.slice(before)).toMatchObject([{ apiKey: 'gemini-key', model: 'gemini-2.5-flash-image' }]);
  });
});
