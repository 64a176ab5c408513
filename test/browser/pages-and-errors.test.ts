// The states around the story: anonymous visitors sent to sign-in, unknown addresses and the editor's error
// screen (each with a way back), sign-in errors, files dropped or pasted,
// renaming and deleting projects, upload and generation errors in the service's words, the keyboard, and
// analytics that carry no prompt, image URL or email. The service runs with analytics on, pointed at a
// stand-in host that the browser never really reaches (the test answers for it).
import { gunzipSync } from 'node:zlib';
import type { Request } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, signInThroughUi, solidPng, WAIT } from './browser.js';
import { connectOneImageToGeneration, createProject, pasteImage, saved, useBrowserFixture } from './fixture.js';

const ANALYTICS = 'http://analytics.invalid';

/** Events the page sent to the analytics host (posthog-js batches; bodies may be gzip-compressed). */
function eventsIn(request: Request): Array<{ event: string; properties: Record<string, unknown> }> {
  const body = request.postDataBuffer();
  if (!body) return [];
  const gzipped = body[0] === 0x1f && body[1] === 0x8b;
  const text = gzipped ? gunzipSync(body).toString() : body.toString();
  const parsed = JSON.parse(text.startsWith('data=') ? Buffer.from(decodeURIComponent(text.slice(5)), 'base64').toString() : text);
  return Array.isArray(parsed) ? parsed : parsed.batch ?? [parsed];
}

