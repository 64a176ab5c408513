// Results as objects and the gallery (issue 34, points 4 and 10), in a browser. On the canvas: a 2048 × 1536
// result stays inside its node's bounded box with its pixel size under it; a click opens it full size with its
// prompt, the model's name and its size; Copy prompt puts the prompt on the clipboard; Esc closes; "New image node"
// and a drag of the result onto the canvas each make an image node holding it; two variants compare with a slider
// the keyboard moves. In the gallery: the same lightbox, whose ← → step through the list; "Show on canvas" opens
// the project with the node selected; "Reuse prompt" opens it with a new generation node holding the prompt, fed by
// the same image; model names in place of ids and a model filter (kept in the URL); the project filter opens another
// project's gallery; several ticked download as one ZIP of their PNGs. Axe finds nothing serious with a lightbox open, in both themes.
//
// The generations are made over the API by an in-process model (under the offline engine's id, so the catalogue
// names it) whose answers are solid images of known sizes; the test waits for each job to end, never for a time.
import { unzipSync } from 'fflate';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import type { ImageModel } from '../../src/models/index.js';
import { uploadFile } from '../helpers/http-client.js';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, screenshot, solidPng } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

/** The generous wait of a loaded machine, and a test's time (each walks through many steps). */
const LONG = 60_000;
const TEST_TIMEOUT = 240_000;
/** What each call of the model answers, in turn: the last one (the node's current result) is a "4× upscale". */
const SIZES = [
  { width: 512, height: 512, rgb: { r: 40, g: 120, b: 200 } },
  { width: 2048, height: 1536, rgb: { r: 230, g: 140, b: 30 } },
];
let calls = 0;
const sized: ImageModel = {
  id: 'local',
  async generate() {
    const { width, height, rgb } = SIZES[calls++ % SIZES.length];
    const data = await sharp({ create: { width, height, channels: 3, background: rgb } }).png().toBuffer();
    return { image: { data, mimeType: 'image/png' } };
  },
};

/**
 * How far (px) node `g` is from the middle of the canvas: its middle from the middle across, and 0 down the canvas
 * when all of it is in view (a node grows as its variants load, so its middle moves down while it stays in view).
 */
async function offCentre(page: Page): Promise<number> {
  const node = await page.locator('.react-flow__node[data-id="g"]').boundingBox();
  const pane = await page.locator('.react-flow').boundingBox();
  if (!node || !pane) return Infinity;
  const across = Math.abs(node.x + node.width / 2 - (pane.x + pane.width / 2));
  const outside = Math.max(0, pane.y - node.y, node.y + node.height - (pane.y + pane.height));
  return across + outside;
}

