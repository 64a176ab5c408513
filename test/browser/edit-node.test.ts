// The edit node in the page (issue 36 point 2; web/src/components/edit-node.tsx): its model choice offers only the
// models that do inpaint (the offline classical one labelled as not AI), no prompt box for a model that uses none,
// the outpaint sides shown only in outpaint mode and written to its live data, axe-clean; and it runs from its Run ▶
// end to end: an upload and a mask node wired in, the hole filled, the result shown in the node.
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('edit node', () => {
  const f = useBrowserFixture();

  it('offers only inpainting models, shows the outpaint sides in outpaint mode, and runs an inpaint from its Run button', async () => {
    const ada = await f.app.user('edit@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Edit' })).json.id as string;
    const upload = async (name: string, png: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), name);
      return (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
    };
    // A green image with a red 6×6 square; the mask a little wider than the square.
    const image = await upload('green.png', await sharp({ create: { width: 32, height: 32, channels: 3, background: '#20a040' } }).composite([{ input: { create: { width: 6, height: 6, channels: 3, background: '#ff0000' } }, left: 13, top: 13 }]).png().toBuffer());
    const mask = await upload('mask.png', await sharp({ create: { width: 32, height: 32, channels: 3, background: '#000' } }).composite([{ input: { create: { width: 10, height: 10, channels: 3, background: '#fff' } }, left: 11, top: 11 }]).png().toBuffer());
    const nodes = [
      { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
      { id: 'm', type: 'mask', position: { x: 0, y: 300 }, data: { type: 'mask', mask } },
      { id: 'e', type: 'edit', position: { x: 400, y: 0 }, data: { type: 'edit', mode: 'inpaint' } },
    ];
    const edges = [
      { id: 'e1', source: 'in', target: 'm' },
      { id: 'e2', source: 'in', target: 'e' },
      { id: 'e3', source: 'm', target: 'e', targetHandle: 'mask' },
    ];
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);

    const { page, errors } = await newPage(await f.newContext(axeContext()));
    await f.signIn(page.context(), 'edit@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    const node = page.locator('.react-flow__node[data-id="e"]');
    const model = node.getByRole('combobox', { name: 'Model', exact: true });
    await model.waitFor();
    await expect.poll(async () => (await model.locator('option').allTextContents()).join('|'), { timeout: WAIT }).toContain('not AI');
    const options = await model.locator('option').allTextContents();
    expect(options).toHaveLength(3); // the default (inpaint-telea) and the two classical inpainters: no generator, no upscaler
    expect(options[0]).toContain('Default model (Fill from surroundings (offline, classical inpainting — not AI');
    expect(options.join('|')).not.toMatch(/ESRGAN|Offline image engine/);
    await node.getByText('No prompt: this model does not use one').waitFor();
    await node.getByText('Mask connected').waitFor();

    // Outpaint: the four sides appear; a side typed is written to the node's live data.
    await node.getByRole('combobox', { name: 'Mode', exact: true }).selectOption('outpaint');
    await node.getByRole('spinbutton', { name: 'Right' }).fill('8');
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'e')!.data).toMatchObject({ mode: 'outpaint', outpaint: { top: 0, right: 8, bottom: 0, left: 0 } });
    expect(await seriousViolations(page)).toEqual([]);
    await node.getByRole('combobox', { name: 'Mode', exact: true }).selectOption('inpaint');
    expect(await node.getByRole('spinbutton', { name: 'Right' }).count()).toBe(0);
    await saved(page);

    await node.getByRole('button', { name: /^Run( ·|$)/ }).click();
    const result = node.getByRole('img', { name: 'Result' });
    await result.waitFor({ timeout: WAIT });
    const src = (await result.getAttribute('src'))!;
    const cookie = await ada.client.jar.getCookieString(f.app.baseUrl);
    const res = await fetch(new URL(new URL(src, f.app.baseUrl).pathname, f.app.baseUrl), { headers: { cookie } });
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer())).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([32, 32]);
    const centre = [...data.subarray((16 * 32 + 16) * 3, (16 * 32 + 16) * 3 + 3)];
    expect(centre[1]).toBeGreaterThan(centre[0]); // green again, not red
    // Its result is a variant, as a generation node's are (issue 36 point 5): the strip under it lists it.
    await node.getByRole('checkbox', { name: 'Compare variant 1' }).waitFor({ timeout: WAIT });
    expect(await node.getByRole('alert').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
