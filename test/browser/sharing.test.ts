// Sharing in a browser: the owner invites a second user as viewer through the Share dialog (the service's
// refusals shown there) and makes a read-only link; the viewer finds the project under "Shared with me" and
// sees it "View only" — a node cannot be moved and nothing is saved; the link opened signed out shows the
// project and its nodes; once revoked, the link's page says it is no longer valid. An editor edits as the
// owner does (live, and stored), without the owner's Share.
import type { Page, Request } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot } from './browser.js';
import { connectOneImageToGeneration, saved, useBrowserFixture } from './fixture.js';

/** The canvas's pan and zoom, as xyflow applies them. */
const viewOf = (page: Page) => page.locator('.react-flow__viewport').evaluate((el) => (el as HTMLElement).style.transform);

/** Zooms the view with the wheel, reloads the page, and expects the same view once its nodes are back. */
async function rememberedAcrossReload(page: Page) {
  const pane = (await page.locator('.react-flow__pane').boundingBox())!;
  const before = await viewOf(page);
  await page.mouse.move(pane.x + 20, pane.y + 20); // clear of the nodes (the fit leaves a margin)
  await page.mouse.wheel(0, -300);
  await expect.poll(() => viewOf(page)).not.toBe(before);
  // The view is stored when the move ends (xyflow's onMoveEnd, after the wheel's zoom settles).
  const zoomed = await viewOf(page);
  const zoom = Number(/scale\(([\d.]+)\)/.exec(zoomed)![1]);
  const stored = () => page.evaluate(() => Object.entries(localStorage).filter(([k]) => k.startsWith('image-canvas:viewport:')).map(([, v]) => (JSON.parse(v) as { zoom: number }).zoom));
  // (The transform shows the zoom to 5 decimals.)
  await expect.poll(async () => (await stored()).some((z) => Math.abs(z - zoom) < 1e-4)).toBe(true);
  await page.reload();
  await page.getByAltText('Uploaded image').waitFor();
  expect(await viewOf(page)).toBe(zoomed);
}

