// The projects page (issue 19, point 5): each project shows the service's thumbnail of its canvas (drawn anew
// after an edit) and when it was last edited; the list sorts by last edited, name or creation and is searched by
// name; Create stays on the page and marks the new project, Create and open opens it; Rename starts with the
// whole name selected.
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { createProject, saved, useBrowserFixture } from './fixture.js';

const EMAIL = 'lister@example.com';

describeInBrowser('the projects page', () => {
  const f = useBrowserFixture();

  /** The names of the listed projects, in order. */
  const listed = (page: Page) => page.getByRole('list', { name: 'Your projects' }).locator('.project-name').allInnerTexts();
  const item = (page: Page, name: string) => page.getByRole('list', { name: 'Your projects' }).getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
  /** Waits until the item's thumbnail has loaded a 320×200 drawing; its address. */
  async function thumbnailLoaded(row: Locator): Promise<string> {
    const img = row.locator('.project-thumbnail img');
    await img.waitFor();
    await img.evaluate((el: HTMLImageElement) => el.decode());
    expect(await img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([320, 200]);
    return (await img.getAttribute('src'))!;
  }

  /** Three projects made over the API, in this order; then Alpha (the oldest) is edited. */
  async function threeProjects(page: Page) {
    const ids: Record<string, string> = {};
    for (const name of ['Alpha', 'Bravo', 'Charlie']) {
      const res = await page.request.post(`${f.app.baseUrl}/api/user/project`, { data: { userId: EMAIL, name } });
      expect(res.status()).toBe(200);
      ids[name] = (await res.json()).id;
    }
    const node = { id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } };
    expect((await page.request.post(`${f.app.baseUrl}/api/user/project/canvas`, { data: { projectId: ids.Alpha, nodes: [node], edges: [] } })).status()).toBe(200);
    return ids;
  }

  it('shows each project’s thumbnail and when it was last edited; sorts by last edited, name or creation; searches by name', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, EMAIL);
    await threeProjects(page);
    await page.goto(`${f.app.baseUrl}/projects`);

    // Last edited first (the default): Alpha was edited after Charlie and Bravo were created.
    await page.getByRole('list', { name: 'Your projects' }).waitFor();
    expect(await listed(page)).toEqual(['Alpha', 'Charlie', 'Bravo']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('edited');
    for (const name of ['Alpha', 'Bravo', 'Charlie']) {
      const row = item(page, name);
      expect(await row.locator('.last-edited').innerText()).toBe('Edited just now');
      expect(await row.locator('.last-edited time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(await thumbnailLoaded(row)).toContain(`/thumbnail?v=`);
    }
    await screenshot(page, 'projects-thumbnails');

    await page.getByLabel('Sort by').selectOption({ label: 'Name' });
    expect(await listed(page)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    await page.getByLabel('Sort by').selectOption({ label: 'Created' });
    expect(await listed(page)).toEqual(['Charlie', 'Bravo', 'Alpha']);
    // The choice is kept for the next visit.
    await page.reload();
    await page.getByRole('list', { name: 'Your projects' }).waitFor();
    expect(await page.getByLabel('Sort by').inputValue()).toBe('created');

    // Search: by name, any case; nothing found says so.
    await page.getByLabel('Search projects').fill('rAv');
    expect(await listed(page)).toEqual(['Bravo']);
    await page.getByLabel('Search projects').fill('zulu');
    await page.getByText('No project’s name holds “zulu”.').waitFor();
    await page.getByLabel('Search projects').fill('');
    expect(await listed(page)).toEqual(['Charlie', 'Bravo', 'Alpha']);
  });

  it('draws the thumbnail anew after the canvas is edited', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'editing@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await createProject(page, 'Sketch', { open: false });
    const row = item(page, 'Sketch');
    const before = await thumbnailLoaded(row);

    // An image added on the canvas, then back to the list (inside the app: the page is not reloaded).
    await row.getByRole('link', { name: 'Open Sketch' }).click();
    await page.getByText('Your canvas is empty.').waitFor();
    await page.getByLabel('Add images').setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: await solidPng(64, 64, [220, 30, 30]) });
    await page.getByAltText('Uploaded image').waitFor();
    await saved(page);
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    const after = await thumbnailLoaded(item(page, 'Sketch'));
    expect(after).not.toBe(before);
    // The new drawing shows the red image in the middle of the thumbnail.
    const red = await item(page, 'Sketch').locator('.project-thumbnail img').evaluate((img: HTMLImageElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context2d = canvas.getContext('2d')!;
      context2d.drawImage(img, 0, 0);
      return Array.from(context2d.getImageData(160, 100, 1, 1).data.slice(0, 3));
    });
    expect(red[0]).toBeGreaterThan(180);
    expect(red[1]).toBeLessThan(80);
  });

  it('Create stays on the page and marks the new project; Create and open opens it', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'creator@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);

    // A name is asked for.
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Give the project a name.' }).waitFor();

    await createProject(page, 'Stay here', { open: false });
    const fresh = item(page, 'Stay here');
    await fresh.getByText('New', { exact: true }).waitFor();
    expect(await fresh.getAttribute('class')).toContain('just-created');
    await page.getByRole('status').filter({ hasText: 'Created “Stay here”.' }).waitFor({ state: 'attached' });
    expect(new URL(page.url()).pathname).toBe('/projects');
    expect(await page.getByLabel('New project name').inputValue()).toBe('');

    await createProject(page, 'Go there');
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/, { timeout: WAIT });
    await page.getByText('Your canvas is empty.').waitFor();
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await expect.poll(() => listed(page), { timeout: WAIT }).toEqual(['Go there', 'Stay here']); // once the list has loaded
  });

  it('Rename opens with the whole name selected, so typing replaces it', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'renamer@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await createProject(page, 'Old name here', { open: false });
    await page.getByRole('button', { name: 'Rename Old name here' }).click();
    const field = page.getByLabel('Project name', { exact: true });
    await field.waitFor();
    expect(await field.evaluate((el: HTMLInputElement) => [document.activeElement === el, el.selectionStart, el.selectionEnd, el.value.length])).toEqual([true, 0, 13, 13]);
    await page.keyboard.type('Brand new');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Brand new', exact: true }).waitFor();
  });
});
