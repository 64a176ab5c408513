// The mask node and its full-size editor in the page (issue 36 point 1; web/src/components/mask-{node,editor}.tsx):
// a mouse stroke painted over the node's input image, undone and redone, saved as a PNG of the image's size (white
// where painted, black elsewhere, read back with sharp) into data.mask; a viewer's page shows the overlay and opens
// the editor read-only; B/E, Ctrl+Z, Enter on the node and its context menu, Escape asking before it drops unsaved paint, a cleared mask saved as none. On a
// phone in the dark theme: a stored mask of another size is loaded scaled (and said), two fingers pinch-zoom without
// painting, one finger paints. Axe finds nothing serious with the editor open in either theme. Select person (P)
// finds the astronaut of a photo offline (MediaPipe's selfie segmentation, no request leaving the app's origin) and
// saves her as white, the wall behind her black.
import type { Locator, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, screenshot, WAIT } from './browser.js';
import { restCanvas, useBrowserFixture } from './fixture.js';

const W = 200;
const H = 120;

describeInBrowser('mask editor', () => {
  const f = useBrowserFixture();

  async function uploadPng(client: HttpClient, png: Buffer, name: string, type = 'image/png') {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type }), name);
    return (await client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
  }

  /** A project whose canvas is an image (W×H) wired into a mask node `m` (with `mask` when given). */
  async function maskCanvas(email: string, name: string, mask?: Buffer) {
    const owner = await f.app.user(email);
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    const picture = await sharp({ create: { width: W, height: H, channels: 3, background: { r: 40, g: 140, b: 90 } } }).png().toBuffer();
    const image = await uploadPng(owner.client, picture, 'green.png');
    const maskUrl = mask ? await uploadPng(owner.client, mask, 'mask.png') : undefined;
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'm', type: 'mask', position: { x: 360, y: 0 }, data: { type: 'mask', ...(maskUrl ? { mask: maskUrl } : {}) } },
    ];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'in', target: 'm' }] })).status).toBe(200);
    return { owner, projectId, maskUrl };
  }

  /** Where an image pixel of the open editor is on the screen (from the stage's box and the layer's transform). */
  async function screenOf(page: Page, x: number, y: number) {
    const stage = page.locator('.mask-stage');
    const { left, top } = await stage.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left + el.clientLeft, top: r.top + el.clientTop };
    });
    const t = await page.locator('.mask-layer').evaluate((el) => (el as HTMLElement).style.transform);
    const [tx, ty, s] = /translate\(([-\d.e]+)px, ([-\d.e]+)px\) scale\(([\d.e-]+)\)/.exec(t)!.slice(1).map(Number);
    return { x: left + tx + (x + 0.5) * s, y: top + ty + (y + 0.5) * s };
  }

  /** The overlay's alpha at an image pixel, and summed over the whole overlay. */
  const overlayAt = (page: Page, x: number, y: number) =>
    page.locator('canvas.mask-overlay').evaluate((c, [px, py]) => (c as HTMLCanvasElement).getContext('2d')!.getImageData(px, py, 1, 1).data[3], [x, y]);
  const overlaySum = (page: Page) =>
    page.locator('canvas.mask-overlay').evaluate((c) => {
      const canvas = c as HTMLCanvasElement;
      return canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data.reduce((n, v, i) => (i % 4 === 3 ? n + v : n), 0);
    });
  const zoomOf = async (editor: Locator) => Number(await editor.locator('output.mask-zoom').getAttribute('data-zoom'));

  /** The editor, opened and its image shown (its view fitted). */
  async function openEditor(page: Page, button: string) {
    await page.locator('.react-flow__node[data-id="m"]').getByRole('button', { name: button }).click();
    const editor = page.getByRole('dialog', { name: button === 'View mask' ? 'Mask (view only)' : 'Paint mask' });
    await page.locator('canvas.mask-overlay').waitFor();
    return editor;
  }

  it('paints with the mouse, undoes and redoes, saves a PNG mask of the image’s size that another page shows; keys; Escape asks; empty saves as none', async () => {
    const { owner, projectId } = await maskCanvas('painter@example.com', 'Masks');
    await f.app.user('looker@example.com');
    expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: 'looker@example.com', role: 'viewer' })).status).toBe(201);
    const { page, errors } = await newPage(await f.newContext(axeContext({ colorScheme: 'light' })));
    await f.signIn(page.context(), 'painter@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const node = page.locator('.react-flow__node[data-id="m"]');
    await node.getByText('No mask painted yet').waitFor();

    const editor = await openEditor(page, 'Paint mask');
    expect(await editor.getByRole('button', { name: 'Brush' }).getAttribute('aria-pressed')).toBe('true');
    await editor.getByLabel('Brush hardness (percent)').focus();
    await page.keyboard.press('End');
    await editor.getByText('Hardness 100%').waitFor();
    // B and E switch the tool (pressed on the stage).
    await editor.getByRole('application').focus();
    await page.keyboard.press('e');
    expect(await editor.getByRole('button', { name: 'Eraser' }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('b');
    expect(await editor.getByRole('button', { name: 'Brush' }).getAttribute('aria-pressed')).toBe('true');

    // A horizontal stroke across the middle, from x 40 to x 160.
    const from = await screenOf(page, 40, 60);
    const to = await screenOf(page, 160, 60);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 12 });
    await page.mouse.up();
    expect(await overlayAt(page, 100, 60)).toBeGreaterThan(0);
    expect(await overlayAt(page, 100, 20)).toBe(0);
    await page.keyboard.press('Control+z');
    expect(await overlayAt(page, 100, 60)).toBe(0);
    expect(await editor.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);
    await page.keyboard.press('Control+Shift+z');
    expect(await overlayAt(page, 100, 60)).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'mask-editor');

    await editor.getByRole('button', { name: 'Save mask' }).click();
    await editor.waitFor({ state: 'detached' });
    let maskUrl = '';
    await expect.poll(async () => (maskUrl = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'm')!.data.mask ?? ''), { timeout: 30_000 }).toMatch(/\S/);
    const cookie = await owner.client.jar.getCookieString(f.app.baseUrl);
    const res = await fetch(new URL(maskUrl, f.app.baseUrl), { headers: { cookie } });
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer())).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([W, H]);
    const px = (x: number, y: number) => [...data.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
    expect(px(100, 60)).toEqual([255, 255, 255, 255]); // painted: white
    expect(px(60, 61)).toEqual([255, 255, 255, 255]);
    expect(px(100, 20)).toEqual([0, 0, 0, 255]); // kept: black
    expect(px(10, 60)).toEqual([0, 0, 0, 255]);
    expect(px(100, 100)).toEqual([0, 0, 0, 255]);
    await node.locator(`.mask-tint[data-mask="${maskUrl}"]`).waitFor();
    await screenshot(page, 'mask-node');

    // A viewer's page shows the overlay and opens the editor read-only, with the saved mask loaded.
    const viewer = await newPage(await f.newContext());
    await f.signIn(viewer.page.context(), 'looker@example.com');
    await viewer.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await viewer.page.locator(`.react-flow__node[data-id="m"] .mask-tint[data-mask="${maskUrl}"]`).waitFor({ timeout: 30_000 });
    const seen = await openEditor(viewer.page, 'View mask');
    await expect.poll(() => overlayAt(viewer.page, 100, 60), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await seen.getByRole('button', { name: 'Save mask' }).count()).toBe(0);
    await viewer.page.keyboard.press('Escape');
    await seen.waitFor({ state: 'detached' });

    // Enter on the focused node opens it; a dab then Escape asks, and Discard keeps the saved mask.
    await node.focus();
    await page.keyboard.press('Enter');
    await page.locator('canvas.mask-overlay').waitFor();
    await expect.poll(() => overlayAt(page, 100, 60), { timeout: 30_000 }).toBeGreaterThan(0);
    const dab = await screenOf(page, 100, 20);
    await page.mouse.click(dab.x, dab.y);
    await page.keyboard.press('Escape');
    const ask = page.getByRole('dialog', { name: 'Discard the unsaved mask?' });
    await ask.getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('dialog', { name: 'Paint mask' }).waitFor({ state: 'detached' });
    expect((await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'm')!.data.mask).toBe(maskUrl);

    // From the node's context menu; cleared and saved: no mask, and the node says an edit needs one.
    await node.locator('.canvas-node-title').click({ button: 'right' });
    await page.getByRole('menu', { name: 'Mask node' }).getByRole('menuitem', { name: 'Paint mask…' }).click();
    const again = page.getByRole('dialog', { name: 'Paint mask' });
    await page.locator('canvas.mask-overlay').waitFor();
    await expect.poll(() => overlayAt(page, 100, 60), { timeout: 30_000 }).toBeGreaterThan(0);
    await again.getByRole('button', { name: 'Clear' }).click();
    await again.getByRole('button', { name: 'Save mask' }).click();
    await node.getByText('Nothing painted: an edit needs a mask').waitFor();
    await expect.poll(async () => 'mask' in (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'm')!.data, { timeout: 30_000 }).toBe(false);
    expect(errors).toEqual([]);
    expect(viewer.errors).toEqual([]);
  }, WAIT * 6);

  it('on a phone (dark theme): loads a mask of another size scaled, two fingers pinch-zoom without painting, one finger paints', async () => {
    // A half-size mask, its left half white.
    const half = await sharp({ create: { width: W / 2, height: H / 2, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      .composite([{ input: { create: { width: W / 4, height: H / 2, channels: 3, background: { r: 255, g: 255, b: 255 } } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const { projectId } = await maskCanvas('phone-masks@example.com', 'Phone masks', half);
    const context = await f.newContext(axeContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' }));
    const { page, errors } = await newPage(context);
    await f.signIn(context, 'phone-masks@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const node = page.locator('.react-flow__node[data-id="m"]');
    await node.locator('.mask-tint').waitFor();
    await node.focus();
    await page.keyboard.press('Enter');
    const editor = page.getByRole('dialog', { name: 'Paint mask' });
    await page.locator('canvas.mask-overlay').waitFor();
    await editor.getByText(`The saved mask is ${W / 2}×${H / 2}`).waitFor();
    await expect.poll(() => overlayAt(page, 20, 60), { timeout: 30_000 }).toBeGreaterThan(0); // scaled: the left half
    expect(await overlayAt(page, 150, 60)).toBe(0);
    const stage = (await editor.getByRole('application').boundingBox())!;
    expect(stage.width).toBeGreaterThan(300);
    expect(stage.height).toBeGreaterThan(150);
    expect(stage.y + stage.height).toBeLessThanOrEqual(844);
    expect(await seriousViolations(page)).toEqual([]);

    const cdp = await context.newCDPSession(page);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: Array<{ x: number; y: number }>) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((p, id) => ({ x: p.x, y: p.y, id })) });

    // Two fingers spread apart: the view zooms in, nothing is painted, nothing to undo.
    const before = await overlaySum(page);
    const zoom = await zoomOf(editor);
    const a = await screenOf(page, 120, 60);
    const b = await screenOf(page, 160, 60);
    await touch('touchStart', [a, b]);
    for (let i = 1; i <= 5; i++) await touch('touchMove', [{ x: a.x - 8 * i, y: a.y }, { x: b.x + 8 * i, y: b.y }]);
    await touch('touchEnd', []);
    await expect.poll(() => zoomOf(editor), { timeout: 30_000 }).toBeGreaterThan(zoom * 1.5);
    expect(await overlaySum(page)).toBe(before);
    expect(await editor.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);

    // One finger paints across the right half.
    const p0 = await screenOf(page, 130, 60);
    const p1 = await screenOf(page, 170, 60);
    await touch('touchStart', [p0]);
    for (let i = 1; i <= 6; i++) await touch('touchMove', [{ x: p0.x + ((p1.x - p0.x) * i) / 6, y: p0.y }]);
    await touch('touchEnd', []);
    await expect.poll(() => overlayAt(page, 150, 60), { timeout: 30_000 }).toBeGreaterThan(0);
    await screenshot(page, 'mask-editor-phone');
    expect(await editor.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(false);
    expect(errors).toEqual([]);
  }, WAIT * 6);

  it('selects the person of a photo offline (Select person; P after an undo; Select background undone), saved white on black', async () => {
    const owner = await f.app.user('person-finder@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Astronaut' })).json.id as string;
    const photo = await readFile(new URL('../fixtures/astronaut-256.jpg', import.meta.url));
    const image = await uploadPng(owner.client, photo, 'astronaut.jpg', 'image/jpeg');
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'm', type: 'mask', position: { x: 360, y: 0 }, data: { type: 'mask' } },
    ];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'in', target: 'm' }] })).status).toBe(200);
    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'person-finder@example.com');
    const origin = new URL(f.app.baseUrl).origin;
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin) elsewhere.push(url);
    });
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const editor = await openEditor(page, 'Paint mask');

    await editor.getByRole('button', { name: 'Select person', exact: true }).click();
    // Whichever comes first, the selection or the reason it failed (the model loads the first time: a few seconds).
    const outcome = editor.getByText(/^(Person selected|The person could not be found)/);
    await outcome.waitFor({ timeout: 120_000 });
    expect(await outcome.innerText()).toMatch(/^Person selected \(\d+% of the image\)\.$/);
    // The face and the suit are selected; the wall at the top right corner is not. One undo step takes it back.
    expect(await overlayAt(page, 112, 60)).toBeGreaterThan(0);
    expect(await overlayAt(page, 75, 165)).toBeGreaterThan(0);
    expect(await overlayAt(page, 250, 5)).toBe(0);
    await page.keyboard.press('Control+z');
    expect(await overlaySum(page)).toBe(0);
    // P on the stage does it again (the model is loaded by now).
    await editor.getByRole('application').focus();
    await page.keyboard.press('p');
    await expect.poll(() => overlayAt(page, 112, 60), { timeout: 60_000 }).toBeGreaterThan(0);
    // Select background: the inverse, one more undo step.
    await editor.getByRole('button', { name: 'Select background', exact: true }).click();
    await editor.getByText(/^Background selected \(\d+% of the image\)\.$/).waitFor({ timeout: 60_000 });
    expect(await overlayAt(page, 112, 60)).toBe(0);
    expect(await overlayAt(page, 250, 5)).toBeGreaterThan(0);
    await page.keyboard.press('Control+z');
    expect(await overlayAt(page, 112, 60)).toBeGreaterThan(0);

    await editor.getByRole('button', { name: 'Save mask' }).click();
    await editor.waitFor({ state: 'detached' });
    let maskUrl = '';
    await expect.poll(async () => (maskUrl = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'm')!.data.mask ?? ''), { timeout: 30_000 }).toMatch(/\S/);
    const cookie = await owner.client.jar.getCookieString(f.app.baseUrl);
    const res = await fetch(new URL(maskUrl, f.app.baseUrl), { headers: { cookie } });
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer())).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([256, 256]);
    const px = (x: number, y: number) => [...data.subarray((y * 256 + x) * 4, (y * 256 + x) * 4 + 4)];
    expect(px(112, 60)).toEqual([255, 255, 255, 255]); // her face
    expect(px(75, 165)).toEqual([255, 255, 255, 255]); // her suit
    expect(px(250, 5)).toEqual([0, 0, 0, 255]); // the wall
    expect(px(5, 5)).toEqual([0, 0, 0, 255]); // the flag
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  }, WAIT * 9);
});
