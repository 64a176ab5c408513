// How the canvas follows a node's job (issue 32, points 4 and 5): the runner alone writes a node's run state into the
// live document, and the page reads it there — for everyone — and follows the jobs it started through the user's job
// events (GET /api/generations/events), one stream per tab whatever the number of nodes, with no timers and no reads
// of a job; a canceled run says *Canceled*, not the error of the run before; and a node whose job is queued or
// running shows that job to a second editor instead of starting another.
//
// The model is an in-process one whose calls wait, while the test holds them, until the test releases them (or the
// call is aborted), so "running" is a state the test waits for, never a timer; a prompt of "fail" makes it fail.
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { imageModelFailed } from '../../src/errors.js';
import { heldModel } from '../helpers/held-model.js';
import { describeInBrowser, newPage, solidPng, WAIT } from './browser.js';
import { useBrowserFixture, type BrowserFixture } from './fixture.js';

const held = heldModel(async (req, n) => {
  if (req.prompt === 'fail') throw imageModelFailed('the model fell over');
  const data = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: (n * 67) % 256, g: (n * 131) % 256, b: (n * 29) % 256 } } }).png().toBuffer();
  return { image: { data, mimeType: 'image/png' }, text: 'held' };
});

/** Ada's canvas, saved over REST: an uploaded image connected into each generation node of `prompts` (ids g1, g2, …). */
async function canvasWith(f: BrowserFixture, email: string, name: string, prompts: string[]) {
  const ada = await f.app.user(email);
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await solidPng(32, 32, [200, 100, 50]))], { type: 'image/png' }), 'dot.png');
  const image = (await ada.client.request('/api/upload', { method: 'POST', body: form })).json.url as string;
  const nodes = [
    { id: 'in', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } },
    ...prompts.map((prompt, i) => ({ id: `g${i + 1}`, type: 'generation', position: { x: 400, y: i * 500 }, data: { type: 'generation', prompt } })),
  ];
  const edges = prompts.map((_, i) => ({ id: `e${i + 1}`, source: 'in', target: `g${i + 1}` }));
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges })).status).toBe(200);
  return { projectId, ada };
}

