// Uploads that explain and a generation node that guides (issue 19, points 3 and 4), in Chromium against the real
// service with a low upload limit (UPLOAD_MAX_BYTES = 20 KB), two uploads per 3 s and one generation a minute per
// user, so that a 429 is the service's own. A refused file says why (the accepted types, the limit) in the upload tray,
// before sending or after the service refused it; an image over the limit is offered a downscale in the browser
// and sent again; a failed or offline upload leaves no node behind, and Try again sends it; a drop of more files
// than the upload limit waits for it in the tray and goes on by itself, none lost; a drop zone shows while files
// are dragged over the canvas. Generate waits, saying so, for an image and a prompt; an
// error goes when the prompt changes; a 429 counts down to when to try again; the offline engine's words are chips
// that add to the prompt, a hosted model's presets replace it; Ctrl+Z in the prompt undoes a typed run, and
// Ctrl+Shift+Z redoes it.
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, screenshot, solidPng, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const LIMIT = 20 * 1024;
const TYPES = 'PNG, JPEG, WebP, GIF, AVIF, HEIC, HEIF, BMP, TIFF, SVG';
const UNREACHABLE = 'http://127.0.0.1:9';

/** A PNG of noise: it does not compress, so 200 × 200 is far over 20 KB. */
const noisyPng = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();

/** Console errors other than Chromium's report of a refused or failed request (which these tests cause on purpose). */
const unexpected = (errors: string[]) => errors.filter((e) => !/Failed to load resource|net::ERR_/.test(e));