describeInBrowser('sharing in a browser', () => {
  const f = useBrowserFixture();

  /** The canvas saves a page sends from now on. */
  const watchSaves = (page: Page) => {
    const saves: Request[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/user/project/canvas') saves.push(req);
    });
    return saves;
  };

  it('shares a project with a viewer and by a link, read-only both ways, until the link is revoked', async () => {
    // The owner builds a canvas: an image connected into a generation node.
    const ownerContext = await f.newContext();
    const page = await f.onNewCanvas(ownerContext, 'owner@example.com', 'Moodboard');
    const projectId = page.url().split('/').at(-1)!;
    await connectOneImageToGeneration(page);
    await saved(page);

    // Share: focus starts in the dialog; the service's refusals are shown there.
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “Moodboard”' });
    const email = dialog.getByLabel('Email');
    await email.waitFor();
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByText('owner', { exact: true }).waitFor(); // the owner heads the list (named after the email)
    await email.fill('not-an-email');
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Invalid email' }).waitFor();
    await email.fill('OWNER@example.com');
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'The owner cannot be invited' }).waitFor();

    // Invite the viewer; they are listed with their role and a Remove button.
    await email.fill('viewer@example.com');
    await dialog.getByLabel('Role').selectOption('viewer');
    await dialog.getByRole('button', { name: 'Invite' }).click();
    const member = dialog.getByRole('listitem').filter({ hasText: 'viewer@example.com' });
    await member.getByText('Viewer', { exact: true }).waitFor();
    expect(await member.getByRole('button', { name: 'Remove viewer@example.com' }).count()).toBe(1);
    expect(await dialog.getByRole('alert').count()).toBe(0);

    // A read-only link: the page's address (not the API's), shown once.
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const linkInput = dialog.getByRole('textbox', { name: 'Read-only link' });
    await linkInput.waitFor();
    const link = await linkInput.inputValue();
    expect(link).toMatch(new RegExp(`^${f.app.baseUrl}/shared/[A-Za-z0-9_-]{43}$`));
    await screenshot(page, 'share-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const ownerApi = (await f.app.user('owner@example.com')).client;
    const canvasBefore = (await ownerApi.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect(canvasBefore.nodes).toHaveLength(2);

    // The viewer sees it under "Shared with me", with the owner and the role, and opens it.
    const viewer = await newPage(await f.newContext());
    await f.signIn(viewer.page.context(), 'viewer@example.com');
    const saves = watchSaves(viewer.page);
    await viewer.page.goto(`${f.app.baseUrl}/projects`);
    const shared = viewer.page.getByRole('list', { name: 'Shared with me' });
    const item = shared.getByRole('listitem').filter({ hasText: 'Moodboard' });
    await item.getByText('Shared by owner (owner@example.com)').waitFor();
    await item.getByText('View only').waitFor();
    await item.getByRole('link', { name: 'Open Moodboard' }).click();
    await viewer.page.waitForURL(`${f.app.baseUrl}/projects/${projectId}`);

    // View only: the nodes are there, with no tools, no Share, no node controls.
    await viewer.page.locator('.app-header').getByText('View only').waitFor();
    await viewer.page.getByAltText('Uploaded image').waitFor();
    expect(await viewer.page.locator('.react-flow__node').count()).toBe(2);
    expect(await viewer.page.locator('.react-flow__edge').count()).toBe(1);
    expect(await viewer.page.getByRole('toolbar', { name: 'Canvas tools' }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: /^(Share|Generate|Delete image node|Choose image|Replace image)$/ }).count()).toBe(0);
    expect(await viewer.page.getByLabel('Prompt').getAttribute('readonly')).not.toBeNull();

    // Dragging a node does not move it (the view may pan), Delete does not remove it, and nothing is saved.
    const node = viewer.page.locator('.react-flow__node-upload');
    const position = () => node.evaluate((el) => (el as HTMLElement).style.transform);
    const before = await position();
    const box = (await node.boundingBox())!;
    await viewer.page.mouse.move(box.x + box.width / 2, box.y + 20);
    await viewer.page.mouse.down();
    await viewer.page.mouse.move(box.x + box.width / 2 + 150, box.y + 120, { steps: 10 });
    await viewer.page.mouse.up();
    await node.click({ position: { x: 40, y: 10 } });
    await viewer.page.keyboard.press('Delete');
    expect(await position()).toBe(before);
    expect(await viewer.page.locator('.react-flow__node').count()).toBe(2);
    expect(saves).toEqual([]);
    expect((await ownerApi.get(`/api/user/project/canvas?projectId=${projectId}`)).json).toEqual(canvasBefore);
    await screenshot(viewer.page, 'shared-view-only');
    // The view is remembered in this browser, as in the editor: zoomed, then opened again, it is where it was left.
    await rememberedAcrossReload(viewer.page);
    expect(viewer.errors).toEqual([]);

    // The link, signed out: the project's name and its nodes, read-only.
    const anonymous = await newPage(await f.newContext());
    await anonymous.page.goto(link);
    await anonymous.page.getByRole('heading', { name: 'Moodboard' }).waitFor();
    await anonymous.page.getByText('View only').waitFor();
    await anonymous.page.getByAltText('Uploaded image').waitFor();
    expect(await anonymous.page.locator('.react-flow__node').count()).toBe(2);
    expect(await anonymous.page.getByRole('link', { name: 'Sign in' }).count()).toBe(1);
    expect(await anonymous.page.getByRole('button', { name: 'Generate' }).count()).toBe(0);
    await rememberedAcrossReload(anonymous.page);
    expect(anonymous.errors).toEqual([]);

    // The owner revokes the link: its page now says so.
    await page.getByRole('button', { name: 'Share' }).click();
    await dialog.getByRole('button', { name: 'Revoke link' }).click();
    await dialog.getByRole('status').filter({ hasText: 'The read-only link no longer works' }).waitFor();
    await anonymous.page.reload();
    await anonymous.page.getByText('This link is no longer valid').waitFor();
    expect(await anonymous.page.locator('.react-flow__node').count()).toBe(0);
    // Still no save from the viewer's page (the view has no save path), and the canvas is as it was.
    expect(saves).toEqual([]);
    expect((await ownerApi.get(`/api/user/project/canvas?projectId=${projectId}`)).json).toEqual(canvasBefore);
  });

  it('lets an editor edit and save, without sharing', async () => {
    const owner = await f.app.user('boss@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Team board' })).json.id as string;
    expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: 'editor@example.com', role: 'editor' })).status).toBe(201);

    const editor = await newPage(await f.newContext());
    await f.signIn(editor.page.context(), 'editor@example.com');
    await editor.page.goto(`${f.app.baseUrl}/projects`);
    const item = editor.page.getByRole('list', { name: 'Shared with me' }).getByRole('listitem').filter({ hasText: 'Team board' });
    await item.getByText('Can edit').waitFor();
    await item.getByRole('link', { name: 'Open Team board' }).click();
    await editor.page.getByText('Your canvas is empty.').waitFor();
    expect(await editor.page.getByText('View only').count()).toBe(0);
    expect(await editor.page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    await editor.page.getByRole('button', { name: 'Add generation' }).click();
    await editor.page.getByLabel('Prompt').fill('teamwork');
    await saved(editor.page);
    const canvas = (await owner.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect(canvas.nodes.map((n: { data: { prompt?: string } }) => n.data.prompt)).toEqual(['teamwork']);
    expect(editor.errors).toEqual([]);
  });
});
