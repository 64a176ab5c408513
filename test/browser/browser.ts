// Headless Chromium (Debian's) for the browser suite, and what every browser test needs: a signed-in page,
// test images, screenshots, and a watch on console errors (a CSP violation shows up there).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { describeWhenInstalled } from '../helpers/installed.js';

export const CHROMIUM = '/usr/bin/chromium';
const root = new URL('../../', import.meta.url).pathname;
export const SCREENSHOTS = path.join(root, 'test-artifacts/screenshots');
export const DOC_SCREENSHOTS = path.join(root, 'docs/screenshots');

export const chromiumAvailable = () => existsSync(CHROMIUM);

/** `describe` when Chromium is installed (../helpers/installed.ts). */
export function describeInBrowser(name: string, body: () => void): void {
  describeWhenInstalled({ label: 'Chromium', binary: CHROMIUM, pkg: 'chromium' }, name, body);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** How long a test waits for a state to appear before it fails (a bound, never a delay). */
export const WAIT = 20_000;

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions seen so far (CSP violations included). */
  errors: string[];
}

export async function newPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const errors: string[] = [];
  page.on('console', (message) => {
    const where = message.location().url || page.url();
    // The development identity provider's pages have no icon, so Chromium asks for /favicon.ico there.
    if (message.type() === 'error' && !where.endsWith('/favicon.ico')) errors.push(`${message.text()} (${where})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

/** Signs in the way a person does: /login, Sign in, the development identity provider's form. */
export async function signInThroughUi(page: Page, baseUrl: string, email: string, name: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/projects`);
}

/** A PNG of one colour. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Copies a screenshot into docs/screenshots/ (committed, shown in the README) when it is missing there or
 * when UPDATE_DOC_SCREENSHOTS=1, so an ordinary test run leaves the working tree untouched.
 */
export async function publishScreenshot(file: string, name: string): Promise<void> {
  const target = path.join(DOC_SCREENSHOTS, `${name}.png`);
  if (existsSync(target) && process.env.UPDATE_DOC_SCREENSHOTS !== '1') return;
  await fs.mkdir(DOC_SCREENSHOTS, { recursive: true });
  await fs.copyFile(file, target);
}
