// The ComfyUI driver against a local fake of a ComfyUI server's HTTP and WebSocket API, and the workflow check that
// stops the start on a bad COMFYUI_WORKFLOW.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { checkWorkflow, loadWorkflow, SHIPPED_WORKFLOW } from '../../src/models/comfyui-workflow.js';
import { createImageModel } from '../../src/models/index.js';
import { createOutputFiles, ENDLESS_BYTES } from '../fakes/output-files.js';
import { type ImageModel, type ModelProgress, ModelFailedError } from '../../src/models/image-model.js';
import { type FakeComfyUI, startFakeComfyUI } from '../fakes/comfyui-server.js';
import { gradient, png, request } from './images.js';

let fake: FakeComfyUI;
let model: ImageModel;
let input: Buffer;
let answer: Buffer;
let dir: string;

const files = createOutputFiles();

beforeAll(async () => {
  fake = await startFakeComfyUI({ files });
  model = await createImageModel({ model: 'comfyui', baseUrl: fake.baseUrl, timeoutMs: 10_000, workflow: loadWorkflow(SHIPPED_WORKFLOW).workflow });
  [input, answer] = await Promise.all([gradient(16, 12), gradient(8, 8, 250)]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'comfyui-workflow-'));
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.uploads.length = 0;
  fake.prompts.length = 0;
});

describe('ComfyUI driver', () => {
  it('uploads the input, queues the filled workflow for its own client, reports the steps and returns the output', async () => {
    fake.script({ steps: 3, end: { kind: 'success', image: answer } });
    const progress: ModelProgress[] = [];
    let answered = 0;
    const result = await model.generate({ ...request([png(input)], 'make it snow'), onProgress: (p) => progress.push(p), onAnswered: () => answered++ });
    expect(result.image?.data.equals(answer)).toBe(true);
    expect(result).toMatchObject({ model: 'comfyui' });
    expect(answered).toBe(1);
    expect(progress).toEqual([1, 2, 3].map((done) => ({ step: { done, total: 3 } })));
    const [upload] = fake.uploads;
    expect(upload).toMatchObject({ type: 'input', mimeType: 'image/png' });
    expect(upload.data.equals(input)).toBe(true);
    const [queued] = fake.prompts;
    expect(queued.prompt['4'].inputs.image).toBe(upload.name);
    expect(queued.prompt['6'].inputs.prompt).toBe('make it snow');
    expect(typeof queued.prompt['11'].inputs.seed).toBe('number');
    expect(queued.prompt['1'].inputs.unet_name).toBe('qwen_image_edit_fp8_e4m3fn.safetensors');
  });

  it("puts a generation's seed on the workflow's sampler ({{seed}})", async () => {
    fake.script({ steps: 1, end: { kind: 'success', image: answer } });
    await model.generate({ ...request([png(input)], 'make it rain'), seed: 777 });
    expect(fake.prompts[0].prompt['11'].inputs.seed).toBe(777);
  });

  it("fails with the node and reason when the workflow fails, or the server refuses it", async () => {
    fake.script({ steps: 1, end: { kind: 'error', message: 'CUDA out of memory' } });
    await expect(model.generate(request([png(input)], 'x'))).rejects.toThrow('the workflow failed in node 11 (KSampler): CUDA out of memory');
    fake.script({ refuse: true });
    await expect(model.generate(request([png(input)], 'x'))).rejects.toThrow(
      "the ComfyUI server refused the workflow: Prompt outputs failed validation (node 1 UNETLoader: Value not in list, unet_name: 'qwen_image_edit_fp8_e4m3fn.safetensors' not in [])",
    );
  });

  it('refuses an output over the limit while reading it (the server streams without end, or declares too much)', async () => {
    const limit = 1024 * 1024;
    const bounded = await createImageModel({ model: 'comfyui', baseUrl: fake.baseUrl, timeoutMs: 10_000, workflow: loadWorkflow(SHIPPED_WORKFLOW).workflow, maxOutputBytes: limit });
    fake.script({ end: { kind: 'success', served: 'endless.png' } });
    const failure = await bounded.generate(request([png(input)], 'x')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelFailedError);
    expect((failure as Error).message).toBe('the ComfyUI server returned an image larger than allowed');
    const sent = await files.endlessClosed();
    expect(sent).toBeGreaterThan(limit);
    expect(sent).toBeLessThan(limit + 16 * 1024 * 1024); // socket buffers, not the whole answer
    expect(sent).toBeLessThan(ENDLESS_BYTES / 8);
    fake.script({ end: { kind: 'success', served: 'declared-huge.png' } });
    expect(((await bounded.generate(request([png(input)], 'x')).catch((e: unknown) => e)) as Error).message).toBe('the ComfyUI server returned an image larger than allowed');
  });

  it('fails the call with a reason when the server drops the socket mid-job, and answers no image without output', async () => {
    fake.script({ steps: 2, end: { kind: 'disconnect' } });
    const failure = await model.generate(request([png(input)], 'x')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelFailedError);
    expect((failure as Error).message).toBe('the ComfyUI server closed the connection before the workflow finished');
    fake.script({ end: { kind: 'no-output' } });
    expect((await model.generate(request([png(input)], 'x'))).image).toBeUndefined();
  });

  it('interrupts the prompt and takes it off the queue when the call is aborted', async () => {
    fake.script({ steps: 1, hold: true });
    const abort = new AbortController();
    const call = model.generate({ ...request([png(input)], 'x'), signal: abort.signal }).catch((e: unknown) => e);
    const held = await fake.held();
    const interrupted = fake.interrupted();
    abort.abort();
    expect(((await call) as Error).message).toBe('Image model call was aborted');
    expect((await interrupted).id).toBe(held.id);
    fake.release();
  });

  it('a server that cannot be reached fails the call with a reason', async () => {
    const nowhere = await createImageModel({ model: 'comfyui', baseUrl: 'http://127.0.0.1:1', timeoutMs: 10_000, workflow: loadWorkflow(SHIPPED_WORKFLOW).workflow });
    await expect(nowhere.generate(request([png(input)], 'x'))).rejects.toThrow(/^the ComfyUI server cannot be reached: fetch failed/);
  });
});

