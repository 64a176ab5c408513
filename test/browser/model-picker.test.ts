// The generation node's model picker (docs/api.md "Models"): it lists the models the service runs (GET /api/models)
// with their prices, the default marked; a choice is the node's `data.model` in the live document (everyone in the
// room sees it, and it is an undo step of the one who made it); Generate sends it (and sends none without a
// choice); what the chosen model accepts and costs shows under it, and Generate is disabled, saying why, for more
// inputs than the model accepts or a model the service does not run; a viewer cannot change it; without the
// catalogue (a failed request) the picker offers the default only; and the settings follow the model: an upscaler
// asks for no prompt and names an input over its size limit before running.
//
// The service runs the offline engine (the default) and, with keys and base URLs on the loopback discard port that
// nothing here ever calls (no generation uses them), the Gemini and OpenAI models, so the catalogue has several
// models, prices and limits.
import type { Page, Response } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { saved, useBrowserFixture } from './fixture.js';

const UNREACHABLE = 'http://127.0.0.1:9';

interface CatalogueModel {
  id: string;
  label: string;
  maxInputs: number;
  costPerImageUsd?: number;
  offline: boolean;
  default: boolean;
  does: string[];
}

describeInBrowser('the generation node’s model picker', () => {
  const f = useBrowserFixture({
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
    GEMINI_API_KEY: 'never-used',
    GEMINI_BASE_URL: UNREACHABLE,
    OPENAI_API_KEY: 'never-used',
    OPENAI_BASE_URL: `${UNREACHABLE}/v1`,
  });
  const lives: LiveClient[] = [];
  afterAll(() => {
    for (const live of lives) live.close();
  });

  /**
   * A project of `email`'s whose canvas (saved over REST) has `inputs` image nodes connected into the generation
   * node `gen`; `members` are invited. Returns its id and a live participant of the owner's on its document.
   */
  async function project(email: string, name: string, inputs: number, members: Array<{ email: string; role: 'editor' | 'viewer' }> = []) {
    const owner = await f.app.user(email);
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await solidPng(32, 32, [200, 100, 50]))], { type: 'image/png' }), 'dot.png');
    const image = (await owner.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const uploads = Array.from({ length: inputs }, (_, i) => ({ id: `in${i}`, type: 'upload', position: { x: 0, y: i * 320 }, data: { type: 'upload', image } }));
    const nodes = [...uploads, { id: 'gen', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: 'grayscale' } }];
    const edges = uploads.map((u) => ({ id: `e-${u.id}`, source: u.id, target: 'gen' }));
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    for (const member of members) expect((await owner.client.post(`/api/user/project/${projectId}/members`, member)).status).toBe(201);
    const live = await connectLive({ baseUrl: f.app.baseUrl, as: owner.client, projectId });
    lives.push(live);
    await live.saved();
    return { projectId, live };
  }

  /** A signed-in page of `email`'s on the project, its generation node drawn. */
  async function open(email: string, projectId: string, prepare?: (page: Page) => Promise<unknown>) {
    const watched = await newPage(await f.newContext());
    await f.signIn(watched.page.context(), email);
    await prepare?.(watched.page);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const node = watched.page.locator('.react-flow__node[data-id="gen"]');
    await node.waitFor();
    return { ...watched, node, picker: node.getByLabel('Model', { exact: true }), generate: node.getByRole('button', { name: /^Generate/ }) };
  }

  /** The node's `data.model` as the live document holds it. */
  const liveModel = (live: LiveClient) => (renderCanvas(live.doc).nodes as Array<{ id: string; data: { model?: unknown } }>).find((n) => n.id === 'gen')?.data.model;

  it('lists the catalogue with the default marked, keeps a choice in the live document for everyone, undoes it, and generates with it', async () => {
    const { projectId, live } = await project('ada@example.com', 'Models', 1, [{ email: 'bob@example.com', role: 'editor' }]);
    const ada = await open('ada@example.com', projectId);
    const bob = await open('bob@example.com', projectId);
    const catalogue = ((await (await ada.page.request.get(`${f.app.baseUrl}/api/models`)).json()) as { models: CatalogueModel[] }).models;
    const local = catalogue.find((m) => m.id === 'local')!;
    expect(local.default).toBe(true);
    expect(catalogue.map((m) => m.id)).toEqual(expect.arrayContaining(['gemini-2.5-flash-image', 'gpt-image-1']));

    // "Default model" (no choice), then every model of the catalogue that generates (not the inpainters, which only
    // edit nodes offer): its price when known, offline, the default marked.
    const generating = catalogue.filter((m) => m.does.includes('generate'));
    expect(generating.length).toBeLessThan(catalogue.length); // inpaint-telea and inpaint-ns are not offered here
    await expect.poll(() => ada.picker.locator('option').count(), { timeout: WAIT }).toBe(generating.length + 1);
    const options = await ada.picker.locator('option').allTextContents();
    expect(options[0]).toBe(`Default model (${local.label})`);
    expect(options.slice(1)).toHaveLength(generating.length);
    expect(options.some((o) => o.startsWith('Fill from surroundings'))).toBe(false);
    expect(options).toContain(`${local.label} · offline (default)`);
    expect(options).toContain('Gemini 2.5 Flash Image · $0.039 / image');
    expect(options).toContain('Gemini 3 Pro Image (preview) · $0.134 / image');
    expect(options).toContain('OpenAI GPT Image 1'); // billed by tokens: no price
    expect(options.filter((o) => o.endsWith('(default)'))).toHaveLength(1);
    expect(await ada.picker.inputValue()).toBe('');
    await ada.node.getByText(`Up to ${local.maxInputs} input images`, { exact: true }).waitFor();
    expect(liveModel(live)).toBeUndefined();

    // Ada chooses Gemini: the node shows what it accepts and costs; the document has it, Bob's node shows it.
    await ada.picker.selectOption('gemini-2.5-flash-image');
    await ada.node.getByText('Up to 3 input images · ≈ $0.039 per run', { exact: true }).waitFor();
    await docWhere(live.doc, () => liveModel(live) === 'gemini-2.5-flash-image');
    await expect.poll(() => bob.picker.inputValue(), { timeout: WAIT }).toBe('gemini-2.5-flash-image');
    await bob.node.getByText('Up to 3 input images · ≈ $0.039 per run', { exact: true }).waitFor();
    expect(await ada.generate.isEnabled()).toBe(true);
    await saved(ada.page);
    await screenshot(ada.page, 'model-picker');

    // It is Ada's step: undo brings back no choice, for everyone.
    await ada.page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await ada.page.keyboard.press('Control+z');
    await expect.poll(() => ada.picker.inputValue(), { timeout: WAIT }).toBe('');
    await docWhere(live.doc, () => liveModel(live) === undefined);
    await expect.poll(() => bob.picker.inputValue(), { timeout: WAIT }).toBe('');

    // Generate without a choice sends no model (the service runs its default)…
    const sent = async (click: () => Promise<void>) => {
      const request = ada.page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
      const response = ada.page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
      await click();
      const body = (await request).postDataJSON() as Record<string, unknown>;
      const answer = await response;
      expect(answer.status()).toBe(202);
      return { body, jobId: ((await answer.json()) as { id: string }).id };
    };
    const first = await sent(() => ada.generate.click());
    expect(first.body).toMatchObject({ nodeId: 'gen', projectId, prompt: 'grayscale' });
    expect(first.body).not.toHaveProperty('model');
    await ada.node.getByAltText('Generated image').waitFor();

    // …and with one, the chosen model: the job records it.
    await ada.picker.selectOption('local');
    await docWhere(live.doc, () => liveModel(live) === 'local');
    await expect.poll(() => bob.picker.inputValue(), { timeout: WAIT }).toBe('local');
    const second = await sent(() => ada.node.getByRole('button', { name: 'Generate again', exact: true }).click());
    expect(second.body).toMatchObject({ nodeId: 'gen', model: 'local' });
    await expect
      .poll(async () => ((await (await ada.page.request.get(`${f.app.baseUrl}/api/generations/${second.jobId}`)).json()) as { status: string }).status, { timeout: WAIT })
      .toBe('succeeded');
    expect(await (await ada.page.request.get(`${f.app.baseUrl}/api/generations/${second.jobId}`)).json()).toMatchObject({ model: 'local', nodeId: 'gen' });
    expect(ada.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });

  it('disables Generate, saying why, for more inputs than the model accepts and for a model the service does not run; a viewer cannot choose', async () => {
    const { projectId, live } = await project('cleo@example.com', 'Limits', 4, [{ email: 'vic@example.com', role: 'viewer' }]);
    const cleo = await open('cleo@example.com', projectId);
    await cleo.node.getByText('4 inputs').waitFor();
    await expect.poll(() => cleo.picker.locator('option').count(), { timeout: WAIT }).toBeGreaterThan(1);
    expect(await cleo.generate.isEnabled()).toBe(true);

    // Gemini 2.5 Flash Image takes 3 images: a warning, and Generate disabled with the reason as its title.
    const tooMany = 'Too many input images: Gemini 2.5 Flash Image accepts at most 3 (this node has 4)';
    await cleo.picker.selectOption('gemini-2.5-flash-image');
    await cleo.node.getByText(tooMany, { exact: true }).waitFor();
    expect(await cleo.generate.isDisabled()).toBe(true);
    expect(await cleo.generate.getAttribute('title')).toBe(tooMany);
    await screenshot(cleo.page, 'model-picker-too-many');
    // One taking more: Generate again.
    const models = ((await (await cleo.page.request.get(`${f.app.baseUrl}/api/models`)).json()) as { models: CatalogueModel[] }).models;
    const pro = models.find((m) => m.id === 'gemini-3-pro-image-preview')!;
    expect(pro.maxInputs).toBeGreaterThanOrEqual(4); // 14, or GENERATION_MAX_IMAGES when lower
    await cleo.picker.selectOption(pro.id);
    await cleo.node.getByText(`Up to ${pro.maxInputs} input images · ≈ $0.134 per run`, { exact: true }).waitFor();
    expect(await cleo.node.getByText(tooMany).count()).toBe(0);
    expect(await cleo.generate.isEnabled()).toBe(true);
    expect(await cleo.generate.getAttribute('title')).toBeNull();

    // Someone (another client) writes a model this service does not run into the node: it shows as not available,
    // chosen, and Generate is disabled with the reason.
    await docWhere(live.doc, () => liveModel(live) === 'gemini-3-pro-image-preview');
    const data = (canvasMaps(live.doc).nodes.get('gen') as Y.Map<unknown>).get('data') as Y.Map<unknown>;
    data.set('model', 'retired-model');
    await live.saved();
    const unknown = '“retired-model” is not a model this service runs: choose another model';
    await expect.poll(() => cleo.picker.inputValue(), { timeout: WAIT }).toBe('retired-model');
    expect(await cleo.picker.locator('option:checked').textContent()).toBe('retired-model (not available)');
    await cleo.node.getByText(unknown, { exact: true }).waitFor();
    expect(await cleo.generate.isDisabled()).toBe(true);
    expect(await cleo.generate.getAttribute('title')).toBe(unknown);

    // A viewer sees the choice, but the picker is disabled (and there is no Generate).
    const vic = await open('vic@example.com', projectId);
    await expect.poll(() => vic.picker.inputValue(), { timeout: WAIT }).toBe('retired-model');
    expect(await vic.picker.isDisabled()).toBe(true);
    expect(await vic.picker.locator('option:checked').textContent()).toBe('retired-model (not available)');
    expect(await vic.generate.count()).toBe(0);

    // Choosing the default again removes the choice from the document.
    await cleo.picker.selectOption('');
    await docWhere(live.doc, () => liveModel(live) === undefined);
    await expect.poll(() => vic.picker.inputValue(), { timeout: WAIT }).toBe('');
    expect(await cleo.generate.isEnabled()).toBe(true);
    expect(cleo.errors).toEqual([]);
    expect(vic.errors).toEqual([]);
  });

  it('follows an upscaler: no prompt asked for, Generate with none; an input over its size limit named before running', async () => {
    const owner = await f.app.user('uma@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Upscale' })).json.id as string;
    const upload = async (width: number, height: number) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await solidPng(width, height, [40, 120, 200]))], { type: 'image/png' }), 'pic.png');
      return (await owner.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    };
    // Two upscaler nodes without a prompt: one fed a 32 × 32 image, one a 600 × 500 image (over 512 × 512 pixels,
    // the default UPSCALE_MAX_INPUT_PIXELS).
    const nodes = [
      { id: 'small', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: await upload(32, 32) } },
      { id: 'big', type: 'upload', position: { x: 0, y: 500 }, data: { type: 'upload', image: await upload(600, 500) } },
      { id: 'gen', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: '', model: 'esrgan-slim-2x' } },
      { id: 'gen2', type: 'generation', position: { x: 400, y: 500 }, data: { type: 'generation', prompt: '', model: 'esrgan-slim-2x' } },
    ];
    const edges = [
      { id: 'e1', source: 'small', target: 'gen' },
      { id: 'e2', source: 'big', target: 'gen2' },
    ];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    const uma = await open('uma@example.com', projectId);

    // No prompt box, a line saying the model uses none, and Generate ready with an image connected.
    await uma.node.getByText('No prompt: this model does not use one.', { exact: true }).waitFor();
    expect(await uma.node.getByLabel('Prompt').count()).toBe(0);
    await expect.poll(() => uma.generate.isEnabled(), { timeout: WAIT }).toBe(true);
    expect(await uma.node.locator('.generate-hint').count()).toBe(0);

    // The other node's input is too large: said before running, in plain words, and Generate waits.
    const other = uma.page.locator('.react-flow__node[data-id="gen2"]');
    const bigName = await uma.page.locator('.react-flow__node[data-id="big"]').getAttribute('aria-label');
    const tooLarge = `This upscaler takes images of at most 262,144 pixels (512 × 512); ${bigName} is 600 × 500`;
    await other.getByText(tooLarge, { exact: true }).waitFor();
    const otherGenerate = other.getByRole('button', { name: /^Generate/ });
    expect(await otherGenerate.isDisabled()).toBe(true);
    expect(await otherGenerate.getAttribute('title')).toBe(tooLarge);
    await screenshot(uma.page, 'upscaler-node');

    // Generate with no prompt: the service upscales the image.
    const request = uma.page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
    await uma.generate.click();
    expect((await request).postDataJSON()).toMatchObject({ nodeId: 'gen', model: 'esrgan-slim-2x', prompt: '' });
    await uma.node.getByAltText('Generated image').waitFor({ timeout: WAIT * 3 });
    expect(await uma.node.locator('.node-error').count()).toBe(0);
    expect(uma.errors).toEqual([]);
  });

  it('offers only the default when the catalogue cannot be read, and Generate still works', async () => {
    const { projectId } = await project('dora@example.com', 'No catalogue', 1);
    let answered: Promise<Response> | undefined;
    const dora = await open('dora@example.com', projectId, async (page) => {
      answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/models');
      await page.route('**/api/models', (route) => route.fulfill({ status: 503, json: { error: 'Service unavailable' } }));
    });
    expect((await answered!).status()).toBe(503);
    await dora.node.getByText('1 input').waitFor();
    await expect.poll(() => dora.picker.getAttribute('aria-busy'), { timeout: WAIT }).toBe('false');
    expect(await dora.picker.locator('option').allTextContents()).toEqual(['Default model']);
    expect(await dora.picker.inputValue()).toBe('');
    expect(await dora.picker.isEnabled()).toBe(true);
    expect(await dora.node.getByText(/^Up to \d+ input/).count()).toBe(0);

    const request = dora.page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
    await dora.generate.click();
    expect((await request).postDataJSON()).not.toHaveProperty('model');
    await dora.node.getByAltText('Generated image').waitFor();
    // The failed request is the one console error (Chromium reports the 503).
    expect(dora.errors.every((e) => e.includes('503'))).toBe(true);
  });
});
