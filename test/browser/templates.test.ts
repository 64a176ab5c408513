// Templates in a browser: save a canvas as a template from the editor, find it on the projects page (another
// user too), start a project from it — its canvas has the template's nodes — and delete it as its author. The
// page lists templates without their canvases (GET /api/templates) and reads one canvas when it is used
// (GET /api/templates/:id); it never asks for the original system's list of whole canvases.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot } from './browser.js';
import { connectOneImageToGeneration, createProject, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('templates in a browser', () => {
  const f = useBrowserFixture();

  it('saves a canvas as a template, and another user starts a project from it', async () => {
    // The author builds a canvas (an image into a generation node with a prompt) and saves it as a template.
    const author = await newPage(await f.newContext());
    const page = author.page;
    await f.signIn(page.context(), 'author@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    expect(await page.getByRole('heading', { name: 'Start from a template' }).count()).toBe(0); // none yet
    await createProject(page, 'Sunset');
    await page.getByText('Your canvas is empty.').waitFor();
    expect(await page.getByRole('button', { name: 'Save as template' }).isDisabled()).toBe(true);
    const generation = await connectOneImageToGeneration(page);
    await generation.getByLabel('Prompt').fill('sepia');
    await saved(page);

    await page.getByRole('button', { name: 'Save as template' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as template' });
    expect(await dialog.getByLabel('Template name').inputValue()).toBe('Sunset');
    await dialog.getByLabel('Template name').fill('Warm sunset');
    await screenshot(page, 'save-as-template');
    await dialog.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as template “Warm sunset”' }).waitFor();
    expect(await dialog.count()).toBe(0);

    // On the projects page the author sees it, with a Delete button.
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { name: 'Start from a template' }).waitFor();
    const authorCard = page.locator('.template-card', { hasText: 'Warm sunset' });
    await authorCard.getByText('author (you)').waitFor();
    await authorCard.getByText('2 nodes, 1 connection').waitFor();
    expect(await authorCard.getByRole('button', { name: 'Delete template Warm sunset' }).count()).toBe(1);

    // Another user sees it (no Delete) and starts a project from it.
    const other = await newPage(await f.newContext());
    const asked: string[] = [];
    other.page.on('request', (req) => {
      const { pathname } = new URL(req.url());
      if (pathname.startsWith('/api/') && pathname.includes('templates')) asked.push(pathname);
    });
    await f.signIn(other.page.context(), 'reader@example.com');
    await other.page.goto(`${f.app.baseUrl}/projects`);
    const card = other.page.locator('.template-card', { hasText: 'Warm sunset' });
    await card.getByText('author', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await card.locator('.template-preview img').getAttribute('src')).toMatch(/\/files\//);
    await screenshot(other.page, 'templates-row');
    await card.getByRole('button', { name: 'Start a project from Warm sunset' }).click();
    await other.page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    const projectId = other.page.url().split('/').at(-1)!;
    // The page listed them (once for each time it was shown) and read the one canvas; never the list of canvases.
    expect(asked).toContain('/api/templates');
    expect(asked.filter((p) => p !== '/api/templates')).toEqual([expect.stringMatching(/^\/api\/templates\/[0-9a-f-]{36}$/)]);

    // The new project is named after the template, and its canvas holds the template's nodes and edge.
    await other.page.locator('.breadcrumb-current', { hasText: 'Warm sunset' }).waitFor();
    await other.page.getByAltText('Uploaded image').waitFor();
    await other.page.locator('.react-flow__node-generation').waitFor();
    expect(await other.page.locator('.react-flow__edge').count()).toBe(1);
    expect(await other.page.getByLabel('Prompt').inputValue()).toBe('sepia');
    // Stored as the reader's own project (the REST view of its live document, read with the reader's session).
    const own = await other.page.request.get(`${f.app.baseUrl}/api/user/project?userId=reader@example.com`);
    expect((await own.json()).map((p: { id: string }) => p.id)).toContain(projectId);
    const stored = await (await other.page.request.get(`${f.app.baseUrl}/api/user/project/canvas?projectId=${projectId}`)).json();
    expect(stored.nodes.map((n: { type: string }) => n.type).sort()).toEqual(['generation', 'upload']);
    expect(stored.nodes.find((n: { type: string }) => n.type === 'generation')?.data.prompt).toBe('sepia');
    expect(stored.edges).toHaveLength(1);
    await other.page.reload();
    await other.page.locator('.react-flow__node-generation').waitFor();
    expect(await other.page.locator('.react-flow__node').count()).toBe(2);

    // The author deletes the template; it is gone for everyone.
    await page.reload();
    await authorCard.getByRole('button', { name: 'Delete template Warm sunset' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('heading', { name: 'Start from a template' }).waitFor({ state: 'detached' });
    const listed = other.page.waitForResponse((res) => new URL(res.url()).pathname === '/api/templates');
    await other.page.goto(`${f.app.baseUrl}/projects`);
    expect(await (await listed).json()).toEqual([]);
    await other.page.getByRole('link', { name: 'Warm sunset', exact: true }).waitFor(); // the project started from it stays
    expect(await other.page.locator('.template-card').count()).toBe(0);

    expect(author.errors).toEqual([]);
    expect(other.errors).toEqual([]);
  });
});
