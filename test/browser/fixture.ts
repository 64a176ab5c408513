// One service and one Chromium per test file, with contexts that are closed after the file (also when a
// test fails), and the shortcuts the canvas tests share.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { BuildOptions } from '../../src/app.js';
import { LocalImageModel } from '../../src/models/local-image-model.js';
import { heldModel } from '../helpers/held-model.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { launchBrowser, newPage, solidPng } from './browser.js';

const SESSION_COOKIE = 'authlib.session-token';

export interface BrowserFixture {
  readonly app: TestApp;
  readonly browser: Browser;
  newContext(opts?: BrowserContextOptions): Promise<BrowserContext>;
  /** Signs the context in without the pages (the story covers those): the cookie of an HTTP sign-in. */
  signIn(context: BrowserContext, email: string): Promise<void>;
  /** A signed-in page on a new, empty project's canvas. */
  onNewCanvas(context: BrowserContext, email: string, projectName: string): Promise<Page>;
}

/** Call inside a describe: starts the service (with `env`, and `build`: e.g. an image model) and Chromium before its tests, stops both after. */
export function useBrowserFixture(env: Record<string, string> = {}, build: Omit<BuildOptions, 'serverFactory'> = {}): BrowserFixture {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    app = await startTestApp(env, undefined, build);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await app?.close();
  });

  const fixture: BrowserFixture = {
    get app() {
      return app!;
    },
    get browser() {
      return browser!;
    },
    async newContext(opts = {}) {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 800 }, ...opts });
      contexts.push(context);
      return context;
    },
    async signIn(context, email) {
      const { client } = await app!.user(email);
      const value = (await client.cookie(SESSION_COOKIE))!;
      await context.addCookies([{ name: SESSION_COOKIE, value, url: app!.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    },
    async onNewCanvas(context, email, projectName) {
      const { page } = await newPage(context);
      await fixture.signIn(context, email);
      await page.goto(`${app!.baseUrl}/projects`);
      await createProject(page, projectName);
      await page.getByText('Your canvas is empty.').waitFor();
      return page;
    },
  };
  return fixture;
}

/**
 * On the projects page, once its list has loaded: creates a project named `name` with the create form and opens it
 * ("Create and open"; `open: false`: "Create", staying on the page). A first project is offered the example
 * canvas: left out unless `example` is true, so a test's canvas starts empty.
 */
export async function createProject(page: Page, name: string, opts: { open?: boolean; example?: boolean } = {}): Promise<void> {
  await page.getByRole('heading', { name: 'No projects yet' }).or(page.getByRole('list', { name: 'Your projects' })).waitFor();
  const example = page.getByLabel('Start with an example canvas');
  if (await example.isVisible()) await example.setChecked(opts.example ?? false);
  await page.getByLabel('New project name').fill(name);
  await page.getByRole('button', { name: opts.open === false ? 'Create' : 'Create and open', exact: true }).click();
}

/**
 * Waits until the live canvas is connected and the service has acknowledged every change of the page: an
 * acknowledged change is stored (the provider's `unsyncedChanges` reached 0, docs/collab).
 */
export const saved = (page: Page) => page.locator('.connection-status[data-state="connected"][data-saved="true"]').waitFor();

/** The canvas of a project as the REST view renders it, read with the page's own session. */
export async function restCanvas(page: Page, projectId: string): Promise<{ nodes: any[]; edges: any[]; version: number } | null> {
  const res = await page.request.get(`${new URL(page.url()).origin}/api/user/project/canvas?projectId=${projectId}`);
  if (!res.ok()) throw new Error(`GET canvas answered ${res.status()}`);
  return res.json();
}

/** Pastes a PNG (base64) into the page as the browser does for Ctrl/Cmd+V: a paste event whose clipboard holds the file. */
export async function pasteImage(page: Page, base64: string): Promise<void> {
  await page.evaluate((data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const clipboard = new DataTransfer();
    clipboard.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true, cancelable: true }));
  }, base64);
}

/** On an open canvas: add one image, add a generation node, and connect the image into it. Returns the node. */
export async function connectOneImageToGeneration(page: Page, { side = 32 }: { side?: number } = {}) {
  await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(side, side, [200, 100, 50]) });
  await page.getByAltText('Uploaded image').waitFor();
  await page.getByRole('button', { name: 'Add generation' }).click();
  const generation = page.locator('.react-flow__node-generation');
  const source = await page.locator('.react-flow__node-upload').getAttribute('data-id');
  await page.locator(`.react-flow__node[data-id="${source}"]`).click();
  await generation.click({ modifiers: ['Control'], position: { x: 40, y: 10 } });
  await page.getByRole('button', { name: 'Connect selected' }).click();
  await generation.getByText('1 input').waitFor();
  return generation;
}

/**
 * The offline engine (in this process), whose calls wait while the test holds them, until it releases them or
 * the call is aborted: a generation job the test keeps running for as long as it looks at it, never a timer.
 */
export function heldOfflineEngine() {
  const engine = new LocalImageModel();
  return heldModel((req) => engine.generate(req), { id: engine.id });
}
