// What a person meets first at the top of the screen (issue 34 points 6 and 8): the canvas header's project name,
// renamed in place by its owner (click, Enter or F2 → a field; Enter saves through PATCH /api/user/project/{id},
// Escape cancels, a refusal is shown; collaborators see the name without a way to change it) and shown whole
// (ellipsis, with the full name as its title); one account menu (the person's avatar and name → plan and this
// month's spend, API tokens, one Sign out), and nothing else at the header's top level on a laptop or a phone;
// *Create and open* the new-project form's primary action (Enter does it); a *Shared with me* card as compact as an
// own project's, its role a small badge. Axe finds no serious violation with the menu open or the name being edited,
// in both themes.
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, screenshot, WAIT } from './browser.js';
import { createProject, useBrowserFixture } from './fixture.js';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const header = (page: Page) => page.locator('header.app-header');

/** The names of the header's links and buttons (their text but what is hidden from screen readers), in order, outside any open menu. */
const topLevel = (page: Page) =>
  header(page)
    .locator('a, button')
    .evaluateAll((els) =>
      els
        .filter((el) => !el.closest('.more-menu-list'))
        .map((el) => {
          const copy = el.cloneNode(true) as HTMLElement;
          for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
          return (el.getAttribute('aria-label') ?? copy.textContent ?? '').trim();
        }),
    );

/** Every control on the page whose name speaks of signing out. */
const signOuts = (page: Page) => page.locator('a, button').filter({ hasText: /sign out/i });

const heightOf = async (locator: Locator) => (await locator.boundingBox())!.height;

