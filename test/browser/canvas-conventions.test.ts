// The canvas as people expect it (issue 19, points 1 and 2), through real keyboard and mouse input: Shift-click,
// Ctrl+A and a drag on empty canvas select; Space+drag moves the view; copy, paste, cut and duplicate nodes (new
// ids, the edges between them, never a running job; one undo step each); zoom, fit and zoom to the selection
// from the keyboard; the shortcut sheet; a connection let go on empty canvas and a double-click add a generation
// node there; the context menus of a node and of the canvas, by mouse and keyboard. New nodes land in view and
// never under the minimap; zoom and pan are remembered per project, and the first fit waits for the images; the
// minimap moves the view when clicked or dragged.
import type { Locator, Page, Route } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { describeInBrowser, newPage, solidPng, WAIT } from './browser.js';
import { box, emptyPoint, generation, intersects, node, nodeIds, upload, type Box } from './canvas-shapes.js';
import { heldOfflineEngine, pasteImage, restCanvas, saved, useBrowserFixture } from './fixture.js';

const inside = (inner: Box, outer: Box, slack = 1) =>
  inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.x + inner.width <= outer.x + outer.width + slack && inner.y + inner.height <= outer.y + outer.height + slack;
const centre = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

const paneBox = (page: Page) => box(page.locator('.react-flow__pane'));
const selectedIds = (page: Page) => page.locator('.react-flow__node.selected').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')!).sort());
/** The view's transform as xyflow draws it. */
const viewport = (page: Page) => page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);
const zoomOf = (transform: string) => Number(/scale\(([\d.e+-]+)\)/.exec(transform)?.[1]);

/**
 * Waits until a node is drawn fully inside the canvas and clear of the minimap and the controls (the view follows a
 * node added off screen, canvas/placement.ts: it may still be moving).
 */
async function expectInView(page: Page, locator: Locator): Promise<void> {
  const problem = async () => {
    const b = await box(locator);
    const pane = await paneBox(page);
    if (!inside(b, pane)) return `node ${JSON.stringify(b)} not in pane ${JSON.stringify(pane)}`;
    if (intersects(b, await box(page.locator('.react-flow__minimap')))) return 'under the minimap';
    if (intersects(b, await box(page.locator('.react-flow__controls')))) return 'under the controls';
    return null;
  };
  await expect.poll(problem, { timeout: 30_000 }).toBeNull();
}

