// The editor survives bad data: a node whose image URL has broken percent-encoding (saved by another client)
// used to take the whole canvas page down ("Something went wrong" on every load). Now that node is drawn as it
// can be, the rest of the canvas works, and the owner can delete it.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, solidPng } from './browser.js';
import { saved, useBrowserFixture } from './fixture.js';

describeInBrowser('a canvas with bad data', () => {
  const fx = useBrowserFixture();

  it('opens, shows the other nodes, and lets the owner delete the bad one', async () => {
    const base = fx.app.baseUrl;
    const owner = await fx.app.user('repair@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Broken' })).json.id as string;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await solidPng(32, 32, [20, 160, 60]))], { type: 'image/png' }), 'good.png');
    const good = (await owner.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    const nodes = [
      { id: 'good', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: good } },
      { id: 'bad', type: 'upload', position: { x: 400, y: 0 }, data: { type: 'upload', image: `${base}/files/%E0%A4%A` } },
      { id: 'gen', type: 'generation', position: { x: 800, y: 0 }, data: { type: 'generation', prompt: 'blur 2', image: `${base}/files/100%-done.png` } },
    ];
    const stored = await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e1', source: 'bad', target: 'gen' }] });
    expect(stored.status).toBe(200);

    const context = await fx.newContext();
    await fx.signIn(context, 'repair@example.com');
    const { page } = await newPage(context);
    await page.goto(`${base}/projects/${projectId}`);
    await page.locator('.react-flow__node').nth(2).waitFor();
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await page.locator('.react-flow__node[data-id="good"]').getByAltText('Uploaded image').waitFor();
    // The bad nodes offer their downloads under the name as written.
    expect(await page.locator('.react-flow__node[data-id="bad"]').getByRole('link', { name: 'Download image' }).getAttribute('download')).toBe('%E0%A4%A');
    expect(await page.locator('.react-flow__node[data-id="gen"]').getByRole('link', { name: 'Download generated image' }).getAttribute('download')).toBe('100%-done.png');

    await page.locator('.react-flow__node[data-id="bad"]').getByRole('button', { name: 'Delete image node' }).click();
    await saved(page);
    const after = await owner.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    expect(after.json.nodes.map((n: { id: string }) => n.id)).toEqual(['good', 'gen']);
    expect(after.json.edges).toEqual([]);
  });

  it('a project address with broken percent-encoding answers 400 Invalid URL encoding, not a broken page', async () => {
    const context = await fx.newContext();
    await fx.signIn(context, 'repair@example.com');
    const { page } = await newPage(context);
    const res = await page.goto(`${fx.app.baseUrl}/projects/%E0%A4%A`);
    expect(res?.status()).toBe(400);
    expect(await res?.json()).toEqual({ error: 'Invalid URL encoding' });
  });
});
