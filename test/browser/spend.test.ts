// What generations cost, in the web client (docs/api.md "Spend"): a priced generation — fal's nano-banana edit at its
// list price of $0.039, played by the loopback fake of fal's queue API through the real `@fal-ai/client` — shows as
// "$0.039 spent" on its project's card (one GET /api/user/spend for the page, shared with the header); the card links
// to the project's spend per person; the account menu's Spend opens /spend (today, this month, the daily budget, per
// project); and the canvas reaches the project's spend through its Gallery. A project nobody spent on shows nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { untilJob } from '../helpers/jobs.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { useBrowserFixture } from './fixture.js';

describeInBrowser('spend per project and per person', () => {
  let fal: FakeFal | undefined;
  const env: Record<string, string> = { RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', FAL_KEY: 'k', USER_DAILY_BUDGET_USD: '5' };
  // Registered before the fixture's own hooks, so the fake is listening (and named) before the service starts.
  beforeAll(async () => {
    fal = await startFakeFal({ key: 'k' });
    env.FAL_BASE_URL = fal.baseUrl;
  });
  afterAll(async () => {
    await fal?.close();
  });
  const f = useBrowserFixture(env);

  it('shows a priced generation’s cost on its project’s card, on the project’s spend per person and on /spend', async () => {
    const ada = await f.app.user('ada@example.com', 'Ada Lovelace');
    const project = async (name: string) => (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
    const priced = await project('Posters');
    const free = await project('Doodles');
    const input = `data:image/png;base64,${(await solidPng(16, 16, [200, 100, 50])).toString('base64')}`;
    const node = { id: 'gen', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'a poster' } };
    expect((await ada.client.post('/api/user/project/canvas', { projectId: priced, nodes: [node], edges: [] })).status).toBe(200);
    const made = await ada.client.post('/api/generations', { images: [input], prompt: 'a poster', projectId: priced, nodeId: 'gen', model: 'fal-ai/nano-banana/edit' });
    expect(made.status, made.text).toBe(202);
    expect(await untilJob(ada.client, made.json.id)).toMatchObject({ status: 'succeeded' });
    expect(fal!.requests).toHaveLength(1);

    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'ada@example.com');
    const spendReads: string[] = [];
    page.on('request', (r) => new URL(r.url()).pathname === '/api/user/spend' && spendReads.push(r.url()));
    await page.goto(`${f.app.baseUrl}/projects`);
    const card = (id: string) => page.locator(`.project-item[data-project-id="${id}"]`);
    const spent = card(priced).locator('.project-spend');
    await expect.poll(() => spent.textContent(), { timeout: WAIT }).toBe('$0.039 spent');
    await card(free).getByRole('link', { name: 'Doodles', exact: true }).waitFor();
    expect(await card(free).locator('.project-spend').count()).toBe(0); // nothing spent: nothing shown
    expect(spendReads).toHaveLength(1); // the cards and the header's account menu share one request
    await screenshot(page, 'spend-projects-card');

    // The card's figure opens the project's spend per person.
    await spent.click();
    await page.waitForURL(`${f.app.baseUrl}/projects/${priced}/spend`);
    await page.getByRole('heading', { name: 'Spend — Posters', level: 1 }).waitFor();
    const person = page.getByRole('table', { name: 'Spend per person' }).locator(`tr[data-user-id="${ada.id}"]`);
    await person.waitFor();
    expect((await person.locator('th, td').allTextContents()).map((t) => t.trim())).toEqual(['Ada Lovelace ada@example.com', '1', '$0.039']);
    expect(await page.locator('[data-spend="project-total"]').textContent()).toBe('$0.039');

    // The account menu's Spend: today, this month, the daily budget and what is left of it, per project.
    await page.getByRole('button', { name: /^Account/ }).click();
    await page.getByRole('menu', { name: 'Account' }).getByRole('menuitem', { name: 'Spend' }).click();
    await page.waitForURL(`${f.app.baseUrl}/spend`);
    await page.getByRole('heading', { name: 'Spend', level: 1 }).waitFor();
    expect(await page.locator('[data-spend="today"]').textContent()).toBe('$0.039');
    expect(await page.locator('[data-spend="month"]').textContent()).toBe('$0.039 (1 generation)');
    expect(await page.locator('[data-spend="budget"]').textContent()).toBe('$5.00 ($4.961 left today)');
    const row = page.locator(`.spend-table tr[data-project-id="${priced}"]`);
    expect((await row.locator('th, td').allTextContents()).map((t) => t.trim())).toEqual(['Posters', '1', '$0.039']);
    await screenshot(page, 'spend-page');

    // From the canvas: its Gallery, then Spend (on a phone, the toolbar's More holds Spend: test/browser/phone.test.ts).
    await page.goto(`${f.app.baseUrl}/projects/${priced}`);
    await page.getByRole('toolbar', { name: 'Canvas tools' }).getByRole('link', { name: 'Gallery' }).click();
    await page.getByRole('heading', { name: 'Gallery', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Spend', exact: true }).click();
    await page.getByRole('heading', { name: 'Spend — Posters', level: 1 }).waitFor();
    expect(errors).toEqual([]);
  });
});
