// The editor on a phone (390×844, a touch screen): a one-row toolbar whose More menu holds the rest, no
// minimap unless asked for, the account's links in one menu, nothing wider than the screen; tap an image's
// output and then a generation node's input to connect them; two fingers zoom the canvas, not the page; a long
// press opens a node's or the canvas's menu, as a right-click does on a desktop; and the whole flow — add a generation node, upload an image, connect, type a prompt, generate — with the offline engine.
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** The centre of an element on the screen. */
async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = (await locator.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The canvas's zoom, from the transform xyflow gives its viewport. */
const zoomOf = (page: Page) =>
  page.locator('.react-flow__viewport').evaluate((el) => Number(/scale\(([\d.]+)\)/.exec((el as HTMLElement).style.transform)?.[1] ?? NaN));

describeInBrowser('the editor on a phone', () => {
  const f = useBrowserFixture();

  /** A signed-in phone on a new project's empty canvas; returns the page and the project's id. */
  async function onPhoneCanvas(email: string, name: string): Promise<{ page: Page; projectId: string; errors: string[] }> {
    const context = await f.newContext(PHONE);
    const { page, errors } = await newPage(context);
    await f.signIn(context, email);
    const created = await page.request.post(`${f.app.baseUrl}/api/user/project`, { data: { userId: email, name } });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`${f.app.baseUrl}/projects/${id}`);
    await page.getByText('Your canvas is empty.').waitFor();
    return { page, projectId: id, errors };
  }

  it('keeps the toolbar to one row with the rest in More, shows no minimap unless asked, and fits the screen', async () => {
    const { page } = await onPhoneCanvas('row@example.com', 'One row');
    const toolbar = page.getByRole('toolbar', { name: 'Canvas tools' });
    const visible = ['Add generation', 'Undo', 'More'].map((name) => toolbar.getByRole('button', { name, exact: true }));
    const tops = new Set<number>();
    for (const control of [toolbar.getByText('Add images'), ...visible]) {
      expect(await control.isVisible()).toBe(true);
      const box = (await control.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      tops.add(Math.round(box.y));
    }
    expect(tops.size).toBe(1);
    expect(await toolbar.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const name of ['History', 'Share', 'Save as template', 'Connect selected', 'Redo']) {
      expect(await toolbar.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    expect(await page.locator('.react-flow__minimap').count()).toBe(0);

    // More holds the rest; the minimap can be shown from there, and hidden again.
    const more = toolbar.getByRole('button', { name: 'More' });
    await more.tap();
    const menu = page.getByRole('menu', { name: 'More' });
    const items = (await menu.getByRole('menuitem').allTextContents()).map((t) => t.trim());
    expect(items).toEqual(['Connect selected', 'Delete selected', 'Redo', 'History', 'Gallery', 'Spend', 'Save as template', 'Share', 'Show minimap']);
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'phone-more-menu');
    await menu.getByRole('menuitem', { name: 'Show minimap' }).tap();
    await page.locator('.react-flow__minimap').waitFor();
    await more.tap();
    await menu.getByRole('menuitem', { name: 'Hide minimap' }).tap();
    await page.locator('.react-flow__minimap').waitFor({ state: 'detached' });

    // The menu also works from a keyboard: ↓ opens it on its first item, Escape gives the focus back.
    await more.focus();
    await page.keyboard.press('ArrowDown');
    await menu.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Connect selected');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Redo');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('More');

    // The account's links are in one menu.
    await page.getByRole('button', { name: /^Account/ }).tap();
    const account = page.getByRole('menu', { name: 'Account' });
    expect((await account.getByRole('menuitem').allTextContents()).map((t) => t.trim())).toEqual(['API tokens', 'Spend', 'Sign out']);
    await page.getByRole('button', { name: /^Account/ }).tap();
    await account.waitFor({ state: 'detached' });
  });

  it('adds a generation node, uploads an image, connects them by two taps, and generates', async () => {
    const { page, projectId, errors } = await onPhoneCanvas('tapper@example.com', 'Pocket');
    await page.getByRole('button', { name: 'Add generation' }).tap();
    const generation = page.locator('.react-flow__node-generation');
    await generation.waitFor();
    // Zoomed out first, as on a phone one would: a screen this small holds one node at 100 %, and a new node goes
    // where the view has room for it (else beside the others, the view following it: canvas/placement.ts).
    for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom Out' }).tap();
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    const image = page.locator('.react-flow__node-upload');
    await image.getByAltText('Uploaded image').waitFor();
    await page.getByRole('button', { name: 'Fit View' }).tap();

    // Tap the image's output, then the generation node's input.
    const output = image.getByRole('button', { name: /^Output of Image 1: connect to an? .*generation.* node$/ });
    const input = generation.getByRole('button', { name: 'Input of Generate 1: connect images here' });
    await output.tap();
    await page.getByRole('status').filter({ hasText: 'Connecting from the output of Image 1' }).waitFor();
    await screenshot(page, 'phone-connecting');
    await input.tap();
    await generation.getByText('1 input').waitFor();
    await page.locator('.connect-hint').waitFor({ state: 'detached' });
    await saved(page);
    const imageId = (await image.getAttribute('data-id'))!;
    const generationId = (await generation.getAttribute('data-id'))!;
    const canvas = (await restCanvas(page, projectId))!;
    expect(canvas.edges.map((e) => ({ source: e.source, target: e.target }))).toEqual([{ source: imageId, target: generationId }]);
    expect(await page.getByRole('group', { name: 'Image 1 → Generate 1' }).count()).toBe(1);

    // A prompt typed on the phone's keyboard, and Generate.
    const prompt = generation.getByLabel('Prompt');
    await prompt.tap();
    await page.keyboard.type('grayscale');
    await generation.getByRole('button', { name: 'Generate', exact: true }).tap();
    await generation.getByAltText('Generated image').waitFor({ timeout: WAIT * 2 });
    await screenshot(page, 'phone-generated');
    expect(errors).toEqual([]);
  });

  it('opens a node’s menu and the canvas’s with a long press, sized for a finger; a drag moves the node and opens none', async () => {
    const { page, errors } = await onPhoneCanvas('presser@example.com', 'Press');
    await page.getByLabel('Add images').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: await solidPng(32, 32, [200, 100, 50]) });
    const image = page.locator('.react-flow__node-upload');
    await image.getByAltText('Uploaded image').waitFor();
    // Every menu that opens, in order, whenever it opens (a menu opened by mistake and closed again counts too).
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { menusSeen: string[] }).menusSeen = []);
      new MutationObserver((changes) => {
        for (const change of changes) for (const added of change.addedNodes) if (added instanceof Element && added.matches('[role="menu"]')) seen.push(added.getAttribute('aria-label') ?? '');
      }).observe(document.body, { childList: true });
    });
    const menusSeen = () => page.evaluate(() => (window as unknown as { menusSeen: string[] }).menusSeen);
    const cdp = await page.context().newCDPSession(page);
    const finger = (type: 'touchStart' | 'touchMove', at: { x: number; y: number }) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: [{ x: at.x, y: at.y, id: 0 }] });
    const lift = () => cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });

    // A finger held on the node, until its menu shows: the node's menu, as a right-click opens it, with items a finger can hit.
    await finger('touchStart', await centre(image.getByAltText('Uploaded image')));
    const menu = page.getByRole('menu', { name: 'Image node' });
    await menu.waitFor();
    await lift();
    expect((await menu.getByRole('menuitem').allTextContents()).map((t) => t.replace(/Ctrl\+\w|Del$/, '').trim())).toEqual(['Duplicate', 'Copy', 'Connect to new generation', 'Open image', 'Delete']);
    for (const item of await menu.getByRole('menuitem').all()) expect((await item.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await menu.isVisible()).toBe(true); // lifting the finger neither closes it nor chooses an item
    await screenshot(page, 'phone-long-press-menu');
    await menu.getByRole('menuitem', { name: 'Duplicate' }).tap();
    await expect.poll(() => image.count(), { timeout: WAIT }).toBe(2);
    await menu.waitFor({ state: 'detached' });

    // A finger that moves drags the node: it moves, and no menu opens.
    await page.getByRole('button', { name: 'Fit View' }).tap();
    const dragged = image.last();
    const before = await dragged.evaluate((el) => (el as HTMLElement).style.transform);
    const start = await centre(dragged.getByAltText('Uploaded image'));
    await finger('touchStart', start);
    for (let dy = 10; dy <= 80; dy += 10) await finger('touchMove', { x: start.x, y: start.y + dy });
    await lift();
    await expect.poll(() => dragged.evaluate((el) => (el as HTMLElement).style.transform), { timeout: WAIT }).not.toBe(before);

    // A finger held on the empty canvas: the canvas's menu. Its press began after the drag's, so had the drag
    // started a menu it would have opened first: the drag opened none.
    const empty = await page.locator('.react-flow__pane').evaluate((pane) => {
      const box = pane.getBoundingClientRect();
      for (let y = box.bottom - 60; y > box.top; y -= 40) {
        for (let x = box.left + 60; x < box.right - 20; x += 40) if (document.elementFromPoint(x, y) === pane) return { x, y };
      }
      return null;
    });
    expect(empty).not.toBeNull();
    await finger('touchStart', empty!);
    const canvasMenu = page.getByRole('menu', { name: 'Canvas' });
    await canvasMenu.waitFor();
    await lift();
    expect(await canvasMenu.getByRole('menuitem', { name: 'Select all' }).count()).toBe(1);
    expect(await menusSeen()).toEqual(['Image node', 'Canvas']);
    await page.keyboard.press('Escape');
    await canvasMenu.waitFor({ state: 'detached' });
    await cdp.detach();
    expect(errors).toEqual([]);
  });

  it('zooms the canvas, not the page, with two fingers, over a node too', async () => {
    const { page } = await onPhoneCanvas('pincher@example.com', 'Pinch');
    await page.getByRole('button', { name: 'Add generation' }).tap();
    const node = page.locator('.react-flow__node-generation');
    await node.waitFor();
    const cdp = await page.context().newCDPSession(page);
    /** Two fingers spreading apart around `at`, as a person zooms in. */
    const pinch = async (at: { x: number; y: number }) => {
      const fingers = (spread: number) => [
        { x: at.x - spread, y: at.y, id: 0 },
        { x: at.x + spread, y: at.y, id: 1 },
      ];
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20).slice(0, 1) });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20) });
      for (let spread = 25; spread <= 60; spread += 5) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(spread) });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };

    // Over the empty canvas (xyflow's own pinch), below the node.
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const before = await zoomOf(page);
    await pinch({ x: pane.x + pane.width / 2 + 40, y: pane.y + pane.height - 80 });
    await expect.poll(() => zoomOf(page), { timeout: WAIT }).toBeGreaterThan(before * 1.4);
    expect(await page.evaluate(() => window.visualViewport?.scale)).toBe(1);

    // Over a node: the view zooms, the node stays where it is on the canvas.
    const pinched = await zoomOf(page);
    await page.getByRole('button', { name: 'Fit View' }).tap();
    await expect.poll(() => zoomOf(page), { timeout: WAIT }).toBeLessThan(pinched);
    const fitted = await zoomOf(page);
    const position = await node.evaluate((el) => (el as HTMLElement).style.transform);
    await pinch(await centre(node.getByLabel('Prompt')));
    await expect.poll(() => zoomOf(page), { timeout: WAIT }).toBeGreaterThan(fitted * 1.2);
    expect(await node.evaluate((el) => (el as HTMLElement).style.transform)).toBe(position);
    expect(await page.evaluate(() => window.visualViewport?.scale)).toBe(1);
    await cdp.detach();
  });
});