/** A signed-in page on the project's canvas, once its generation nodes show their input; `requests` lists what it asks. */
async function openCanvas(f: BrowserFixture, email: string, projectId: string, prepare?: (page: Page) => Promise<void>) {
  const { page, errors } = await newPage(await f.newContext());
  const requests: string[] = [];
  page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  await prepare?.(page);
  await f.signIn(page.context(), email);
  await page.goto(`${f.app.baseUrl}/projects/${projectId}`);
  await page.locator('.react-flow__node[data-id="g1"]').getByText('1 input').waitFor();
  return { page, errors, requests, node: (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`) };
}

/**
 * Lets the page's live socket hold back what the service sends while `held` (a slow network, as it were): the
 * page's document shows nothing new until `flow()`; what the page sends goes on at once.
 */
async function holdableSocket(page: Page) {
  let holding = false;
  const waiting: Array<() => void> = [];
  await page.routeWebSocket(/\/api\/collab/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => (holding ? waiting.push(() => ws.send(message)) : ws.send(message)));
  });
  return {
    hold: () => void (holding = true),
    flow: () => {
      holding = false;
      for (const send of waiting.splice(0)) send();
    },
  };
}

const status = (page: Page, nodeId: string) => page.locator(`.react-flow__node[data-id="${nodeId}"]`).getByRole('status');

describeInBrowser('the canvas follows jobs by their events and the live document', () => {
  const f = useBrowserFixture({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', JOBS_RUNNING_PER_USER: '2' }, { imageModel: held.model });
  afterAll(() => held.release());

  it('shows two runs from the document and their events: one event stream for the tab, no job read, no timer', async () => {
    const { projectId } = await canvasWith(f, 'ada@example.com', 'Follow', ['one', 'two']);
    const { page, errors, requests, node } = await openCanvas(f, 'ada@example.com', projectId);

    held.hold();
    const calls = held.calls;
    await node('g1').getByRole('button', { name: 'Generate', exact: true }).click();
    await node('g2').getByRole('button', { name: 'Generate', exact: true }).click();
    await held.reached(calls + 2);
    for (const id of ['g1', 'g2']) await status(page, id).filter({ hasText: /Running · \d+ s/ }).waitFor();
    held.release();
    for (const id of ['g1', 'g2']) await node(id).getByAltText('Generated image').waitFor();
    for (const id of ['g1', 'g2']) await expect.poll(() => node(id).locator('.job-status').count(), { timeout: WAIT }).toBe(0);

    // Both nodes shared one stream of the user's job events, and no job was read (nothing polls).
    expect(requests.filter((r) => r === 'GET /api/generations/events')).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith('POST /api/generations'))).toEqual(['POST /api/generations', 'POST /api/generations']);
    expect(requests.filter((r) => r.startsWith('GET /api/generations/job_') || r === 'GET /api/generations')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('says Canceled after a cancel, not the error of the run before; the next run clears it', async () => {
    const { projectId } = await canvasWith(f, 'cat@example.com', 'Cancel', ['fail']);
    const { page, errors, node } = await openCanvas(f, 'cat@example.com', projectId);
    const g1 = node('g1');

    // A first run fails: its error, with the service's details (this tab's full answer, from the job's event: the
    // document has only the error's words).
    await g1.getByRole('button', { name: 'Generate', exact: true }).click();
    await g1.getByRole('alert').filter({ hasText: 'Failed to generate image' }).filter({ hasText: 'the image model failed' }).waitFor();

    // The same prompt again, held, then canceled: the node says Canceled, and the earlier error is not shown.
    held.hold();
    const calls = held.calls;
    await g1.getByRole('button', { name: 'Generate', exact: true }).click();
    await held.reached(calls + 1);
    await status(page, 'g1').filter({ hasText: /Running/ }).waitFor();
    await g1.getByRole('button', { name: 'Cancel generation' }).click();
    await expect.poll(() => held.signals.at(-1)!.aborted, { timeout: WAIT }).toBe(true);
    await status(page, 'g1').filter({ hasText: 'Canceled' }).waitFor();
    await expect.poll(() => g1.locator('.job-status').count(), { timeout: WAIT }).toBe(0);
    expect(await g1.locator('.node-error').count()).toBe(0);
    expect(await g1.getByRole('button', { name: 'Generate', exact: true }).isEnabled()).toBe(true);

    // A run that succeeds: its result, and Canceled is gone.
    held.release();
    await g1.getByLabel('Prompt').fill('works');
    await g1.getByRole('button', { name: 'Generate', exact: true }).click();
    await g1.getByAltText('Generated image').waitFor();
    await expect.poll(() => status(page, 'g1').filter({ hasText: 'Canceled' }).count(), { timeout: WAIT }).toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows a node's running job to a second editor in place of Generate, who starts no other", async () => {
    const { projectId, ada } = await canvasWith(f, 'dan@example.com', 'Busy', ['one']);
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: 'eve@example.com', role: 'editor' })).status).toBe(201);
    const dan = await openCanvas(f, 'dan@example.com', projectId);
    const eve = await openCanvas(f, 'eve@example.com', projectId);

    held.hold();
    const calls = held.calls;
    await dan.node('g1').getByRole('button', { name: 'Generate', exact: true }).click();
    await held.reached(calls + 1);

    // Eve sees the job running, with Cancel; her button shows it is generating and starts nothing.
    await status(eve.page, 'g1').filter({ hasText: /Running · \d+ s/ }).waitFor();
    const button = eve.node('g1').getByRole('button', { name: 'Generating…' });
    expect(await button.isDisabled()).toBe(true);
    expect(await eve.node('g1').getByRole('button', { name: 'Cancel generation' }).isVisible()).toBe(true);
    await button.click({ force: true });
    expect(eve.requests.filter((r) => r.startsWith('POST /api/generations'))).toEqual([]);

    // It ends: both see the result, and Eve may run the node again.
    held.release();
    for (const page of [dan, eve]) await page.node('g1').getByAltText('Generated image').waitFor();
    await eve.node('g1').getByRole('button', { name: 'Generate again', exact: true }).waitFor();
    expect(held.calls).toBe(calls + 1);
    expect(eve.requests.filter((r) => r.startsWith('POST /api/generations'))).toEqual([]);
    expect([...dan.errors, ...eve.errors]).toEqual([]);
  });

  it("follows the node's job when a start is refused because the node has one (409 naming it), and says Canceled to everyone", async () => {
    const { projectId, ada } = await canvasWith(f, 'fay@example.com', 'Refused', ['one']);
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: 'gil@example.com', role: 'editor' })).status).toBe(201);
    const fay = await openCanvas(f, 'fay@example.com', projectId);
    let socket!: Awaited<ReturnType<typeof holdableSocket>>;
    const gil = await openCanvas(f, 'gil@example.com', projectId, async (page) => void (socket = await holdableSocket(page)));

    // Gil's document lags: Fay's job runs while his node still looks idle, so he asks for another.
    socket.hold();
    held.hold();
    const calls = held.calls;
    await fay.node('g1').getByRole('button', { name: 'Generate', exact: true }).click();
    await held.reached(calls + 1);
    const refused = gil.page.waitForResponse((r) => r.url().endsWith('/api/generations') && r.request().method() === 'POST');
    await gil.node('g1').getByRole('button', { name: 'Generate', exact: true }).click();
    const answer = await refused;
    expect(answer.status()).toBe(409);
    const { jobId } = (await answer.json()) as { jobId: string };

    // The service refused it, naming Fay's job: Gil's node follows that job (no second one runs).
    await gil.node('g1').locator('.job-status').waitFor();
    expect(await gil.node('g1').getByRole('button', { name: 'Generating…' }).isDisabled()).toBe(true);
    expect(await gil.node('g1').locator('.node-error').count()).toBe(0);
    // His document catches up: the job as everyone sees it.
    socket.flow();
    await status(gil.page, 'g1').filter({ hasText: /Running · \d+ s/ }).waitFor();
    expect(held.calls).toBe(calls + 1);
    const running = (await (await fay.page.request.get(`${f.app.baseUrl}/api/generations?status=running&projectId=${projectId}`)).json()) as { items: Array<{ id: string }> };
    expect(running.items.map((j) => j.id)).toEqual([jobId]);

    // Fay cancels it: both nodes say Canceled, and Gil may start the node again.
    await fay.node('g1').getByRole('button', { name: 'Cancel generation' }).click();
    for (const page of [fay, gil]) {
      await status(page.page, 'g1').filter({ hasText: 'Canceled' }).waitFor();
      await expect.poll(() => page.node('g1').locator('.job-status').count(), { timeout: WAIT }).toBe(0);
      expect(await page.node('g1').locator('.node-error').count()).toBe(0);
    }
    await gil.node('g1').getByRole('button', { name: 'Generate', exact: true }).waitFor();
    held.release();
    expect(gil.requests.filter((r) => r.startsWith('GET /api/generations/job_'))).toEqual([]);
    expect([...fay.errors, ...gil.errors.filter((e) => !e.includes('409'))]).toEqual([]);
  });
});
