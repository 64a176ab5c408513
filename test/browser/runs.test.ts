// Graph runs in the editor (issue 35 points 1, 5 and 6; web/src/components/run-{button,panel,state}.tsx,
// hooks/use-runs.ts): Run all (the run bar over the canvas) runs a chain upload → adjust → adjust (both Done, the estimate then
// says cached, a second Run all shows them Cached) while another editor watches the states live; Run again on a
// generation node draws a new seed and makes a new variant; a failing node makes its dependant Skipped with the
// reason; Cancel run stops a run; Run selection by keyboard alone; on a phone, a long press on a node offers Run from
// here. One service (the offline engine, held when a test
// needs a job that keeps running), one Chromium.
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, WAIT } from './browser.js';
import { heldOfflineEngine, restCanvas, useBrowserFixture } from './fixture.js';

const held = heldOfflineEngine();

describeInBrowser('graph runs in the editor', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, { imageModel: held.model });
  afterAll(() => held.release());

  /** A project of `email`'s holding an uploaded image `in` and `nodes` (with `edges`), saved through REST. */
  async function project(email: string, name: string, nodes: (image: string) => object[], edges: object[]) {
    const user = await f.app.user(email);
    const projectId = (await user.client.post('/api/user/project', { userId: user.id, name })).json.id as string;
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 220, g: 60, b: 30 } } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
    const image = (await user.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const all = [{ id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } }, ...nodes(image)];
    expect((await user.client.post('/api/user/project/canvas', { projectId, nodes: all, edges })).status).toBe(200);
    return projectId;
  }

  const chain = (email: string, name: string) =>
    project(
      email,
      name,
      () => [
        { id: 'a', type: 'adjust', position: { x: 380, y: 0 }, data: { type: 'adjust', grayscale: true } },
        { id: 'b', type: 'adjust', position: { x: 760, y: 0 }, data: { type: 'adjust', invert: true } },
      ],
      [
        { id: 'e1', source: 'in', target: 'a' },
        { id: 'e2', source: 'a', target: 'b' },
      ],
    );

  async function open(email: string, projectId: string, phone = false) {
    const watched = await newPage(await f.newContext(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}));
    await f.signIn(watched.page.context(), email);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.locator('.react-flow__node[data-id="in"]').waitFor();
    return watched;
  }

  const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
  /** The node's run state badge saying `text` (exact, or matching). */
  const badge = (page: Page, id: string, text: string | RegExp) =>
    node(page, id).getByRole('status', { name: typeof text === 'string' ? `Run state: ${text}` : new RegExp(`^Run state: ${text.source}`) });
  /** The run bar over the canvas: Run all, Cancel run, Runs. */
  const toolbar = (page: Page) => page.getByRole('toolbar', { name: 'Runs' });
  const panel = (page: Page) => page.getByRole('complementary', { name: 'Run' });

  it('runs a chain with Run all: both steps Done, then Cached with the estimate saying so; another editor sees it live', async () => {
    const projectId = await chain('ada@example.com', 'Chain');
    const bob = await f.app.user('bob@example.com');
    const ada = await open('ada@example.com', projectId);
    expect((await ada.page.request.post(`${f.app.baseUrl}/api/user/project/${projectId}/members`, { data: { email: bob.email, role: 'editor' } })).status()).toBe(201);
    const watcher = await open('bob@example.com', projectId);

    // The estimate is on the button before anything runs: offline steps cost nothing; each node's Run too.
    await toolbar(ada.page).getByRole('button', { name: 'Run all · free' }).waitFor({ timeout: WAIT });
    await node(ada.page, 'b').getByRole('button', { name: 'Run · free' }).waitFor();
    await screenshot(ada.page, 'runs-chain-before');
    await toolbar(ada.page).getByRole('button', { name: 'Run all · free' }).click();

    await badge(ada.page, 'a', 'Done').waitFor({ timeout: WAIT });
    await badge(ada.page, 'b', 'Done').waitFor({ timeout: WAIT });
    await node(ada.page, 'b').getByRole('img', { name: 'Result' }).waitFor();
    await panel(ada.page).getByRole('status').getByText('Done', { exact: true }).waitFor({ timeout: WAIT });
    expect(await panel(ada.page).getByRole('row').count()).toBe(3); // the header and one job per step
    await screenshot(ada.page, 'runs-chain-done');
    // Bob, who started nothing, sees the same states, and the run in his panel.
    await badge(watcher.page, 'a', 'Done').waitFor({ timeout: WAIT });
    await badge(watcher.page, 'b', 'Done').waitFor({ timeout: WAIT });
    await toolbar(watcher.page).getByRole('button', { name: 'Runs' }).click();
    await panel(watcher.page).getByRole('row', { name: /^Adjust 1 Done/ }).waitFor({ timeout: WAIT });

    // Nothing changed: the estimate says cached, and a second run takes both from the cache.
    const again = toolbar(ada.page).getByRole('button', { name: 'Run all · cached' });
    await again.waitFor({ timeout: WAIT });
    await again.click();
    await badge(ada.page, 'a', 'Cached').waitFor({ timeout: WAIT });
    await badge(ada.page, 'b', 'Cached').waitFor({ timeout: WAIT });
    await panel(ada.page).getByRole('row', { name: /Cached cached$/ }).nth(1).waitFor({ timeout: WAIT });
    await badge(watcher.page, 'b', 'Cached').waitFor({ timeout: WAIT });
    expect(ada.errors).toEqual([]);
    expect(watcher.errors).toEqual([]);
  });

  it('Run again on a generation node draws a new seed and makes a new variant', async () => {
    const projectId = await project(
      'cleo@example.com',
      'Again',
      () => [{ id: 'g', type: 'generation', position: { x: 380, y: 0 }, data: { type: 'generation', prompt: 'grayscale', seed: 7 } }],
      [{ id: 'e', source: 'in', target: 'g' }],
    );
    const { page, errors } = await open('cleo@example.com', projectId);
    const g = node(page, 'g');
    await g.getByRole('button', { name: /^Run · / }).click();
    await badge(page, 'g', 'Done').waitFor({ timeout: WAIT });
    await g.getByRole('button', { name: /^Enlarge variant 1/ }).waitFor({ timeout: WAIT });

    await g.getByRole('button', { name: 'Run options' }).click();
    await g.getByRole('menu', { name: 'Run options' }).getByRole('menuitem', { name: 'Run again' }).click();
    await g.getByRole('button', { name: /^Enlarge variant 2/ }).waitFor({ timeout: WAIT });
    const seed = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g').data.seed as unknown;
    expect(Number.isInteger(seed) && seed !== 7).toBe(true);
    await badge(page, 'g', 'Done').waitFor({ timeout: WAIT });
    expect(errors).toEqual([]);
  });

  it('a failing node makes what depends on it Skipped, with the reason', async () => {
    const projectId = await project(
      'dan@example.com',
      'Fails',
      () => [
        { id: 'g', type: 'generation', position: { x: 380, y: 0 }, data: { type: 'generation', prompt: 'watercolor tiger', seed: 1 } },
        { id: 'a', type: 'adjust', position: { x: 760, y: 0 }, data: { type: 'adjust', grayscale: true } },
      ],
      [
        { id: 'e1', source: 'in', target: 'g' },
        { id: 'e2', source: 'g', target: 'a' },
      ],
    );
    const { page, errors } = await open('dan@example.com', projectId);
    await toolbar(page).getByRole('button', { name: /^Run all/ }).click();
    await badge(page, 'g', /Failed: .+/).waitFor({ timeout: WAIT });
    await badge(page, 'a', /Skipped: .+/).waitFor({ timeout: WAIT });
    await panel(page).getByRole('row', { name: /^Adjust 1 Skipped: .+/ }).waitFor({ timeout: WAIT });
    expect(errors).toEqual([]);
  });

  it('Cancel run stops the whole run', async () => {
    const projectId = await project(
      'eve@example.com',
      'Cancel',
      () => [
        { id: 'g', type: 'generation', position: { x: 380, y: 0 }, data: { type: 'generation', prompt: 'grayscale', seed: 3 } },
        { id: 'a', type: 'adjust', position: { x: 760, y: 0 }, data: { type: 'adjust', grayscale: true } },
      ],
      [
        { id: 'e1', source: 'in', target: 'g' },
        { id: 'e2', source: 'g', target: 'a' },
      ],
    );
    const { page, errors } = await open('eve@example.com', projectId);
    held.hold();
    const calls = held.calls;
    try {
      await toolbar(page).getByRole('button', { name: /^Run all/ }).click();
      await held.reached(calls + 1);
      await badge(page, 'g', /Running/).waitFor({ timeout: WAIT });
      await toolbar(page).getByRole('button', { name: 'Cancel run' }).click();
      await panel(page).getByRole('status').getByText('Canceled', { exact: true }).waitFor({ timeout: WAIT });
      await badge(page, 'g', 'Canceled').waitFor({ timeout: WAIT });
      expect(await node(page, 'a').getByRole('img', { name: 'Result' }).count()).toBe(0);
      expect(await toolbar(page).getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    } finally {
      held.release();
    }
    expect(errors).toEqual([]);
  });

  it('Run selection with the keyboard alone', async () => {
    const projectId = await chain('fay@example.com', 'Keys');
    const { page, errors } = await open('fay@example.com', projectId);
    await node(page, 'a').focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Shift+F10');
    const menu = page.getByRole('menu', { name: '3 nodes' });
    await menu.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    for (let i = 0; i < 10 && !(await focused()).startsWith('Run selection'); i++) await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('Run selection');
    await page.keyboard.press('Enter');
    await badge(page, 'a', 'Done').waitFor({ timeout: WAIT });
    await badge(page, 'b', 'Done').waitFor({ timeout: WAIT });
    // The panel opened with the run; Escape closes it.
    await panel(page).getByRole('status').getByText('Done', { exact: true }).waitFor({ timeout: WAIT });
    await panel(page).focus();
    await page.keyboard.press('Escape');
    await panel(page).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('on a phone, a long press on a node offers its runs: Run from here runs it and what follows', async () => {
    const projectId = await chain('gil@example.com', 'Phone');
    const { page, errors } = await open('gil@example.com', projectId, true);
    const title = (await node(page, 'a').locator('.canvas-node-title').boundingBox())!;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: title.x + 20, y: title.y + title.height / 2, id: 0 }] });
    const menu = page.getByRole('menu', { name: 'Adjust node' });
    await menu.waitFor();
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    expect(await menu.getByRole('menuitem', { name: 'Run', exact: true }).count()).toBe(1);
    await menu.getByRole('menuitem', { name: 'Run from here' }).tap();
    await badge(page, 'a', 'Done').waitFor({ timeout: WAIT });
    await badge(page, 'b', 'Done').waitFor({ timeout: WAIT });
    expect(errors).toEqual([]);
  });
});
