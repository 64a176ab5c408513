// Stale marks, seeds and counts in the editor (issue 35 points 2–4; web/src/canvas/marks.ts, components/node-mark.tsx,
// seed-field.tsx, count-field.tsx), with two people on one canvas (Ana, the owner, and Bob, an editor): a chain
// upload → adjust → adjust → generation whose results were made for their keys shows no mark; a changed adjust
// setting marks that node and everything after it "Out of date" for both, nothing before it; a replaced upload
// image then marks everything after it; a run (POST /api/projects/{id}/runs) takes the marks away from what it made. A generation node shows its seed (editing it marks the node out of date,
// 🎲 draws another), a new one gets a seed (and cannot run yet, saying why), and its count takes 1–8 only. Every wait is for what is seen.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { graphOf, keysOf } from '../../src/kinds/graph.js';
import { uploadFile } from '../helpers/http-client.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';
import { node } from './canvas-shapes.js';

const OUT_OF_DATE = 'Out of date';
/** The marks the page shows, by node id (none: no badge). */
const marks = (page: Page) =>
  page.locator('.react-flow__node').evaluateAll((els) =>
    Object.fromEntries(els.map((el) => [el.getAttribute('data-id'), el.querySelector('.node-mark')?.firstChild?.textContent ?? null])),
  );

