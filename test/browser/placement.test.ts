// Where new nodes go and how nodes are arranged (issue 34 points 2, 3 and 7), through real mouse, keyboard, drop
// and clipboard input: Add generation on a view full of images lands clear of them (the view follows it); a
// generation node made from an image's output lands right of the image even when the connection was let go to its
// left; six files dropped at once land as a 3 × 2 grid named Image 1…6 in the files' order although the first one
// finishes uploading last; Ctrl+D and a paste of a generation node keep its input's edge and overlap nothing; Tidy
// up leaves no overlaps and dependency columns, Align lines nodes up, and each is one undo step.
import type { BrowserContextOptions, Locator, Page, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, solidPng } from './browser.js';
import { box, emptyPoint, generation, intersects, node, nodeIds, upload } from './canvas-shapes.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

/** Whether the node is drawn wholly inside the canvas. */
async function inPane(page: Page, locator: Locator): Promise<boolean> {
  const b = await box(locator);
  const pane = await box(page.locator('.react-flow__pane'));
  return b.x >= pane.x - 1 && b.y >= pane.y - 1 && b.x + b.width <= pane.x + pane.width + 1 && b.y + b.height <= pane.y + pane.height + 1;
}

/** Every pair of nodes drawn on top of each other, by id (none expected). */
async function overlapping(page: Page): Promise<string[]> {
  const boxes = await page.locator('.react-flow__node').evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { id: el.getAttribute('data-id')!, x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  const pairs: string[] = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) if (intersects(boxes[i], boxes[j])) pairs.push(`${boxes[i].id} × ${boxes[j].id}`);
  return pairs;
}

