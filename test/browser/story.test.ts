// Issue 5's story, end to end in Chromium against the real service (embedded database, offline image
// engine): sign in through /login and the identity provider, create a project, add two images, connect
// them to a generation node, generate "grayscale side by side", and find it all again after a reload.
// The offline engine runs in this process, held by the test while it looks at the running job.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { describeInBrowser, launchBrowser, newPage, publishScreenshot, screenshot, signInThroughUi, solidPng, WAIT, type WatchedPage } from './browser.js';
import { createProject, heldOfflineEngine } from './fixture.js';

const engine = heldOfflineEngine();
let t: TestApp | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;

/** Drags from a node's output handle onto another node's input handle, as a person does with the mouse. */
async function connect(page: Page, sourceId: string, targetId: string): Promise<void> {
  const from = await page.locator(`.react-flow__node[data-id="${sourceId}"] .react-flow__handle.source`).boundingBox();
  const to = await page.locator(`.react-flow__node[data-id="${targetId}"] .react-flow__handle.target[data-handleid="images"]`).boundingBox();
  if (!from || !to) throw new Error('handle not on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
  await page.mouse.up();
}

describeInBrowser('the whole story in a browser', () => {
  let watched: WatchedPage;

  const requested: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({}, undefined, { imageModel: engine.model });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1360, height: 860 }, colorScheme: 'light', reducedMotion: 'reduce' });
    watched = await newPage(context);
    watched.page.on('request', (request) => requested.push(request.url()));
  });

  afterAll(async () => {
    engine.release();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('signs in, builds a canvas, generates, and keeps everything across a reload', async () => {
    const { page, errors } = watched;
    const base = t!.baseUrl;

    // Landing → sign-in → identity provider → projects.
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Image Canvas' }).waitFor();
    await screenshot(page, 'landing');
    await page.getByRole('link', { name: 'Sign in to start' }).click();
    await page.waitForURL(`${base}/login`);
    await screenshot(page, 'login');
    await signInThroughUi(page, base, 'ada@example.com', 'Ada Lovelace');
    await page.getByText('No projects yet').waitFor();
    await page.getByText('Ada Lovelace').waitFor();

    // A new project opens its (empty) canvas: this story builds its own, without the example.
    await createProject(page, 'Holiday');
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    const canvasUrl = page.url();
    await page.getByText('Your canvas is empty.').waitFor();

    // Two images through the file input.
    const yellow = await solidPng(96, 64, [250, 220, 40]); // light once gray
    const navy = await solidPng(96, 64, [20, 30, 140]); // dark once gray
    await page.getByLabel('Add images').setInputFiles([
      { name: 'yellow.png', mimeType: 'image/png', buffer: yellow },
      { name: 'navy.png', mimeType: 'image/png', buffer: navy },
    ]);
    await page.getByAltText('Uploaded image').nth(1).waitFor();
    expect(await page.getByAltText('Uploaded image').count()).toBe(2);

    // A generation node, both images connected into it.
    await page.getByRole('button', { name: 'Add generation' }).click();
    const generation = page.locator('.react-flow__node-generation');
    await generation.waitFor();
    await page.getByRole('button', { name: 'Fit View' }).click();
    const uploadIds = await page.locator('.react-flow__node-upload').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')!));
    const generationId = (await generation.getAttribute('data-id'))!;
    for (const id of uploadIds) await connect(page, id, generationId);
    await generation.getByText('2 inputs').waitFor();
    expect(await page.locator('.react-flow__edge').count()).toBe(2);

    // Prompt, Generate, progress, result.
    // The job is held running until the test has seen its progress (the offline engine is quicker than a person);
    // the seconds shown count from when it started (its `startedAt`), checked by setting the page's clock.
    await generation.getByLabel('Prompt').fill('grayscale side by side');
    engine.hold();
    await generation.getByRole('button', { name: 'Generate', exact: true }).click();
    const status = generation.getByRole('status');
    await status.filter({ hasText: /Running · \d+ s/ }).waitFor();
    expect(await generation.getByRole('button', { name: 'Generating…' }).isDisabled()).toBe(true);
    expect(await generation.getByRole('button', { name: 'Cancel generation' }).isEnabled()).toBe(true);
    await expect.poll(() => engine.calls, { timeout: WAIT }).toBe(1);
    const projectId = canvasUrl.split('/').at(-1)!;
    const running = await page.request.get(`${base}/api/generations?status=running&projectId=${projectId}`);
    const [job] = ((await running.json()) as { items: Array<{ nodeId: string; status: string; startedAt: string }> }).items;
    expect(job).toMatchObject({ nodeId: generationId, status: 'running', startedAt: expect.any(String) });
    await page.clock.setFixedTime(Date.parse(job.startedAt) + 1_000);
    await status.filter({ hasText: 'Running · 1 s' }).waitFor();
    await screenshot(page, 'generating');
    await page.clock.setSystemTime(Date.now()); // the page's time runs again
    engine.release();
    const result = generation.getByAltText('Generated image');
    await result.waitFor();
    await expect.poll(() => generation.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
    expect(await generation.getByRole('button', { name: 'Generate again' }).isEnabled()).toBe(true);

    // The result really is the two inputs, side by side, in gray.
    const src = (await result.getAttribute('src'))!;
    expect(src).not.toMatch(/^data:/);
    const png = Buffer.from(await (await fetch(new URL(src, base))).arrayBuffer());
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(info.height);
    if (info.channels >= 3) {
      for (let i = 0; i < data.length; i += info.channels) {
        expect(Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2])).toBeLessThanOrEqual(1);
      }
    }
    const grayAt = (x: number) => data[(Math.floor(info.height / 2) * info.width + x) * info.channels];
    expect(Math.abs(grayAt(Math.floor(info.width / 4)) - grayAt(Math.floor((3 * info.width) / 4)))).toBeGreaterThan(100);

    const download = generation.getByRole('link', { name: 'Download generated image' });
    expect(await download.getAttribute('href')).toBe(src);
    expect(await download.getAttribute('download')).toMatch(/^generated-.*\.png$/);

    // Stored (the service acknowledged every change); the screenshots for the README (and the dark theme, for a look).
    await page.locator('.connection-status[data-state="connected"][data-saved="true"]').waitFor();
    await page.getByRole('button', { name: 'Fit View' }).click();
    await publishScreenshot(await screenshot(page, 'canvas'), 'canvas');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'canvas-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Reload: the same nodes, edges, prompt and images.
    await page.reload();
    await page.locator('.react-flow__node-generation').getByAltText('Generated image').waitFor();
    expect(page.url()).toBe(canvasUrl);
    expect(await page.locator('.react-flow__node-upload').count()).toBe(2);
    expect(await page.getByAltText('Uploaded image').count()).toBe(2);
    expect(await page.locator('.react-flow__edge').count()).toBe(2);
    expect(await page.locator('.react-flow__node-generation').getByLabel('Prompt').inputValue()).toBe('grayscale side by side');
    expect(await page.locator('.react-flow__node-generation').getByAltText('Generated image').getAttribute('src')).toBe(src);
    await page.locator('.connection-status[data-state="connected"][data-saved="true"]').waitFor();

    // Back to the projects page (more projects make a better picture).
    for (const name of ['Portraits', 'Product shots']) {
      const created = await page.request.post(`${base}/api/user/project`, { data: { userId: 'ada@example.com', name } });
      expect(created.status()).toBe(200);
    }
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL(`${base}/projects`);
    await page.getByRole('link', { name: 'Product shots', exact: true }).waitFor();
    const names = await page.locator('.project-name').allTextContents();
    expect(names).toEqual(['Product shots', 'Portraits', 'Holiday']);
    // Every thumbnail drawn and shown (the service draws each from its canvas) before the picture is taken.
    const thumbnails = page.locator('.project-thumbnail img');
    await expect.poll(() => thumbnails.count(), { timeout: WAIT }).toBe(3);
    await expect
      .poll(() => thumbnails.evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)), { timeout: WAIT })
      .toBe(true);
    await publishScreenshot(await screenshot(page, 'projects'), 'projects');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'projects-narrow');
    await page.setViewportSize({ width: 1360, height: 860 });

    // Sign out (the header's account menu) lands on the landing page, signed out.
    await page.locator('header.app-header').getByRole('button', { name: /^Account/ }).click();
    await page.getByRole('menu', { name: 'Account' }).getByRole('menuitem', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('link', { name: 'Sign in to start' }).waitFor();
    expect((await page.request.get(`${base}/api/auth/session`)).status()).toBe(200);
    expect(await (await page.request.get(`${base}/api/auth/session`)).json()).toBeNull();

    expect(errors).toEqual([]);
    // No analytics configured: the analytics library was never even downloaded.
    expect(requested.filter((url) => /\/assets\/posthog-/.test(url))).toEqual([]);
    expect(requested.some((url) => /\/assets\/canvas-page-/.test(url))).toBe(true);
  });
});
