// Generation jobs in the canvas (issue 17, points 4 and 5): a generation node runs as a job, and the node shows
// it from the live document — "Queued · #1" behind another job, "Running · N s" ticking from when it started,
// Cancel (refused, in words, for someone who did not start it) — to everyone in the room, the previous result
// dimmed meanwhile; and the strip of variants under the node: two runs make two, enlarge one (Esc closes),
// compare two side by side, and "Use this" on the older makes it the node's image again.
//
// The model is an in-process one whose calls wait, while the test holds them, until the test releases them (or
// the call is aborted), so "queued" and "running" are states the test waits for, never timers; each call answers
// a PNG of a new colour, so every run has its own result. The seconds shown are checked by setting the observing
// page's clock, never by waiting for it.
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { heldModel } from '../helpers/held-model.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { connectOneImageToGeneration, createProject, restCanvas, saved, useBrowserFixture } from './fixture.js';

/** A model answering a new colour per call: at once, or, while held, once released (an abort ends the call). */
const held = heldModel(async (_req, n) => {
  const data = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: (n * 67) % 256, g: (n * 131) % 256, b: (n * 29) % 256 } } }).png().toBuffer();
  return { image: { data, mimeType: 'image/png' }, text: 'held' };
});

describeInBrowser('generation jobs in the canvas', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', JOBS_RUNNING_PER_USER: '1' }, { imageModel: held.model });
  afterAll(() => held.release());

  /** Ada's new canvas with one image connected into a generation node, Bob invited as editor and watching it. */
  async function twoPeople(name: string) {
    const ada = await newPage(await f.newContext());
    await f.signIn(ada.page.context(), 'ada@example.com');
    await ada.page.goto(`${f.app.baseUrl}/projects`);
    await createProject(ada.page, name);
    await ada.page.getByText('Your canvas is empty.').waitFor();
    const projectId = ada.page.url().split('/').at(-1)!;
    const generation = await connectOneImageToGeneration(ada.page);
    await generation.getByLabel('Prompt').fill('first');
    await saved(ada.page);
    const invited = await ada.page.request.post(`${f.app.baseUrl}/api/user/project/${projectId}/members`, { data: { email: 'bob@example.com', role: 'editor' } });
    expect(invited.status()).toBe(201);
    const bob = await newPage(await f.newContext());
    await f.signIn(bob.page.context(), 'bob@example.com');
    await bob.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await bob.page.locator('.react-flow__node-generation').getByText('1 input').waitFor();
    return { projectId, ada, bob, adaNode: generation, bobNode: bob.page.locator('.react-flow__node-generation') };
  }

  /** A job of Ada's not tied to any node, held running: it takes her one running slot. */
  async function blockerJob(page: Page): Promise<string> {
    const image = `data:image/png;base64,${(await solidPng(8, 8, [10, 200, 10])).toString('base64')}`;
    const calls = held.calls;
    const made = await page.request.post(`${f.app.baseUrl}/api/generations`, { data: { images: [image], prompt: 'blocker' } });
    expect(made.status()).toBe(202);
    await expect.poll(() => held.calls, { timeout: WAIT }).toBe(calls + 1);
    return ((await made.json()) as { id: string }).id;
  }

  it('shows the job queued, then running with its seconds, to everyone; Cancel stops it and keeps the previous result', async () => {
    const { projectId, ada, bob, adaNode, bobNode } = await twoPeople('Jobs');

    // A first run, at once: the result both see.
    await adaNode.getByRole('button', { name: 'Generate', exact: true }).click();
    const first = (await adaNode.getByAltText('Generated image').getAttribute('src'))!;
    await expect.poll(() => bobNode.getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).toBe(first);

    // Held: another job of Ada's runs, so the node's job queues behind it, first in line.
    held.hold();
    const blocker = await blockerJob(ada.page);
    await adaNode.getByRole('button', { name: 'Generate again', exact: true }).click();
    await adaNode.getByRole('status').filter({ hasText: 'Queued · #1' }).waitFor();
    await bobNode.getByRole('status').filter({ hasText: 'Queued · #1' }).waitFor();
    expect(await adaNode.getByRole('button', { name: 'Generating…' }).isDisabled()).toBe(true);
    // The previous result stays, dimmed, for both.
    for (const node of [adaNode, bobNode]) {
      expect(await node.locator('.result.previous').getByAltText('Generated image').getAttribute('src')).toBe(first);
      expect(await node.locator('.result.previous .node-image').evaluate((el) => Number(getComputedStyle(el).opacity))).toBeLessThan(1);
    }
    await screenshot(ada.page, 'job-queued');

    // The blocker is canceled: the node's job starts, and runs (held).
    const canceled = await ada.page.request.post(`${f.app.baseUrl}/api/generations/${blocker}/cancel`);
    expect(canceled.status()).toBe(200);
    await adaNode.getByRole('status').filter({ hasText: /Running · \d+ s/ }).waitFor();
    await bobNode.getByRole('status').filter({ hasText: /Running · \d+ s/ }).waitFor();

    // The seconds count from when the job started (the service's `startedAt` in the document): Bob's clock says
    // 12 s after it, then 75 s.
    const nodeId = (await adaNode.getAttribute('data-id'))!;
    const running = await ada.page.request.get(`${f.app.baseUrl}/api/generations?status=running&projectId=${projectId}`);
    const [job] = ((await running.json()) as { items: Array<{ id: string; nodeId: string; startedAt: string }> }).items;
    expect(job).toMatchObject({ nodeId, startedAt: expect.any(String) });
    const startedAt = Date.parse(job.startedAt);
    await bob.page.clock.setFixedTime(startedAt + 12_000);
    await bobNode.getByRole('status').filter({ hasText: 'Running · 12 s' }).waitFor();
    await bob.page.clock.setFixedTime(startedAt + 75_000);
    await bobNode.getByRole('status').filter({ hasText: 'Running · 75 s' }).waitFor();
    await screenshot(bob.page, 'job-running');

    // Bob did not start it: his Cancel is refused, in words, and the job goes on.
    await bobNode.getByRole('button', { name: 'Cancel generation' }).click();
    await bobNode.getByRole('alert').filter({ hasText: 'Could not cancel: Only the person who started this generation can cancel it.' }).waitFor();
    expect(held.signals.at(-1)!.aborted).toBe(false);

    // Ada cancels from the keyboard: the model call is aborted, the node is idle for both, the previous result
    // is back as it was (not dimmed), with no error.
    await adaNode.getByRole('button', { name: 'Cancel generation' }).focus();
    await ada.page.keyboard.press('Enter');
    await expect.poll(() => held.signals.at(-1)!.aborted, { timeout: WAIT }).toBe(true);
    for (const node of [adaNode, bobNode]) {
      await expect.poll(() => node.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
      expect(await node.locator('.result.previous').count()).toBe(0);
      expect(await node.getByAltText('Generated image').getAttribute('src')).toBe(first);
      expect(await node.locator('.node-error').count()).toBe(0);
    }
    expect(await adaNode.getByRole('button', { name: 'Generate again', exact: true }).isEnabled()).toBe(true);
    const read = await ada.page.request.get(`${f.app.baseUrl}/api/generations/${job.id}`);
    expect(await read.json()).toMatchObject({ status: 'canceled', output: null });
    // The stored canvas (the REST view) has the node idle, with its previous image.
    const storedNode = async () => (await restCanvas(ada.page, projectId))!.nodes.find((n) => n.id === nodeId).data;
    await expect.poll(async () => { const d = await storedNode(); return [d.image, d.job ?? null, d.isGenerating ?? false]; }, { timeout: WAIT }).toEqual([first, null, false]);
    held.release();
    expect(ada.errors).toEqual([]);
  });

  it('keeps every run as a variant under the node: enlarge, compare two, and use the older again', async () => {
    held.release();
    const { projectId, ada, bobNode, adaNode } = await twoPeople('Variants');
    const page = ada.page;

    await adaNode.getByRole('button', { name: 'Generate', exact: true }).click();
    const strip = adaNode.getByRole('region', { name: 'Variants' });
    await strip.getByRole('button', { name: 'Enlarge variant 1 (current)' }).waitFor();
    const first = (await adaNode.getByAltText('Generated image').getAttribute('src'))!;
    await adaNode.getByLabel('Prompt').fill('second');
    await adaNode.getByRole('button', { name: 'Generate again', exact: true }).click();
    await expect.poll(() => adaNode.getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).not.toBe(first);
    const second = (await adaNode.getByAltText('Generated image').getAttribute('src'))!;

    // Two variants, newest first, the newest current.
    await strip.getByRole('button', { name: 'Enlarge variant 2 (current)' }).waitFor();
    const items = strip.getByRole('listitem');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).getAttribute('aria-current')).toBe('true');
    expect(await items.nth(1).getAttribute('aria-current')).toBeNull();
    expect(await items.nth(0).locator('img').getAttribute('src')).toBe(second);
    expect(await items.nth(1).locator('img').getAttribute('src')).toBe(first);
    // Bob's strip (another person in the room) has them too.
    await bobNode.getByRole('region', { name: 'Variants' }).getByRole('button', { name: 'Enlarge variant 2 (current)' }).waitFor();

    // Enlarge the older one; Esc closes.
    await strip.getByRole('button', { name: 'Enlarge variant 1' }).click();
    const lightbox = page.getByRole('dialog', { name: 'Variant 1 of 2' });
    await lightbox.waitFor();
    expect(await lightbox.getByRole('img', { name: 'first', exact: true }).getAttribute('src')).toBe(first);
    await screenshot(page, 'variant-lightbox');
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'detached' });
    expect(await page.locator('.react-flow__node').count()).toBe(2); // Escape deleted nothing

    // Compare the two with a slider: the older left of the line, the newer right of it.
    await strip.getByRole('checkbox', { name: 'Compare variant 2' }).check();
    await strip.getByRole('checkbox', { name: 'Compare variant 1' }).check();
    await strip.getByRole('button', { name: 'Compare' }).click();
    const compare = page.getByRole('dialog', { name: 'Variants 2 and 1' });
    await compare.waitFor();
    expect(await compare.getByRole('img', { name: 'Variant 1', exact: true }).getAttribute('src')).toBe(first);
    expect(await compare.getByRole('img', { name: 'Variant 2', exact: true }).getAttribute('src')).not.toBe(first);
    await compare.getByRole('slider', { name: 'Compare Variant 1 with Variant 2' }).waitFor();
    await screenshot(page, 'variant-compare');

    // "Use this" on the older: the node shows it again (for Bob too, and in the stored canvas), marked current.
    await compare.getByRole('button', { name: 'Use this (variant 1)' }).click();
    await compare.waitFor({ state: 'detached' });
    await expect.poll(() => adaNode.getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).toBe(first);
    await expect.poll(() => bobNode.getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).toBe(first);
    await strip.getByRole('button', { name: 'Enlarge variant 1 (current)' }).waitFor();
    expect(await items.nth(1).getAttribute('aria-current')).toBe('true');
    expect(await items.nth(0).getAttribute('aria-current')).toBeNull();
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes.find((n) => n.type === 'generation').data.image).toBe(first);

    // It is an edit like any other: undo brings the newer one back.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => adaNode.getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).toBe(second);
    expect(ada.errors).toEqual([]);
  });
});
