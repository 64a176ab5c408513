// Notices between people, in a browser (issue 34 points 7 and 9), with two people (two browser contexts: Ana, the
// owner, and Bob, an editor) on one canvas: a name once given stays with its node when another is deleted, for both;
// Bob is told in words when Ana makes him a viewer (and can no longer edit), an editor again, and when she removes
// him (his page says he no longer has access, with a way back to his projects); a restore says who made it to both,
// and Ana undoes it with the notice's Undo and with Ctrl+Z. Every wait is for what is seen.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { uploadFile } from '../helpers/http-client.js';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, solidPng, WAIT, type WatchedPage } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const node = (page: Page, name: string) => page.locator(`.react-flow__node[aria-label="${name}"]`);
const names = (page: Page) => page.locator('.react-flow__node').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));

describeInBrowser('notices between people in a browser', () => {
  const f = useBrowserFixture();

  /** A project of Ana's (with `nodes`, saved over REST), Bob invited as editor; both open it. */
  async function anaAndBob(name: string, nodes: unknown[] = []) {
    const ana = await f.app.user('ana@example.com', 'Ana');
    const projectId = (await ana.client.post('/api/user/project', { userId: ana.id, name })).json.id as string;
    if (nodes.length > 0) expect((await ana.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] })).status).toBe(200);
    expect((await ana.client.post(`/api/user/project/${projectId}/members`, { email: 'bob@example.com', role: 'editor' })).status).toBe(201);
    const open = async (email: string): Promise<WatchedPage> => {
      const watched = await newPage(await f.newContext(axeContext({ reducedMotion: 'reduce' }))); // axe runs on the notices
      await f.signIn(watched.page.context(), email);
      await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
      await watched.page.getByRole('toolbar', { name: 'Canvas tools' }).waitFor();
      await saved(watched.page);
      return watched;
    };
    const pages = { ana: await open('ana@example.com'), bob: await open('bob@example.com') };
    return { projectId, anaApi: ana.client, ...pages, bobPage: pages.bob.page, anaPage: pages.ana.page };
  }

  it('keeps a node’s name when another of its kind is deleted, for both', async () => {
    const { anaPage, bobPage } = await anaAndBob('Names');
    await anaPage.getByRole('button', { name: 'Add generation' }).click();
    await node(anaPage, 'Generate 1').waitFor();
    await anaPage.getByRole('button', { name: 'Add generation' }).click();
    await node(bobPage, 'Generate 2').waitFor();
    await node(anaPage, 'Generate 1').click({ position: { x: 40, y: 10 } });
    await anaPage.keyboard.press('Delete');
    for (const page of [anaPage, bobPage]) await expect.poll(() => names(page), { timeout: WAIT }).toEqual(['Generate 2']);
    // The next one is Generate 3: a number is not given twice while its node is there.
    await bobPage.getByRole('button', { name: 'Add generation' }).click();
    for (const page of [anaPage, bobPage]) await expect.poll(() => names(page), { timeout: WAIT }).toEqual(['Generate 2', 'Generate 3']);
  });

  it('tells Bob in words when Ana makes him a viewer, an editor again, and removes him', async () => {
    const { projectId, anaApi, bob, bobPage } = await anaAndBob('Roles');
    const members = `/api/user/project/${projectId}/members`;

    expect((await anaApi.post(members, { email: 'bob@example.com', role: 'viewer' })).status).toBe(200);
    await bobPage.getByRole('status').filter({ hasText: 'Ana changed your role. You can now only view this canvas.' }).waitFor();
    await bobPage.locator('.app-header').getByText('View only').waitFor();
    expect(await bobPage.getByRole('toolbar', { name: 'Canvas tools' }).count()).toBe(0);
    for (const scheme of ['light', 'dark'] as const) {
      await bobPage.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(bobPage), `role notice, ${scheme}`).toEqual([]);
    }

    expect((await anaApi.post(members, { email: 'bob@example.com', role: 'editor' })).status).toBe(200);
    await bobPage.getByRole('status').filter({ hasText: 'Ana changed your role. You can now edit this canvas.' }).waitFor();
    await bobPage.getByRole('toolbar', { name: 'Canvas tools' }).waitFor(); // without reloading the page

    expect((await anaApi.request(`${members}/bob@example.com`, { method: 'DELETE' })).status).toBe(204);
    await bobPage.getByText('Ana removed you from this project. You no longer have access to it.').waitFor();
    expect(await bobPage.getByText(/does not exist/).count()).toBe(0);
    await bobPage.getByRole('link', { name: 'Back to projects' }).click();
    await bobPage.waitForURL(`${f.app.baseUrl}/projects`);
    expect(bob.errors).toEqual([]);
  });

  it('the read-only link page follows a member’s edits live, and says so when the link is revoked', async () => {
    const generation = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'sepia' } };
    const { projectId, anaApi, anaPage } = await anaAndBob('Linked', [generation]);
    const { token } = (await anaApi.post(`/api/user/project/${projectId}/share-link`, {})).json as { token: string };
    const anonymous = await newPage(await f.newContext());
    await anonymous.page.goto(`${f.app.baseUrl}/shared/${token}`);
    await anonymous.page.getByRole('heading', { name: 'Linked' }).waitFor();
    await expect.poll(() => anonymous.page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('sepia');
    await anaPage.getByLabel('Prompt').fill('neon');
    await expect.poll(() => anonymous.page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('neon');
    await anaPage.getByRole('button', { name: 'Add generation' }).click();
    await expect.poll(() => anonymous.page.locator('.react-flow__node').count(), { timeout: WAIT }).toBe(2);
    expect((await anaApi.request(`/api/user/project/${projectId}/share-link`, { method: 'DELETE' })).status).toBe(204);
    await anonymous.page.getByText('This link is no longer valid.').waitFor();
    expect(anonymous.errors).toEqual([]);
  });

  it('says who restored a version to both, and Ana undoes it with Undo and with Ctrl+Z', async () => {
    const generation = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'sepia' } };
    const { ana, bob, anaPage, bobPage } = await anaAndBob('Restores', [generation]);
    const prompt = (page: Page) => page.getByLabel('Prompt').inputValue();
    await anaPage.getByRole('button', { name: 'History' }).click();
    const dialog = anaPage.getByRole('dialog', { name: 'History' });
    await dialog.getByLabel('Version name').fill('Sepia');
    await dialog.getByRole('button', { name: 'Name this version' }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Sepia' }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await bobPage.getByLabel('Prompt').fill('neon');
    await expect.poll(() => prompt(anaPage), { timeout: WAIT }).toBe('neon');
    await saved(bobPage);

    const restore = async () => {
      await anaPage.getByRole('button', { name: 'History' }).click();
      await dialog.getByRole('listitem').filter({ hasText: /^Sepia/ }).getByRole('button', { name: /^Preview/ }).click();
      await anaPage.getByRole('button', { name: 'Restore this version' }).click();
      await anaPage.getByRole('status').filter({ hasText: 'You restored “Sepia”.' }).waitFor();
      await bobPage.getByRole('status').filter({ hasText: 'Ana restored “Sepia”.' }).waitFor();
      expect(await bobPage.getByRole('status').filter({ hasText: 'restored' }).getByRole('button', { name: 'Undo' }).count()).toBe(0);
      for (const page of [anaPage, bobPage]) await expect.poll(() => prompt(page), { timeout: WAIT }).toBe('sepia');
    };
    const undone = async () => {
      await anaPage.getByRole('status').filter({ hasText: 'Restore undone' }).waitFor();
      for (const page of [anaPage, bobPage]) await expect.poll(() => prompt(page), { timeout: WAIT }).toBe('neon');
    };

    await restore();
    for (const scheme of ['light', 'dark'] as const) {
      await anaPage.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(anaPage), `restore notice, ${scheme}`).toEqual([]);
    }
    await anaPage.getByRole('status').filter({ hasText: 'You restored' }).getByRole('button', { name: 'Undo' }).click();
    await undone();

    await restore();
    await anaPage.keyboard.press('Control+z');
    await undone();
    expect(ana.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });

  it('compares two variants with a slider, and Use this brings back the older one’s prompt with its image', async () => {
    const owner = await f.app.user('vera@example.com', 'Vera');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Variants' })).json.id as string;
    const uploaded = await uploadFile(owner.client, await solidPng(32, 32, [200, 60, 60]));
    const nodes = [
      { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: uploaded.json.url } },
      { id: 'g', type: 'generation', position: { x: 360, y: 0 }, data: { type: 'generation', prompt: 'grayscale' } },
    ];
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'u', target: 'g' }] })).status).toBe(200);
    const made: string[] = [];
    for (const prompt of ['sepia', 'grayscale']) {
      const run = await owner.client.post('/api/generations', { images: [uploaded.json.url], prompt, projectId, nodeId: 'g' });
      expect(run.status, run.text).toBe(202);
      await expect.poll(async () => (await owner.client.get(`/api/generations/${run.json.id}`)).json.status, { timeout: 60_000 }).toBe('succeeded');
      made.push(run.json.id as string);
    }
    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'vera@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await saved(page);
    const node = page.locator('.react-flow__node[data-id="g"]');
    await node.getByRole('checkbox', { name: 'Compare variant 1' }).check();
    await node.getByRole('checkbox', { name: 'Compare variant 2' }).check();
    await node.getByRole('button', { name: 'Compare' }).click();
    const compare = page.getByRole('dialog', { name: 'Variants 1 and 2' });
    await compare.getByRole('slider', { name: 'Compare Variant 1 with Variant 2' }).waitFor();
    const use = compare.getByRole('button', { name: 'Use this (variant 1)' });
    // A button of its own size, not stretched across its column.
    const button = (await use.boundingBox())!;
    const column = (await compare.getByRole('figure', { name: 'Variant 1' }).boundingBox())!;
    expect(button.width).toBeLessThan(column.width / 2);
    await use.click();
    await compare.waitFor({ state: 'detached' });
    await expect.poll(() => node.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('sepia');
    await saved(page);
    const older = (await owner.client.get(`/api/generations/${made[0]}`)).json as { outputImageUrl?: string; result?: { url?: string } };
    const stored = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g')!;
    expect(stored.data.prompt).toBe('sepia');
    expect(JSON.stringify(older)).toContain(stored.data.image as string);
    expect(errors).toEqual([]);
  });
});
