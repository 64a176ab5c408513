// Onboarding (issue 19, point 9): a person's first project starts with the example canvas — two pictures and a
// generation node connected to both, with a prompt the offline engine runs — and a note that says so. Clear example
// removes it in one undoable step; Keep hides the note and leaves the nodes. A second project starts empty.
import { expect, it } from 'vitest';
import { EXAMPLE_PROMPT } from '../../src/services/example-canvas.js';
import { describeInBrowser, newPage, screenshot, signInThroughUi, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

describeInBrowser('onboarding: the example canvas', () => {
  const f = useBrowserFixture();

  it('gives a first project the example, which can be run, kept or cleared (undoably); a second project is empty', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await page.goto(`${f.app.baseUrl}/login`);
    await signInThroughUi(page, f.app.baseUrl, 'newcomer@example.com', 'Newcomer');
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();

    // The first project: the example is offered, ticked.
    const offer = page.getByLabel('Start with an example canvas');
    expect(await offer.isChecked()).toBe(true);
    await page.getByLabel('New project name').fill('My first');
    await page.getByRole('button', { name: 'Create and open', exact: true }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/, { timeout: WAIT });
    const projectId = page.url().split('/').at(-1)!;

    const note = page.getByRole('region', { name: 'Example canvas' });
    await note.getByText('This is an example.').waitFor();
    const pictures = page.locator('.react-flow__node-upload');
    const generation = page.locator('.react-flow__node-generation');
    await generation.waitFor();
    expect(await pictures.count()).toBe(2);
    await expect.poll(() => page.getByAltText('Uploaded image').evaluateAll((imgs: HTMLImageElement[]) => imgs.filter((i) => i.complete && i.naturalWidth > 0).length)).toBe(2);
    expect(await generation.getByLabel('Prompt').inputValue()).toBe(EXAMPLE_PROMPT);
    await generation.getByText('2 inputs').waitFor();
    expect(await page.locator('.react-flow__edge').count()).toBe(2);
    expect(await page.getByText('Your canvas is empty.').count()).toBe(0);
    await screenshot(page, 'onboarding-example');

    // It runs: Generate makes the pictures side by side, in sepia.
    await generation.getByRole('button', { name: 'Generate', exact: true }).click();
    await generation.getByAltText('Generated image').waitFor({ timeout: WAIT });
    await saved(page);

    // Clear example: everything goes in one step, and Undo brings it all back.
    await note.getByRole('button', { name: 'Clear example' }).click();
    await page.getByText('Your canvas is empty.').waitFor();
    await note.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Undo' }).click();
    await note.waitFor();
    expect(await pictures.count()).toBe(2);
    expect(await generation.count()).toBe(1);
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(2);

    // Keep: the note goes, the nodes stay (theirs now); undoable too.
    await note.getByRole('button', { name: 'Keep the example and hide this note' }).click();
    await note.waitFor({ state: 'detached' });
    expect(await pictures.count()).toBe(2);
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes.some((n) => n.data.example)).toBe(false);
    await page.getByRole('button', { name: 'Undo' }).click();
    await note.waitFor();

    await note.getByRole('button', { name: 'Clear example' }).click();
    await page.getByText('Your canvas is empty.').waitFor();
    await saved(page);
    expect(await restCanvas(page, projectId)).toMatchObject({ nodes: [], edges: [] });

    // A second project: no example offered, an empty canvas.
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('list', { name: 'Your projects' }).waitFor();
    expect(await offer.count()).toBe(0);
    await page.getByLabel('New project name').fill('Second');
    await page.getByRole('button', { name: 'Create and open', exact: true }).click();
    await page.getByText('Your canvas is empty.').waitFor();
    expect(await page.getByRole('region', { name: 'Example canvas' }).count()).toBe(0);
  });

  it('leaves the example out of a first project when it is unticked', async () => {
    const context = await f.newContext();
    const { page } = await newPage(context);
    await f.signIn(context, 'no-example@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await page.getByLabel('Start with an example canvas').setChecked(false);
    await page.getByLabel('New project name').fill('Blank');
    await page.getByRole('button', { name: 'Create and open', exact: true }).click();
    await page.getByText('Your canvas is empty.').waitFor();
    expect(await page.getByRole('region', { name: 'Example canvas' }).count()).toBe(0);
  });
});
