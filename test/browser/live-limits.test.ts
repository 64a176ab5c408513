// The web client keeps to the live canvas's limits (docs/api.md "Live canvas", "Limits"; web/src/canvas/live-limits.ts):
// a prompt box stops at PROMPT_MAX_CHARS, typed or pasted, and the canvas stays saved; a change the service refuses
// anyway (here: a client told a larger limit than the service's) makes the page drop its copy and load the canvas
// again as stored, with a notice saying why, instead of resending it on every reconnect; a duplicate past CANVAS_MAX_NODES is refused in the page with a message; and a long, fast drag
// stays under COLLAB_UPDATES_PER_SECOND — never closed `rate-limited` — and its last position is stored.
import type { Page, WebSocket } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, newPage, screenshot } from './browser.js';
import { restCanvas, saved, useBrowserFixture } from './fixture.js';

const PROMPT_MAX = 50;
/** Below a drag sent at the display's frame rate (60 a second headless), above the client's 30 a second. */
const UPDATES_PER_SECOND = 35;
/** One more node than the test canvas holds. */
const MAX_NODES = 3;

const nodes = [
  { id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } },
  { id: 'g', type: 'generation', position: { x: 420, y: 0 }, data: { type: 'generation', prompt: 'sepia' } },
];

/** What the page's live socket sends and receives: document updates sent (with when), and any close reason received. */
function watchSocket(page: Page) {
  const sentUpdates: number[] = [];
  const received: string[] = [];
  let closes = 0;
  page.on('websocket', (ws: WebSocket) => {
    if (!new URL(ws.url()).pathname.startsWith('/api/collab/')) return; // /api/collab/<projectId>
    ws.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') return;
      // A hocuspocus frame: the document name (a var-string: its length, then a project id's 36 characters), the
      // message type (0: sync) and the sync message type (2: an update).
      const at = 1 + payload[0];
      if (payload[at] === 0 && payload[at + 1] === 2) sentUpdates.push(Date.now());
    });
    ws.on('framereceived', ({ payload }) => received.push(typeof payload === 'string' ? payload : payload.toString('latin1')));
    ws.on('close', () => closes++);
  });
  return {
    sentUpdates,
    refused: (reason: string) => received.some((frame) => frame.includes(reason)),
    refusals: (reason: string) => received.filter((frame) => frame.includes(reason)).length,
    closes: () => closes,
  };
}

