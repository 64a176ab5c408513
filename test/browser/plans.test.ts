// Issue 6 in the browser: the Pro badge, Upgrade (→ /api/checkout) and Manage subscription (→ /api/portal) in the
// header's account menu when payments are configured (against the local fake of Polar's API; a user becomes Pro only through a
// signed `subscription.active` webhook), nothing of it when they are not, and the free plan's quota message
// when a generation answers 402.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakePolar, type FakePolar } from '../fakes/polar-server.js';
import { describeInBrowser, newPage } from './browser.js';
import { connectOneImageToGeneration, useBrowserFixture, type BrowserFixture } from './fixture.js';

const PRODUCT = 'b6f1f5d4-6d1c-4b0e-9a55-7f2c1e0d9a11';
const TOKEN = 'polar_oat_production_token';
const SECRET = 'polar_whs_production_secret_0123456789';
const QUOTA_MESSAGE = 'Upgrade required — you have used today’s free generations.';

/** A `subscription.active` event for `userId`, signed as Polar signs it (Standard Webhooks, base64 of the secret). */
function signedSubscriptionActive(userId: string): { body: string; headers: Record<string, string> } {
  const now = new Date();
  const iso = now.toISOString();
  const customerId = `cus_${randomUUID()}`;
  const body = JSON.stringify({
    type: 'subscription.active',
    timestamp: iso,
    data: {
      id: `sub-${customerId}`,
      created_at: iso,
      modified_at: iso,
      amount: 1000,
      currency: 'usd',
      recurring_interval: 'month',
      recurring_interval_count: 1,
      status: 'active',
      current_period_start: iso,
      current_period_end: new Date(now.getTime() + 30 * 86400_000).toISOString(),
      cancel_at_period_end: false,
      canceled_at: null,
      started_at: iso,
      ends_at: null,
      ended_at: null,
      customer_id: customerId,
      product_id: PRODUCT,
      discount_id: null,
      checkout_id: randomUUID(),
      metadata: {},
      customer: { id: customerId, created_at: iso, modified_at: null, metadata: {}, external_id: userId, email: 'someone@example.com', email_verified: true, type: 'individual', name: null },
      product: { id: PRODUCT, name: 'Pro', is_recurring: true },
      prices: [],
      meters: [],
    },
  });
  const id = `msg_${randomUUID()}`;
  const signature = new Webhook(Buffer.from(SECRET, 'utf8').toString('base64')).sign(id, now, body);
  return {
    body,
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
  };
}

/** One image connected into one generation node, generated once successfully. Returns the generation node. */
async function generateOnce(f: BrowserFixture, email: string) {
  const page = await f.onNewCanvas(await f.newContext(), email, 'Quota');
  const generation = await connectOneImageToGeneration(page);
  await generation.getByLabel('Prompt').fill('grayscale');
  await generation.getByRole('button', { name: 'Generate', exact: true }).click();
  await generation.getByAltText('Generated image').waitFor();
  return { page, generation };
}

/** The header: its account menu holds the plan (the user's name and email are shown with it). */
const header = (page: Page) => page.locator('header.app-header');

/** Opens the header's account menu. */
async function openAccount(page: Page) {
  await header(page).getByRole('button', { name: /^Account/ }).click();
  await page.getByRole('menu', { name: 'Account' }).waitFor();
}