describeInBrowser('stale marks, seeds and counts', () => {
  const f = useBrowserFixture();

  /**
   * A project of Ana's holding `nodes` and `edges` (saved over REST), each runnable node given a result made for its
   * key now (`image` and `resultKey`, as the runner leaves them) unless it is in `notRun`; Bob invited as editor.
   */
  async function project(name: string, nodes: any[], edges: any[], notRun: string[] = []) {
    const ana = await f.app.user('ana@example.com', 'Ana');
    await f.app.user('bob@example.com', 'Bob');
    const projectId = (await ana.client.post('/api/user/project', { userId: ana.id, name })).json.id as string;
    expect((await ana.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
    // The keys of the canvas as stored (the service may store an image under its own address).
    const stored = (await ana.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: any[]; edges: any[] };
    const keys = keysOf(graphOf(stored));
    const result = stored.nodes.find((n) => n.type === 'upload').data.image as string;
    const withResults = stored.nodes.map((n) =>
      n.type === 'upload' || notRun.includes(n.id) ? n : { ...n, data: { ...n.data, image: result, resultKey: keys.get(n.id)!.key } },
    );
    expect((await ana.client.post('/api/user/project/canvas', { projectId, nodes: withResults, edges: stored.edges })).status).toBe(200);
    expect((await ana.client.post(`/api/user/project/${projectId}/members`, { email: 'bob@example.com', role: 'editor' })).status).toBe(201);
    return { projectId, ana };
  }

  async function open(email: string, projectId: string) {
    const watched = await newPage(await f.newContext());
    await f.signIn(watched.page.context(), email);
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.getByRole('toolbar', { name: 'Canvas tools' }).waitFor();
    await saved(watched.page);
    return watched;
  }

  it('marks a changed node and everything downstream out of date for both editors, nothing upstream', async () => {
    const ana = await f.app.user('ana@example.com', 'Ana');
    const image = (await uploadFile(ana.client, await solidPng(16, 16, [200, 40, 40]))).json.url as string;
    const at = (x: number) => ({ x, y: 0 });
    const nodes = [
      { id: 'up', type: 'upload', position: at(0), data: { type: 'upload', image } },
      { id: 'a1', type: 'adjust', position: at(320), data: { type: 'adjust', grayscale: true } },
      { id: 'a2', type: 'adjust', position: at(640), data: { type: 'adjust', hue: 30 } },
      { id: 'gen', type: 'generation', position: at(960), data: { type: 'generation', prompt: 'a fox', seed: 5 } },
      { id: 'new', type: 'generation', position: { x: 960, y: 700 }, data: { type: 'generation', prompt: 'a cat', seed: 9 } },
    ];
    const edges = [
      { id: 'e1', source: 'up', target: 'a1' },
      { id: 'e2', source: 'a1', target: 'a2' },
      { id: 'e3', source: 'a2', target: 'gen' },
      { id: 'e4', source: 'a1', target: 'new' },
    ];
    const { projectId } = await project('Marks', nodes, edges, ['new']);
    const pages = [await open('ana@example.com', projectId), await open('bob@example.com', projectId)];
    const [anaPage] = pages.map((p) => p.page);
    const fresh = { up: null, a1: null, a2: null, gen: null, new: 'Not run yet' };
    for (const { page } of pages) await expect.poll(() => marks(page), { timeout: WAIT }).toEqual(fresh);

    // Ana changes the second adjust's hue: it and the generation after it are out of date; a1 and `new` are not.
    await node(anaPage, 'a2').getByRole('spinbutton', { name: 'Hue (degrees)' }).fill('45');
    for (const { page } of pages) await expect.poll(() => marks(page), { timeout: WAIT }).toEqual({ ...fresh, a2: OUT_OF_DATE, gen: OUT_OF_DATE });
    const badge = node(pages[1].page, 'gen').locator('.node-mark');
    expect(await badge.getAttribute('title')).toBe('Its inputs or settings changed since its result was made — run it to update');

    // Bob replaces the upload's image: everything after it is out of date (a node never run stays "Not run yet").
    await node(pages[1].page, 'up').getByLabel('Replace image').setInputFiles({ name: 'blue.png', mimeType: 'image/png', buffer: await solidPng(16, 16, [40, 40, 200]) });
    const all = { up: null, a1: OUT_OF_DATE, a2: OUT_OF_DATE, gen: OUT_OF_DATE, new: 'Not run yet' };
    for (const { page } of pages) await expect.poll(() => marks(page), { timeout: WAIT }).toEqual(all);
    await screenshot(anaPage, 'stale-marks');

    for (const { errors } of pages) expect(errors).toEqual([]);
  });

  it('shows a generation node’s seed and count: a new seed marks it out of date, a new node has one, a count is 1–8', async () => {
    const ana = await f.app.user('ana@example.com', 'Ana');
    const image = (await uploadFile(ana.client, await solidPng(16, 16, [20, 160, 40]))).json.url as string;
    const nodes = [
      { id: 'up', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'gen', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: 'a fox', seed: 5 } },
    ];
    const { projectId } = await project('Seeds', nodes, [{ id: 'e', source: 'up', target: 'gen' }]);
    const { page, errors } = await open('ana@example.com', projectId);
    const gen = node(page, 'gen');
    const seed = gen.getByRole('spinbutton', { name: 'Seed' });
    await expect.poll(() => seed.inputValue(), { timeout: WAIT }).toBe('5');
    await expect.poll(() => marks(page), { timeout: WAIT }).toEqual({ up: null, gen: null });

    await seed.fill('6');
    await gen.locator('.node-mark', { hasText: OUT_OF_DATE }).waitFor();
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'gen').data.seed).toBe(6);
    // Back to the seed its result was made with: fresh again.
    await seed.fill('5');
    await expect.poll(() => marks(page), { timeout: WAIT }).toEqual({ up: null, gen: null });
    // Not a seed: marked invalid, never sent.
    await seed.fill('-3');
    expect(await seed.getAttribute('aria-invalid')).toBe('true');
    await gen.getByRole('button', { name: 'New seed' }).click();
    await expect.poll(() => seed.inputValue(), { timeout: WAIT }).toMatch(/^\d+$/);
    await gen.locator('.node-mark', { hasText: OUT_OF_DATE }).waitFor();

    // The count: 1–8 only.
    const count = gen.getByRole('spinbutton', { name: 'Runs ×' });
    expect(await count.inputValue()).toBe('1');
    for (const bad of ['9', '0']) {
      await count.fill(bad);
      expect(await count.getAttribute('aria-invalid')).toBe('true');
    }
    await count.fill('3');
    expect(await count.getAttribute('aria-invalid')).toBe('false');
    await saved(page);
    const data = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'gen').data;
    expect(data.count).toBe(3);
    expect(data.seed).not.toBe(-3);

    // A new generation node has a seed of its own, shown.
    await page.getByRole('button', { name: 'Add generation' }).click();
    await expect.poll(async () => (await restCanvas(page, projectId))!.nodes.length, { timeout: WAIT }).toBe(3);
    await saved(page);
    const added = (await restCanvas(page, projectId))!.nodes.find((n) => n.id !== 'gen' && n.type === 'generation');
    expect(Number.isInteger(added.data.seed) && added.data.seed >= 0 && added.data.seed < 2 ** 31).toBe(true);
    expect(await node(page, added.id).getByRole('spinbutton', { name: 'Seed' }).inputValue()).toBe(String(added.data.seed));
    // It has no input yet: it cannot run, and says why in the names people read.
    const cannot = node(page, added.id).locator('.node-mark', { hasText: 'Can’t run' });
    await cannot.waitFor();
    expect(await cannot.getAttribute('title')).toMatch(/^Generate 2 has no input image/);
    expect(errors).toEqual([]);
  });

  it('takes the marks away from what a run made (the service writes each result’s key)', async () => {
    const ana = await f.app.user('ana@example.com', 'Ana');
    const image = (await uploadFile(ana.client, await solidPng(16, 16, [200, 120, 40]))).json.url as string;
    const nodes = [
      { id: 'up', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'a1', type: 'adjust', position: { x: 320, y: 0 }, data: { type: 'adjust', grayscale: true } },
      { id: 'a2', type: 'adjust', position: { x: 640, y: 0 }, data: { type: 'adjust', hue: 30 } },
    ];
    const edges = [
      { id: 'e1', source: 'up', target: 'a1' },
      { id: 'e2', source: 'a1', target: 'a2' },
    ];
    const { projectId } = await project('Runs', nodes, edges, ['a2']);
    const { page, errors } = await open('ana@example.com', projectId);
    await expect.poll(() => marks(page), { timeout: WAIT }).toEqual({ up: null, a1: null, a2: 'Not run yet' });
    await node(page, 'a1').getByRole('spinbutton', { name: 'Hue (degrees)' }).fill('10');
    await expect.poll(() => marks(page), { timeout: WAIT }).toEqual({ up: null, a1: OUT_OF_DATE, a2: 'Not run yet' });

    // Run from a1: a1 and a2 are made, each result for its node's key; no mark is left.
    const run = await ana.client.post(`/api/projects/${projectId}/runs`, { mode: 'downstream', nodeIds: ['a1'] });
    expect(run.status).toBe(202);
    expect(run.json.jobs.map((j: { nodeId: string }) => j.nodeId)).toEqual(['a1', 'a2']);
    await expect.poll(() => marks(page), { timeout: 45_000 }).toEqual({ up: null, a1: null, a2: null });
    expect(errors).toEqual([]);
  });
});
