// The hosted models that take a mask (issue 36 point 2), each through its official SDK (or, for ComfyUI, its HTTP
// and WebSocket API) against our fake of its wire protocol: the mask in the provider's own form (OpenAI: a PNG
// transparent where ours is white; fal: `mask_url`; Replicate: `mask`; ComfyUI: an uploaded image named in the
// workflow's `{{mask}}`), with the prompt and the seed; a model without mask support is never sent one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { IMAGE_MODELS, MODEL_INFO, rolesOf, type ModelInfo } from '../../src/models/catalogue.js';
import { checkWorkflow, INPAINT, loadWorkflow, SHIPPED_INPAINT_WORKFLOW, SHIPPED_WORKFLOW } from '../../src/models/comfyui-workflow.js';
import { createImageModel } from '../../src/models/index.js';
import { type GenerateRequest, type ImageModel, ModelFailedError } from '../../src/models/image-model.js';
import { type FakeComfyUI, startFakeComfyUI } from '../fakes/comfyui-server.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-server.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-server.js';
import { type FakeReplicate, startFakeReplicate } from '../fakes/replicate-server.js';
import { gradient, pixelAt, pixels, png, request } from './images.js';

const KEY = 'inpaint-test-key-0123456789';
const W = 16;
const H = 12;
/** The masked square: x 4..9, y 3..7 (white), the rest black. */
const inSquare = (x: number, y: number) => x >= 4 && x < 10 && y >= 3 && y < 8;

let image: Buffer;
let mask: Buffer;
let answer: Buffer;
let openai: FakeOpenAI;
let fal: FakeFal;
let replicate: FakeReplicate;
let comfy: FakeComfyUI;
let dir: string;

