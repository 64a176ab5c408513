// A project's gallery in a browser (issue 17, point 5): reached from the canvas toolbar, it lists every
// generation into the project, newest first, with prompt, author, date and model; "Load more" pages; the search
// box finds by words of the prompt, and its query stays in the URL (a reload keeps it); each download link
// downloads the PNG under a name made of the project and the prompt. Someone without a role sees no gallery.
//
// The generations are made over the API (jobs into the project) by an in-process model answering a new colour
// per call; the test waits for each job to end, never for a time.
import sharp from 'sharp';
import { expect, it } from 'vitest';
import type { ImageModel } from '../../src/models/index.js';
import { describeInBrowser, newPage, publishScreenshot, screenshot, solidPng, WAIT } from './browser.js';
import { useBrowserFixture } from './fixture.js';

let calls = 0;
const colours: ImageModel = {
  id: 'colours',
  async generate() {
    calls++;
    const data = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: (calls * 83) % 256, g: 90, b: (calls * 41) % 256 } } }).png().toBuffer();
    return { image: { data, mimeType: 'image/png' } };
  },
};

describeInBrowser('the project gallery in a browser', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, { imageModel: colours });

  it('lists, pages, searches (kept in the URL) and downloads a project’s generations', async () => {
    const owner = await f.app.user('gina@example.com', 'Gina');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Album' })).json.id as string;
    const nodes = [{ id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation' } }];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] })).status).toBe(200);
    const image = `data:image/png;base64,${(await solidPng(8, 8, [200, 40, 40])).toString('base64')}`;
    const prompts = ['sunset over the sea', 'sepia portrait', 'sunset in the mountains'];
    for (const prompt of prompts) {
      // One after the other, so that "newest first" is the order they were asked for.
      const made = await owner.client.post('/api/generations', { images: [image], prompt, projectId, nodeId: 'g' });
      expect(made.status).toBe(202);
      await expect.poll(async () => (await owner.client.get(`/api/generations/${made.json.id}`)).json.status, { timeout: WAIT }).toBe('succeeded');
    }

    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'gina@example.com');
    // Pages of two, so that three generations need "Load more" (the service's own paging, asked for smaller).
    await page.route(/\/api\/projects\/[^/]+\/generations\?/, async (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('limit', '2');
      await route.continue({ url: url.toString() });
    });
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await page.getByRole('toolbar', { name: 'Canvas tools' }).getByRole('link', { name: 'Gallery' }).click();
    await page.waitForURL(`${f.app.baseUrl}/projects/${projectId}/gallery`);
    await page.getByRole('heading', { name: 'Gallery' }).waitFor();

    const list = page.getByRole('list', { name: 'Generations' });
    const prompt = list.locator('.gallery-prompt');
    await expect.poll(() => prompt.allTextContents(), { timeout: WAIT }).toEqual(['sunset in the mountains', 'sepia portrait']);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => prompt.allTextContents(), { timeout: WAIT }).toEqual(['sunset in the mountains', 'sepia portrait', 'sunset over the sea']);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const first = list.getByRole('listitem').first();
    expect(await first.textContent()).toMatch(/Gina · .+ · colours/);
    expect(await first.getByRole('img', { name: 'sunset in the mountains' }).getAttribute('src')).toMatch(/\.png$/);
    await publishScreenshot(await screenshot(page, 'gallery'), 'gallery'); // shown in the README

    // The download link: the service's route, and a PNG named after the project and the prompt.
    const link = list.getByRole('link', { name: 'Download “sepia portrait”' });
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^/api/projects/${projectId}/generations/[^/]+/download$`));
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/album/i);
    expect(download.suggestedFilename()).toMatch(/sepia.*portrait.*\.png$/i);
    const saved = await sharp(await download.path()).metadata();
    expect(saved.format).toBe('png');

    // Search: typing settles into the URL's `q`; the list is what matches.
    await page.getByRole('searchbox', { name: 'Search prompts' }).fill('sunset');
    await page.waitForURL(`${f.app.baseUrl}/projects/${projectId}/gallery?q=sunset`);
    const matching = page.getByRole('list', { name: 'Generations matching “sunset”' });
    await expect.poll(() => matching.locator('.gallery-prompt').allTextContents(), { timeout: WAIT }).toEqual(['sunset in the mountains', 'sunset over the sea']);

    // A reload keeps the search.
    await page.reload();
    await expect.poll(() => matching.locator('.gallery-prompt').allTextContents(), { timeout: WAIT }).toEqual(['sunset in the mountains', 'sunset over the sea']);
    expect(await page.getByRole('searchbox', { name: 'Search prompts' }).inputValue()).toBe('sunset');

    // Nothing matching says so; clearing the box lists everything again.
    await page.getByRole('searchbox', { name: 'Search prompts' }).fill('volcano');
    await page.getByText('No generations match “volcano”.').waitFor();
    await page.getByRole('searchbox', { name: 'Search prompts' }).fill('');
    await page.waitForURL(`${f.app.baseUrl}/projects/${projectId}/gallery`);
    await expect.poll(() => prompt.allTextContents(), { timeout: WAIT }).toEqual(['sunset in the mountains', 'sepia portrait']);
    expect(errors).toEqual([]);

    // Someone with no role on the project: no gallery.
    const { page: other } = await newPage(await f.newContext());
    await f.signIn(other.context(), 'stranger@example.com');
    await other.goto(`${f.app.baseUrl}/projects/${projectId}/gallery`);
    await other.getByText('This project does not exist, or it is not shared with you.').waitFor();
  });
});
