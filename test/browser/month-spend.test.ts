// The header's "This month", in its account menu (GET /api/user/spend, docs/api.md "Models"): what the signed-in
// user's generations of this calendar month cost as far as it is known, read when the header mounts, again when a generation job of the
// tab ends and when the page is shown again; its title says how many have no known price; a failed request hides it.
//
// The service runs the offline engine (the default), whose generations have no price; a priced one is made by
// writing a cost into the generation's row, as a model with a list price would have recorded it.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { connectOneImageToGeneration, useBrowserFixture } from './fixture.js';

/** The header's account menu, opened (unless it is), and its "This month". */
async function monthSpend(page: Page) {
  const account = page.locator('.app-header').getByRole('button', { name: /^Account/ });
  if ((await account.getAttribute('aria-expanded')) !== 'true') await account.click();
  await page.getByRole('menu', { name: 'Account' }).waitFor();
  return page.locator('.app-header .month-spend');
}

describeInBrowser('the header’s spend this month', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });

  it('shows $0.00 before and after an offline generation, says none has a known price, and sums a priced one', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'ada@example.com', 'Spend');
    let spend = await monthSpend(page);
    await expect.poll(() => spend.textContent(), { timeout: WAIT }).toBe('This month: $0.00 (0 generations)');
    expect(await spend.getAttribute('title')).toBeNull();

    // One generation with the offline engine: the header reads the spend again when the job ends.
    const node = await connectOneImageToGeneration(page);
    await node.getByLabel('Prompt').fill('grayscale');
    await node.getByRole('button', { name: 'Generate', exact: true }).click();
    await node.getByAltText('Generated image').waitFor();
    spend = await monthSpend(page);
    await expect.poll(() => spend.textContent(), { timeout: WAIT }).toBe('This month: $0.00 (1 generation)');
    expect(await spend.getAttribute('title')).toBe('0 of 1 generation has a known price; the offline engine and some models have none');

    // The generation had cost $0.039 (a list price): shown when the page is shown again, and no title then.
    const { id } = await f.app.user('ada@example.com');
    const updated = await f.app.pool.query(`UPDATE generations SET cost = '{"amount": 0.039, "currency": "USD", "basis": "list price"}'::jsonb WHERE user_id = $1`, [id]);
    expect(updated.rowCount).toBe(1);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => spend.textContent(), { timeout: WAIT }).toBe('This month: $0.039 (1 generation)');
    expect(await spend.getAttribute('title')).toBeNull();
  });

  it('hides it when the request fails', async () => {
    const { page, errors } = await newPage(await f.newContext());
    await f.signIn(page.context(), 'bob@example.com');
    await page.route('**/api/user/spend', (route) => route.fulfill({ status: 503, json: { error: 'Service unavailable' } }));
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/user/spend');
    await page.goto(`${f.app.baseUrl}/projects`);
    expect((await answered).status()).toBe(503);
    await monthSpend(page);
    await page.locator('.app-header .account-summary').getByText('bob@example.com').waitFor();
    expect(await page.locator('.app-header .month-spend').count()).toBe(0);
    expect(errors.every((e) => e.includes('503'))).toBe(true);
  });
});

describeInBrowser('the header’s free budget left this month', () => {
  const f = useBrowserFixture({ FREE_BUDGET_USD_PER_MONTH: '0.1' });

  it('shows what is left of the monthly free budget, and less once a priced generation counts', async () => {
    const page = await f.onNewCanvas(await f.newContext(), 'cy@example.com', 'Budget');
    const spend = await monthSpend(page);
    await expect.poll(() => spend.textContent(), { timeout: WAIT }).toBe('This month: $0.00 (0 generations) · $0.10 of $0.10 free left');
    // A generation that cost $0.039, as a model with a list price records it.
    const { id } = await f.app.user('cy@example.com');
    await f.app.pool.query(
      `INSERT INTO generations (id, user_id, user_email, prompt, input_images, output_image_url, model, cost) VALUES ('gen-budget', $1, 'cy@example.com', 'p', '[]'::jsonb, 'http://127.0.0.1/x.png', 'gemini-2.5-flash-image', '{"amount": 0.039, "currency": "USD", "basis": "list price"}'::jsonb)`,
      [id],
    );
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => spend.textContent(), { timeout: WAIT }).toBe('This month: $0.039 (1 generation) · $0.061 of $0.10 free left');
  });
});
