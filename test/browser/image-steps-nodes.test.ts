// The crop, resize and adjust nodes in the page (issue 32 point 3; web/src/components/{crop,resize,adjust}-node.tsx):
// each is offered by the canvas's menu and added with data its kind takes; an adjust node's fields write its live
// data (a checked Grayscale, a typed brightness) that the REST view then shows, and a brightness over the kind's
// limit is marked invalid in the box and never stored.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('image-steps nodes', () => {
  const f = useBrowserFixture();

  /** Adds a node from the canvas's menu opened at a fraction of the pane's width (apart, so no node is under the next spot). */
  async function addFromMenu(page: Page, item: string, at: number) {
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.click(pane.x + pane.width * at, pane.y + 40, { button: 'right' });
    await page.getByRole('menu', { name: 'Canvas' }).getByRole('menuitem', { name: item }).click();
  }

  it('adds crop, resize and adjust nodes from the menu, and an adjust node’s fields write its live data', async () => {
    const owner = await f.app.user('steps@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Steps' })).json.id as string;
    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'steps@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await saved(page);

    await addFromMenu(page, 'Add crop node here', 0.03);
    await page.locator('.react-flow__node-crop').waitFor();
    await addFromMenu(page, 'Add resize node here', 0.36);
    await page.locator('.react-flow__node-resize').waitFor();
    await addFromMenu(page, 'Add adjust node here', 0.69);
    const adjust = page.locator('.react-flow__node-adjust');
    await adjust.waitFor();

    await adjust.getByRole('checkbox', { name: 'Grayscale' }).check();
    await adjust.getByRole('spinbutton', { name: 'Brightness (1 = as is)' }).fill('1.5');
    const contrast = adjust.getByRole('spinbutton', { name: 'Contrast (1 = as is)' });
    await contrast.fill('9');
    expect(await contrast.getAttribute('aria-invalid')).toBe('true');
    await saved(page);

    const canvas = (await restCanvas(page, projectId))!;
    const byType = Object.fromEntries(canvas.nodes.map((n) => [n.type, n.data]));
    expect(byType.crop).toEqual({ type: 'crop', x: 0, y: 0, width: 512, height: 512 });
    expect(byType.resize).toEqual({ type: 'resize', width: 512, fit: 'contain' });
    expect(byType.adjust).toEqual({ type: 'adjust', grayscale: true, brightness: 1.5 }); // contrast 9 never sent
    expect(errors).toEqual([]);
  });
});
