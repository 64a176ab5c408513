// Saving the live canvas in a browser: every edit goes through the live document and reaches the service (the
// REST view shows it, a reload shows it); two tabs editing at once both keep their edits; an old REST client with
// a stale version cannot overwrite live work (409), and a current one's save shows live in the editor; edits made
// offline are kept and sent when the network is back; a generation's result in every tab, and a reload in the
// middle of one; undo and redo. The offline engine runs in this process, so a test can hold a generation job.
import { afterAll, expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { heldOfflineEngine, restCanvas, saved, useBrowserFixture } from './fixture.js';

const engine = heldOfflineEngine();

describeInBrowser('saving the live canvas in a browser', () => {
  const f = useBrowserFixture({}, { imageModel: engine.model });
  afterAll(() => engine.release());

  it('two tabs edit at once and both keep their edits; a stale REST save is refused, a current one shows live', async () => {
    const context = await f.newContext();
    const a = await f.onNewCanvas(context, 'tabs@example.com', 'Two tabs');
    const projectId = a.url().split('/').at(-1)!;
    const { page: b } = await newPage(context);
    await b.goto(a.url());
    await b.getByText('Your canvas is empty.').waitFor();

    // A adds a node: B sees it at once, without a reload. B adds one and types a prompt: A sees both.
    await a.getByRole('button', { name: 'Add generation' }).click();
    await b.locator('.react-flow__node-generation').waitFor();
    await b.getByRole('button', { name: 'Add generation' }).click();
    await b.locator('.react-flow__node-generation').nth(1).getByLabel('Prompt').fill('from tab b');
    await expect.poll(() => a.locator('.react-flow__node-generation').count(), { timeout: WAIT }).toBe(2);
    await expect.poll(() => a.locator('.react-flow__node-generation').nth(1).getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('from tab b');
    expect(await a.getByText(/reload/i).count()).toBe(0); // no conflict any more: nothing to reload
    await saved(a);
    await saved(b);

    // The service has both (the REST view of the document), and a reload shows them.
    const stored = (await restCanvas(a, projectId))!;
    expect(stored.nodes.map((n) => n.data.prompt)).toEqual([undefined, 'from tab b']);
    await a.reload();
    await a.locator('.react-flow__node-generation').nth(1).waitFor();
    expect(await a.locator('.react-flow__node-generation').nth(1).getByLabel('Prompt').inputValue()).toBe('from tab b');

    // An old REST client saving with a version from before a live edit gets 409: the live edit stays.
    const api = (await f.app.user('tabs@example.com')).client;
    const before = (await api.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    await b.locator('.react-flow__node-generation').first().getByLabel('Prompt').fill('live edit');
    await saved(b);
    const stale = await api.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], version: before.version });
    expect(stale.status).toBe(409);
    await expect.poll(async () => (await restCanvas(a, projectId))!.nodes.map((n) => n.data.prompt), { timeout: WAIT }).toEqual(['live edit', 'from tab b']);
    expect(await a.locator('.react-flow__node-generation').count()).toBe(2);

    // With the current version its save goes through, and both tabs show it at once.
    const current = (await api.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    const edited = { ...current.nodes[1], data: { ...current.nodes[1].data, prompt: 'from rest' } };
    const save = await api.post('/api/user/project/canvas', { projectId, nodes: [edited], edges: [], version: current.version });
    expect(save.status).toBe(200);
    for (const page of [a, b]) {
      await expect.poll(() => page.locator('.react-flow__node-generation').count(), { timeout: WAIT }).toBe(1);
      await expect.poll(() => page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('from rest');
    }
  });

  it('keeps edits made while the network is down and sends them when it is back', async () => {
    const context = await f.newContext();
    const page = await f.onNewCanvas(context, 'offline@example.com', 'Offline');
    const projectId = page.url().split('/').at(-1)!;
    await page.getByRole('button', { name: 'Add generation' }).click();
    await saved(page);

    await context.setOffline(true);
    await page.locator('.connection-status[data-state="offline"]').getByText('Offline', { exact: true }).waitFor();
    await page.getByLabel('Prompt').fill('blur 3');
    await page.getByText('Offline — changes kept').waitFor();
    await screenshot(page, 'offline');
    // Nothing reached the service meanwhile.
    const api = (await f.app.user('offline@example.com')).client;
    expect((await api.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.prompt).toBeUndefined();

    await context.setOffline(false);
    await page.getByText('Connected', { exact: true }).waitFor();
    await saved(page);
    expect((await api.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.prompt).toBe('blur 3');
    await page.reload();
    await page.locator('.react-flow__node-generation').waitFor();
    expect(await page.getByLabel('Prompt').inputValue()).toBe('blur 3');
  });

  it('shows a generation’s result in every tab, and never a node still generating after a reload', async () => {
    const context = await f.newContext();
    const page = await f.onNewCanvas(context, 'reloader@example.com', 'Reloaded mid-way');
    const projectId = page.url().split('/').at(-1)!;
    const { page: other } = await newPage(context);
    await other.goto(page.url());
    await page.getByLabel('Add images').setInputFiles({ name: 'one.png', mimeType: 'image/png', buffer: await solidPng(24, 24, [90, 90, 200]) });
    await page.getByAltText('Uploaded image').waitFor();
    await page.getByRole('button', { name: 'Add generation' }).click();
    const source = (await page.locator('.react-flow__node-upload').getAttribute('data-id'))!;
    await page.locator(`.react-flow__node[data-id="${source}"]`).click();
    await page.locator('.react-flow__node-generation').click({ modifiers: ['Control'], position: { x: 40, y: 10 } });
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.getByLabel('Prompt').fill('sepia');

    // The service writes the result into the node: the other tab shows it too, and so does the REST view.
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const result = (await page.locator('.react-flow__node-generation').getByAltText('Generated image').getAttribute('src'))!;
    await expect.poll(() => other.locator('.react-flow__node-generation').getByAltText('Generated image').getAttribute('src'), { timeout: WAIT }).toBe(result);
    await saved(page);
    const generated = (await restCanvas(page, projectId))!.nodes.find((n) => n.type === 'generation');
    expect(generated.data.image).toBe(result);
    expect(generated.data.isGenerating ?? false).toBe(false);
    expect(generated.data.job ?? null).toBeNull();

    // A generation whose request never reaches the service (the route holds it): the tab is reloaded meanwhile,
    // and nothing of it is left, in this tab or the other.
    const node = page.locator('.react-flow__node-generation');
    const otherNode = other.locator('.react-flow__node-generation');
    const calls = engine.calls;
    await page.route('**/api/generations', () => undefined);
    await page.getByRole('button', { name: 'Generate again', exact: true }).click();
    await node.getByRole('status').filter({ hasText: 'Starting…' }).waitFor();
    await page.reload();
    await node.getByText('1 input').waitFor();
    await expect.poll(() => node.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
    expect(await node.getByRole('button', { name: 'Generate again', exact: true }).isEnabled()).toBe(true);
    expect(await otherNode.locator('.job-status').count()).toBe(0);
    expect(engine.calls).toBe(calls);
    await page.unroute('**/api/generations');

    // A job that runs (the model holds it): the tab is reloaded while it runs. The reloaded tab shows it running
    // from the live document (the previous result dimmed), and when it ends, both tabs show its result and
    // neither is left generating.
    engine.hold();
    await node.getByRole('button', { name: 'Generate again', exact: true }).click();
    await node.getByRole('status').filter({ hasText: /Running · \d+ s/ }).waitFor();
    await expect.poll(() => engine.calls, { timeout: WAIT }).toBe(calls + 1);
    await page.reload();
    await node.getByText('1 input').waitFor();
    for (const n of [node, otherNode]) {
      await n.getByRole('status').filter({ hasText: /Running · \d+ s/ }).waitFor();
      expect(await n.locator('.result.previous').getByAltText('Generated image').getAttribute('src')).toBe(result);
    }
    expect(await node.getByRole('button', { name: 'Cancel generation' }).isEnabled()).toBe(true);
    engine.release();
    for (const n of [node, otherNode]) {
      await expect.poll(() => n.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
      expect(await n.locator('.result.previous').count()).toBe(0);
      expect(await n.getByAltText('Generated image').getAttribute('src')).not.toBe(result);
      expect(await n.locator('.node-error').count()).toBe(0);
    }
    const again = (await node.getByAltText('Generated image').getAttribute('src'))!;
    expect(await otherNode.getByAltText('Generated image').getAttribute('src')).toBe(again);
    expect(await node.getByRole('button', { name: 'Generate again', exact: true }).isEnabled()).toBe(true);
    await expect.poll(async () => {
      const d = (await restCanvas(page, projectId))!.nodes.find((n) => n.type === 'generation').data;
      return [d.image, d.job ?? null, d.isGenerating ?? false];
    }, { timeout: WAIT }).toEqual([again, null, false]);
  });

  it('undoes and redoes with the keyboard and the toolbar', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'undo@example.com', 'History keys'); // not "Undo": the project's name is a button (rename) in the header
    const nodes = page.locator('.react-flow__node');
    await page.getByRole('button', { name: 'Add generation' }).click();
    await page.getByRole('button', { name: 'Add generation' }).click();
    await nodes.nth(1).waitFor();
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(2);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(0);
    await page.keyboard.press('Control+y');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    // Deleting with the node's own button is a step too.
    await page.getByRole('button', { name: 'Delete generation node' }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(0);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBe(1);
    // A prompt typed is one step (typing coalesces), and its undo leaves the node.
    await page.getByLabel('Prompt').pressSequentially('sepia');
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => page.getByLabel('Prompt').inputValue(), { timeout: WAIT }).toBe('');
    expect(await nodes.count()).toBe(1);
    await saved(page);
  });
});
