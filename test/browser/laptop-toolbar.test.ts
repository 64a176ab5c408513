// The editor's toolbar on a laptop screen (1280×800, the most common desktop width): every tool on one row, none
// cut off, the owner's Share included, and a note (a template saved) shown over the canvas without taking a row —
// a toolbar that wraps pushes the canvas down.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage } from './browser.js';
import { useBrowserFixture } from './fixture.js';

describeInBrowser('the editor toolbar on a laptop screen', () => {
  const f = useBrowserFixture();

  it('keeps every tool on one row at 1280 px, none cut off, and shows its note without growing', async () => {
    const context = await f.newContext({ viewport: { width: 1280, height: 800 } });
    const { page } = await newPage(context);
    await f.signIn(context, 'laptop@example.com');
    const created = await page.request.post(`${f.app.baseUrl}/api/user/project`, { data: { userId: 'laptop@example.com', name: 'Laptop' } });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`${f.app.baseUrl}/projects/${id}`);
    await page.getByText('Your canvas is empty.').waitFor();
    const toolbar = page.getByRole('toolbar', { name: 'Canvas tools' });
    // The owner sees every button, Share included.
    await toolbar.getByRole('button', { name: 'Share', exact: true }).waitFor();
    const oneRow = async () => {
      const boxes = await toolbar.locator('.button').evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ top: Math.round(r.top), right: r.right })));
      expect(boxes.length).toBeGreaterThanOrEqual(10);
      expect(new Set(boxes.map((b) => b.top)).size).toBe(1);
      for (const b of boxes) expect(b.right).toBeLessThanOrEqual(1280);
      expect(await toolbar.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    };
    await oneRow();
    const height = (await toolbar.boundingBox())!.height;

    // A note (here: a template saved) shows under the toolbar's end, inside the screen, and the toolbar keeps its size.
    await toolbar.getByRole('button', { name: 'Add generation' }).click();
    await toolbar.getByRole('button', { name: 'Save as template' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as template' });
    await dialog.getByRole('button', { name: 'Save template' }).click();
    const note = toolbar.getByRole('status').filter({ hasText: 'Saved as template' });
    await note.waitFor();
    await oneRow();
    expect((await toolbar.boundingBox())!.height).toBe(height);
    const box = (await note.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
    expect(box.y).toBeGreaterThanOrEqual(height);
  });
});