describeInBrowser('results as objects and the gallery', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, { imageModel: sized });
  let projectId = '';
  let modelLabel = '';

  /** A project whose generation node `g`, fed by the image node `u`, ran twice: "misty sunset", then "golden sunset". */
  async function projectWithResults(email: string) {
    const owner = await f.app.user(email, 'Rita');
    projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Sunsets' })).json.id as string;
    const uploaded = await uploadFile(owner.client, await solidPng(64, 64, [200, 60, 60]));
    const nodes = [
      { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: uploaded.json.url } },
      { id: 'g', type: 'generation', position: { x: 360, y: 0 }, data: { type: 'generation', prompt: 'golden sunset' } },
    ];
    const edges = [{ id: 'e1', source: 'u', target: 'g' }];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    for (const prompt of ['misty sunset', 'golden sunset']) {
      const made = await owner.client.post('/api/generations', { images: [uploaded.json.url], prompt, projectId, nodeId: 'g' });
      expect(made.status, made.text).toBe(202);
      await expect.poll(async () => (await owner.client.get(`/api/generations/${made.json.id}`)).json.status, { timeout: LONG }).toBe('succeeded');
    }
    modelLabel = ((await owner.client.get('/api/models')).json.models as { id: string; label: string }[]).find((m) => m.id === 'local')!.label;
    expect(modelLabel).not.toBe('local');
    return owner;
  }

  it('a result on the canvas: bounded with its size, opens full size, copies its prompt, becomes an image node, compares with a slider', async () => {
    await projectWithResults('rita@example.com');
    const context = await f.newContext(axeContext({ reducedMotion: 'reduce' })); // no transition: the theme switches at once for axe
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.app.baseUrl });
    const { page, errors } = await newPage(context);
    await f.signIn(context, 'rita@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await saved(page);

    // Bounded: the 2048 × 1536 image fits the node's box, and the node stays its width; its size is said under it.
    const node = page.locator('.react-flow__node[data-id="g"]');
    const result = node.getByRole('button', { name: /^Open the result full size/ });
    await node.getByText('2048 × 1536', { exact: true }).waitFor({ timeout: LONG });
    const image = (await result.locator('img').boundingBox())!;
    const frame = (await node.boundingBox())!;
    expect(image.width).toBeLessThanOrEqual(frame.width);
    expect(image.height).toBeLessThanOrEqual(220);
    expect(frame.width).toBeLessThan(400);
    await screenshot(page, 'result-on-node');

    // A click opens it full size: prompt, model by name, size; Copy prompt; Esc closes.
    await result.click();
    const box = page.getByRole('dialog', { name: 'Result' });
    await box.getByText('golden sunset', { exact: true }).waitFor();
    await box.getByText(modelLabel, { exact: true }).waitFor();
    await box.getByText('2048 × 1536 px', { exact: true }).waitFor();
    await box.getByRole('button', { name: 'Copy prompt' }).click();
    await box.getByText('Prompt copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('golden sunset');
    await screenshot(page, 'result-lightbox');
    expect(await seriousViolations(page), 'canvas lightbox, light').toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page), 'canvas lightbox, dark').toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });

    // Enter on the focused result opens it too.
    await result.focus();
    await page.keyboard.press('Enter');
    await box.waitFor();
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });

    // "New image node": an image node holding the result's address, to the right of the generation node.
    const current = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g')!.data.image as string;
    await node.getByRole('button', { name: 'New image node' }).click();
    const images = page.locator('.react-flow__node-upload');
    await expect.poll(() => images.count(), { timeout: LONG }).toBe(2);
    await saved(page);
    const made = (await restCanvas(page, projectId))!.nodes.filter((n) => n.type === 'upload' && n.id !== 'u');
    expect(made.map((n) => n.data.image)).toEqual([current]);
    expect(made[0].position.x).toBeGreaterThan(360 + 260);

    // Dragged out onto an empty spot of the canvas: another one, where it was let go (the whole canvas in view first).
    await page.locator('.react-flow').focus();
    await page.keyboard.press('Shift+Digit1');
    const pane = page.locator('.react-flow__pane');
    const paneBox = (await pane.boundingBox())!;
    await node.getByRole('button', { name: 'New image node' }).dragTo(pane, { targetPosition: { x: 80, y: paneBox.height - 80 } });
    await expect.poll(() => images.count(), { timeout: LONG }).toBe(3);
    await saved(page);
    const dropped = (await restCanvas(page, projectId))!.nodes.filter((n) => n.type === 'upload' && n.id !== 'u' && n.id !== made[0].id);
    expect(dropped.map((n) => n.data.image)).toEqual([current]);

    // Two variants compared with a slider the keyboard moves.
    await node.getByRole('checkbox', { name: 'Compare variant 1' }).check();
    await node.getByRole('checkbox', { name: 'Compare variant 2' }).check();
    await node.getByRole('button', { name: 'Compare' }).click();
    const compare = page.getByRole('dialog', { name: 'Variants 1 and 2' });
    const slider = compare.getByRole('slider', { name: 'Compare Variant 1 with Variant 2' });
    await slider.focus();
    expect(await slider.inputValue()).toBe('50');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    expect(await slider.inputValue()).toBe('55');
    await page.keyboard.press('Home');
    expect(await slider.inputValue()).toBe('0');
    expect(await compare.locator('.compare-slider').getAttribute('data-split')).toBe('0');
    await page.keyboard.press('PageUp');
    expect(await slider.inputValue()).toBe('10');
    expect(await compare.getByRole('img', { name: 'Variant 1' }).getAttribute('src')).toMatch(/\.png$/);
    await screenshot(page, 'result-compare');
    expect(await seriousViolations(page), 'compare').toEqual([]);
    await page.keyboard.press('Escape');
    await compare.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  }, TEST_TIMEOUT);

  it('the gallery: lightbox, show on canvas, reuse prompt, model names and filters, several downloaded as one ZIP', async () => {
    const owner = await projectWithResults('gil@example.com');
    const other = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Other project' })).json.id as string;
    const context = await f.newContext(axeContext({ reducedMotion: 'reduce' })); // no transition: the theme switches at once for axe
    const { page, errors } = await newPage(context);
    await f.signIn(context, 'gil@example.com');
    const galleryUrl = `${f.app.baseUrl}/projects/${projectId}/gallery`;
    await page.goto(galleryUrl);

    // Model names, not ids.
    const list = page.getByRole('list', { name: 'Generations' });
    await expect.poll(() => list.locator('.gallery-prompt').allTextContents(), { timeout: LONG }).toEqual(['golden sunset', 'misty sunset']);
    expect(await list.getByRole('listitem').first().textContent()).toContain(modelLabel);

    // The model filter, by name, kept in the URL; a model with nothing made lists nothing.
    const models = page.getByLabel('Model', { exact: true });
    await models.selectOption({ label: modelLabel });
    await page.waitForURL(`${galleryUrl}?model=local`);
    const filtered = page.getByRole('list', { name: `Generations matching ${modelLabel}` });
    await expect.poll(() => filtered.locator('.gallery-prompt').allTextContents(), { timeout: LONG }).toEqual(['golden sunset', 'misty sunset']);
    const otherModel = (await models.locator('option').allTextContents()).find((label) => label !== 'All models' && label !== modelLabel)!;
    await models.selectOption({ label: otherModel });
    await page.getByText(`No generations match ${otherModel}.`).waitFor();
    await models.selectOption({ label: 'All models' });
    await page.waitForURL(galleryUrl);

    // The project filter opens the other project's gallery (empty), and back.
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Other project' });
    await page.waitForURL(`${f.app.baseUrl}/projects/${other}/gallery`);
    await page.getByText('No generations yet').waitFor();
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Sunsets' });
    await page.waitForURL(galleryUrl);

    // The lightbox: full size with prompt, model name and size; axe in both themes.
    await list.getByRole('button', { name: 'Open “golden sunset” full size' }).click();
    const box = page.getByRole('dialog', { name: '“golden sunset”' });
    await box.getByText(modelLabel, { exact: true }).waitFor();
    await box.getByText('2048 × 1536 px', { exact: true }).waitFor();
    await screenshot(page, 'gallery-lightbox');
    expect(await seriousViolations(page), 'gallery lightbox, light').toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page), 'gallery lightbox, dark').toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    // The arrow keys step through the list: the next (older) one, and back.
    await page.keyboard.press('ArrowRight');
    await page.getByRole('dialog', { name: '“misty sunset”' }).getByText('512 × 512 px', { exact: true }).waitFor();
    await page.keyboard.press('ArrowLeft');
    await box.getByText('2048 × 1536 px', { exact: true }).waitFor();

    // Show on canvas: the project opens with the node selected, in the middle of the view and all in it.
    await box.getByRole('link', { name: 'Show on canvas' }).click();
    await page.waitForURL(`${f.app.baseUrl}/projects/${projectId}`);
    await page.locator('.react-flow__node[data-id="g"].selected').waitFor({ timeout: LONG });
    await expect.poll(() => offCentre(page), { timeout: LONG }).toBeLessThan(30);

    // Reuse prompt: a new generation node with the prompt, fed by the same image, selected.
    await page.goto(galleryUrl);
    await list.getByRole('button', { name: 'Open “misty sunset” full size' }).click();
    await page.getByRole('dialog', { name: '“misty sunset”' }).getByRole('button', { name: 'Reuse prompt' }).click();
    await page.waitForURL(`${f.app.baseUrl}/projects/${projectId}`);
    const fresh = page.locator('.react-flow__node-generation.selected');
    await fresh.getByText('1 input').waitFor({ timeout: LONG });
    expect(await fresh.getByRole('textbox').first().inputValue()).toBe('misty sunset');
    await saved(page);
    const canvas = (await restCanvas(page, projectId))!;
    const reused = canvas.nodes.find((n) => n.type === 'generation' && n.id !== 'g')!;
    expect(reused.data.prompt).toBe('misty sunset');
    expect(canvas.edges.filter((e) => e.target === reused.id).map((e) => e.source)).toEqual(['u']);

    // Several ticked: one ZIP holding their PNGs under their download names.
    await page.goto(galleryUrl);
    await list.getByRole('checkbox', { name: 'Select “golden sunset”' }).check();
    await list.getByRole('checkbox', { name: 'Select “misty sunset”' }).check();
    await page.getByText('2 selected').waitFor();
    await screenshot(page, 'gallery-selected');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download 2 as ZIP' }).click()]);
    expect(download.suggestedFilename()).toBe('Sunsets - 2 images.zip');
    const files = unzipSync(new Uint8Array(await readFile(await download.path())));
    expect(Object.keys(files).sort()).toEqual(['Sunsets - golden sunset.png', 'Sunsets - misty sunset.png']);
    expect((await sharp(files['Sunsets - golden sunset.png']).metadata()).width).toBe(2048);
    expect(errors).toEqual([]);

    // A viewer: no Reuse prompt (nothing to edit), and Show on canvas centres the node on the view-only canvas.
    expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: 'vic@example.com', role: 'viewer' })).status).toBe(201);
    const { page: viewer } = await newPage(await f.newContext({ reducedMotion: 'reduce' }));
    await f.signIn(viewer.context(), 'vic@example.com');
    await viewer.goto(galleryUrl);
    await viewer.getByRole('button', { name: 'Open “golden sunset” full size' }).click();
    const seen = viewer.getByRole('dialog', { name: '“golden sunset”' });
    await seen.getByText('2048 × 1536 px', { exact: true }).waitFor();
    expect(await seen.getByRole('button', { name: 'Reuse prompt' }).count()).toBe(0);
    await seen.getByRole('link', { name: 'Show on canvas' }).click();
    await viewer.waitForURL(`${f.app.baseUrl}/projects/${projectId}`);
    await expect.poll(() => offCentre(viewer), { timeout: LONG }).toBeLessThan(30);
  }, TEST_TIMEOUT);
});
