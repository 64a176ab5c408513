// Keyboard and screen readers: axe-core finds no serious or critical violation on the login, projects and
// canvas pages (a canvas with images, a generation node and edges), in the light and the dark theme, and
// placeholders have 4.5:1 contrast in both; every connection handle is a 24 px target, on a node drawn over
// another too; nodes and edges have names people read ("Image 2 → Generate 1"), not internal ids, the same after
// a reload; a node added from the toolbar takes the focus; Tab goes from
// the header to the toolbar, the canvas (whose arrow keys pan), the nodes and then the panels; an image's
// output is connected into a generation node from the keyboard alone.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { axeContext, placeholderContrasts, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

/** What has the focus: a short description, for order checks and failure messages. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { where: 'body', name: '' };
    const where = el.closest('[role="toolbar"]')
      ? 'toolbar'
      : el.classList.contains('react-flow')
        ? 'canvas'
        : el.closest('.react-flow__node')
          ? 'node'
          : el.closest('.react-flow__panel')
            ? 'panel'
            : el.closest('.app-header')
              ? 'header'
              : 'other';
    const label = (el as HTMLInputElement).labels?.[0]?.textContent;
    return { where, name: (el.getAttribute('aria-label') ?? label ?? el.textContent ?? '').trim() };
  });

/** The id of the focused canvas node's wrapper, if a node wrapper has the focus. */
const focusedNodeId = (page: Page) => page.evaluate(() => (document.activeElement?.classList.contains('react-flow__node') ? document.activeElement.getAttribute('data-id') : null));