describeInBrowser('the header, the new-project form and the Shared with me card', () => {
  const f = useBrowserFixture({ PROJECT_NAME_MAX_CHARS: '60' });

  /** A project of `owner` (made over the API), shared with each of `members` in their role. */
  async function sharedProject(owner: string, name: string, members: Array<[string, 'editor' | 'viewer']> = []): Promise<string> {
    const { client, id: userId } = await f.app.user(owner);
    const projectId = (await client.post('/api/user/project', { userId, name })).json.id as string;
    for (const [email, role] of members) expect((await client.post(`/api/user/project/${projectId}/members`, { email, role })).status).toBe(201);
    return projectId;
  }

  it('lets the owner rename the project in place from the canvas header, and no one else', async () => {
    const projectId = await sharedProject('namer@example.com', 'Sketches', [
      ['watcher@example.com', 'viewer'],
      ['helper@example.com', 'editor'],
    ]);
    const context = await f.newContext();
    const { page, errors } = await newPage(context);
    await f.signIn(context, 'namer@example.com');
    await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await page.getByText('Your canvas is empty.').waitFor();

    // Click the name: a field holding it, all selected; Escape leaves it as it was, and nothing is sent.
    const name = header(page).getByRole('button', { name: 'Sketches', exact: true });
    await name.click();
    const field = header(page).getByRole('textbox', { name: 'Project name' });
    expect(await field.inputValue()).toBe('Sketches');
    expect(await field.evaluate((el: HTMLInputElement) => el.selectionStart === 0 && el.selectionEnd === el.value.length && el === document.activeElement)).toBe(true);
    await page.keyboard.type('Thrown away');
    await page.keyboard.press('Escape');
    await name.waitFor();
    expect(await field.count()).toBe(0);
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true);

    // F2 on the name opens the field too; an empty name is refused with a reason, and so is one the service refuses.
    await page.keyboard.press('F2');
    await field.fill('   ');
    await page.keyboard.press('Enter');
    await header(page).getByRole('alert').filter({ hasText: 'Give the project a name.' }).waitFor();
    await field.fill('x'.repeat(61));
    await page.keyboard.press('Enter');
    await header(page).getByRole('alert').filter({ hasText: 'Invalid project name' }).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'header-rename-refused');

    // A long name is saved with Enter, shown with an ellipsis and whole in its title, and kept after a reload.
    const long = 'Sketches for the autumn catalogue, second round of covers';
    await field.fill(long);
    await page.keyboard.press('Enter');
    const renamed = header(page).getByRole('button', { name: long, exact: true });
    await renamed.waitFor();
    expect(await header(page).getByRole('alert').count()).toBe(0);
    expect(await renamed.getAttribute('title')).toContain(long);
    await expect.poll(() => page.title(), { timeout: WAIT }).toBe(`${long} — Image Canvas`);
    const own = (await (await page.request.get(`${f.app.baseUrl}/api/user/project?userId=namer@example.com`)).json()) as Array<{ id: string; name: string }>;
    expect(own.find((p) => p.id === projectId)?.name).toBe(long);
    await page.reload();
    await renamed.waitFor();
    // On a phone the header keeps the name, cut with an ellipsis, and the page no wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => renamed.evaluate((el) => el.scrollWidth > el.clientWidth), { timeout: WAIT }).toBe(true);
    expect(await renamed.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'header-name-phone');
    expect(errors.filter((e) => !e.includes('400'))).toEqual([]);

    // A viewer and an editor see the name, with no way to rename it (only the owner may, docs/api.md).
    for (const email of ['watcher@example.com', 'helper@example.com']) {
      const other = await newPage(await f.newContext());
      await f.signIn(other.page.context(), email);
      await other.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
      await header(other.page).locator('.connection-status[data-state="connected"]').waitFor();
      const shown = header(other.page).getByText(long, { exact: true });
      await shown.waitFor();
      expect(await shown.getAttribute('title')).toBe(long);
      expect(await header(other.page).getByRole('button', { name: long }).count(), email).toBe(0);
      await shown.click();
      await other.page.keyboard.press('F2');
      expect(await header(other.page).getByRole('textbox').count(), email).toBe(0);
      expect(other.errors).toEqual([]);
    }
  });

  it('gathers the account into one menu — plan and spend, API tokens, one Sign out — on a laptop and on a phone', async () => {
    for (const [label, options] of [
      ['laptop', {}],
      ['phone', PHONE],
    ] as const) {
      const email = `account-${label}@example.com`;
      const projectId = await sharedProject(email, 'Board');
      const context = await f.newContext(options);
      const { page, errors } = await newPage(context);
      await f.signIn(context, email);
      await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
      await page.getByText('Your canvas is empty.').waitFor();
      await header(page).locator('.connection-status[data-state="connected"]').waitFor();

      // At the top level: the brand, the project's place and name, and the account button — nothing else.
      const account = header(page).getByRole('button', { name: /^Account/ });
      await account.waitFor();
      expect(await topLevel(page), label).toEqual(['Image Canvas', 'Projects', 'Board', `Account: account-${label}`]);
      expect(await signOuts(page).count(), label).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), label).toBeLessThanOrEqual(label === 'phone' ? 390 : 1280);

      // The menu: who is signed in, the plan and this month's spend, then API tokens, Spend and one Sign out.
      await account.click();
      const menu = page.getByRole('menu', { name: 'Account' });
      await menu.waitFor();
      expect((await menu.getByRole('menuitem').allTextContents()).map((t) => t.trim()), label).toEqual(['API tokens', 'Spend', 'Sign out']);
      const summary = header(page).locator('.account-summary');
      await summary.getByText(email).waitFor();
      expect(await summary.getByText('Free plan').count(), 'no plans without payments').toBe(0);
      await expect.poll(() => summary.locator('.month-spend').textContent(), { timeout: WAIT }).toBe('This month: $0.00 (0 generations)');
      expect(await signOuts(page).count(), label).toBe(1);
      expect(await account.getAttribute('aria-expanded')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim()), label).toBe('API tokens');
      await screenshot(page, `header-account-menu-${label}`);
      // Escape closes it and gives the focus back.
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      expect(await account.evaluate((el) => el === document.activeElement)).toBe(true);

      // The menu's API tokens opens the tokens page, whose header is the same.
      await account.click();
      await menu.getByRole('menuitem', { name: 'API tokens' }).click();
      await page.waitForURL(`${f.app.baseUrl}/settings/tokens`);
      await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
      expect(await topLevel(page), label).toEqual(['Image Canvas', `Account: account-${label}`]);
      expect(errors, label).toEqual([]);
    }

    // Sign out, from the menu, lands on the landing page signed out.
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'leaver@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await header(page).getByRole('button', { name: /^Account/ }).click();
    await page.getByRole('menu', { name: 'Account' }).getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(`${f.app.baseUrl}/`);
    await page.getByRole('link', { name: 'Sign in to start' }).waitFor();
  });

  it('makes Create and open the primary action of the new-project form: Enter opens the new canvas', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'opener@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    const form = page.locator('form.create-form');
    expect(await form.locator('button[type="submit"]').allTextContents()).toEqual(['Create and open', 'Create']);
    expect(await form.getByRole('button', { name: 'Create and open' }).getAttribute('class')).toContain('primary');
    expect(await form.getByRole('button', { name: 'Create', exact: true }).getAttribute('class')).not.toContain('primary');

    await page.getByLabel('Start with an example canvas').setChecked(false);
    await page.getByLabel('New project name').fill('Straight in');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/, { timeout: WAIT });
    await page.getByText('Your canvas is empty.').waitFor();
    await header(page).getByText('Straight in', { exact: true }).waitFor();

    // Create, the secondary action, still stays on the list.
    await page.goto(`${f.app.baseUrl}/projects`);
    await createProject(page, 'Stay on the list', { open: false });
    await page.getByRole('status').filter({ hasText: 'Created “Stay on the list”.' }).waitFor({ state: 'attached' });
    expect(new URL(page.url()).pathname).toBe('/projects');
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`shows a Shared with me card as compact as an own project's, its role a small badge (${colorScheme} theme, axe)`, async () => {
      const email = `collaborator-${colorScheme}@example.com`;
      await sharedProject(`sharer-${colorScheme}@example.com`, 'Spring campaign', [[email, 'editor']]);
      const context = await f.newContext(axeContext({ colorScheme }));
      const { page, errors } = await newPage(context);
      await f.signIn(context, email);
      await page.goto(`${f.app.baseUrl}/projects`);
      await createProject(page, 'My own board', { open: false });
      const own = page.getByRole('list', { name: 'Your projects' }).getByRole('listitem').filter({ hasText: 'My own board' });
      const shared = page.getByRole('list', { name: 'Shared with me' }).getByRole('listitem').filter({ hasText: 'Spring campaign' });
      await shared.getByText(`Shared by sharer-${colorScheme}`).waitFor();
      const badge = shared.getByText('Can edit', { exact: true });
      await badge.waitFor();
      await page.locator('.project-thumbnail img, .project-thumbnail-missing').first().waitFor();

      const [ownHeight, sharedHeight] = [await heightOf(own), await heightOf(shared)];
      expect(sharedHeight, `shared ${sharedHeight} px, own ${ownHeight} px`).toBeLessThanOrEqual(ownHeight * 1.3);
      const [ownWidth, sharedWidth] = [(await own.boundingBox())!.width, (await shared.boundingBox())!.width];
      expect(sharedWidth).toBe(ownWidth); // the same grid
      const badgeBox = (await badge.boundingBox())!;
      expect(badgeBox.height).toBeLessThanOrEqual(28);
      expect(badgeBox.width).toBeLessThanOrEqual(120);
      await screenshot(page, `header-shared-card-${colorScheme}`);
      expect(await seriousViolations(page), 'projects').toEqual([]);

      // Axe with the account menu open, and on a canvas with its name being edited.
      await header(page).getByRole('button', { name: /^Account/ }).click();
      await page.getByRole('menu', { name: 'Account' }).waitFor();
      expect(await seriousViolations(page), 'account menu').toEqual([]);
      await page.keyboard.press('Escape');
      await own.getByRole('link', { name: 'My own board', exact: true }).click();
      await page.getByText('Your canvas is empty.').waitFor();
      await header(page).getByRole('button', { name: 'My own board', exact: true }).click();
      await header(page).getByRole('textbox', { name: 'Project name' }).waitFor();
      expect(await seriousViolations(page), 'renaming').toEqual([]);
      expect(errors).toEqual([]);
    });
  }
});
