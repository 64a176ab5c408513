// The live canvas in a browser, with two people (two browser contexts: the owner and an invited editor) on one
// project: a move in one shows in the other; a prompt edit and a concurrent move of the same node both survive
// (one of them made offline, merged on reconnect, the status saying so); each sees the other's avatar, pointer
// and selection; undo undoes only one's own change. An invited viewer sees changes live but cannot make any; the
// read-only link opened signed out shows the canvas; History names, previews and restores a version.
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, WAIT, type WatchedPage } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const nodes = [
  { id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
  { id: 'g', type: 'generation', position: { x: 420, y: 0 }, data: { type: 'generation', prompt: 'sepia' } },
];

/** A node's position as drawn (flow coordinates: the same text in every page, whatever its zoom). */
const transformOf = (node: Locator) => node.evaluate((el) => (el as HTMLElement).style.transform);

/** The flow position in a node's transform (`translate(Xpx, Ypx)`, as the browser writes it). */
function positionIn(transform: string): { x: number; y: number } {
  const match = /translate\((-?[\d.e+-]+)px, (-?[\d.e+-]+)px\)/.exec(transform);
  if (!match) throw new Error(`not a translate: ${transform}`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

/** Whether a stored position is the one drawn (the browser rounds what it writes). */
function expectAt(stored: { x: number; y: number }, transform: string): void {
  const drawn = positionIn(transform);
  expect(stored.x).toBeCloseTo(drawn.x, 2);
  expect(stored.y).toBeCloseTo(drawn.y, 2);
}

/** Drags a node by its title bar, as a person does with the mouse. */
async function drag(page: Page, nodeId: string, dx: number, dy: number): Promise<void> {
  const title = page.locator(`.react-flow__node[data-id="${nodeId}"] .canvas-node-title span`).first();
  const box = (await title.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2 + dy, { steps: 12 });
  await page.mouse.up();
}

describeInBrowser('the live canvas in a browser', () => {
  const f = useBrowserFixture();

  /** A project of ada's with two nodes (saved over REST), bob invited as editor; both open it. */
  async function twoPeople(name: string): Promise<{ projectId: string; ada: WatchedPage; bob: WatchedPage }> {
    const owner = await f.app.user('ada@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] })).status).toBe(200);
    expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: 'bob@example.com', role: 'editor' })).status).toBe(201);
    const open = async (email: string) => {
      const watched = await newPage(await f.newContext());
      await f.signIn(watched.page.context(), email);
      await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
      await watched.page.locator('.react-flow__node').nth(1).waitFor();
      await saved(watched.page);
      return watched;
    };
    return { projectId, ada: await open('ada@example.com'), bob: await open('bob@example.com') };
  }

  it('shows each one the other, and a move in one appears in the other', async () => {
    const { projectId, ada, bob } = await twoPeople('Together');

    // Presence: avatars in the header, a pointer with a name, a selection outline.
    await ada.page.getByRole('list', { name: 'People here' }).getByRole('img', { name: 'bob' }).waitFor();
    await bob.page.getByRole('list', { name: 'People here' }).getByRole('img', { name: 'ada' }).waitFor();
    const pane = (await ada.page.locator('.react-flow__pane').boundingBox())!;
    await ada.page.mouse.move(pane.x + 200, pane.y + pane.height - 120, { steps: 4 });
    await bob.page.locator('.remote-cursor[data-user="ada"]').getByText('ada').waitFor();
    await ada.page.locator('.react-flow__node[data-id="g"]').click({ position: { x: 40, y: 10 } });
    await bob.page.locator('.remote-selection[data-user="ada"][data-node-id="g"]').waitFor();
    await ada.page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height - 150, { steps: 4 });
    await bob.page.locator('.remote-cursor[data-user="ada"]').waitFor();
    await screenshot(bob.page, 'live-presence');
    await ada.page.mouse.move(pane.x + 5, pane.y + 5);
    await ada.page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await bob.page.locator('.remote-selection[data-user="ada"]').waitFor({ state: 'detached' });

    // Ada drags a node: Bob's canvas draws it at the same place, and the service has it.
    const before = await transformOf(bob.page.locator('.react-flow__node[data-id="a"]'));
    await drag(ada.page, 'a', 140, 90);
    const moved = await transformOf(ada.page.locator('.react-flow__node[data-id="a"]'));
    expect(moved).not.toBe(before);
    await expect.poll(() => transformOf(bob.page.locator('.react-flow__node[data-id="a"]')), { timeout: WAIT }).toBe(moved);
    await saved(ada.page);
    const stored = (await restCanvas(ada.page, projectId))!;
    expectAt(stored.nodes[0].position, moved);

    // Bob leaves: his avatar goes from Ada's header.
    await bob.page.close();
    await ada.page.getByRole('list', { name: 'People here' }).waitFor({ state: 'detached' });
    expect(ada.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });

  it('keeps a prompt edit and a concurrent move of the same node (made offline), and undoes only one’s own change', async () => {
    const { projectId, ada, bob } = await twoPeople('Concurrent');
    const adaG = ada.page.locator('.react-flow__node[data-id="g"]');
    const bobG = bob.page.locator('.react-flow__node[data-id="g"]');

    // Ada goes offline and moves the node; meanwhile Bob edits its prompt.
    await ada.page.context().setOffline(true);
    await ada.page.locator('.connection-status[data-state="offline"]').waitFor();
    await drag(ada.page, 'g', -100, 120);
    await ada.page.getByText('Offline — changes kept').waitFor();
    const adaMove = await transformOf(adaG);
    await bobG.getByLabel('Prompt').fill('grayscale');
    await saved(bob.page);
    expect(await transformOf(bobG)).not.toBe(adaMove); // Ada's move has not reached anyone

    // Back online: both changes on both sides, and in the service.
    await ada.page.context().setOffline(false);
    await ada.page.getByText('Connected', { exact: true }).waitFor();
    await saved(ada.page);
    await expect.poll(() => transformOf(bobG), { timeout: WAIT }).toBe(adaMove);
    await expect.poll(() => adaG.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('grayscale');
    expect(await transformOf(adaG)).toBe(adaMove);
    const merged = (await restCanvas(bob.page, projectId))!;
    expect(merged.nodes[1].data.prompt).toBe('grayscale');
    expectAt(merged.nodes[1].position, adaMove);

    // Bob moves the other node, Ada edits the prompt; Bob's undo takes back his move only.
    const adaA = ada.page.locator('.react-flow__node[data-id="a"]');
    const start = await transformOf(adaA);
    await drag(bob.page, 'a', 0, 200);
    await expect.poll(() => transformOf(adaA), { timeout: WAIT }).not.toBe(start);
    await adaG.getByLabel('Prompt').fill('grayscale, blur 2');
    await expect.poll(() => bobG.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('grayscale, blur 2');
    await bob.page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await bob.page.keyboard.press('Control+z');
    await expect.poll(() => transformOf(adaA), { timeout: WAIT }).toBe(start);
    expect(await bobG.getByLabel('Prompt').inputValue()).toBe('grayscale, blur 2');
    expect(await adaG.getByLabel('Prompt').inputValue()).toBe('grayscale, blur 2');
    expect(await transformOf(adaG)).toBe(adaMove); // Ada's move is not Bob's to undo
    // Bob's one other change, his prompt, Ada has typed over since: undoing skips it rather than take her work back.
    await bob.page.keyboard.press('Control+z');
    await expect.poll(() => bob.page.getByRole('button', { name: 'Undo' }).isDisabled(), { timeout: WAIT }).toBe(true);
    expect(await adaG.getByLabel('Prompt').inputValue()).toBe('grayscale, blur 2');
    // Redo brings his move back.
    await bob.page.keyboard.press('Control+Shift+z');
    await expect.poll(() => transformOf(adaA), { timeout: WAIT }).not.toBe(start);
    await saved(bob.page);
    expect(ada.errors).toEqual([]);
    expect(bob.errors).toEqual([]);
  });

  it('lets an invited viewer watch changes live without any way to edit; the link shows the canvas signed out', async () => {
    const owner = await f.app.user('olga@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Watched' })).json.id as string;
    await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] });
    expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: 'vera@example.com', role: 'viewer' })).status).toBe(201);

    const olga = await newPage(await f.newContext());
    await f.signIn(olga.page.context(), 'olga@example.com');
    await olga.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await saved(olga.page);
    const vera = await newPage(await f.newContext());
    await f.signIn(vera.page.context(), 'vera@example.com');
    await vera.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await vera.page.locator('.app-header').getByText('View only').waitFor();
    await vera.page.getByText('Connected', { exact: true }).waitFor();
    await olga.page.getByRole('list', { name: 'People here' }).getByRole('img', { name: 'vera' }).waitFor();

    // Olga's changes show at once on Vera's canvas.
    await olga.page.getByLabel('Prompt').fill('black and white');
    await expect.poll(() => vera.page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('black and white');
    await olga.page.getByRole('button', { name: 'Add generation' }).click();
    await expect.poll(() => vera.page.locator('.react-flow__node').count(), { timeout: WAIT }).toBe(3);

    // Vera has no tools, and neither dragging, Delete nor typing changes anything.
    expect(await vera.page.getByRole('toolbar', { name: 'Canvas tools' }).count()).toBe(0);
    expect(await vera.page.getByRole('button', { name: /^(Share|History|Undo|Generate|Delete image node|Delete generation node|Choose image)$/ }).count()).toBe(0);
    const prompt = vera.page.getByLabel('Prompt').first();
    expect(await prompt.getAttribute('readonly')).not.toBeNull();
    const node = vera.page.locator('.react-flow__node[data-id="a"]');
    const before = await transformOf(node);
    await drag(vera.page, 'a', 150, 100);
    await node.click({ position: { x: 40, y: 10 } });
    await vera.page.keyboard.press('Delete');
    await vera.page.keyboard.press('Control+z');
    expect(await transformOf(node)).toBe(before);
    expect(await vera.page.locator('.react-flow__node').count()).toBe(3);
    await saved(olga.page);
    const stored = (await restCanvas(olga.page, projectId))!;
    expect(stored.nodes.map((n) => n.id).slice(0, 2)).toEqual(['a', 'g']);
    expect(stored.nodes).toHaveLength(3);
    expectAt(stored.nodes[0].position, before);
    expect(vera.errors).toEqual([]);

    // The read-only link, opened signed out: the canvas as it is now.
    const { token } = (await owner.client.post(`/api/user/project/${projectId}/share-link`, {})).json as { token: string };
    const anonymous = await newPage(await f.newContext());
    await anonymous.page.goto(`${f.app.baseUrl}/shared/${token}`);
    await anonymous.page.getByRole('heading', { name: 'Watched' }).waitFor();
    await anonymous.page.locator('.react-flow__node').nth(2).waitFor();
    expect(await anonymous.page.getByLabel('Prompt').first().inputValue()).toBe('black and white');
    expect(await anonymous.page.getByRole('link', { name: 'Sign in' }).count()).toBe(1);
    expect(anonymous.errors).toEqual([]);
  });

  it('names a version, previews it and restores it for everyone', async () => {
    const { ada, bob } = await twoPeople('Versions');
    await ada.page.getByRole('button', { name: 'History' }).click();
    const dialog = ada.page.getByRole('dialog', { name: 'History' });
    await dialog.getByLabel('Version name').fill('Before the change');
    await dialog.getByRole('button', { name: 'Name this version' }).click();
    const named = dialog.getByRole('list', { name: 'Versions' }).getByRole('listitem').filter({ hasText: 'Before the change' });
    await named.getByText(/by you/).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();

    await bob.page.getByLabel('Prompt').fill('a different prompt');
    await expect.poll(() => ada.page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('a different prompt');

    await ada.page.getByRole('button', { name: 'History' }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Before the change' }).getByRole('button', { name: /^Preview/ }).click();
    const preview = ada.page.getByRole('dialog', { name: /Before the change/ });
    await preview.locator('.react-flow__node').nth(1).waitFor();
    expect(await preview.getByLabel('Prompt').inputValue()).toBe('sepia');
    await screenshot(ada.page, 'history-preview');
    await preview.getByRole('button', { name: 'Restore this version' }).click();
    await ada.page.getByRole('status').filter({ hasText: 'You restored “Before the change”' }).waitFor();
    for (const page of [ada.page, bob.page]) {
      await expect.poll(() => page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('sepia');
    }
    expect(ada.errors).toEqual([]);
  });
});