describe('ComfyUI workflow', () => {
  it('the shipped one takes one image; a workflow counts its image placeholders', () => {
    expect(loadWorkflow(SHIPPED_WORKFLOW).images).toBe(1);
    const two = { '1': { class_type: 'LoadImage', inputs: { image: '{{image_1}}' } }, '2': { class_type: 'LoadImage', inputs: { image: '{{ image_2 }}' } }, '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } } };
    expect(checkWorkflow(two, 'w.json').images).toBe(2);
  });

  it('stops the start, naming the problem, for a workflow that is unreadable, not JSON, not in API format or lacks a placeholder', async () => {
    const cases: [string, string, RegExp][] = [
      ['missing.json', '', /missing\.json cannot be read \(ENOENT\)/],
      ['text.json', 'not json', /text\.json is not JSON/],
      ['ui.json', JSON.stringify({ nodes: [], links: [] }), /ui\.json is not in API format: node "nodes" has no class_type and inputs/],
      ['noprompt.json', JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } } }), /noprompt\.json has no \{\{prompt\}\} placeholder/],
      ['noimage.json', JSON.stringify({ '1': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } } }), /noimage\.json has no \{\{image_1\}\} placeholder/],
      ['gap.json', JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: '{{image_2}}' } }, '2': { class_type: 'T', inputs: { text: '{{prompt}}' } } }), /uses \{\{image_2\}\} but not \{\{image_1\}\}/],
    ];
    for (const [name, text, problem] of cases) {
      const file = path.join(dir, name);
      if (text) await writeFile(file, text);
      let thrown: unknown;
      try {
        loadConfig({ COMFYUI_URL: 'http://127.0.0.1:8188', COMFYUI_WORKFLOW: file });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, name).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).problems.join('\n'), name).toMatch(problem);
    }
    expect(() => loadConfig({ COMFYUI_WORKFLOW: path.join(dir, 'text.json') })).toThrow(ConfigError);
    expect(loadConfig({ COMFYUI_URL: 'http://127.0.0.1:8188' }).config.model.comfyui).toMatchObject({ url: 'http://127.0.0.1:8188', images: 1 });
  });
});
