// The compose node's editor in the page (issue 36 point 3; web/src/components/compose-node.tsx): the images wired into
// it are layers on its stage; dragging a layer with the mouse moves it (its data.layers entry written once, when the
// drag ends), its corner handle resizes it, the arrow keys nudge the focused layer (1 px, Shift 10 px), moving a
// layer up swaps its edge and its entry with the one above, and a second page on the same canvas sees each change;
// the page stays axe-clean. One app start; the canvas is made over REST.
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('compose node', () => {
  const f = useBrowserFixture();

  it('drags a layer with the mouse, nudges it with the arrow keys, moves a layer up; a second page sees each change; axe-clean', async () => {
    const ada = await f.app.user('compose@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Compose' })).json.id as string;
    const upload = async (name: string, width: number, height: number, background: { r: number; g: number; b: number }) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await sharp({ create: { width, height, channels: 3, background } }).png().toBuffer())], { type: 'image/png' }), `${name}.png`);
      return (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    };
    const [red, green] = await Promise.all([upload('red', 120, 80, { r: 200, g: 30, b: 30 }), upload('green', 30, 30, { r: 30, g: 180, b: 60 })]);
    const nodes = [
      { id: 'r', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: red } },
      { id: 'g', type: 'upload', position: { x: 0, y: 320 }, data: { type: 'upload', image: green } },
      { id: 'c', type: 'compose', position: { x: 380, y: 0 }, data: { type: 'compose', width: 120, height: 80, layers: [{ x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal' }, { x: 10, y: 10, scale: 1, opacity: 1, blend: 'normal', name: 'Leaf' }] } },
    ];
    const edges = [
      { id: 'e1', source: 'r', target: 'c', targetHandle: 'images' },
      { id: 'e2', source: 'g', target: 'c', targetHandle: 'images' },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);

    const open = async () => {
      const { page, errors } = await newPage(await f.newContext(axeContext()));
      await f.signIn(page.context(), 'compose@example.com');
      await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
      return { page, errors };
    };
    const a = await open();
    const b = await open();
    const leafOf = (page: typeof a.page) => page.locator('.react-flow__node[data-id="c"] .compose-layer[data-layer="1"]');
    const leaf = leafOf(a.page);
    await expect.poll(async () => (await leaf.boundingBox())?.width ?? 0, { timeout: WAIT }).toBeGreaterThan(0); // its image loaded, so it has a size

    // Drag it right by 30 composition pixels and down by 15, in screen pixels as the stage is drawn.
    const stage = (await a.page.locator('.react-flow__node[data-id="c"] .compose-stage').boundingBox())!;
    const perPixel = stage.width / 120;
    const box = (await leaf.boundingBox())!;
    await a.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await a.page.mouse.down();
    for (let i = 1; i <= 5; i++) await a.page.mouse.move(box.x + box.width / 2 + (30 * perPixel * i) / 5, box.y + box.height / 2 + (15 * perPixel * i) / 5);
    await a.page.mouse.up();
    const layer = async () => ((await restCanvas(a.page, projectId))!.nodes.find((n) => n.id === 'c')!.data.layers as Array<{ x: number; y: number }>)[1];
    await saved(a.page);
    const dragged = await layer();
    expect(Math.abs(dragged.x - 40)).toBeLessThanOrEqual(1);
    expect(Math.abs(dragged.y - 25)).toBeLessThanOrEqual(1);
    await leafOf(b.page).and(b.page.locator(`[aria-label="Leaf at ${dragged.x}, ${dragged.y}, scale 1"]`)).waitFor({ timeout: WAIT });

    // The focused layer moves 1 px with an arrow key and 10 px with Shift.
    await leaf.focus();
    await a.page.keyboard.press('ArrowRight');
    await a.page.keyboard.press('Shift+ArrowDown');
    const nudged = `Leaf at ${dragged.x + 1}, ${dragged.y + 10}, scale 1`;
    await leafOf(b.page).and(b.page.locator(`[aria-label="${nudged}"]`)).waitFor({ timeout: WAIT });
    await saved(a.page);
    expect(await layer()).toMatchObject({ x: dragged.x + 1, y: dragged.y + 10, name: 'Leaf' });
    // The first layer kept as it was: the editor writes every layer it shows, unchanged ones too.
    expect(((await restCanvas(a.page, projectId))!.nodes.find((n) => n.id === 'c')!.data.layers as unknown[])[0]).toEqual({ x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal' });

    // Moving the bottom layer up swaps it with the one above: their edges change places, and their data.layers entries.
    await a.page.locator('.react-flow__node[data-id="c"]').getByRole('button', { name: 'Move Layer 1 up' }).click();
    await b.page.locator(`.react-flow__node[data-id="c"] .compose-layer[data-layer="0"][aria-label="${nudged}"]`).waitFor({ timeout: WAIT });
    // Each page draws each layer's own image: the leaf (30×30, scale 1) is 30 composition pixels wide at the bottom.
    for (const page of [a.page, b.page]) {
      const bottom = page.locator('.react-flow__node[data-id="c"] .compose-layer[data-layer="0"]');
      await expect.poll(async () => Math.round(((await bottom.boundingBox())?.width ?? 0) / ((await page.locator('.react-flow__node[data-id="c"] .compose-stage').boundingBox())!.width / 120)), { timeout: WAIT }).toBe(30);
    }
    await saved(a.page);
    const reordered = (await restCanvas(a.page, projectId))!;
    expect(reordered.edges.filter((e) => e.target === 'c').map((e) => e.source)).toEqual(['g', 'r']);
    expect(reordered.nodes.find((n) => n.id === 'c')!.data.layers).toEqual([
      { x: dragged.x + 1, y: dragged.y + 10, scale: 1, opacity: 1, blend: 'normal', name: 'Leaf' },
      { x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal' },
    ]);

    // Its corner handle resizes it: dragged right by 15 composition pixels, the 30 px wide leaf is scaled by 1.5.
    await a.page.locator('.react-flow__node[data-id="c"] .compose-layer[data-layer="0"]').focus(); // selected: its handle shows
    const handle = a.page.locator('.react-flow__node[data-id="c"] .compose-handle');
    const h = (await handle.boundingBox())!;
    await a.page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await a.page.mouse.down();
    for (let i = 1; i <= 5; i++) await a.page.mouse.move(h.x + h.width / 2 + (15 * perPixel * i) / 5, h.y + h.height / 2);
    await a.page.mouse.up();
    await expect.poll(async () => ((await restCanvas(a.page, projectId))!.nodes.find((n) => n.id === 'c')!.data.layers as Array<{ scale: number }>)[0].scale, { timeout: WAIT }).toBeCloseTo(1.5, 1);

    // Checked at the canvas's own 100 % (Shift+0), as the accessibility suite does: the view's zoom scales every control.
    await a.page.locator('.react-flow').focus();
    await a.page.keyboard.press('Shift+Digit0');
    await expect.poll(() => a.page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform), { timeout: WAIT }).toMatch(/^matrix\(1, 0, 0, 1,/);
    expect(await seriousViolations(a.page)).toEqual([]);
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });
});