describeInBrowser('placement and arranging', () => {
  const f = useBrowserFixture();

  async function uploaded(email: string, rgb: [number, number, number]): Promise<string> {
    const { client } = await f.app.user(email);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await solidPng(32, 32, rgb))], { type: 'image/png' }), 'image.png');
    return (await client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
  }

  /** A project of `email`'s holding `nodes` and `edges` (saved over REST), opened in a new browser context. */
  async function openSeeded(email: string, name: string, nodes: object[], edges: object[] = [], options: BrowserContextOptions = {}) {
    const owner = await f.app.user(email);
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    const watched = await newPage(await f.newContext(options));
    await f.signIn(watched.page.context(), email);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.locator('.react-flow__node').nth(nodes.length - 1).waitFor();
    await saved(watched.page);
    return { ...watched, projectId };
  }

  it('adds a generation node clear of the images filling the view, and one made from an image right of it', async () => {
    const email = 'crowded@example.com';
    const image = await uploaded(email, [200, 80, 40]);
    // 18 images, 6 × 3, seen at 100 %: the view holds nothing but images.
    const images = Array.from({ length: 18 }, (_, i) => upload(`i${i}`, (i % 6) * 300, Math.floor(i / 6) * 370, image));
    const { page, errors, projectId } = await openSeeded(email, 'Crowded', images, [], { reducedMotion: 'reduce' }); // view moves at once
    // Shift+0 (100 %) once the first fit, which waits for the images, has happened: pressed until it holds.
    await expect
      .poll(
        async () => {
          await page.locator('.react-flow').focus();
          await page.keyboard.press('Shift+Digit0');
          return page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform);
        },
        { timeout: 30_000 },
      )
      .toMatch(/^matrix\(1, 0, 0, 1,/);

    await page.getByRole('button', { name: 'Add generation' }).click();
    const added = page.locator('.react-flow__node-generation');
    await added.waitFor();
    expect(await overlapping(page)).toEqual([]);
    // The view follows it: drawn inside the canvas.
    await expect.poll(() => inPane(page, added), { timeout: 30_000 }).toBe(true);
    const pane = await box(page.locator('.react-flow__pane'));

    // A connection from an image's output let go to its LEFT, then "Add generation node here": right of the image.
    await page.keyboard.press('Control+z');
    await expect.poll(() => added.count(), { timeout: 30_000 }).toBe(0);
    await page.keyboard.press('Shift+Digit1');
    const source = node(page, 'i0');
    const handle = await box(source.locator('.react-flow__handle.source'));
    const left = await box(source);
    const drop = await emptyPoint(page, { x: Math.max(pane.x + 30, left.x - 60), y: left.y + left.height / 2 });
    expect(drop.x).toBeLessThan(left.x);
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(drop.x, drop.y, { steps: 12 });
    await page.mouse.up();
    await page.getByRole('menu', { name: 'New connection' }).getByRole('menuitem', { name: 'Add generation node here' }).click();
    await added.getByText('1 input').waitFor();
    await saved(page);
    const canvas = (await restCanvas(page, projectId))!;
    const made = canvas.nodes.find((n) => n.type === 'generation');
    expect(made.position.x).toBeGreaterThanOrEqual(0 + 260 + 80); // i0 is at x 0, 260 wide
    expect(await overlapping(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('lands six files dropped at once as a grid named Image 1…6 in the files’ order, the first finishing last', async () => {
    const { page, errors, projectId } = await openSeeded('grid@example.com', 'Grid', [generation('g', 0, 0)]);
    // The first file's upload is held until the other five are stored.
    const urls = new Map<string, string>();
    let held: Route | undefined;
    const store = async (route: Route, name: string) => {
      const response = await route.fetch();
      urls.set(name, ((await response.json()) as { url: string }).url);
      await route.fulfill({ response });
    };
    await page.route('**/api/upload', async (route) => {
      const name = /filename="([^"]+)"/.exec(route.request().postDataBuffer()?.toString('latin1') ?? '')?.[1] ?? '';
      if (name === 'f1.png') held = route;
      else await store(route, name);
    });
    const pngs = await Promise.all([1, 2, 3, 4, 5, 6].map(async (i) => (await solidPng(24, 24, [i * 40, 100, 200 - i * 30])).toString('base64')));
    const files = await page.evaluateHandle((list) => {
      const transfer = new DataTransfer();
      list.forEach((base64, i) => transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], `f${i + 1}.png`, { type: 'image/png' })));
      return transfer;
    }, pngs);
    const pane = await box(page.locator('.react-flow__pane'));
    const at = await emptyPoint(page, { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2 });
    await page.dispatchEvent('.react-flow__pane', 'dragover', { dataTransfer: files, clientX: at.x, clientY: at.y });
    await page.dispatchEvent('.react-flow__pane', 'drop', { dataTransfer: files, clientX: at.x, clientY: at.y });
    // Five stored (only the first left in the upload tray), then the first.
    await expect.poll(() => urls.size, { timeout: 30_000 }).toBe(5);
    await expect.poll(() => page.locator('.upload-tray .upload-entry').count(), { timeout: 30_000 }).toBe(1);
    expect(held).toBeDefined();
    await store(held!, 'f1.png');
    await expect.poll(() => page.locator('.react-flow__node-upload').count(), { timeout: 30_000 }).toBe(6);
    await saved(page);

    const canvas = (await restCanvas(page, projectId))!;
    const images = canvas.nodes.filter((n) => n.type === 'upload');
    // In document order (which names them): file 1 … file 6.
    expect(images.map((n) => n.data.image)).toEqual([1, 2, 3, 4, 5, 6].map((i) => urls.get(`f${i}.png`)));
    for (const [i, n] of images.entries()) expect(await node(page, n.id).getAttribute('aria-label')).toBe(`Image ${i + 1}`);
    // A grid of 3 columns and 2 rows, row by row.
    const { x, y } = images[0].position;
    expect(images.map((n) => ({ dx: n.position.x - x, dy: n.position.y - y }))).toEqual([
      { dx: 0, dy: 0 },
      { dx: 300, dy: 0 },
      { dx: 600, dy: 0 },
      { dx: 0, dy: 370 },
      { dx: 300, dy: 370 },
      { dx: 600, dy: 370 },
    ]);
    await page.getByAltText('Uploaded image').last().evaluate((img: HTMLImageElement) => img.decode());
    expect(await overlapping(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('keeps the input of a generation node duplicated with Ctrl+D or copied and pasted, and overlaps nothing', async () => {
    const email = 'dup@example.com';
    const image = await uploaded(email, [20, 160, 90]);
    const { page, errors, projectId } = await openSeeded(
      email,
      'Duplicate',
      [upload('u', 0, 0, image), generation('g', 400, 0, 'grayscale')],
      [{ id: 'e', source: 'u', target: 'g' }],
      { reducedMotion: 'reduce' },
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.app.baseUrl });

    await node(page, 'g').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Control+d');
    await expect.poll(() => nodeIds(page).then((ids) => ids.length), { timeout: 30_000 }).toBe(3);
    const duplicate = (await nodeIds(page)).find((id) => id !== 'u' && id !== 'g')!;
    await node(page, duplicate).getByText('1 input').waitFor();
    await saved(page);
    let canvas = (await restCanvas(page, projectId))!;
    expect(canvas.edges.filter((e) => e.target === duplicate).map((e) => e.source)).toEqual(['u']);
    expect(canvas.nodes.find((n) => n.id === duplicate).position.x).toBeGreaterThanOrEqual(260 + 80);
    expect(await overlapping(page)).toEqual([]);

    // Copy g, paste with the pointer over the image: the copy keeps its input too, moved clear of the image. (The
    // view followed the duplicate: fitted again first.)
    await page.keyboard.press('Shift+Digit1');
    await expect.poll(() => inPane(page, node(page, 'g')), { timeout: 30_000 }).toBe(true);
    await node(page, 'g').click({ position: { x: 40, y: 10 } });
    await page.keyboard.press('Control+c');
    const u = await box(node(page, 'u'));
    await page.mouse.move(u.x + u.width / 2, u.y + u.height / 2);
    await page.keyboard.press('Control+v');
    await expect.poll(() => nodeIds(page).then((ids) => ids.length), { timeout: 30_000 }).toBe(4);
    const pasted = (await nodeIds(page)).find((id) => !['u', 'g', duplicate].includes(id))!;
    await node(page, pasted).getByText('1 input').waitFor();
    await saved(page);
    canvas = (await restCanvas(page, projectId))!;
    expect(canvas.edges.filter((e) => e.target === pasted).map((e) => e.source)).toEqual(['u']);
    expect(await overlapping(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('tidies the canvas up into dependency columns with no overlaps, aligns a selection, each one undo step', async () => {
    // Piled up: two images into g1, g1 into g2, and a text on its own.
    const seeded = [upload('i1', 0, 0), generation('g2', 60, 40), upload('i2', 30, 20), generation('g1', 90, 60), { id: 't', type: 'text', position: { x: 120, y: 80 }, data: { type: 'text', text: 'note' } }];
    const edges = [
      { id: 'e1', source: 'i1', target: 'g1' },
      { id: 'e2', source: 'i2', target: 'g1' },
      { id: 'e3', source: 'g1', target: 'g2' },
    ];
    const { page, errors, projectId } = await openSeeded('tidy@example.com', 'Tidy', seeded, edges);
    const positions = async () => Object.fromEntries((await restCanvas(page, projectId))!.nodes.map((n) => [n.id, n.position]));
    const before = await positions();
    expect((await overlapping(page)).length).toBeGreaterThan(0);

    const pane = await box(page.locator('.react-flow__pane'));
    const spot = await emptyPoint(page, { x: pane.x + 40, y: pane.y + pane.height - 60 });
    await page.mouse.click(spot.x, spot.y, { button: 'right' });
    await page.getByRole('menu', { name: 'Canvas' }).getByRole('menuitem', { name: 'Tidy up' }).click();
    await expect.poll(() => overlapping(page), { timeout: 30_000 }).toEqual([]);
    await saved(page);
    const tidied = await positions();
    expect(tidied.i1.x).toBe(tidied.i2.x);
    expect(tidied.t.x).toBe(tidied.i1.x);
    expect(tidied.g1.x).toBeGreaterThanOrEqual(tidied.i1.x + 260);
    expect(tidied.g2.x).toBeGreaterThanOrEqual(tidied.g1.x + 260);

    // One undo step puts every node back.
    const stored = async () => {
      await saved(page);
      return positions();
    };
    await page.keyboard.press('Control+z');
    await expect.poll(stored, { timeout: 30_000 }).toEqual(before);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(stored, { timeout: 30_000 }).toEqual(tidied);

    // Align bottom edges: the selection's menu, "Align and distribute…".
    await node(page, 'i1').click({ position: { x: 40, y: 10 } });
    await node(page, 'g1').click({ position: { x: 40, y: 10 }, modifiers: ['Shift'] });
    await node(page, 'g2').click({ position: { x: 40, y: 10 }, modifiers: ['Shift'] });
    await node(page, 'g2').click({ button: 'right', position: { x: 60, y: 12 } });
    await page.getByRole('menu', { name: '3 nodes' }).getByRole('menuitem', { name: 'Align and distribute…' }).click();
    const arrangeMenu = page.getByRole('menu', { name: 'Align and distribute' });
    expect((await arrangeMenu.getByRole('menuitem').allTextContents()).map((t) => t.trim())).toEqual([
      'Align left edges',
      'Align centres',
      'Align right edges',
      'Align top edges',
      'Align middles',
      'Align bottom edges',
      'Distribute horizontally',
      'Distribute vertically',
    ]);
    await arrangeMenu.getByRole('menuitem', { name: 'Align bottom edges' }).click();
    const bottoms = () => Promise.all(['i1', 'g1', 'g2'].map(async (id) => Math.round((await box(node(page, id))).y + (await box(node(page, id))).height)));
    await expect.poll(async () => new Set(await bottoms()).size, { timeout: 30_000 }).toBe(1);
    await saved(page);
    expect(await positions()).not.toEqual(tidied);
    await page.keyboard.press('Control+z');
    await expect.poll(stored, { timeout: 30_000 }).toEqual(tidied);
    expect(errors).toEqual([]);
  });
});
