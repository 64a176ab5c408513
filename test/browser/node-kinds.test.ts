// The web client reads the node-kind registry (issue 32, points 1 and 3; web/src/kinds/): a text node is added
// from the canvas's menu, its text typed and kept across a reload; its output connects into a generation node's
// prompt port (the edge names that port, and the generation node says its prompt is joined with the text); a
// connection between ports that do not fit (a text into the images input) is refused with the reason, beside the
// pointer while dragging and in the status line once let go, and nothing is stored; a node of a kind the page does
// not know (stored by a newer version) is drawn as an unknown node, never as an image node; a SPEC canvas (edges
// without handles) still draws its edges into the images input. A list node (issue 35) takes its items one per line.
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas } from '../../src/collab/canvas-doc.js';
import { describeInBrowser, newPage } from './browser.js';
import { node } from './canvas-shapes.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const centre = async (locator: Locator) => {
  const b = (await locator.boundingBox())!;
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
};

/** Drags from one handle to another with the mouse; `between` runs while the pointer is over the second. */
async function drag(page: Page, from: Locator, to: Locator, between?: () => Promise<void>): Promise<void> {
  const a = await centre(from);
  const b = await centre(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 12 });
  await between?.();
  await page.mouse.up();
}

describeInBrowser('node kinds from the registry', () => {
  const f = useBrowserFixture();

  async function openSeeded(email: string, nodes: object[], edges: object[] = []) {
    const owner = await f.app.user(email);
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Kinds' })).json.id as string;
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    const watched = await newPage(await f.newContext());
    await f.signIn(watched.page.context(), email);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.locator('.react-flow__node').nth(nodes.length - 1).waitFor();
    await saved(watched.page);
    return { ...watched, projectId };
  }

  it('adds a text node from the menu, keeps its text, joins it to a generation prompt and refuses a text into the images input, saying why', async () => {
    const generation = { id: 'g', type: 'generation', position: { x: 500, y: 0 }, data: { type: 'generation', prompt: 'sepia' } };
    const { page, errors, projectId } = await openSeeded('text@example.com', [generation]);

    // Add node: the canvas's menu offers every kind; a text node is added where the menu was opened.
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.click(pane.x + 120, pane.y + 120, { button: 'right' });
    const menu = page.getByRole('menu', { name: 'Canvas' });
    const items = (await menu.getByRole('menuitem').allTextContents()).map((t) => t.trim());
    expect(items).toEqual(expect.arrayContaining(['Add images here…', 'Add generation node here', 'Add text node here']));
    await menu.getByRole('menuitem', { name: 'Add text node here' }).click();
    const text = page.locator('.react-flow__node-text');
    await text.waitFor();
    const textId = (await text.getAttribute('data-id'))!;
    expect(await text.locator('.canvas-node-title span').textContent()).toBe('Text 1');

    // Typed live; stored as the kind's data; there after a reload.
    await text.getByRole('textbox', { name: 'Text', exact: true }).fill('a red fox in the snow');
    await saved(page);
    await expect.poll(async () => (await restCanvas(page, projectId))!.nodes.find((n) => n.id === textId)?.data).toEqual({ type: 'text', text: 'a red fox in the snow', number: 1 });
    await page.reload();
    await node(page, textId).waitFor();
    expect(await node(page, textId).getByRole('textbox', { name: 'Text', exact: true }).inputValue()).toBe('a red fox in the snow');
    await saved(page);

    // A generation node has a handle per input port: images (its default) and a text input for its prompt.
    const g = node(page, 'g');
    expect(await g.locator('.react-flow__handle.target').evaluateAll((els) => els.map((el) => el.getAttribute('data-handleid')))).toEqual(['images', 'prompt']);
    const output = node(page, textId).getByRole('button', { name: 'Output of Text 1: connect to a generation or edit node' });

    // Text into images: refused, with the reason beside the pointer and then in the status line; nothing stored.
    const hint = page.getByTestId('connect-hint');
    await drag(page, output, g.getByRole('button', { name: 'Input of Generate 1: connect images here' }), async () => {
      await page.locator('.connect-refusal-tip').waitFor();
      expect(await page.locator('.connect-refusal-tip').textContent()).toContain('does not fit the Images (images) input of Generate 1');
    });
    await expect.poll(() => hint.textContent()).toBe(
      'Not connected: The Text (text) output does not fit the Images (images) input of Generate 1. Connect it to “Prompt” instead.Dismiss',
    );
    expect(await page.locator('.react-flow__edge').count()).toBe(0);
    expect((await restCanvas(page, projectId))!.edges).toEqual([]);

    // Text into the prompt port: connected; the edge names the port (not the text's default output).
    await drag(page, output, g.getByRole('button', { name: 'Text input of Generate 1: connect texts here' }));
    await page.locator('.react-flow__edge').waitFor();
    await saved(page);
    const stored = (await restCanvas(page, projectId))!.edges;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ source: textId, target: 'g', targetHandle: 'prompt' });
    expect(stored[0].sourceHandle ?? null).toBeNull();
    // The status line no longer holds the refusal (a new connection started).
    expect(await hint.textContent()).not.toContain('Not connected');

    // The generation node says its prompt is joined with the text, and counts no image input for it.
    const joined = g.getByRole('group', { name: 'Joined texts' });
    await joined.waitFor();
    expect(await joined.textContent()).toContain('Text 1: “a red fox in the snow”');
    expect(await g.getByText('No inputs yet: connect images into the left handle.').count()).toBe(1);

    expect(errors).toEqual([]);
  });

  it('draws a node of a kind this page does not know (stored by a newer version) as such, and the rest as always', async () => {
    const owner = await f.app.user('newer@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Newer' })).json.id as string;
    // What a newer version of the service would have stored: its own kind beside an image node, an edge between them.
    const doc = new Y.Doc();
    addToCanvas(doc, {
      nodes: [
        { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
        { id: 'x', type: 'llm', position: { x: 500, y: 0 }, data: { type: 'llm', prompt: 'describe it' } },
      ],
      edges: [{ id: 'e1', source: 'u', target: 'x' }],
    });
    await f.app.pool.query('INSERT INTO collab_updates (project_id, update) VALUES ($1, $2)', [projectId, Buffer.from(Y.encodeStateAsUpdate(doc))]);

    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'newer@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const unknown = node(page, 'x');
    await unknown.getByText('A node of a kind this page does not know (“llm”).', { exact: false }).waitFor();
    expect(await unknown.locator('.canvas-node-title span').textContent()).toBe('Node 1');
    expect(await unknown.locator('.react-flow__handle').count()).toBe(0);
    await node(page, 'u').getByText('Drop an image here, or choose a file.').waitFor();
    // It can be deleted like any node.
    await unknown.getByRole('button', { name: 'Delete unknown node' }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('edits a list node’s items one per line, counting its items and the images connected to it', async () => {
    const nodes = [
      { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
      { id: 'l', type: 'list', position: { x: 500, y: 0 }, data: { type: 'list', items: ['red', 'green'] } },
    ];
    const { page, errors, projectId } = await openSeeded('list@example.com', nodes, [{ id: 'e1', source: 'u', target: 'l' }]);
    const list = node(page, 'l');
    const box = list.getByRole('textbox', { name: 'Items, one per line' });
    expect(await box.inputValue()).toBe('red\ngreen');
    await expect.poll(() => list.getByTestId('list-count').textContent()).toBe('2 items, 1 image connected');
    // A blank line is kept as typed but is no item.
    await box.fill('red\ngreen\n\nblue');
    await expect.poll(() => list.getByTestId('list-count').textContent()).toBe('3 items, 1 image connected');
    await saved(page);
    await expect.poll(async () => (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'l')?.data).toEqual({ type: 'list', items: ['red', 'green', '', 'blue'] });
    expect(errors).toEqual([]);
  });

  it('draws SPEC edges (no handles) into the images input, as before', async () => {
    const nodes = [
      { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
      { id: 'g', type: 'generation', position: { x: 500, y: 0 }, data: { type: 'generation' } },
    ];
    const { page, errors } = await openSeeded('spec@example.com', nodes, [{ id: 'e1', source: 'u', target: 'g' }]);
    await page.locator('.react-flow__edge').waitFor();
    await node(page, 'g').getByText('1 input', { exact: true }).waitFor();
    // The edge ends at the images handle (the first input), not the prompt's.
    const images = await centre(node(page, 'g').locator('.react-flow__handle[data-handleid="images"]'));
    const prompt = await centre(node(page, 'g').locator('.react-flow__handle[data-handleid="prompt"]'));
    const path = page.locator('.react-flow__edge path.react-flow__edge-path');
    const end = await path.evaluate((el: SVGPathElement) => {
      const p = el.getPointAtLength(el.getTotalLength());
      const m = el.getScreenCTM()!;
      return { x: p.x * m.a + m.e, y: p.y * m.d + m.f };
    });
    expect(Math.abs(end.y - images.y)).toBeLessThan(Math.abs(end.y - prompt.y));
    expect(Math.abs(end.y - images.y)).toBeLessThan(12);
    expect(errors).toEqual([]);
  });
});
