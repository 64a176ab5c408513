// API tokens in a browser: from the header's account menu to /settings/tokens; a refused name is explained; a new token's secret
// is shown once (with Copy) and works for a script; after a reload only its prefix is listed, with its last use;
// Revoke asks first, and the token then stops working.
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot } from './browser.js';
import { useBrowserFixture } from './fixture.js';

describeInBrowser('API tokens in a browser', () => {
  const f = useBrowserFixture();

  it('creates a token, shows its secret once, and revokes it after confirmation', async () => {
    const context = await f.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.app.baseUrl });
    await f.signIn(context, 'scripter@example.com');
    const { page, errors } = await newPage(context);
    await page.goto(`${f.app.baseUrl}/projects`);
    await page.locator('header.app-header').getByRole('button', { name: /^Account/ }).click();
    await page.getByRole('menu', { name: 'Account' }).getByRole('menuitem', { name: 'API tokens' }).click();
    await page.waitForURL(`${f.app.baseUrl}/settings/tokens`);
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByText('No tokens yet.').waitFor();

    // The form: a name and scopes; the service's refusal is shown in its words.
    const form = page.getByRole('form', { name: 'New API token' });
    await form.getByLabel('Name').fill('Nightly export');
    await form.getByRole('checkbox', { name: /^Write/ }).check();
    await form.getByLabel('Expires after (days, empty: never)').fill('0');
    await form.getByRole('button', { name: 'Create token' }).click();
    await form.getByRole('alert').filter({ hasText: 'Invalid expiresInDays' }).waitFor();
    await form.getByLabel('Expires after (days, empty: never)').fill('30');
    await form.getByRole('button', { name: 'Create token' }).click();

    // The secret, once, with Copy.
    const secretBox = page.getByRole('textbox', { name: 'New token' });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^ic_[A-Za-z0-9_-]{43}$/);
    await page.getByText('Copy it now: it is shown only once.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Token copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, 'api-tokens');

    // It works for a script, as this user, within its scopes.
    const me = await fetch(`${f.app.baseUrl}/api/user`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).email).toBe('scripter@example.com');

    // After a reload: listed by its prefix, with scopes and last use; the secret is gone for good.
    await page.reload();
    const item = page.getByRole('list', { name: 'API tokens' }).getByRole('listitem').filter({ hasText: 'Nightly export' });
    await item.getByText(`${secret.slice(0, 9)}…`).waitFor();
    await item.getByText(/read, write/).waitFor();
    await item.getByText(/last used/).waitFor();
    expect(await page.getByRole('textbox', { name: 'New token' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Revoke asks first; Cancel keeps it, Revoke ends it.
    await item.getByRole('button', { name: 'Revoke Nightly export' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke “Nightly export”?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await fetch(`${f.app.baseUrl}/api/user`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    await item.getByRole('button', { name: 'Revoke Nightly export' }).click();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No tokens yet.').waitFor();
    expect((await fetch(`${f.app.baseUrl}/api/user`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
  });
});
