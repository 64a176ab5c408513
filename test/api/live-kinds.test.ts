// Live edits validated by node kind (issue 32, point 2), over real WebSockets: a change that would leave a node with
// data its kind refuses, or an edge between ports that do not exist or do not fit, is refused before it is applied —
// its sender's document connection is closed with the reason (src/collab/protocol.ts), the other editor never sees
// it, REST and a fresh load do not have it, and GET /api/metrics counts it by reason. The same changes made right
// pass and reach everyone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { REFUSED_CHANGE } from '../../src/collab/protocol.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
type Json = Record<string, unknown>;
type Who = { client: HttpClient; id: string; email: string };

const generation = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'a cat' } });
const text = (id: string, value: unknown) => ({ id, type: 'text', position: { x: 0, y: 100 }, data: { type: 'text', text: value } });

let t: TestApp;
let ada: Who;
let bob: Who;
const open: LiveClient[] = [];

beforeAll(async () => {
  t = await startTestApp({ METRICS_TOKEN: TOKEN, PROMPT_MAX_CHARS: '50' });
  [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

const live = async (who: Who, projectId: string) => {
  const c = await connectLive({ baseUrl: t.baseUrl, as: who.client, projectId });
  open.push(c);
  await c.saved();
  return c;
};

/** The value of the refused-changes counter for `reason` (0 when it has no sample yet). */
async function refusedCount(reason: string): Promise<number> {
  const res = await t.client().get('/api/metrics', { authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`image_canvas_live_refused_changes_total{reason="${reason}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

const nodeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).nodes.get(id) as Y.Map<unknown>;
const dataOf = (doc: Y.Doc, id: string) => nodeMap(doc, id).get('data') as Y.Map<unknown>;
const edgeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).edges.get(id) as Y.Map<unknown>;

describe('live edits validated by node kind', () => {
  let projectId: string;
  let other: LiveClient;

  beforeAll(async () => {
    projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Kinds' })).json.id as string;
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
    const saved = await ada.client.post('/api/user/project/canvas', {
      projectId,
      nodes: [generation('g'), text('t', 'in the rain')],
      edges: [{ id: 'p', source: 't', target: 'g', targetHandle: 'prompt' }],
    });
    expect(saved.status).toBe(200);
    other = await live(bob, projectId);
  });

  const refusals: Array<[string, string, (doc: Y.Doc) => void]> = [
    ['an image on a text node', REFUSED_CHANGE.dataOfAnotherKind.reason, (d) => dataOf(d, 't').set('image', 'https://img.example/x.png')],
    ['a text over PROMPT_MAX_CHARS', 'invalid-text', (d) => dataOf(d, 't').set('text', 'x'.repeat(51))],
    ['a numeric prompt on a generation node', 'invalid-prompt', (d) => dataOf(d, 'g').set('prompt', 7)],
    ['a node of a type no kind has', REFUSED_CHANGE.unknownNodeType.reason, (d) => addToCanvas(d, { nodes: [{ ...text('n', 'x'), type: 'video-player' }] })],
    ['a text node turned into a generation', 'invalid-data-type', (d) => nodeMap(d, 't').set('type', 'generation')],
    ['an edge to a port that does not exist', REFUSED_CHANGE.unknownPort.reason, (d) => edgeMap(d, 'p').set('targetHandle', 'negative')],
    ['a text into an image input', REFUSED_CHANGE.portsDoNotFit.reason, (d) => edgeMap(d, 'p').set('targetHandle', 'images')],
  ];

  it.each(refusals)('refuses %s: the sender is told why, the other editor never sees it, nothing is stored, it is counted', async (_what, reason, change) => {
    const counted = await refusedCount(reason);
    const writer = await live(ada, projectId);
    const before = renderCanvas(writer.doc);
    change(writer.doc); // through the provider, as an editor would
    expect(await writer.event('provider-close:')).toBe(`provider-close:${reason}`);
    writer.close();

    // A legitimate change after it reaches the other editor: the refused one never did (updates arrive in order).
    const next = await live(ada, projectId);
    const marker = `after ${reason}`;
    dataOf(next.doc, 'g').set('prompt', marker);
    await next.saved();
    await docWhere(other.doc, (d) => dataOf(d, 'g')?.get('prompt') === marker);
    const expected = { nodes: before.nodes.map((n) => ((n as Json).id === 'g' ? { ...(n as Json), data: { type: 'generation', prompt: marker } } : n)), edges: before.edges };
    expect(renderCanvas(other.doc)).toEqual(expected);
    expect(renderCanvas(next.doc)).toEqual(expected);
    next.close();

    const rest = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect({ nodes: rest.nodes, edges: rest.edges }).toEqual(expected);
    expect(await refusedCount(reason)).toBe(counted + 1);
  });

  it('passes the same kinds of change made right, and everyone sees them', async () => {
    const writer = await live(ada, projectId);
    dataOf(writer.doc, 't').set('text', 'x'.repeat(50));
    addToCanvas(writer.doc, { nodes: [text('t2', 'at night')], edges: [{ id: 'p2', source: 't2', target: 'g', targetHandle: 'prompt' }] });
    await writer.saved();
    expect(writer.events.some((e) => e.startsWith('provider-close'))).toBe(false);
    await docWhere(other.doc, (d) => canvasMaps(d).edges.has('p2') && dataOf(d, 't')?.get('text') === 'x'.repeat(50));
    const rest = (await bob.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect(rest.nodes.map((n: Json) => n.id)).toEqual(['g', 't', 't2']);
    expect(rest.edges).toContainEqual({ id: 'p2', source: 't2', target: 'g', targetHandle: 'prompt' });
    writer.close();
  });
});