const dataUri = (data: Buffer) => `data:image/png;base64,${data.toString('base64')}`;
const edit = (prompt: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({ ...request([png(image)], prompt), mask: png(mask), ...extra });

beforeAll(async () => {
  const raw = Buffer.alloc(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) raw[y * W + x] = inSquare(x, y) ? 255 : 0;
  [image, mask, answer] = await Promise.all([gradient(W, H), sharp(raw, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer(), gradient(W, H, 200)]);
  [openai, fal, replicate, comfy] = await Promise.all([startFakeOpenAI({ apiKey: KEY }), startFakeFal({ key: KEY }), startFakeReplicate({ token: KEY }), startFakeComfyUI()]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'inpaint-workflow-'));
});
afterAll(async () => {
  await Promise.all([openai.close(), fal.close(), replicate.close(), comfy.close()]);
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  openai.requests.length = 0;
  fal.requests.length = 0;
  replicate.predictions.length = 0;
  comfy.uploads.length = 0;
  comfy.prompts.length = 0;
});

describe('the catalogue', () => {
  it('lists the hosted mask models as inpainting ones: every model that does inpaint takes a mask, and no other', () => {
    const inpaint = IMAGE_MODELS.filter((id) => rolesOf(MODEL_INFO[id] as ModelInfo).includes('inpaint'));
    expect(inpaint.filter((id) => !MODEL_INFO[id].offline)).toEqual(['gpt-image-1', 'fal-ai/flux-pro/v1/fill', 'black-forest-labs/flux-fill-pro', 'comfyui-inpaint']);
    for (const id of IMAGE_MODELS) expect((MODEL_INFO[id] as ModelInfo).takesMask === true, id).toBe(inpaint.includes(id));
    // gpt-image-1 still generates (one model, one API call, with or without a mask); the fill models only inpaint.
    expect(rolesOf(MODEL_INFO['gpt-image-1'])).toEqual(['generate', 'inpaint']);
    for (const id of ['fal-ai/flux-pro/v1/fill', 'black-forest-labs/flux-fill-pro', 'comfyui-inpaint'] as const) expect(rolesOf(MODEL_INFO[id] as ModelInfo), id).toEqual(['inpaint']);
  });
});

describe('OpenAI gpt-image-1 with a mask', () => {
  let model: ImageModel;
  beforeAll(async () => {
    model = await createImageModel({ model: 'gpt-image-1', apiKey: KEY, baseUrl: openai.baseUrl, timeoutMs: 10_000 });
  });

  it('sends the mask as its `mask` part, transparent exactly where ours is white, with the image and the prompt', async () => {
    openai.reply({ kind: 'image', image: answer });
    const result = await model.generate(edit('a red balloon', { seed: 42 }));
    expect(result.image?.data.equals(answer)).toBe(true);
    const [sent] = openai.requests;
    expect(sent).toMatchObject({ model: 'gpt-image-1', prompt: 'a red balloon' });
    expect(sent.images.map((i) => i.field)).toEqual(['image[]']);
    expect(sent.images[0].data.equals(image)).toBe(true);
    expect(sent.mask).toMatchObject({ name: 'mask.png', mimeType: 'image/png' });
    const sentMask = await pixels(sent.mask!.data);
    expect([sentMask.width, sentMask.height, sentMask.channels]).toEqual([W, H, 4]);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(pixelAt(sentMask, x, y)[3], `alpha at ${x},${y}`).toBe(inSquare(x, y) ? 0 : 255);
    // Its API has no seed: none is sent.
    expect(sent.fields).not.toHaveProperty('seed');
  });

  it('sends the mask on the streamed call (partial images) too', async () => {
    const streamed = await createImageModel({ model: 'gpt-image-1', apiKey: KEY, baseUrl: openai.baseUrl, timeoutMs: 10_000, partialImages: 1 });
    openai.reply({ kind: 'image', image: answer });
    const result = await streamed.generate(edit('a kite'));
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(openai.requests[0].fields).toMatchObject({ stream: 'true', prompt: 'a kite' });
    expect(openai.requests[0].mask).toBeDefined();
  });

  it('sends no mask part for a generation without one, and fails with the reason when OpenAI refuses the mask', async () => {
    openai.reply({ kind: 'image', image: answer });
    await model.generate(request([png(image)], 'a plain edit'));
    expect(openai.requests[0].mask).toBeUndefined();
    // A mask of another size than the image (the caller fits it; the API refuses one that is not).
    const small = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer();
    await expect(model.generate(edit('x', { mask: png(small) }))).rejects.toThrow('Image model answered HTTP 400: Invalid mask image format - mask size does not match image size');
    // A mask that is no image fails the call with a reason before anything is sent.
    const before = openai.requests.length;
    await expect(model.generate(edit('x', { mask: png(Buffer.from('not a png')) }))).rejects.toThrow(/^the mask could not be read \(/);
    expect(openai.requests).toHaveLength(before);
  });
});

describe('fal FLUX.1 Fill [pro]', () => {
  it('sends image_url, mask_url (ours, white edits), the prompt and the seed', async () => {
    const fill = await createImageModel({ model: 'fal-ai/flux-pro/v1/fill', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000 });
    fal.script({ result: { kind: 'image', image: answer } });
    const result = await fill.generate(edit('a red balloon', { seed: 42 }));
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.model).toBe('fal-ai/flux-pro/v1/fill');
    const [sent] = fal.requests;
    expect(sent.endpoint).toBe('fal-ai/flux-pro/v1/fill');
    expect(sent.input).toEqual({ prompt: 'a red balloon', seed: 42, num_images: 1, output_format: 'png', sync_mode: true, image_url: dataUri(image), mask_url: dataUri(mask) });
  });

  it('is never called without a mask; a model of fal without mask support is never sent one', async () => {
    const fill = await createImageModel({ model: 'fal-ai/flux-pro/v1/fill', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000 });
    await expect(fill.generate(request([png(image)], 'x'))).rejects.toThrow(new ModelFailedError('fal-ai/flux-pro/v1/fill inpaints a mask, and was given none'));
    expect(fal.requests).toHaveLength(0);
    const kontext = await createImageModel({ model: 'fal-ai/flux-pro/kontext', apiKey: KEY, baseUrl: fal.baseUrl, timeoutMs: 10_000 });
    await kontext.generate(edit('x'));
    expect(Object.keys(fal.requests[0].input)).not.toContain('mask_url');
  });
});

describe('Replicate FLUX.1 Fill [pro]', () => {
  it('sends image, mask (ours, white edits), the prompt and the seed', async () => {
    const fill = await createImageModel({ model: 'black-forest-labs/flux-fill-pro', apiKey: KEY, baseUrl: replicate.baseUrl, timeoutMs: 10_000 });
    replicate.script({ end: { kind: 'succeeded', image: answer } });
    const result = await fill.generate(edit('a red balloon', { seed: 42 }));
    expect(result.image?.data.equals(answer)).toBe(true);
    const [sent] = replicate.predictions;
    expect(sent.model).toBe('black-forest-labs/flux-fill-pro');
    expect(sent.input).toEqual({ prompt: 'a red balloon', image: dataUri(image), mask: dataUri(mask), output_format: 'png', seed: 42 });
  });

  it('is never called without a mask; a model of Replicate without mask support is never sent one', async () => {
    const fill = await createImageModel({ model: 'black-forest-labs/flux-fill-pro', apiKey: KEY, baseUrl: replicate.baseUrl, timeoutMs: 10_000 });
    await expect(fill.generate(request([png(image)], 'x'))).rejects.toThrow('black-forest-labs/flux-fill-pro inpaints a mask, and was given none');
    expect(replicate.predictions).toHaveLength(0);
    const kontext = await createImageModel({ model: 'black-forest-labs/flux-kontext-pro', apiKey: KEY, baseUrl: replicate.baseUrl, timeoutMs: 10_000 });
    await kontext.generate(edit('x'));
    expect(Object.keys(replicate.predictions[0].input)).not.toContain('mask');
  });
});

describe('ComfyUI inpainting workflow', () => {
  it('uploads the image and the mask, and queues the workflow with {{mask}}, the prompt and the seed filled', async () => {
    const inpaint = await createImageModel({ model: 'comfyui-inpaint', baseUrl: comfy.baseUrl, timeoutMs: 10_000, inpaintWorkflow: loadWorkflow(SHIPPED_INPAINT_WORKFLOW, INPAINT).workflow });
    comfy.script({ steps: 2, end: { kind: 'success', image: answer } });
    const result = await inpaint.generate(edit('a red balloon', { seed: 42 }));
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result.model).toBe('comfyui-inpaint');
    const [up, maskUp] = comfy.uploads;
    expect(comfy.uploads).toHaveLength(2);
    expect(up.data.equals(image)).toBe(true);
    expect(maskUp.data.equals(mask)).toBe(true);
    const { prompt } = comfy.prompts[0];
    expect(prompt['4'].inputs.image).toBe(up.name);
    expect(prompt['14']).toMatchObject({ class_type: 'LoadImageMask', inputs: { image: maskUp.name, channel: 'red' } });
    expect(prompt['15']).toMatchObject({ class_type: 'SetLatentNoiseMask', inputs: { mask: ['14', 0] } });
    expect(prompt['6'].inputs.prompt).toBe('a red balloon');
    expect(prompt['11'].inputs.seed).toBe(42);
    // Without a mask it is not queued at all.
    await expect(inpaint.generate(request([png(image)], 'x'))).rejects.toThrow('the ComfyUI inpainting workflow inpaints a mask, and was given none');
    expect(comfy.prompts).toHaveLength(1);
  });

  it('the plain workflow (`comfyui`) is never sent a mask', async () => {
    const plain = await createImageModel({ model: 'comfyui', baseUrl: comfy.baseUrl, timeoutMs: 10_000, workflow: loadWorkflow(SHIPPED_WORKFLOW).workflow });
    comfy.script({ end: { kind: 'success', image: answer } });
    await plain.generate(edit('x'));
    expect(comfy.uploads).toHaveLength(1);
    expect(comfy.uploads[0].data.equals(image)).toBe(true);
    expect(JSON.stringify(comfy.prompts[0].prompt)).not.toContain('mask');
  });

  it('checks the inpainting workflow at start: COMFYUI_INPAINT_WORKFLOW needs {{mask}}, and COMFYUI_WORKFLOW may not have one', async () => {
    expect(loadConfig({ COMFYUI_URL: 'http://127.0.0.1:8188' }).config.model.comfyui?.inpaintWorkflow?.['14']).toMatchObject({ class_type: 'LoadImageMask', inputs: { image: '{{mask}}' } });
    const noMask = path.join(dir, 'nomask.json');
    await writeFile(noMask, JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } }, '2': { class_type: 'T', inputs: { text: '{{prompt}}' } } }));
    const withMask = path.join(dir, 'withmask.json');
    await writeFile(withMask, JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } }, '2': { class_type: 'T', inputs: { text: '{{prompt}}' } }, '3': { class_type: 'LoadImageMask', inputs: { image: '{{mask}}', channel: 'red' } } }));
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        if (err instanceof ConfigError) return err.problems.join('\n');
        throw err;
      }
      return '';
    };
    expect(problems({ COMFYUI_URL: 'http://127.0.0.1:8188', COMFYUI_INPAINT_WORKFLOW: noMask })).toContain(`COMFYUI_INPAINT_WORKFLOW: ${noMask} has no {{mask}} placeholder`);
    expect(problems({ COMFYUI_URL: 'http://127.0.0.1:8188', COMFYUI_WORKFLOW: withMask })).toContain(`COMFYUI_WORKFLOW: ${withMask} has a {{mask}} placeholder: an inpainting workflow goes in COMFYUI_INPAINT_WORKFLOW`);
    expect(problems({ COMFYUI_INPAINT_WORKFLOW: withMask })).toContain('COMFYUI_INPAINT_WORKFLOW is set without COMFYUI_URL');
    // A model that only inpaints is never the default a generation that names none runs.
    expect(problems({ IMAGE_MODEL: 'comfyui-inpaint', COMFYUI_URL: 'http://127.0.0.1:8188' })).toContain('IMAGE_MODEL must be one of');
    expect(problems({ IMAGE_MODEL: 'inpaint-telea' })).toContain('(the models that generate)');
    expect(problems({ IMAGE_MODEL_FALLBACK: 'fal-ai/bria/background/remove' })).toContain('IMAGE_MODEL_FALLBACK must be one of');
    expect(loadConfig({ COMFYUI_URL: 'http://127.0.0.1:8188', COMFYUI_INPAINT_WORKFLOW: withMask }).config.model.comfyui?.inpaintWorkflow).toEqual(checkWorkflow(JSON.parse(JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } }, '2': { class_type: 'T', inputs: { text: '{{prompt}}' } }, '3': { class_type: 'LoadImageMask', inputs: { image: '{{mask}}', channel: 'red' } } })), 'w', INPAINT).workflow);
  });
});
