// Auto-save and history in a browser: a conflicting save from a second tab, a network outage, a reload in
// the middle of a generation, undo and redo.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { saved, useBrowserFixture } from './fixture.js';

describeInBrowser('saving the canvas in a browser', () => {
  const f = useBrowserFixture();

  it('stops saving and says so when another tab saved first', async () => {
    const context = await f.newContext();
    const a = await f.onNewCanvas(context, 'tabs@example.com', 'Two tabs');
    const { page: b } = await newPage(context);
    await b.goto(a.url());
    await b.getByText('Your canvas is empty.').waitFor();

    await a.getByRole('button', { name: 'Add generation' }).click();
    await saved(a, 1);
    await b.getByRole('button', { name: 'Add generation' }).click();
    await b.getByText('Changed in another tab — reload').waitFor();
    await screenshot(b, 'conflict');

    // Reload shows what the other tab saved, and saving works again.
    await b.getByRole('button', { name: 'Reload' }).click();
    await saved(b, 1);
    expect(await b.locator('.react-flow__node-generation').count()).toBe(1);
    await b.getByLabel('Prompt').fill('sepia');
    await saved(b, 2);
  });

  it('keeps edits made while the network is down and saves them when it is back', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'offline@example.com', 'Offline');
    const saves = '**/api/user/project/canvas';
    await page.route(saves, (route) => (route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue()));
    await page.getByRole('button', { name: 'Add generation' }).click();
    await page.getByText('Offline, retrying').waitFor();
    await page.getByLabel('Prompt').fill('blur 3');
    await screenshot(page, 'offline');
    await page.unroute(saves);
    await saved(page);
    await page.reload();
    await page.locator('.react-flow__node-generation').waitFor();
    expect(await page.getByLabel('Prompt').inputValue()).toBe('blur 3');
  });

  it('never shows a node still generating after a reload', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'reloader@example.com', 'Reloaded mid-way');
    await page.getByLabel('Add images').setInputFiles({ name: 'one.png', mimeType: 'image/png', buffer: await solidPng(24, 24, [90, 90, 200]) });
    await page.getByAltText('Uploaded image').waitFor();
    await page.getByRole('button', { name: 'Add generation' }).click();
    const source = (await page.locator('.react-flow__node-upload').getAttribute('data-id'))!;
    await page.locator(`.react-flow__node[data-id="${source}"]`).click();
    await page.locator('.react-flow__node-generation').click({ modifiers: ['Control'], position: { x: 40, y: 10 } });
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.getByLabel('Prompt').fill('sepia');
    // The generation never answers: the tab is reloaded while it runs (its isGenerating flag saved).
    await page.route('**/api/image', () => undefined);
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByText(/Generating… \d+ s/).waitFor();
    await saved(page);
    await page.unroute('**/api/image');
    await page.reload();
    const node = page.locator('.react-flow__node-generation');
    await node.getByText('1 input').waitFor();
    expect(await node.getByRole('button', { name: 'Generate', exact: true }).isEnabled()).toBe(true);
    expect(await node.getByText(/Generating…/).count()).toBe(0);
  });

  it('undoes and redoes with the keyboard and the toolbar', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'undo@example.com', 'Undo');
    const nodes = page.locator('.react-flow__node');
    await page.getByRole('button', { name: 'Add generation' }).click();
    await page.getByRole('button', { name: 'Add generation' }).click();
    await nodes.nth(1).waitFor();
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(2);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(0);
    await page.keyboard.press('Control+y');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    // Deleting with the node's own button is a step too.
    await page.getByRole('button', { name: 'Delete generation node' }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    await saved(page);
  });
});