describeInBrowser('the live canvas within its limits', () => {
  const f = useBrowserFixture({
    PROMPT_MAX_CHARS: String(PROMPT_MAX),
    COLLAB_UPDATES_PER_SECOND: String(UPDATES_PER_SECOND),
    CANVAS_MAX_NODES: String(MAX_NODES),
  });

  async function openProject(name: string, prepare?: (page: Page) => Promise<unknown>) {
    const owner = await f.app.user('ada@example.com');
    const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name })).json.id as string;
    expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] })).status).toBe(200);
    const watched = await newPage(await f.newContext());
    const socket = watchSocket(watched.page);
    await prepare?.(watched.page);
    await f.signIn(watched.page.context(), 'ada@example.com');
    await watched.page.goto(`${f.app.baseUrl}/projects/${projectId}`);
    await watched.page.locator('.react-flow__node').nth(1).waitFor();
    await saved(watched.page);
    return { projectId, ...watched, socket };
  }

  it('a prompt stops at the limit, typed or pasted, shows its count, and the canvas stays saved', async () => {
    const { page, projectId, errors, socket } = await openProject('Long prompt');
    const prompt = page.locator('.react-flow__node[data-id="g"]').getByLabel('Prompt');
    await prompt.click();
    await prompt.press('End');
    await page.keyboard.insertText(` ${'x'.repeat(PROMPT_MAX * 2)}`); // a paste: one insertion of 101 characters
    await expect.poll(() => prompt.inputValue()).toHaveLength(PROMPT_MAX);
    await page.keyboard.type('yz');
    expect(await prompt.inputValue()).toHaveLength(PROMPT_MAX);
    await page.getByTestId('prompt-count').getByText(`${PROMPT_MAX} / ${PROMPT_MAX} characters`).waitFor();
    await saved(page);
    const stored = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g');
    expect(stored.data.prompt).toBe(`sepia ${'x'.repeat(PROMPT_MAX - 6)}`);
    expect(socket.refused('invalid-prompt')).toBe(false);
    expect(await page.getByTestId('live-refused').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a change the service refuses anyway makes the page load the canvas again as stored, says why, and is never sent again', async () => {
    // A client that believes the limit is larger than the service's (a stale page after the limit was lowered).
    const { page, projectId, socket } = await openProject('Refused prompt', (p) =>
      p.route('**/api/client-config', async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        await route.fulfill({ response, json: { ...body, canvas: { ...body.canvas, promptMaxChars: 1000 } } });
      }),
    );
    const prompt = () => page.locator('.react-flow__node[data-id="g"]').getByLabel('Prompt');
    await prompt().fill('z'.repeat(PROMPT_MAX + 10));
    const notice = page.getByTestId('live-refused');
    await notice.getByText('The server refused a change: a prompt is too long').waitFor();
    expect(socket.refused('invalid-prompt')).toBe(true);
    // The page dropped its copy and loaded the canvas again: the prompt is the stored one, and the canvas is saved.
    await expect.poll(() => prompt().inputValue()).toBe('sepia');
    await saved(page);
    await screenshot(page, 'live-refused');
    const refusals = socket.refusals('invalid-prompt');
    // Editing goes on and is stored; the refused change is never sent again (no more refusals).
    await prompt().fill('sepia, warm');
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g').data.prompt).toBe('sepia, warm');
    expect(socket.refusals('invalid-prompt')).toBe(refusals);
    expect(await notice.isVisible()).toBe(true);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
  });

  it('a duplicate past CANVAS_MAX_NODES is not sent: a message says why, and the canvas stays saved', async () => {
    const { page, projectId, socket, errors } = await openProject('Full canvas');
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('ControlOrMeta+d');
    await page.getByTestId('live-notice').getByText(`Not added: a canvas holds at most ${MAX_NODES} nodes.`).waitFor();
    expect(await page.locator('.react-flow__node').count()).toBe(2);
    await saved(page);
    expect(socket.refused('too-many-nodes')).toBe(false);
    expect((await restCanvas(page, projectId))!.nodes).toHaveLength(2);
    // One node more fits.
    await page.getByTestId('live-notice').getByRole('button', { name: 'Dismiss' }).click();
    await page.getByRole('button', { name: 'Add generation' }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(MAX_NODES);
    await saved(page);
    expect((await restCanvas(page, projectId))!.nodes).toHaveLength(MAX_NODES);
    expect(errors).toEqual([]);
  });

  it('a long, fast drag is sent at most ~30 times a second: never closed rate-limited, its last position stored', async () => {
    // A 144 Hz display, as headless Chromium on any machine: animation frames every 7 ms.
    const { page, projectId, socket, errors } = await openProject('Long drag', (p) =>
      p.addInitScript(() => {
        window.requestAnimationFrame = (callback) => window.setTimeout(() => callback(performance.now()), 7);
        window.cancelAnimationFrame = (handle) => window.clearTimeout(handle);
      }),
    );
    const title = page.locator('.react-flow__node[data-id="g"] .canvas-node-title span').first();
    const box = (await title.boundingBox())!;
    const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    const before = socket.sentUpdates.length;
    const closedBefore = socket.closes();
    const began = Date.now();
    // 300 frames (two seconds at 144 Hz), two pointer moves in each (a fast pointer): each frame has a new position to send.
    await page.evaluate(
      async ({ x, y, frames }) => {
        for (let frame = 0; frame < frames; frame++) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          for (const half of [0, 0.5]) {
            const t = (frame + half) / 144;
            const init = { clientX: x + 120 * Math.sin(t * 3), clientY: y + 40 + 30 * Math.cos(t * 2), buttons: 1, bubbles: true, view: window };
            window.dispatchEvent(new MouseEvent('mousemove', init));
          }
        }
      },
      { ...start, frames: 300 },
    );
    const end = { x: start.x + 77, y: start.y + 33 };
    await page.mouse.move(end.x, end.y);
    await page.mouse.up();
    const seconds = (Date.now() - began) / 1000;
    await saved(page);
    const sent = socket.sentUpdates.length - before;
    console.log(`drag: ${sent} updates in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(1)}/s)`);
    expect(seconds).toBeGreaterThan(2); // long enough for a drag sent every frame to pass the burst
    expect(sent / seconds).toBeLessThan(UPDATES_PER_SECOND);
    expect(socket.refused('rate-limited')).toBe(false);
    expect(socket.closes()).toBe(closedBefore);
    const drawn = await page.locator('.react-flow__node[data-id="g"]').evaluate((el) => (el as HTMLElement).style.transform);
    const match = /translate\((-?[\d.e+-]+)px, (-?[\d.e+-]+)px\)/.exec(drawn)!;
    const stored = (await restCanvas(page, projectId))!.nodes.find((n) => n.id === 'g');
    expect(stored.position.x).toBeCloseTo(Number(match[1]), 2);
    expect(stored.position.y).toBeCloseTo(Number(match[2]), 2);
    expect(stored.position).not.toEqual(nodes[1].position);
    expect(errors).toEqual([]);
  });
});