describeInBrowser('plans in a browser, payments not configured', () => {
  const f = useBrowserFixture({ FREE_GENERATIONS_PER_DAY: '1', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });

  it('shows no Pro badge, Upgrade or Manage subscription', async () => {
    const context = await f.newContext();
    const { page, errors } = await newPage(context);
    await f.signIn(context, 'free-off@example.com');
    const config = page.waitForResponse((r) => r.url().endsWith('/api/client-config'));
    const user = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/user');
    await page.goto(`${f.app.baseUrl}/projects`);
    expect(await (await config).json()).toMatchObject({ payments: { enabled: false } });
    expect(await (await user).json()).toMatchObject({ isPro: false });
    await page.getByText('No projects yet').waitFor();
    await openAccount(page);
    await header(page).getByRole('menuitem', { name: 'Sign out', exact: true }).waitFor();
    await header(page).locator('.account-summary').getByText('free-off@example.com').waitFor();
    for (const name of ['Upgrade', 'Manage subscription']) expect(await page.getByRole('menuitem', { name }).count()).toBe(0);
    expect(await header(page).getByText('Pro', { exact: true }).count()).toBe(0);
    expect(await header(page).getByText('Free plan').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows the quota message, without an Upgrade link, when a generation answers 402', async () => {
    const { generation } = await generateOnce(f, 'quota-off@example.com');
    await generation.getByRole('button', { name: 'Generate again' }).click();
    await generation.getByRole('alert').filter({ hasText: QUOTA_MESSAGE }).waitFor();
    expect(await generation.getByRole('link', { name: 'Upgrade' }).count()).toBe(0);
    expect(await generation.getByRole('button', { name: 'Generate again' }).isEnabled()).toBe(true);
  });
});

describeInBrowser('plans in a browser, payments configured', () => {
  let polar: FakePolar | undefined;
  const env: Record<string, string> = {
    PUBLIC_SETUP: 'production',
    PAYMENTS_ACCESS_TOKEN: TOKEN,
    PAYMENTS_WEBHOOK_SECRET: SECRET,
    PAYMENTS_PRODUCT_ID: PRODUCT,
    FREE_GENERATIONS_PER_DAY: '1',
    RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000',
  };
  // Registered before the fixture's own hooks, so the fake is listening (and named) before the service starts.
  beforeAll(async () => {
    polar = await startFakePolar({ accessToken: TOKEN });
    env.PAYMENTS_API_URL = polar.baseUrl;
  });
  afterAll(async () => {
    await polar?.close();
  });
  const f = useBrowserFixture(env);

  it('offers Upgrade to a free user, and Pro with Manage subscription after the subscription is active', async () => {
    const email = 'upgrader@example.com';
    const { id } = await f.app.user(email);
    const context = await f.newContext();
    const { page, errors } = await newPage(context);
    await f.signIn(context, email);
    await page.goto(`${f.app.baseUrl}/projects`);

    await openAccount(page);
    const upgrade = header(page).getByRole('menuitem', { name: 'Upgrade' });
    await upgrade.waitFor();
    expect(await upgrade.getAttribute('href')).toBe('/api/checkout');
    await header(page).getByText('Free plan').waitFor();
    expect(await header(page).getByText('Pro', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('menuitem', { name: 'Manage subscription' }).count()).toBe(0);
    expect(errors).toEqual([]);

    // Clicking it starts the checkout with a POST (no other site can make one in this user's name) and goes on to
    // the provider's hosted checkout.
    const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/checkout');
    await upgrade.click();
    await posted;
    await page.waitForURL((url) => url.href.startsWith(`${polar!.baseUrl}/checkout/`));
    expect(polar!.to('/v1/checkouts/').at(-1)!.body).toMatchObject({ products: [PRODUCT], external_customer_id: id });

    // The provider tells the service the subscription is active; the user comes back.
    const delivery = signedSubscriptionActive(id);
    const res = await f.app.client().request('/api/webhook/payments', { method: 'POST', body: delivery.body, headers: delivery.headers });
    expect(res.status).toBe(200);
    await page.goto(`${f.app.baseUrl}/projects`);
    await openAccount(page);
    await header(page).getByText('Pro', { exact: true }).waitFor();
    const manage = header(page).getByRole('menuitem', { name: 'Manage subscription' });
    await manage.waitFor();
    expect(await manage.getAttribute('href')).toBe('/api/portal');
    expect(await page.getByRole('menuitem', { name: 'Upgrade' }).count()).toBe(0);
    await page.reload();
    await openAccount(page);
    await manage.waitFor();
    await header(page).getByText('Pro', { exact: true }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'Upgrade' }).count()).toBe(0);
    // (The fake provider's hosted pages answer 401: they are not ours, so the page's errors are not read after this.)
    await manage.click();
    await page.waitForURL((url) => url.href.startsWith(`${polar!.baseUrl}/portal?customer_session_token=`));
  });

  it('a link from another site to GET /api/checkout shows a page that asks first; its button goes on to the checkout', async () => {
    const email = 'asked@example.com';
    const { id } = await f.app.user(email);
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, email);
    // Another site's page (a data: URL is an opaque origin: the navigation is cross-site) links to the checkout.
    const before = polar!.to('/v1/checkouts/').length;
    await page.goto(`data:text/html,<a href="${f.app.baseUrl}/api/checkout">Win a prize</a>`);
    await page.getByRole('link', { name: 'Win a prize' }).click();
    const button = page.getByRole('button', { name: 'Continue to checkout' });
    await button.waitFor();
    expect(polar!.to('/v1/checkouts/')).toHaveLength(before);
    await button.click();
    await page.waitForURL((url) => url.href.startsWith(`${polar!.baseUrl}/checkout/`));
    expect(polar!.to('/v1/checkouts/').at(-1)!.body).toMatchObject({ external_customer_id: id });
  });

  it('shows the quota message with an Upgrade link when the second generation of the day answers 402', async () => {
    const { generation } = await generateOnce(f, 'quota-on@example.com');
    await generation.getByRole('button', { name: 'Generate again' }).click();
    const alert = generation.getByRole('alert').filter({ hasText: QUOTA_MESSAGE });
    await alert.waitFor();
    expect(await alert.getByRole('link', { name: 'Upgrade' }).getAttribute('href')).toBe('/api/checkout');
  });
});
