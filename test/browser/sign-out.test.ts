// Sign out of all devices (on the API tokens page, with the person's settings): the page lands on `/` signed out, and
// another device (another browser context with its own session of the same user) is signed out too; Sign out (the
// header's account menu) signs out this device only.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage } from './browser.js';
import { useBrowserFixture } from './fixture.js';

/** The header's account button (its menu holds Sign out). */
const account = (page: Page) => page.locator('header.app-header').getByRole('button', { name: /^Account/ });

describeInBrowser('sign out of all devices', () => {
  const fx = useBrowserFixture();

  it('ends the session here and on the other device; Sign out alone leaves the other device signed in', async () => {
    const [laptop, phone, tablet] = await Promise.all([fx.newContext(), fx.newContext(), fx.newContext()]);
    for (const context of [laptop, phone, tablet]) await fx.signIn(context, 'devices@example.com');
    const { page, errors } = await newPage(laptop);
    const other = (await newPage(phone)).page;
    const third = (await newPage(tablet)).page;
    for (const p of [page, other, third]) {
      await p.goto(`${fx.app.baseUrl}/projects`);
      await account(p).waitFor();
    }

    // Plain Sign out on the tablet: only the tablet is signed out.
    await account(third).click();
    await third.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
    await third.waitForURL(`${fx.app.baseUrl}/`);
    await other.reload();
    await account(other).waitFor();

    // Sign out of all devices on the laptop (account menu → API tokens): the laptop lands on the landing page, the
    // phone is sent to /login.
    await account(page).click();
    await page.getByRole('menuitem', { name: 'API tokens' }).click();
    await page.getByRole('button', { name: 'Sign out of all devices' }).click();
    await page.waitForURL(`${fx.app.baseUrl}/`);
    await page.getByRole('link', { name: 'Sign in to start' }).waitFor();
    await other.goto(`${fx.app.baseUrl}/projects`);
    await other.waitForURL(/\/login/);
    expect(await (await other.request.get(`${fx.app.baseUrl}/api/user`)).json()).toEqual({ error: 'Unauthorized' });
    expect(errors).toEqual([]);
  });
});