describeInBrowser('pages and errors in a browser', () => {
  const f = useBrowserFixture({ PUBLIC_ANALYTICS_TOKEN: 'phc_test_token', PUBLIC_ANALYTICS_PROXY_API: ANALYTICS, GENERATION_MAX_PIXELS: '2000' });

  it('sends an anonymous visitor of /projects to /login, and a page whose session ended too', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await page.goto(`${f.app.baseUrl}/projects`);
    await page.waitForURL(`${f.app.baseUrl}/login`);
    await page.getByRole('heading', { name: 'Sign in to Image Canvas' }).waitFor();

    // Signed in, then the session goes away: the next page the client shows notices and goes to /login.
    await signInThroughUi(page, f.app.baseUrl, 'leaving@example.com', 'Leaving');
    await page.getByText('No projects yet').waitFor();
    await createProject(page, 'Short-lived');
    await page.getByText('Your canvas is empty.').waitFor();
    await context.clearCookies();
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL(`${f.app.baseUrl}/login`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  });

  it('shows a page with a way back at an unknown address, while API paths keep their JSON 404', async () => {
    const context = await f.newContext();
    const { page, errors } = await newPage(context);
    const response = await page.goto(`${f.app.baseUrl}/no/such/page?from=a-typo`);
    expect(response!.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.title()).toContain('Not found');
    await page.getByRole('link', { name: 'Home' }).click();
    await page.waitForURL(`${f.app.baseUrl}/`);

    // Signed in, a deep unknown path under a client route: the way back leads to the projects.
    await f.signIn(context, 'lost@example.com');
    expect((await page.goto(`${f.app.baseUrl}/projects/some-id/and/more`))!.status()).toBe(404);
    await page.getByRole('link', { name: 'Go to your projects' }).click();
    await page.waitForURL(`${f.app.baseUrl}/projects`);
    await page.getByText('No projects yet').waitFor();

    // The API answers a browser in JSON, exactly as any client.
    const api = await page.goto(`${f.app.baseUrl}/api/no/such/route`);
    expect(api!.status()).toBe(404);
    expect(await api!.json()).toEqual({ error: 'Not found' });
    expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
  });

  it('offers Reload and Back to projects when the editor cannot be shown', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'broken@example.com');
    const created = await page.request.post(`${f.app.baseUrl}/api/user/project`, { data: { userId: 'broken@example.com', name: 'Unlucky' } });
    const { id } = (await created.json()) as { id: string };

    // The editor's code cannot be loaded (offline, or a deployment replaced it): the error screen, not a blank page.
    const editorCode = '**/assets/canvas-page-*.js';
    await context.route(editorCode, (route) => route.abort('internetdisconnected'));
    await page.goto(`${f.app.baseUrl}/projects/${id}`);
    const alert = page.getByRole('alert').filter({ hasText: 'Something went wrong' });
    await alert.waitFor();
    await screenshot(page, 'editor-error');
    await alert.getByRole('link', { name: 'Back to projects' }).click();
    await page.waitForURL(`${f.app.baseUrl}/projects`);
    await page.getByRole('link', { name: 'Unlucky', exact: true }).waitFor();

    await page.goto(`${f.app.baseUrl}/projects/${id}`);
    await alert.waitFor();
    await context.unroute(editorCode);
    await alert.getByRole('button', { name: 'Reload' }).click();
    await page.getByText('Your canvas is empty.').waitFor();

    // The project list cannot be read: the reason, Try again, and the way back.
    await context.route('**/api/user/project?*', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal server error"}' }));
    await page.reload();
    const failed = page.getByRole('alert').filter({ hasText: 'Internal server error' });
    await failed.waitFor();
    await failed.getByRole('link', { name: 'Back to projects' }).waitFor();
    await context.unroute('**/api/user/project?*');
    await failed.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('Your canvas is empty.').waitFor();
  });

  it('shows readable sign-in errors on /login', async () => {
    const { page } = await newPage(await f.newContext());
    await page.goto(`${f.app.baseUrl}/login?error=MissingCSRF`);
    await page.getByRole('alert').filter({ hasText: 'Your sign-in form expired. Please try again.' }).waitFor();
  });

  it('adds images dropped onto the canvas or pasted into the page', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'dropper@example.com', 'Drop and paste');
    const png = (await solidPng(40, 40, [10, 200, 10])).toString('base64');
    const files = await page.evaluateHandle((base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      return transfer;
    }, png);
    await page.dispatchEvent('.react-flow__pane', 'dragover', { dataTransfer: files });
    await page.dispatchEvent('.react-flow__pane', 'drop', { dataTransfer: files });
    await page.getByAltText('Uploaded image').waitFor();

    await pasteImage(page, png);
    await page.getByAltText('Uploaded image').nth(1).waitFor();
    expect(await page.locator('.react-flow__node-upload').count()).toBe(2);
    await saved(page);
  });

  it('renames and deletes projects, deleting only after a confirmation', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'lists@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await page.getByText('No projects yet').waitFor();
    for (const name of ['First', 'Second']) {
      expect((await page.request.post(`${f.app.baseUrl}/api/user/project`, { data: { userId: 'lists@example.com', name } })).status()).toBe(200);
    }
    await page.reload();
    await page.getByRole('button', { name: 'Rename First' }).click();
    await page.getByLabel('Project name', { exact: true }).fill('Renamed');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'Renamed', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Renamed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Renamed”?' });
    await dialog.waitFor();
    await screenshot(page, 'delete-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete Renamed' }).click();
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('link', { name: 'Renamed', exact: true }).waitFor({ state: 'detached' });

    await page.reload();
    await page.getByRole('link', { name: 'Second', exact: true }).waitFor();
    expect(await page.locator('.project-name').allTextContents()).toEqual(['Second']);
  });

  it('says why an upload is not taken, and adds no node for it', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'uploads@example.com', 'Uploads');
    await page.getByLabel('Add images').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some text\n') });
    await page.getByRole('region', { name: 'Uploads' }).getByRole('alert').filter({ hasText: 'notes.txt is not an accepted image (PNG, JPEG' }).waitFor();
    expect(await page.locator('.react-flow__node-upload').count()).toBe(0);
    await screenshot(page, 'upload-error');
  });

  it('shows the service’s message when a generation fails, and is ready to try again', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'failing@example.com', 'Failing');
    const node = await connectOneImageToGeneration(page, { side: 64 });
    // A 64×64 input is over this app's GENERATION_MAX_PIXELS (2,000; the 32×32 inputs of the other tests are not):
    // the service refuses it, in its words. (A prompt over PROMPT_MAX_CHARS no longer reaches the service: the
    // prompt box stops at the limit.)
    await node.getByLabel('Prompt').fill('grayscale');
    await node.getByRole('button', { name: 'Generate', exact: true }).click();
    await node.getByRole('alert').filter({ hasText: 'Invalid image' }).waitFor();
    expect(await node.getByRole('button', { name: 'Generate', exact: true }).isEnabled()).toBe(true);
    await saved(page);
    await page.reload();
    await node.getByLabel('Prompt').waitFor();
    expect(await node.getByRole('button', { name: 'Generate', exact: true }).isEnabled()).toBe(true);
  });

  it('can be used from the keyboard, with a visible focus ring', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'keys@example.com', 'Keys');
    /** Presses Tab until the focused element matches, up to a bound. */
    const tabTo = async (matches: (el: Element) => boolean, what: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluateHandle(() => document.activeElement).then((h) => h.asElement()?.evaluate(matches))) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo((el) => el.textContent === 'Add generation', 'Add generation');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.locator('.react-flow__node-generation').waitFor();
    await tabTo((el) => el.tagName === 'TEXTAREA', 'the prompt');
    await page.keyboard.type('invert');
    expect(await page.getByLabel('Prompt').inputValue()).toBe('invert');
    // No image connected: Generate waits, saying why; the prompt's chips are reachable and work from the keyboard.
    await page.locator('.generate-hint').getByText('Connect an image', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Generate', exact: true }).isDisabled()).toBe(true);
    await tabTo((el) => el.textContent === 'sepia', 'the “sepia” chip');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('invert, sepia');
  });

  it('sends feature events with no prompt, image URL or email', async () => {
    // posthog-js drops events from browsers that look automated ("HeadlessChrome", navigator.webdriver):
    // this one looks like a person's.
    const userAgent = (await f.browser.newBrowserCDPSession().then(async (cdp) => {
      const { userAgent: ua } = (await cdp.send('Browser.getVersion')) as { userAgent: string };
      await cdp.detach();
      return ua;
    })).replace('HeadlessChrome', 'Chrome');
    const context = await f.newContext({ userAgent });
    await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false }));
    const events: Array<{ event: string; properties: Record<string, unknown> }> = [];
    await context.route(`${ANALYTICS}/**`, async (route) => {
      const request = route.request();
      if (request.method() === 'POST') {
        events.push(...eventsIn(request));
      }
      await route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":1}' });
    });
    const page = await f.onNewCanvas(context, 'counted@example.com', 'Counted');
    const generation = await connectOneImageToGeneration(page);
    await generation.getByLabel('Prompt').fill('secret prompt words, grayscale');
    await generation.getByRole('button', { name: 'Generate', exact: true }).click();
    await generation.getByAltText('Generated image').waitFor();
    const imageUrl = (await generation.getByAltText('Generated image').getAttribute('src'))!;

    const names = () => events.map((e) => e.event);
    for (const name of ['$pageview', 'project_created', 'image_uploaded', 'generation_started', 'generation_succeeded']) {
      await expect.poll(names, { timeout: WAIT }).toContain(name);
    }
    const everything = JSON.stringify(events);
    for (const secret of ['secret prompt', 'counted@example.com', imageUrl, '/files/', 'dot.png']) {
      expect(everything).not.toContain(secret);
    }
    expect(events.find((e) => e.event === 'generation_succeeded')!.properties).toMatchObject({ inputs: 1 });
  });
});
