// Sign out of all devices from the header: the page lands on `/` signed out, and another device (another
// browser context with its own session of the same user) is signed out too.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage } from './browser.js';
import { useBrowserFixture } from './fixture.js';

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
      await p.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    }

    // Plain Sign out on the tablet: only the tablet is signed out.
    await third.getByRole('button', { name: 'Sign out', exact: true }).click();
    await third.waitForURL(`${fx.app.baseUrl}/`);
    await other.reload();
    await other.getByRole('button', { name: 'Sign out', exact: true }).waitFor();

    // Sign out of all devices on the laptop: the laptop lands on the landing page, the phone is sent to /login.
    await page.getByRole('button', { name: 'Sign out of all devices' }).click();
    await page.waitForURL(`${fx.app.baseUrl}/`);
    await page.getByRole('link', { name: 'Sign in to start' }).waitFor();
    await other.goto(`${fx.app.baseUrl}/projects`);
    await other.waitForURL(/\/login/);
    expect(await (await other.request.get(`${fx.app.baseUrl}/api/user`)).json()).toEqual({ error: 'Unauthorized' });
    expect(errors).toEqual([]);
  });
});