describeInBrowser('uploads that explain and a generation node that guides', () => {
  const f = useBrowserFixture({
    UPLOAD_MAX_BYTES: String(LIMIT),
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1',
    // Two uploads per user in a window of 3 s: a drop of 7 meets the limit and goes on within seconds.
    RATE_LIMIT_UPLOADS_PER_MINUTE: '2',
    RATE_LIMIT_UPLOADS_WINDOW_SECONDS: '3',
    // A hosted model in the catalogue (never called: nothing here generates with it), for its presets.
    GEMINI_API_KEY: 'never-used',
    GEMINI_BASE_URL: UNREACHABLE,
  });

  async function canvas(email: string, name: string, context?: BrowserContext) {
    const page = await f.onNewCanvas(context ?? (await f.newContext()), email, name);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    return { page, errors, projectId: page.url().split('/').at(-1)! };
  }

  const tray = (page: Page) => page.getByRole('region', { name: 'Uploads' });
  const uploadNodes = (page: Page) => page.locator('.react-flow__node-upload');

  /** Adds a generation node and connects the canvas's one image node into it. */
  async function connectImageTo(page: Page) {
    const generation = page.locator('.react-flow__node-generation');
    const source = await uploadNodes(page).getAttribute('data-id');
    await page.locator(`.react-flow__node[data-id="${source}"]`).click();
    await generation.click({ modifiers: ['Control'], position: { x: 40, y: 10 } });
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await generation.getByText('1 input').waitFor();
    return generation;
  }

  async function imageAndGeneration(page: Page) {
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    await page.getByAltText('Uploaded image').waitFor();
    await page.getByRole('button', { name: 'Add generation' }).click();
    return connectImageTo(page);
  }

  it('refuses a file that is not an image, before sending it or after the service did, naming the accepted types; no node is left', async () => {
    const { page, errors, projectId } = await canvas('types@example.com', 'Types');
    // Declared as text: refused in the browser, nothing sent.
    let sent = 0;
    page.on('request', (r) => new URL(r.url()).pathname === '/api/upload' && sent++);
    await page.getByLabel('Add images').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some text\n') });
    const refusal = tray(page).getByRole('alert').filter({ hasText: `notes.txt is not an accepted image (${TYPES})` });
    await refusal.waitFor();
    expect(sent).toBe(0);
    await screenshot(page, 'upload-refused-type');

    // No type and no extension: only the service can tell from the bytes; its refusal is said the same way.
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/upload');
    await page.getByLabel('Add images').setInputFiles({ name: 'mystery', mimeType: 'application/octet-stream', buffer: Buffer.from('<html>not an image</html>') });
    expect((await answered).status()).toBe(400);
    await tray(page).getByRole('alert').filter({ hasText: `mystery is not an accepted image (${TYPES})` }).waitFor();

    expect(await uploadNodes(page).count()).toBe(0);
    await tray(page).getByRole('button', { name: /^Dismiss: notes\.txt/ }).click();
    await refusal.waitFor({ state: 'detached' });
    await tray(page).getByRole('button', { name: /^Dismiss: mystery/ }).click();
    await tray(page).waitFor({ state: 'detached' });
    await saved(page);
    expect((await restCanvas(page, projectId))?.nodes ?? []).toEqual([]);
    expect(unexpected(errors)).toEqual([]);
  });

  it('offers to downscale an image over the limit, and uploads the smaller copy; or lets it be dismissed', async () => {
    const { page, errors, projectId } = await canvas('big@example.com', 'Big');
    const big = await noisyPng(200);
    expect(big.length).toBeGreaterThan(LIMIT);

    // Dismissed: nothing is sent, nothing is added.
    await page.getByLabel('Add images').setInputFiles({ name: 'first.png', mimeType: 'image/png', buffer: big });
    await tray(page).getByRole('alert').filter({ hasText: 'first.png is over 20 KB' }).waitFor();
    await tray(page).getByRole('button', { name: /^Dismiss: first\.png/ }).click();
    await tray(page).waitFor({ state: 'detached' });
    expect(await uploadNodes(page).count()).toBe(0);

    // Accepted: made smaller in the browser, sent, and added as a node with the image.
    await page.getByLabel('Add images').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: big });
    await tray(page).getByRole('alert').filter({ hasText: 'big.png is over 20 KB' }).waitFor();
    await screenshot(page, 'upload-over-limit');
    await tray(page).getByRole('button', { name: 'Downscale and upload' }).click();
    const image = page.getByAltText('Uploaded image');
    await image.waitFor();
    await tray(page).waitFor({ state: 'detached' });
    const bytes = await (await page.request.get((await image.getAttribute('src'))!)).body();
    expect(bytes.length).toBeLessThanOrEqual(LIMIT);
    const stored = await sharp(bytes).metadata();
    expect(stored.width).toBeLessThan(200);
    expect(stored.width).toBe(stored.height);
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes).toHaveLength(1);
    expect(unexpected(errors)).toEqual([]);
  });

  it('leaves no node behind when an upload fails offline; Try again adds it, as one undo step', async () => {
    const { page, errors, projectId } = await canvas('offline@example.com', 'Offline');
    await page.context().setOffline(true);
    await page.locator('.connection-status[data-state="offline"]').waitFor();
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(16, 16, [20, 160, 60]) });
    await tray(page).getByRole('alert').filter({ hasText: 'dot.png was not uploaded: you are offline.' }).waitFor();
    expect(await uploadNodes(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);

    await page.context().setOffline(false);
    await page.getByText('Connected', { exact: true }).waitFor();
    await tray(page).getByRole('button', { name: 'Try again' }).click();
    await page.getByAltText('Uploaded image').waitFor();
    await tray(page).waitFor({ state: 'detached' });
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes).toMatchObject([{ type: 'upload', data: { image: expect.stringContaining('dot.png') } }]);

    // The node and its image came in one step: one undo takes the node away, one redo brings it back with its image.
    await page.getByRole('button', { name: 'Undo' }).click();
    await uploadNodes(page).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Redo' }).click();
    await page.getByAltText('Uploaded image').waitFor();
    expect(unexpected(errors)).toEqual([]);
  });

  it('paces a drop of more files than the upload limit: the rest wait in the tray, saying so, and every file is added by itself', async () => {
    // In the dark theme, with axe's script allowed, to check the tray's waiting line.
    const { page, errors, projectId } = await canvas('many@example.com', 'Many', await f.newContext(axeContext({ colorScheme: 'dark' })));
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => `${n}.png`);
    const pngs = await Promise.all(names.map((_, i) => solidPng(12, 12, [120, 20 * i, 160])));
    const answers: number[] = [];
    let sending = 0;
    let mostAtOnce = 0;
    const isUpload = (url: string) => new URL(url).pathname === '/api/upload';
    page.on('request', (r) => isUpload(r.url()) && (mostAtOnce = Math.max(mostAtOnce, ++sending)));
    page.on('response', (r) => {
      if (!isUpload(r.url())) return;
      sending--;
      answers.push(r.status());
    });
    const files = await page.evaluateHandle(
      (all) => {
        const dt = new DataTransfer();
        for (const [name, b64] of all) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type: 'image/png' }));
        return dt;
      },
      names.map((name, i) => [name, pngs[i].toString('base64')] as const),
    );
    const pane = page.locator('.react-flow__pane');
    const box = (await pane.boundingBox())!;
    const at = { clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 };
    await pane.dispatchEvent('dragenter', { dataTransfer: files, ...at });
    await pane.dispatchEvent('dragover', { dataTransfer: files, ...at });
    await pane.dispatchEvent('drop', { dataTransfer: files, ...at });

    // Two a window: the service refuses the third (429 with Retry-After), and the tray says the rest wait for it.
    const waiting = tray(page).getByRole('status').filter({ hasText: /^Waiting for the upload limit — [1-5] left(, going on in \d+ s)?$/ });
    await waiting.first().waitFor();
    await screenshot(page, 'upload-waiting-for-limit');
    expect(await seriousViolations(page)).toEqual([]);
    expect(answers).toContain(429);
    // Nothing to press: every file is sent again after the service's Retry-After, and none is lost.
    await page.getByAltText('Uploaded image').nth(names.length - 1).waitFor({ timeout: 120_000 });
    await tray(page).waitFor({ state: 'detached' });
    expect(await uploadNodes(page).count()).toBe(names.length);
    expect(answers.filter((s) => s === 200)).toHaveLength(names.length);
    expect(answers.every((s) => s === 200 || s === 429)).toBe(true);
    expect(mostAtOnce).toBeLessThanOrEqual(3); // a few at once, not the whole drop
    await saved(page);
    const images = (await restCanvas(page, projectId))!.nodes.map((n: { data: { image: string } }) => n.data.image.replace(/^.*-/, ''));
    expect(images.sort()).toEqual(names);
    expect(unexpected(errors)).toEqual([]);
  });

  it('highlights the canvas while files are dragged over it, only for files, and takes the drop', async () => {
    const { page, errors } = await canvas('drop@example.com', 'Drop');
    const png = await solidPng(20, 20, [30, 30, 200]);
    const files = await page.evaluateHandle((b64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'dropped.png', { type: 'image/png' }));
      return dt;
    }, png.toString('base64'));
    const text = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.setData('text/plain', 'words');
      return dt;
    });
    const pane = page.locator('.react-flow__pane');
    const panel = page.locator('.empty-canvas');
    const highlight = page.getByTestId('drop-highlight');

    await pane.dispatchEvent('dragenter', { dataTransfer: text });
    expect(await highlight.count()).toBe(0);
    await pane.dispatchEvent('dragleave', { dataTransfer: text });

    // Entering a child before leaving its parent (as the pointer crosses them) keeps it; leaving the last hides it.
    await pane.dispatchEvent('dragenter', { dataTransfer: files });
    await highlight.waitFor();
    expect(await highlight.textContent()).toContain(`Drop images to add them${TYPES} · up to 20 KB`);
    await screenshot(page, 'drop-highlight');
    await panel.dispatchEvent('dragenter', { dataTransfer: files });
    await pane.dispatchEvent('dragleave', { dataTransfer: files });
    expect(await highlight.isVisible()).toBe(true);
    await panel.dispatchEvent('dragleave', { dataTransfer: files });
    await highlight.waitFor({ state: 'detached' });

    // Dropped: the highlight goes and the file becomes a node.
    const box = (await pane.boundingBox())!;
    const at = { clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 };
    await pane.dispatchEvent('dragenter', { dataTransfer: files, ...at });
    await highlight.waitFor();
    await pane.dispatchEvent('dragover', { dataTransfer: files, ...at });
    await pane.dispatchEvent('drop', { dataTransfer: files, ...at });
    await highlight.waitFor({ state: 'detached' });
    await page.getByAltText('Uploaded image').waitFor();
    expect(unexpected(errors)).toEqual([]);
  });

  it('keeps Generate disabled, saying why, until an image is connected and a prompt written', async () => {
    const { page, errors } = await canvas('ready@example.com', 'Ready');
    await page.getByRole('button', { name: 'Add generation' }).click();
    const generation = page.locator('.react-flow__node-generation');
    const generate = generation.getByRole('button', { name: 'Generate', exact: true });
    const hint = generation.locator('.generate-hint');
    await hint.getByText('Connect an image and write a prompt', { exact: true }).waitFor();
    expect(await generate.isDisabled()).toBe(true);
    expect(await generate.getAttribute('title')).toBe('Connect an image and write a prompt');
    await generation.getByLabel('Prompt').fill('grayscale');
    await hint.getByText('Connect an image', { exact: true }).waitFor();
    expect(await generate.isDisabled()).toBe(true);

    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    await page.getByAltText('Uploaded image').waitFor();
    await connectImageTo(page);
    await hint.waitFor({ state: 'detached' });
    expect(await generate.isEnabled()).toBe(true);
    expect(await generate.getAttribute('title')).toBeNull();
    await generation.getByLabel('Prompt').fill('   ');
    await hint.getByText('Write a prompt', { exact: true }).waitFor();
    expect(await generate.isDisabled()).toBe(true);
    expect(await generate.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));
    expect(unexpected(errors)).toEqual([]);
  });

  it('says when to try again after too many requests, counting down, and clears the error when the prompt changes', async () => {
    const { page, errors } = await canvas('busy@example.com', 'Busy');
    const generation = await imageAndGeneration(page);
    await generation.getByLabel('Prompt').fill('grayscale');
    const generate = generation.getByRole('button', { name: 'Generate', exact: true });
    await generate.click();
    await generation.getByAltText('Generated image').waitFor();

    // The second generation of the minute: the service answers 429 with Retry-After.
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
    await generation.getByRole('button', { name: 'Generate again', exact: true }).click();
    const response = await answered;
    expect(response.status()).toBe(429);
    const retryAfter = Number(response.headers()['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    const alert = generation.getByRole('alert').filter({ hasText: 'Too many requests' });
    await alert.waitFor();
    const seconds = async () => Number(/try again in (\d+) s\./.exec((await alert.textContent()) ?? '')?.[1]);
    const first = await seconds();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(retryAfter);
    await screenshot(page, 'generation-too-many-requests');
    await expect.poll(seconds, { timeout: WAIT }).toBeLessThan(first); // it counts down

    // A changed prompt is a new question: the error goes.
    await generation.getByLabel('Prompt').fill('grayscale, blur 2');
    await alert.waitFor({ state: 'detached' });
    expect(unexpected(errors)).toEqual([]);
  });

  it('offers the offline engine’s words as chips that add to the prompt, and a hosted model’s presets that replace it', async () => {
    const { page, errors } = await canvas('chips@example.com', 'Chips');
    const generation = await imageAndGeneration(page);
    const prompt = generation.getByLabel('Prompt');
    await generation.getByRole('button', { name: 'Add “sepia”' }).click();
    expect(await prompt.inputValue()).toBe('sepia');
    await generation.getByRole('button', { name: 'Add “blur 4”' }).click();
    expect(await prompt.inputValue()).toBe('sepia, blur 4');
    // The rest behind More words.
    expect(await generation.getByRole('button', { name: 'Add “grid”' }).count()).toBe(0);
    await generation.getByRole('button', { name: 'More words' }).click();
    await generation.getByRole('button', { name: 'Add “grid”' }).waitFor();
    await screenshot(page, 'prompt-chips');
    await generation.getByRole('button', { name: 'Fewer' }).click();
    await generation.getByRole('button', { name: 'Add “grid”' }).waitFor({ state: 'detached' });

    // The prompt the chips made is the one sent, and the engine runs it.
    const request = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/generations');
    await generation.getByRole('button', { name: 'Generate', exact: true }).click();
    expect((await request).postDataJSON()).toMatchObject({ prompt: 'sepia, blur 4' });
    await generation.getByAltText('Generated image').waitFor();

    // A preset is its own undo step.
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('sepia');

    // A hosted model: whole prompts that replace the prompt.
    await generation.getByLabel('Model').selectOption('gemini-2.5-flash-image');
    await generation.getByRole('button', { name: 'Use “Turn it into a watercolour painting”' }).click();
    expect(await prompt.inputValue()).toBe('Turn it into a watercolour painting');
    expect(await generation.getByRole('button', { name: /^Add “/ }).count()).toBe(0);
    expect(unexpected(errors)).toEqual([]);
  });

  it('undoes a typed run of the prompt with Ctrl+Z in it, not one character, and redoes it', async () => {
    const context = await f.newContext();
    await context.clock.install();
    const { page, errors } = await canvas('runs@example.com', 'Runs', context);
    await page.getByRole('button', { name: 'Add generation' }).click();
    const prompt = page.locator('.react-flow__node-generation').getByLabel('Prompt');

    await prompt.click();
    await page.keyboard.type('grayscale');
    // A focus change ends a run…
    await page.keyboard.press('Tab');
    await prompt.click();
    await page.keyboard.press('End');
    await page.keyboard.type(', sepia');
    // …and so does a pause of a second or more.
    await context.clock.fastForward(1200);
    await page.keyboard.type(', blur 2');
    expect(await prompt.inputValue()).toBe('grayscale, sepia, blur 2');

    await page.keyboard.press('Control+z');
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('grayscale, sepia');
    // The canvas's undo, not the text box's own: the canvas has a step to redo.
    expect(await page.getByRole('button', { name: 'Redo' }).isEnabled()).toBe(true);
    await page.keyboard.press('Control+z');
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('grayscale');
    await page.keyboard.press('Control+z');
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('');
    expect(await page.locator('.react-flow__node-generation').count()).toBe(1); // the node's own step is still there
    expect(await prompt.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('grayscale');
    await page.keyboard.press('Control+y');
    await expect.poll(() => prompt.inputValue(), { timeout: WAIT }).toBe('grayscale, sepia');
    await saved(page);
    expect(unexpected(errors)).toEqual([]);
  });
});