describeInBrowser('canvas conventions', () => {
  const engine = heldOfflineEngine();
  const f = useBrowserFixture({}, { imageModel: engine.model });
  afterAll(() => engine.release());

  async function uploaded(email: string, width: number, height: number, rgb: [number, number, number]): Promise<string> {
    const { client } = await f.app.user(email);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await solidPng(width, height, rgb))], { type: 'image/png' }), 'image.png');
    return (await client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
  }

  /** A project of `email`'s holding `nodes` and `edges` (saved over REST), opened in a new browser context. */
  async function openSeeded(email: string, name: string, nodes: object[], edges: object[] = [], before?: (page: Page) => Promise<void>) {
    const owner = await f.app.user(email);
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    const watched = await newPage(await f.newContext());
    await f.signIn(watched.page.context(), email);
    await before?.(watched.page);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.locator('.react-flow__node').nth(nodes.length - 1).waitFor();
    await saved(watched.page);
    return { ...watched, projectId };
  }

  it('selects with Shift-click, Ctrl+A (not the page’s text) and a drag on empty canvas; Space-, middle- and right-drags move the view', async () => {
    const { page, errors } = await openSeeded('select@example.com', 'Select', [upload('a', 0, 0), upload('b', 400, 0), generation('g', 800, 0, 'sepia')]);
    await node(page, 'a').click({ position: { x: 40, y: 10 } });
    await node(page, 'b').click({ position: { x: 40, y: 10 }, modifiers: ['Shift'] });
    await expect.poll(() => selectedIds(page)).toEqual(['a', 'b']);
    await node(page, 'a').click({ position: { x: 40, y: 10 }, modifiers: ['Shift'] });
    await expect.poll(() => selectedIds(page)).toEqual(['b']);

    await page.keyboard.press('Control+a');
    await expect.poll(() => selectedIds(page)).toEqual(['a', 'b', 'g']);
    expect(await page.evaluate(() => document.getSelection()?.toString())).toBe('');

    // In the prompt, Ctrl+A selects the prompt's text, not the nodes.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await expect.poll(() => selectedIds(page)).toEqual([]);
    const prompt = node(page, 'g').getByLabel('Prompt');
    await prompt.focus();
    await page.keyboard.press('Control+a');
    expect(await prompt.evaluate((el: HTMLTextAreaElement) => [el.selectionStart, el.selectionEnd])).toEqual([0, 5]);
    expect(await selectedIds(page)).toEqual([]);
    await prompt.blur();

    // A drag on empty canvas selects the nodes in its rectangle.
    const a = await box(node(page, 'a'));
    const b = await box(node(page, 'b'));
    await page.mouse.move(a.x - 20, a.y - 20);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width + 10, b.y + b.height + 10, { steps: 10 });
    await page.mouse.up();
    await expect.poll(() => selectedIds(page)).toEqual(['a', 'b']);

    // Space+drag, a middle-button drag and a right-button drag move the view (and select nothing).
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const pane = await paneBox(page);
    for (const how of ['space', 'middle', 'right'] as const) {
      const before = await viewport(page);
      const from = await emptyPoint(page, { x: pane.x + pane.width / 2, y: pane.y + pane.height - 60 });
      const button = how === 'space' ? 'left' : how;
      await page.mouse.move(from.x, from.y);
      if (how === 'space') await page.keyboard.down('Space');
      await page.mouse.down({ button });
      await page.mouse.move(from.x + 120, from.y - 60, { steps: 10 });
      await page.mouse.up({ button });
      if (how === 'space') await page.keyboard.up('Space');
      await expect.poll(() => viewport(page)).not.toBe(before);
      expect(await selectedIds(page)).toEqual([]);
      expect(await page.getByRole('menu').count()).toBe(0); // a right-drag is no right-click
    }
    expect(errors).toEqual([]);
  });

  it('copies, pastes, cuts and duplicates nodes with their edges and new ids — never a running job — each one undo step', async () => {
    const image = await uploaded('copy@example.com', 32, 32, [200, 60, 60]);
    const { page, errors, projectId } = await openSeeded(
      'copy@example.com',
      'Copy',
      [upload('u', 0, 0, image), generation('g', 420, 0, 'grayscale')],
      [{ id: 'e', source: 'u', target: 'g' }],
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.app.baseUrl });

    // The generation node is running (held) while it is copied: the copy is idle.
    engine.hold();
    await node(page, 'g').getByRole('button', { name: 'Generate', exact: true }).click();
    await node(page, 'g').locator('.job-status').waitFor();

    await page.keyboard.press('Control+a');
    await page.keyboard.press('Control+c');
    const pane = await paneBox(page);
    const cursor = { x: pane.x + pane.width / 2, y: pane.y + pane.height - 200 };
    await page.mouse.move(cursor.x, cursor.y);
    await page.keyboard.press('Control+v');
    await expect.poll(() => nodeIds(page).then((ids) => ids.length)).toBe(4);
    const pasted = (await nodeIds(page)).filter((id) => id !== 'u' && id !== 'g');
    await expect.poll(() => selectedIds(page)).toEqual([...pasted].sort());
    for (const id of pasted) await expectInView(page, node(page, id));
    await saved(page);
    let stored = (await restCanvas(page, projectId))!;
    expect(stored.nodes).toHaveLength(4);
    const copyU = stored.nodes.find((n) => pasted.includes(n.id) && n.type === 'upload');
    const copyG = stored.nodes.find((n) => pasted.includes(n.id) && n.type === 'generation');
    // A copy is a new node: the next number of its kind (stable names; the originals, saved over REST, count as 1).
    expect(copyU.data).toEqual({ type: 'upload', image, number: 2 });
    expect(copyG.data).toEqual({ type: 'generation', prompt: 'grayscale', number: 2 });
    expect(stored.edges).toHaveLength(2);
    expect(stored.edges.find((e) => e.id !== 'e')).toMatchObject({ source: copyU.id, target: copyG.id });
    expect(await node(page, copyG.id).locator('.job-status').count()).toBe(0);
    expect(await node(page, copyG.id).getByRole('button', { name: 'Generate', exact: true }).isEnabled()).toBe(true);
    engine.release();

    // One undo step takes the whole paste back.
    await page.keyboard.press('Control+z');
    await expect.poll(() => nodeIds(page)).toEqual(['u', 'g']);
    await saved(page);
    stored = (await restCanvas(page, projectId))!;
    expect(stored.nodes.map((n) => n.id)).toEqual(['u', 'g']);
    expect(stored.edges.map((e) => e.id)).toEqual(['e']);

    // Duplicate: a copy of the selection beside it, on top of no node (test/browser/placement.test.ts), selected; one undo step too.
    // (The view followed the paste: fitted again first.)
    await page.keyboard.press('Shift+Digit1');
    await expectInView(page, node(page, 'u'));
    await node(page, 'u').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Control+d');
    await expect.poll(() => nodeIds(page).then((ids) => ids.length)).toBe(3);
    const duplicate = (await nodeIds(page)).find((id) => id !== 'u' && id !== 'g')!;
    await expect.poll(() => selectedIds(page)).toEqual([duplicate]);
    await saved(page);
    for (const other of ['u', 'g']) expect(intersects(await box(node(page, duplicate)), await box(node(page, other)))).toBe(false);
    await page.keyboard.press('Control+z');
    await expect.poll(() => nodeIds(page)).toEqual(['u', 'g']);

    // Cut takes the selection away; paste brings it back under new ids.
    await page.keyboard.press('Shift+Digit1');
    await expectInView(page, node(page, 'g'));
    await node(page, 'g').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Control+x');
    await expect.poll(() => nodeIds(page)).toEqual(['u']);
    await page.keyboard.press('Control+v');
    await expect.poll(() => nodeIds(page).then((ids) => ids.length)).toBe(2);
    expect((await nodeIds(page))[1]).not.toBe('g');

    // An image in the clipboard still becomes an image node.
    const png = (await solidPng(40, 40, [10, 200, 10])).toString('base64');
    await pasteImage(page, png);
    await expect.poll(() => page.locator('.react-flow__node-upload').count()).toBe(2);
    await expectInView(page, page.locator('.react-flow__node-upload').nth(1));
    await saved(page);
    expect(errors).toEqual([]);
  });

  it('zooms, fits and zooms to the selection from the keyboard, and lists every shortcut on `?`', async () => {
    const { page, errors } = await openSeeded('zoom@example.com', 'Zoom', [upload('a', 0, 0), upload('b', 1600, 900), generation('g', 800, 400)]);
    const zoom = async () => zoomOf(await viewport(page));
    const start = await zoom();
    await page.keyboard.press('+');
    await expect.poll(zoom).toBeGreaterThan(start);
    const zoomedIn = await zoom();
    await page.keyboard.press('Control+Minus');
    await expect.poll(zoom).toBeLessThan(zoomedIn);
    const zoomedOut = await zoom();
    await page.keyboard.press('Control+Equal');
    await expect.poll(zoom).toBeGreaterThan(zoomedOut);

    // Shift+1 fits everything; Shift+2 zooms to the selection.
    await page.keyboard.press('Shift+Digit1');
    await expect.poll(async () => (await Promise.all(['a', 'b', 'g'].map(async (id) => inside(await box(node(page, id)), await paneBox(page))))).every(Boolean)).toBe(true);
    const fitted = await zoom();
    await node(page, 'a').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Shift+Digit2');
    await expect.poll(zoom).toBeGreaterThan(fitted);
    await expect.poll(async () => Math.abs(centre(await box(node(page, 'a'))).x - centre(await paneBox(page)).x)).toBeLessThan(20);

    // `?` opens the sheet; Escape closes it; so does the button beside the zoom controls.
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.getByText('Select all nodes').waitFor();
    for (const action of ['Duplicate the selected nodes', 'Zoom to the selection', 'Fit the whole canvas', 'Paste nodes (at the pointer), or images']) {
      await sheet.getByText(action).waitFor();
    }
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await sheet.waitFor();
    await sheet.getByRole('button', { name: 'Done' }).click();
    await sheet.waitFor({ state: 'detached' });

    // Typed into the prompt, `?`, + and Ctrl+A are text.
    const prompt = node(page, 'g').getByLabel('Prompt');
    await prompt.click();
    const before = await zoom();
    await page.keyboard.type('what? +-');
    expect(await prompt.inputValue()).toBe('what? +-');
    expect(await sheet.count()).toBe(0);
    expect(await zoom()).toBe(before);
    expect(errors).toEqual([]);
  });

  it("pastes an image from the system clipboard with the canvas menu's Paste, as Ctrl/Cmd+V does", async () => {
    const { page, errors, projectId } = await openSeeded('menu-paste@example.com', 'Menu paste', [generation('g', 0, 0)]);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.app.baseUrl });
    const png = (await solidPng(30, 20, [0, 90, 200])).toString('base64');
    await page.evaluate(async (data) => {
      const blob = new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], { type: 'image/png' });
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
    }, png);
    const pane = await paneBox(page);
    const spot = await emptyPoint(page, { x: pane.x + 120, y: pane.y + pane.height - 160 });
    await page.mouse.click(spot.x, spot.y, { button: 'right' });
    await page.getByRole('menu', { name: 'Canvas' }).getByRole('menuitem', { name: 'Paste' }).click();
    await page.getByAltText('Uploaded image').waitFor();
    const pasted = page.locator('.react-flow__node-upload');
    await expectInView(page, pasted);
    expect(Math.hypot(centre(await box(pasted)).x - spot.x, centre(await box(pasted)).y - spot.y)).toBeLessThan(300);
    await saved(page);
    const canvas = (await restCanvas(page, projectId))!;
    expect(canvas.nodes.find((n) => n.type === 'upload')?.data.image).toMatch(/^\/api\/images\/|^https?:|\.png$/);
    expect(errors).toEqual([]);
  });

  it("offers images or a generation node to feed a generation node when a connection is dragged back from its input", async () => {
    const { page, errors, projectId } = await openSeeded('back@example.com', 'Back', [generation('g', 0, 0)]);
    const pane = await paneBox(page);
    /** Drags from g's input to the left, onto empty canvas, and answers the menu offered there. */
    const dragBack = async (dx: number, dy: number) => {
      const handle = await box(node(page, 'g').locator('.react-flow__handle.target[data-handleid="images"]'));
      const drop = await emptyPoint(page, { x: Math.max(handle.x - dx, pane.x + 40), y: Math.min(handle.y + dy, pane.y + pane.height - 60) });
      await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
      await page.mouse.down();
      await page.mouse.move(drop.x, drop.y, { steps: 12 });
      await page.mouse.up();
      const menu = page.getByRole('menu', { name: 'New input' });
      await menu.waitFor();
      // Images and a generation first; then every other kind whose output fits an image input (crop, resize, adjust).
      const items = (await menu.getByRole('menuitem').allTextContents()).map((t) => t.trim());
      expect(items.slice(0, 2)).toEqual(['Add images here…', 'Add generation node here']);
      expect(items.slice(2).every((t) => /^Add [\w -]+ node here$/.test(t))).toBe(true);
      return menu;
    };

    // Images: the file chooser, then each image there, connected into g.
    const images = await dragBack(260, 0);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), images.getByRole('menuitem', { name: 'Add images here…' }).click()]);
    await chooser.setFiles({ name: 'back.png', mimeType: 'image/png', buffer: await solidPng(20, 20, [200, 0, 0]) });
    await node(page, 'g').getByText('1 input').waitFor();
    await page.getByAltText('Uploaded image').waitFor();
    await expectInView(page, page.locator('.react-flow__node-upload'));

    // A generation node there, whose output feeds g.
    const chain = await dragBack(200, 160);
    await chain.getByRole('menuitem', { name: 'Add generation node here' }).click();
    await node(page, 'g').getByText('2 inputs').waitFor();
    await saved(page);
    const canvas = (await restCanvas(page, projectId))!;
    const added = canvas.nodes.filter((n) => n.id !== 'g');
    expect(added.map((n) => n.type).sort()).toEqual(['generation', 'upload']);
    expect(canvas.edges.map((e) => ({ source: e.source, target: e.target })).sort((a, b) => a.source.localeCompare(b.source))).toEqual(
      added.map((n) => ({ source: n.id, target: 'g' })).sort((a, b) => a.source.localeCompare(b.source)),
    );
    expect(errors).toEqual([]);
  });

  it('offers a generation node where a connection is let go on empty canvas, and adds one on a double-click there', async () => {
    const { page, errors, projectId } = await openSeeded('connect@example.com', 'Connect', [upload('u', 0, 0)]);
    const pane = await paneBox(page);
    const handle = await box(node(page, 'u').locator('.react-flow__handle.source'));
    const drop = { x: Math.min(handle.x + 300, pane.x + pane.width - 420), y: handle.y + 20 };
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(drop.x, drop.y, { steps: 12 });
    await page.mouse.up();
    const menu = page.getByRole('menu', { name: 'New connection' });
    await menu.waitFor();
    await page.keyboard.press('Enter'); // its one item, focused
    await page.locator('.react-flow__node-generation').waitFor();
    const created = (await page.locator('.react-flow__node-generation').getAttribute('data-id'))!;
    await node(page, created).getByText('1 input').waitFor();
    // Where the connection was let go, moved only as far as it must to be whole in view, clear of the minimap (a
    // generation node with its prompt chips is ~490 px tall: from this drop point it cannot stay there).
    await expectInView(page, node(page, created));
    await saved(page);
    expect((await restCanvas(page, projectId))!.edges).toMatchObject([{ source: 'u', target: created }]);

    // A double-click on empty canvas adds a generation node there (and does not zoom).
    const zoom = await viewport(page);
    const spot = await emptyPoint(page, { x: pane.x + 200, y: pane.y + pane.height - 250 });
    await page.mouse.dblclick(spot.x, spot.y);
    await expect.poll(() => page.locator('.react-flow__node-generation').count()).toBe(2);
    const added = page.locator('.react-flow__node-generation').nth(1);
    await expectInView(page, added);
    const b = await box(added);
    expect(Math.hypot(centre(b).x - spot.x, centre(b).y - spot.y)).toBeLessThan(Math.max(b.width, b.height));
    expect(await viewport(page)).toBe(zoom);
    expect(errors).toEqual([]);
  });

  it('has context menus on nodes and on the canvas, usable with the keyboard', async () => {
    const image = await uploaded('menus@example.com', 32, 32, [60, 60, 200]);
    const { page, errors, projectId } = await openSeeded('menus@example.com', 'Menus', [upload('u', 0, 0, image)]);
    const count = () => page.locator('.react-flow__node').count();

    // Keyboard: the first item takes focus, arrows move (and wrap), Escape closes and gives focus back.
    const u = node(page, 'u');
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    const menu = page.getByRole('menu', { name: 'Image node' });
    await menu.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(await focused()).toMatch(/^Duplicate/);
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toMatch(/^Copy/);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toMatch(/^Delete/);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await count()).toBe(1);

    // Shift+F10 on the focused node opens it too; Enter chooses Duplicate.
    await u.focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(count).toBe(2);

    // Open image: the image in a new tab.
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    const [tab] = await Promise.all([page.context().waitForEvent('page'), menu.getByRole('menuitem', { name: 'Open image' }).click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(new URL(image, f.app.baseUrl).href);
    await tab.close();

    // Connect to new generation: a generation node to its right, connected from it.
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    await menu.getByRole('menuitem', { name: 'Connect to new generation' }).click();
    await page.locator('.react-flow__node-generation').getByText('1 input').waitFor();
    await expectInView(page, page.locator('.react-flow__node-generation'));

    // The canvas's menu: a generation node at the spot, Select all, Copy then Paste there, Delete.
    const pane = await paneBox(page);
    const spot = await emptyPoint(page, { x: pane.x + 150, y: pane.y + pane.height - 200 });
    await page.mouse.click(spot.x, spot.y, { button: 'right' });
    const canvasMenu = page.getByRole('menu', { name: 'Canvas' });
    await canvasMenu.getByRole('menuitem', { name: 'Add generation node here' }).click();
    await expect.poll(() => page.locator('.react-flow__node-generation').count()).toBe(2);
    await expectInView(page, page.locator('.react-flow__node-generation').nth(1));
    const corner = await emptyPoint(page, { x: pane.x + 60, y: pane.y + 40 });
    await page.mouse.click(corner.x, corner.y, { button: 'right' });
    await canvasMenu.getByRole('menuitem', { name: 'Select all' }).click();
    await expect.poll(() => selectedIds(page).then((ids) => ids.length)).toBe(4);
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    await page.getByRole('menu', { name: '4 nodes' }).getByRole('menuitem', { name: 'Delete 4 nodes' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    await menu.getByRole('menuitem', { name: 'Copy' }).click();
    await page.mouse.click(corner.x, corner.y, { button: 'right' });
    await canvasMenu.getByRole('menuitem', { name: 'Paste' }).click();
    await expect.poll(count).toBe(5);
    const pastedCopy = page.locator('.react-flow__node').nth(4);
    await expectInView(page, pastedCopy);
    expect(Math.hypot(centre(await box(pastedCopy)).x - corner.x, centre(await box(pastedCopy)).y - corner.y)).toBeLessThan(300);
    await u.click({ button: 'right', position: { x: 60, y: 12 } });
    await menu.getByRole('menuitem', { name: 'Delete' }).click();
    await expect.poll(count).toBe(4);

    // Add images here…: the file chooser, then the image where the menu was opened.
    const last = await emptyPoint(page, { x: pane.x + pane.width / 2, y: pane.y + pane.height - 100 });
    await page.mouse.click(last.x, last.y, { button: 'right' });
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), canvasMenu.getByRole('menuitem', { name: 'Add images here…' }).click()]);
    await chooser.setFiles({ name: 'menu.png', mimeType: 'image/png', buffer: await solidPng(20, 20, [0, 0, 0]) });
    await expect.poll(count).toBe(5);
    await page.getByAltText('Uploaded image').nth(1).waitFor();
    await expectInView(page, page.locator('.react-flow__node').nth(4));
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes).toHaveLength(5);
    expect(errors).toEqual([]);
  });

  it('puts new nodes in view, never under the minimap or the controls', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'place@example.com', 'Place');
    for (let i = 1; i <= 6; i++) {
      await page.getByRole('button', { name: 'Add generation' }).click();
      await expect.poll(() => page.locator('.react-flow__node').count()).toBe(i);
      await expectInView(page, page.locator('.react-flow__node').nth(i - 1));
    }
    // Nodes added from the cursor right beside the minimap and the controls go beside them, in view (on an empty
    // canvas again: six tall nodes may now sit where the cursor goes).
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    const minimap = await box(page.locator('.react-flow__minimap'));
    await page.mouse.dblclick(minimap.x - 20, minimap.y + minimap.height / 2);
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(1);
    await expectInView(page, page.locator('.react-flow__node').nth(0));
    const controls = await box(page.locator('.react-flow__controls'));
    const png = (await solidPng(40, 40, [10, 200, 10])).toString('base64');
    const files = await page.evaluateHandle((base64) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'dropped.png', { type: 'image/png' }));
      return transfer;
    }, png);
    const at = { clientX: controls.x + controls.width + 10, clientY: controls.y + controls.height - 5 };
    await page.dispatchEvent('.react-flow__pane', 'dragover', { dataTransfer: files, ...at });
    await page.dispatchEvent('.react-flow__pane', 'drop', { dataTransfer: files, ...at });
    await page.getByAltText('Uploaded image').evaluate((img: HTMLImageElement) => img.decode());
    await expectInView(page, page.locator('.react-flow__node-upload'));
    await saved(page);
  });

  it('remembers zoom and pan per project; the first fit waits for the images', async () => {
    // Tall images make their nodes much taller once loaded; they are held until the canvas has drawn its nodes.
    const email = 'view@example.com';
    const images = await Promise.all([0, 1, 2, 3].map((i) => uploaded(email, 40, 400, [40 * i, 90, 160])));
    const held: Route[] = [];
    let holding = true;
    const { page, projectId } = await openSeeded(
      email,
      'View',
      images.map((image, i) => upload(`n${i}`, 0, i * 260, image)),
      [],
      async (p) => {
        await p.route(/\/files\//, (route) => (holding ? held.push(route) : route.continue()));
      },
    );
    await expect.poll(() => held.length).toBe(4);
    holding = false;
    for (const route of held) await route.continue();
    await expect.poll(() => page.locator('.react-flow__node img').evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).naturalWidth > 0))).toBe(true);
    await expect
      .poll(async () => {
        const pane = await paneBox(page);
        const boxes = await Promise.all(images.map((_, i) => box(node(page, `n${i}`))));
        // Each node drawn with its image (taller than 300 in flow units), and all of them in view.
        const zoom = zoomOf(await viewport(page));
        return boxes.every((b) => inside(b, pane) && b.height / zoom > 300);
      })
      .toBe(true);

    // Zoom and pan are kept for this project: a reload shows the same view, not a fit.
    const fitted = zoomOf(await viewport(page));
    await page.keyboard.press('+');
    const remembered = () => page.evaluate((id) => JSON.parse(localStorage.getItem(`image-canvas:viewport:${id}`) ?? 'null') as { zoom: number } | null, projectId);
    await expect
      .poll(async () => {
        const zoom = zoomOf(await viewport(page));
        return zoom > fitted && Math.abs(((await remembered())?.zoom ?? 0) - zoom) < 1e-5;
      })
      .toBe(true);
    const zoomed = await viewport(page);
    await page.reload();
    await node(page, 'n0').waitFor();
    await page.locator('.react-flow__node img').first().waitFor();
    await expect.poll(() => viewport(page), { timeout: WAIT }).toBe(zoomed);
  });

  it('moves the view to where the minimap is clicked, and with a drag on it', async () => {
    const { page } = await openSeeded('minimap@example.com', 'Minimap', [upload('a', 0, 0), upload('far', 4000, 2500)]);
    await node(page, 'a').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Shift+Digit2');
    await expect.poll(async () => inside(await box(node(page, 'far')), await paneBox(page))).toBe(false);

    // A click on the far node's place in the minimap brings it to the middle of the view.
    const far = await box(page.locator('.react-flow__minimap-node').nth(1));
    await page.mouse.click(far.x + far.width / 2, far.y + far.height / 2);
    await expect
      .poll(async () => {
        const c = centre(await box(node(page, 'far')));
        const p = centre(await paneBox(page));
        return Math.hypot(c.x - p.x, c.y - p.y);
      })
      .toBeLessThan(60);

    // A drag on the minimap moves the view.
    const before = await viewport(page);
    const minimap = await box(page.locator('.react-flow__minimap'));
    await page.mouse.move(minimap.x + minimap.width / 2, minimap.y + minimap.height / 2);
    await page.mouse.down();
    await page.mouse.move(minimap.x + minimap.width / 2 - 40, minimap.y + minimap.height / 2 - 20, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => viewport(page)).not.toBe(before);
  });
});
