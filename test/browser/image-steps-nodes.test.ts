// The crop, resize and adjust nodes in the page (issue 32 point 3; web/src/components/{crop,resize,adjust}-node.tsx):
// each is offered by the canvas's menu and added with data its kind takes; an adjust node's fields write its live
// data (a checked Grayscale, a typed brightness) that the REST view then shows, and a brightness over the kind's
// limit is marked invalid in the box and never stored. And an adjust node runs from its Run ▶ button, end to end: its
// input shown, a run of the node started and its state followed, the grey result shown in the node.
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('image-steps nodes', () => {
  const f = useBrowserFixture();

  /** Adds a node from the canvas's menu opened at a fraction of the pane's width (apart, so no node is under the next spot). */
  async function addFromMenu(page: Page, item: string, at: number) {
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.click(pane.x + pane.width * at, pane.y + 40, { button: 'right' });
    await page.getByRole('menu', { name: 'Canvas' }).getByRole('menuitem', { name: item }).click();
  }

  it('adds crop, resize and adjust nodes from the menu, and an adjust node’s fields write its live data', async () => {
    const owner = await f.app.user('steps@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Steps' })).json.id as string;
    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'steps@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await saved(page);

    await addFromMenu(page, 'Add crop node here', 0.03);
    await page.locator('.react-flow__node-crop').waitFor();
    await addFromMenu(page, 'Add resize node here', 0.36);
    await page.locator('.react-flow__node-resize').waitFor();
    await addFromMenu(page, 'Add adjust node here', 0.69);
    const adjust = page.locator('.react-flow__node-adjust');
    await adjust.waitFor();

    await adjust.getByRole('checkbox', { name: 'Grayscale' }).check();
    await adjust.getByRole('spinbutton', { name: 'Brightness (1 = as is)' }).fill('1.5');
    const contrast = adjust.getByRole('spinbutton', { name: 'Contrast (1 = as is)' });
    await contrast.fill('9');
    expect(await contrast.getAttribute('aria-invalid')).toBe('true');
    await saved(page);

    const canvas = (await restCanvas(page, projectId))!;
    const byType = Object.fromEntries(canvas.nodes.map((n) => [n.type, n.data]));
    // Each the first of its kind: number 1 (a node's stable name, "Crop 1").
    expect(byType.crop).toEqual({ type: 'crop', x: 0, y: 0, width: 512, height: 512, number: 1 });
    expect(byType.resize).toEqual({ type: 'resize', width: 512, fit: 'contain', number: 1 });
    expect(byType.adjust).toEqual({ type: 'adjust', grayscale: true, brightness: 1.5, number: 1 }); // contrast 9 never sent
    expect(errors).toEqual([]);
  });

  it('runs an adjust node (Grayscale) from its Run button and shows the grey result', async () => {
    const ada = await f.app.user('runs@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Run steps' })).json.id as string;
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 220, g: 60, b: 30 } } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
    const image = (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'a', type: 'adjust', position: { x: 400, y: 0 }, data: { type: 'adjust', grayscale: true } },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'in', target: 'a' }] })).status).toBe(200);

    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'runs@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const node = page.locator('.react-flow__node[data-id="a"]');
    await node.getByRole('img', { name: 'Input' }).waitFor();
    await node.getByRole('button', { name: /^Run( ·|$)/ }).click(); // the node's Run ▶ (a graph run of the node)
    const result = node.getByRole('img', { name: 'Result' });
    await result.waitFor({ timeout: WAIT });
    await node.getByRole('status', { name: 'Run state: Done' }).waitFor();
    const src = (await result.getAttribute('src'))!;
    const cookie = await ada.client.jar.getCookieString(f.app.baseUrl);
    const res = await fetch(new URL(new URL(src, f.app.baseUrl).pathname, f.app.baseUrl), { headers: { cookie } });
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([24, 16]);
    expect(data[1]).toBe(data[0]);
    expect(data[2]).toBe(data[0]);
    expect(await node.getByRole('alert').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('offers an upscale node only the upscalers, runs it to a 2× result; a remove-background node with none configured says which keys add one', async () => {
    const ada = await f.app.user('upscale@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Upscale' })).json.id as string;
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 40, g: 160, b: 90 } } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'green.png');
    const image = (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'up', type: 'upscale', position: { x: 400, y: 0 }, data: { type: 'upscale' } },
      { id: 'bg', type: 'remove-background', position: { x: 800, y: 0 }, data: { type: 'remove-background' } },
    ];
    const edges = [
      { id: 'e1', source: 'in', target: 'up' },
      { id: 'e2', source: 'in', target: 'bg' },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);

    const { page, errors } = await newPage(await f.newContext(axeContext({ reducedMotion: 'reduce' })));
    await f.signIn(page.context(), 'upscale@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const up = page.locator('.react-flow__node[data-id="up"]');
    const select = up.getByRole('combobox', { name: 'Model' });
    await expect.poll(() => select.locator('option').allTextContents(), { timeout: WAIT }).toEqual([
      expect.stringMatching(/^Default: Upscale 2× with ESRGAN/),
      expect.stringMatching(/^Upscale 2× with ESRGAN .* · offline$/),
      expect.stringMatching(/^Upscale 4× with ESRGAN .* · offline$/),
    ]); // not the offline image engine, which does not upscale
    const bg = page.locator('.react-flow__node[data-id="bg"]');
    await bg.getByRole('status').filter({ hasText: 'No background-removal model is configured: set FAL_KEY or REPLICATE_API_TOKEN' }).waitFor();
    expect(await bg.getByRole('combobox', { name: 'Model' }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await up.getByRole('img', { name: 'Input' }).waitFor();
    await up.getByRole('button', { name: /^Run( ·|$)/ }).click();
    const result = up.getByRole('img', { name: 'Result' });
    await result.waitFor({ timeout: WAIT });
    const src = (await result.getAttribute('src'))!;
    const cookie = await ada.client.jar.getCookieString(f.app.baseUrl);
    const res = await fetch(new URL(new URL(src, f.app.baseUrl).pathname, f.app.baseUrl), { headers: { cookie } });
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ width: 48, height: 32 });
    expect(errors).toEqual([]);
  });
});
