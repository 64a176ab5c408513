// A running job's provider progress in its generation node (docs/api.md "Progress in the canvas"): the service writes
// what the model's provider last reported into the node's `data.job.progress`, and the node shows it under the
// job's status — the provider's own queue ("Waiting at the provider: 2nd in line"), then its latest log line (one
// line, cut with an ellipsis, the whole line in its title) — and nothing of it once the result is there.
//
// The model is fal's nano-banana edit, played by the loopback fake of fal's queue API through the real
// `@fal-ai/client`: its script answers the status reads "in queue" a few times (fal counts from 0, so position 1 is
// our 2nd; repeated so the one-a-second progress writes show it before the log line replaces it), then "in
// progress" with one log line, then holds the request in progress until the test releases it. fal reports no
// steps: the step bar is covered by test/unit/job-progress.test.ts.
//
// OpenAI's partial images are played by the loopback fake of its Images API through the real `openai` SDK: the
// edit streams two partial images, then holds its final event until the test releases it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import sharp from 'sharp';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { describeInBrowser, newPage, screenshot, solidPng, WAIT } from './browser.js';
import { restCanvas, saved, useBrowserFixture, type BrowserFixture } from './fixture.js';

const MODEL = 'fal-ai/nano-banana/edit';

/**
 * Ada's canvas, saved over REST (an uploaded image connected into the generation node `gen`, with `data`), opened
 * in a signed-in page once the node shows its input.
 */
async function openImageIntoGeneration(f: BrowserFixture, name: string, data: { prompt: string; model?: string }) {
  const ada = await f.app.user('ada@example.com');
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await solidPng(32, 32, [200, 100, 50]))], { type: 'image/png' }), 'dot.png');
  const image = (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
  const nodes = [
    { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
    { id: 'gen', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', ...data } },
  ];
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'in', target: 'gen' }] })).status).toBe(200);

  const { page, errors } = await newPage(await f.newContext());
  await f.signIn(page.context(), 'ada@example.com');
  await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
  const node = page.locator('.react-flow__node[data-id="gen"]');
  await node.getByText('1 input').waitFor();
  return { page, errors, node, projectId };
}

const LOG_LINE = 'step 3/20 sampling';

describeInBrowser('a running job’s provider progress in its node', () => {
  let fal: FakeFal | undefined;
  const env: Record<string, string> = { RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', FAL_KEY: 'k' };
  // Registered before the fixture's own hooks, so the fake is listening (and named) before the service starts.
  beforeAll(async () => {
    fal = await startFakeFal({ key: 'k' });
    env.FAL_BASE_URL = fal.baseUrl;
  });
  afterAll(async () => {
    await fal?.close();
  });
  const f = useBrowserFixture(env);
  // After hooks run last-registered first: a request a failed test left held ends before the service stops.
  afterAll(() => fal?.release());

  it('shows the provider’s queue, then its log line, while the job runs; then the result, without them', async () => {
    const { page, errors, node, projectId } = await openImageIntoGeneration(f, 'Progress', { prompt: 'grayscale' });
    await node.getByLabel('Model', { exact: true }).selectOption(MODEL);
    await saved(page);

    fal!.script({
      steps: [
        { status: 'IN_QUEUE', position: 1 },
        { status: 'IN_QUEUE', position: 1 },
        { status: 'IN_QUEUE', position: 1 },
        { status: 'IN_PROGRESS', logs: [LOG_LINE] },
      ],
      hold: true,
    });
    const held = fal!.held();
    await node.getByRole('button', { name: 'Generate', exact: true }).click();

    // Waiting in fal's queue: our job runs (its status and seconds), the provider's place in line under it.
    const progress = node.locator('.provider-progress');
    await node.getByRole('status').filter({ hasText: 'Waiting at the provider: 2nd in line' }).waitFor();
    await node.getByRole('status').filter({ hasText: /Running · \d+ s/ }).waitFor();
    expect(await progress.locator('.provider-message').count()).toBe(0);

    // Then fal's log line, which replaces the queue: small, muted, one line cut with an ellipsis, whole in its title.
    const message = progress.locator('.provider-message');
    await message.filter({ hasText: LOG_LINE }).waitFor();
    expect(await message.getAttribute('title')).toBe(LOG_LINE);
    expect(await node.getByText(/Waiting at the provider/).count()).toBe(0);
    expect(await message.evaluate((el) => [getComputedStyle(el).whiteSpace, getComputedStyle(el).overflow, getComputedStyle(el).textOverflow])).toEqual(['nowrap', 'hidden', 'ellipsis']);
    expect(await progress.getByRole('progressbar').count()).toBe(0); // fal reports no steps

    // Held in progress (later reads carry no new log line): the line stays.
    const request = await held;
    expect(request).toMatchObject({ endpoint: MODEL, key: 'k', input: { prompt: 'grayscale' } });
    expect(request.input.image_urls).toHaveLength(1);
    await message.filter({ hasText: LOG_LINE }).waitFor();
    await screenshot(page, 'job-provider-progress');

    // Released: the result, and no job or progress left, in the node or in the stored canvas.
    fal!.release();
    await node.getByAltText('Generated image').waitFor();
    await expect.poll(() => node.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
    expect(await progress.count()).toBe(0);
    expect(await node.locator('.node-error').count()).toBe(0);
    await expect.poll(async () => (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'gen').data.job ?? null, { timeout: WAIT }).toBeNull();
    expect(errors).toEqual([]);
  });
});

describeInBrowser('a running job’s preview in its node (OpenAI partial images)', () => {
  let openai: FakeOpenAI | undefined;
  const env: Record<string, string> = { RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', OPENAI_API_KEY: 'sk-k' };
  let release: () => void = () => undefined;
  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-k' });
    env.OPENAI_BASE_URL = openai.baseUrl;
  });
  afterAll(async () => {
    await openai?.close();
  });
  const f = useBrowserFixture(env);
  afterAll(() => release());

  it('shows the latest partial image while the job runs, then the result in its place', async () => {
    const { errors, node } = await openImageIntoGeneration(f, 'Preview', { prompt: 'warmer', model: 'gpt-image-1' });

    const final = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#2a6' } }).png().toBuffer();
    const rough = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#777' } }).png().toBuffer();
    openai!.reply({ kind: 'image', image: final, partials: [rough, rough], completeAfter: new Promise<void>((r) => (release = r)) });
    await node.getByRole('button', { name: 'Generate', exact: true }).click();

    // The preview, made small by the service, under the job's status with the line that says which it is.
    const preview = node.getByAltText('Preview of the image being generated');
    await preview.waitFor();
    await node.locator('.provider-message').filter({ hasText: 'Preview 2 of 2' }).waitFor();
    expect(await preview.evaluate((img: HTMLImageElement) => [img.src.startsWith('data:image/webp;base64,'), img.naturalWidth])).toEqual([true, 256]);
    expect(openai!.requests.at(-1)!.fields).toMatchObject({ stream: 'true', partial_images: '2' });

    release();
    await node.getByAltText('Generated image').waitFor();
    await expect.poll(() => preview.count(), { timeout: WAIT }).toBe(0);
    expect(errors).toEqual([]);
  });
});