describeInBrowser('keyboard and screen readers', () => {
  const f = useBrowserFixture();

  /** A canvas with two images, both connected into a generation node (made over REST), opened in `page`. */
  async function canvasWithNodes(page: Page, email: string, name: string): Promise<string> {
    const { client, id: userId } = await f.app.user(email);
    const projectId = (await client.post('/api/user/project', { userId, name })).json.id as string;
    const nodes = [
      { id: 'upload-a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
      { id: 'upload-b', type: 'upload', position: { x: 0, y: 360 }, data: { type: 'upload' } },
      { id: 'generation-c', type: 'generation', position: { x: 420, y: 120 }, data: { type: 'generation', prompt: 'sepia' } },
    ];
    const edges = [
      { id: 'edge-1', source: 'upload-a', target: 'generation-c' },
      { id: 'edge-2', source: 'upload-b', target: 'generation-c' },
    ];
    expect((await client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    await f.signIn(page.context(), email);
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await page.locator('.react-flow__node').nth(2).waitFor();
    await saved(page);
    return projectId;
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious accessibility violation on the login, projects and canvas pages (${colorScheme} theme)`, async () => {
      const context = await f.newContext(axeContext({ colorScheme }));
      const { page } = await newPage(context);
      await page.goto(`${f.app.baseUrl}/login`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      expect(await seriousViolations(page), 'login').toEqual([]);

      const email = `axe-${colorScheme}@example.com`;
      await canvasWithNodes(page, email, `Checked ${colorScheme}`);
      await page.getByRole('button', { name: 'Add generation' }).click();
      await page.getByRole('group', { name: 'Generate 2' }).waitFor();
      await saved(page);
      // At the canvas's own 100 % (Shift+0): the view's zoom scales every control on it (fitting a canvas may zoom
      // out), and the person chooses it; target sizes are checked at the size the controls are made.
      await page.locator('.react-flow').focus();
      await page.keyboard.press('Shift+Digit0');
      await expect.poll(() => page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform), { timeout: WAIT }).toMatch(/^matrix\(1, 0, 0, 1,/);
      expect(await seriousViolations(page), 'canvas').toEqual([]);
      for (const field of await placeholderContrasts(page)) expect(field.ratio, `${field.field}: ${field.color} on ${field.background}`).toBeGreaterThanOrEqual(4.5);
      await screenshot(page, `a11y-canvas-${colorScheme}`);

      await page.goto(`${f.app.baseUrl}/projects`);
      await page.getByRole('link', { name: `Checked ${colorScheme}`, exact: true }).waitFor();
      expect(await seriousViolations(page), 'projects').toEqual([]);
      const fields = await placeholderContrasts(page);
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(field.ratio, `${field.field}: ${field.color} on ${field.background}`).toBeGreaterThanOrEqual(4.5);
    });
  }

  it('keeps every connection handle a target of its own, even on a node drawn over another (no free spot in view)', async () => {
    // Nodes moved (or saved) on top of each other — a new one never lands so (canvas/placement.ts): here a generation node's
    // image output lies on the prompt chips of the generation node under it, and its inputs on the textarea.
    const context = await f.newContext(axeContext());
    const { page } = await newPage(context);
    const { client, id: userId } = await f.app.user('overlap@example.com');
    const projectId = (await client.post('/api/user/project', { userId, name: 'Overlap' })).json.id as string;
    const nodes = [
      { id: 'generation-under', type: 'generation', position: { x: 420, y: 120 }, data: { type: 'generation', prompt: 'sepia' } },
      { id: 'generation-over', type: 'generation', position: { x: 210, y: 60 }, data: { type: 'generation' } },
      { id: 'generation-right', type: 'generation', position: { x: 660, y: 140 }, data: { type: 'generation' } },
    ];
    expect((await client.post('/api/user/project/canvas', { projectId, nodes, edges: [] })).status).toBe(200);
    await f.signIn(page.context(), 'overlap@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await page.getByRole('group', { name: 'Generate 3' }).getByRole('button', { name: 'Add “grayscale”' }).waitFor();
    await saved(page);
    await page.locator('.react-flow').focus();
    await page.keyboard.press('Shift+Digit0');
    await expect.poll(() => page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform), { timeout: WAIT }).toMatch(/^matrix\(1, 0, 0, 1,/);
    expect((await seriousViolations(page)).filter((v) => v.startsWith('target-size'))).toEqual([]);
  });

  it('names nodes and edges as people read them, the same after a reload, and never by internal id', async () => {
    const { page } = await newPage(await f.newContext());
    await canvasWithNodes(page, 'names@example.com', 'Names');
    const names = async () => ({
      nodes: await page.locator('.react-flow__node').evaluateAll((els) => els.map((el) => [el.getAttribute('data-id'), el.getAttribute('aria-label'), el.getAttribute('role')])),
      edges: await page.locator('.react-flow__edge').evaluateAll((els) => els.map((el) => [el.getAttribute('data-id'), el.getAttribute('aria-label')])),
    });
    const expected = {
      nodes: [
        ['upload-a', 'Image 1', 'group'],
        ['upload-b', 'Image 2', 'group'],
        ['generation-c', 'Generate 1', 'group'],
      ],
      edges: [
        ['edge-1', 'Image 1 → Generate 1'],
        ['edge-2', 'Image 2 → Generate 1'],
      ],
    };
    expect(await names()).toEqual(expected);
    // The title bars say the same; the generation node's inputs are disconnected by name.
    expect(await page.locator('.canvas-node-title > span:first-child').allTextContents()).toEqual(['Image 1', 'Image 2', 'Generate 1']);
    const generation = page.getByRole('group', { name: 'Generate 1' });
    await generation.getByRole('button', { name: 'Disconnect Image 2' }).waitFor();
    await generation.getByRole('button', { name: 'Input of Generate 1: connect images here' }).waitFor();
    // No accessible name anywhere carries an internal id.
    expect(await page.locator('[aria-label*="upload-"], [aria-label*="generation-"], [aria-label*="edge-"]').count()).toBe(0);

    await page.reload();
    await page.locator('.react-flow__node').nth(2).waitFor();
    expect(await names()).toEqual(expected);

    // A node added later is numbered after the others of its kind.
    await page.getByRole('button', { name: 'Add generation' }).click();
    await page.getByRole('group', { name: 'Generate 2' }).waitFor();
  });

  it('focuses a new node, and Tab goes from the toolbar to the canvas, the nodes and then the panels', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'tabber@example.com', 'Tabs');
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    await page.getByAltText('Uploaded image').waitFor();
    const imageId = await page.locator('.react-flow__node-upload').getAttribute('data-id');
    await expect.poll(() => focusedNodeId(page)).toBe(imageId);

    // From the keyboard: Add generation, Enter → the new node has the focus.
    await page.getByRole('button', { name: 'Add generation' }).focus();
    await page.keyboard.press('Enter');
    const generation = page.getByRole('group', { name: 'Generate 1' });
    await generation.waitFor();
    const generationId = await generation.getAttribute('data-id');
    await expect.poll(() => focusedNodeId(page)).toBe(generationId);
    expect(await focused(page)).toEqual({ where: 'node', name: 'Generate 1' });
    await saved(page);

    // Tab from the top of the page: the header, the toolbar, the canvas, the nodes, then the panels (zoom).
    await page.getByRole('link', { name: 'Image Canvas' }).focus();
    const order: Array<{ where: string; name: string }> = [await focused(page)];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      order.push(now);
      if (now.where === 'panel') break;
    }
    const wheres = order.map((o) => o.where).filter((w, i, all) => w !== all[i - 1]); // runs of the same place
    expect(wheres, JSON.stringify(order)).toEqual(['header', 'toolbar', 'canvas', 'node', 'panel']);
    const names = order.map((o) => o.name);
    for (const name of ['Add generation', 'History', 'Canvas', 'Image 1', 'Generate 1', 'Prompt']) expect(names.some((n) => n.startsWith(name)), name).toBe(true);
    expect(names.indexOf('Image 1')).toBeLessThan(names.indexOf('Generate 1'));

    // The canvas's arrow keys pan the view.
    const canvas = page.getByRole('application', { name: 'Canvas' });
    await canvas.focus();
    const viewport = () => page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);
    const before = await viewport();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(viewport).not.toBe(before);
  });

  it('connects an image into a generation node from the keyboard', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'keyboard-connect@example.com', 'Keys only');
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    await page.getByAltText('Uploaded image').waitFor();
    await page.getByRole('button', { name: 'Add generation' }).click();
    const generation = page.getByRole('group', { name: 'Generate 1' });
    await generation.waitFor();

    await page.getByRole('button', { name: /^Output of Image 1: connect to an? .*generation.* node$/ }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Connecting from the output of Image 1' }).waitFor();
    await generation.getByRole('button', { name: 'Input of Generate 1: connect images here' }).focus();
    await page.keyboard.press(' ');
    await generation.getByText('1 input').waitFor();
    await page.getByRole('group', { name: 'Image 1 → Generate 1' }).waitFor();
    await saved(page);
    const projectId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await restCanvas(page, projectId))!.edges).toHaveLength(1);

    // Escape cancels a connection begun by mistake.
    await page.getByRole('button', { name: /^Output of Image 1: connect to an? .*generation.* node$/ }).focus();
    await page.keyboard.press('Enter');
    const hint = page.locator('.connect-hint');
    await hint.waitFor();
    await page.keyboard.press('Escape');
    await hint.waitFor({ state: 'detached' });
  });
});
