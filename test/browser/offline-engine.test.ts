// The offline engine is honest (issue 34, point 1): a prompt it cannot act on fails in the node with the service's
// words — it is not an AI model, what it did not understand, what it understands — and the words it knows as
// chips, one of which fixes the prompt in one click; a prompt it understands succeeds, and what it did is said in
// words under the result and in the variant (its thumbnail's title and the enlarged variant's caption). The failed
// node passes the axe checks in both themes. With the offline engine (the default) through the whole service.
import { expect, it } from 'vitest';
import { axeContext, seriousViolations } from './a11y.js';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { connectOneImageToGeneration, createProject, useBrowserFixture } from './fixture.js';

describeInBrowser('the offline engine’s honest answers', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });

  it('fails “watercolor tiger” naming the words it understands, with chips that fix it; “grayscale” says what it did in the node and the variant', async () => {
    // No transitions: the theme switches at once for the second axe check.
    const { page, errors } = await newPage(await f.newContext(axeContext({ colorScheme: 'light', reducedMotion: 'reduce' })));
    await f.signIn(page.context(), 'ada@example.com');
    await page.goto(`${f.app.baseUrl}/projects`);
    await createProject(page, 'Honest');
    await page.getByText('Your canvas is empty.').waitFor();
    const node = await connectOneImageToGeneration(page);

    // Its prompt box says it takes operations, not a description: the engine is not an AI model.
    expect(await node.getByLabel('Prompt').getAttribute('placeholder')).toBe('Operations to apply (not an AI model), e.g. “grayscale, blur 4”');

    // Not understood: a failure in words, never the input handed back as a result.
    await node.getByLabel('Prompt').fill('watercolor tiger');
    await node.getByRole('button', { name: 'Generate', exact: true }).click();
    const error = node.locator('.node-error');
    await error.getByText('Prompt not understood: the offline engine is not an AI model and did not understand “watercolor tiger”').waitFor();
    await error.getByText(/^It understands: grayscale \(black and white, b&w\), sepia, /).waitFor();
    expect(await node.getByAltText('Generated image').count()).toBe(0);
    const fix = error.getByRole('list', { name: /it knows these words/ });
    expect(await fix.getByRole('button', { name: /^Use “/ }).allTextContents()).toEqual(['grayscale', 'sepia', 'invert', 'blur 4', 'sharpen', 'rotate 90', 'flip', 'mirror']);
    expect(await seriousViolations(page), 'light').toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page), 'dark').toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    // One click on a chip makes it the prompt (the error, about the old prompt, goes); it runs and says what it did.
    await fix.getByRole('button', { name: 'Use “grayscale”' }).click();
    expect(await node.getByLabel('Prompt').inputValue()).toBe('grayscale');
    await expect.poll(() => error.count(), { timeout: WAIT }).toBe(0);
    await node.getByRole('button', { name: 'Generate', exact: true }).click();
    await node.getByAltText('Generated image').waitFor();
    const said = 'Offline image engine (not an AI model): applied grayscale.';
    await node.getByTestId('result-text').getByText(said, { exact: true }).waitFor();

    // The variant says it too: on its thumbnail, and under it once enlarged.
    const thumb = node.getByRole('button', { name: 'Enlarge variant 1 (current)' });
    await expect.poll(() => thumb.getAttribute('title'), { timeout: WAIT }).toBe(said);
    await thumb.click();
    const dialog = page.getByRole('dialog', { name: 'Variant 1 of 1' });
    await dialog.locator('figcaption').getByText(said, { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(errors).toEqual([]);
  });
});
