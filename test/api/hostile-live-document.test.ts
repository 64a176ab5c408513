// Hostile content on the live canvas (issue 31, "the live document has no limits"): updates that would put in the
// document what a REST save could not — other root maps and types, shapes the canvas never has, each field's rule
// broken, oversized strings, counts and bytes over the limits, data its node's kind refuses, edges between ports that
// do not exist or do not fit — sent by a signed-in editor over a real WebSocket.
// Each is refused with a close reason naming the rule, and never reaches another editor, the REST canvas, the
// database or a fresh load. Then REST's own image rule, content stored before the rules (never served), and named
// versions' cap and rate. Every case asserts a refusal below 5xx and that nothing was stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';
import { addToCanvas, applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MAX_NODES = 6;
const MAX_EDGES = 3;
const MAX_BYTES = 64 * 1024;
const PROMPT_CHARS = 200;
const VERSIONS_MAX = 3;
const VERSIONS_PER_MINUTE = 7;

type Json = Record<string, unknown>;
type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let ada: Who;
let bob: Who;
let cy: Who;
const open: LiveClient[] = [];
const node = (id: string, data: Json = {}) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p', ...data } });
const edge = (id: string, source: string, target: string) => ({ id, source, target });
const text = (id: string, value: unknown = 'hi', data: Json = {}) => ({ id, type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: value, ...data } });

beforeAll(async () => {
  t = await startTestApp({
    CANVAS_MAX_NODES: String(MAX_NODES),
    CANVAS_MAX_EDGES: String(MAX_EDGES),
    CANVAS_MAX_BYTES: String(MAX_BYTES),
    PROMPT_MAX_CHARS: String(PROMPT_CHARS),
    VERSIONS_MAX_NAMED: String(VERSIONS_MAX),
    RATE_LIMIT_VERSIONS_PER_MINUTE: String(VERSIONS_PER_MINUTE),
  });
  [ada, bob, cy] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com'), t.user('cy@example.com')]);
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
const project = async (who: Who) => (await who.client.post('/api/user/project', { userId: who.id, name: 'Hostile content' })).json.id as string;
const restCanvas = async (who: Who, projectId: string) => (await who.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;

/** A sync-update frame for `address` (hocuspocus: `varString(address) varUint(Sync) varUint(Update) varUint8Array(update)`). */
function syncUpdate(address: string, update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, address);
  encoding.writeVarUint(e, 0);
  encoding.writeVarUint(e, 2);
  encoding.writeVarUint8Array(e, update);
  return encoding.toUint8Array(e);
}

/** The clients whose changes a document or a stored state holds. */
const clientsOf = (state: Uint8Array) => new Set(Y.decodeStateVector(Y.encodeStateVectorFromUpdate(state)).keys());
const clientsIn = (doc: Y.Doc) => clientsOf(Y.encodeStateAsUpdate(doc));
/** The clients an update writes as (its deletions are of others' items). */
const writersOf = (update: Uint8Array): number[] => [...new Set(Y.decodeUpdate(update).structs.map((s) => s.id.client))];
/** The project's document as stored (snapshot and log merged). */
async function storedState(projectId: string): Promise<Uint8Array> {
  const snapshot = await t.pool.query<{ state: Buffer }>('SELECT state FROM collab_snapshots WHERE project_id = $1', [projectId]);
  const rows = await t.pool.query<{ update: Buffer }>('SELECT update FROM collab_updates WHERE project_id = $1 ORDER BY id', [projectId]);
  const parts = [...snapshot.rows.map((r) => r.state), ...rows.rows.map((r) => r.update)].map((b) => new Uint8Array(b));
  return parts.length > 0 ? Y.mergeUpdates(parts) : new Uint8Array([0, 0]);
}

/** The update a fresh peer of `base` makes with `change`: a new client id, and only that change. */
function changeOn(base: Y.Doc, change: (peer: Y.Doc) => void): Uint8Array {
  const peer = new Y.Doc();
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(base));
  const before = Y.encodeStateVector(peer);
  peer.transact(() => change(peer));
  const update = Y.encodeStateAsUpdate(peer, before);
  peer.destroy();
  return update;
}
const nodeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).nodes.get(id) as Y.Map<unknown>;
const dataOf = (doc: Y.Doc, id: string) => nodeMap(doc, id).get('data') as Y.Map<unknown>;
const edgeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).edges.get(id) as Y.Map<unknown>;
const promptOf = (doc: Y.Doc, id: string) => dataOf(doc, id)?.get('prompt');

interface Case {
  what: string;
  /** The hostile update, made from the document as the writer holds it. */
  update: (base: Y.Doc) => Uint8Array;
  reason: string;
  code?: number;
}
const change = (what: string, reason: string, fn: (d: Y.Doc) => void, code?: number): Case => ({ what, reason, code, update: (base) => changeOn(base, fn) });

const CASES: Case[] = [
  // Root names and types.
  change('a root map other than nodes and edges', 'unknown-root', (d) => d.getMap('evil').set('k', 'v')),
  change('a root map of 20,000 keys (invisible to REST)', 'unknown-root', (d) => {
    const evil = d.getMap('junk');
    for (let i = 0; i < 20_000; i++) evil.set(`k${i}`, i);
  }),
  change('a root array', 'unknown-root', (d) => d.getArray('list').push(['x'])),
  change('a root text', 'unknown-root', (d) => d.getText('text').insert(0, 'hello')),
  change('a root XML fragment', 'unknown-root', (d) => d.getXmlFragment('xml').insert(0, [new Y.XmlText('x')])),
  change('a root named __proto__', 'unknown-root', (d) => d.getMap('__proto__').set('polluted', true)),
  // Shapes the canvas never has.
  change('a node that is a string', 'invalid-shape', (d) => canvasMaps(d).nodes.set('x', 'vandal')),
  change('an edge that is a number', 'invalid-shape', (d) => canvasMaps(d).edges.set('x', 5)),
  change('a node that is a text', 'invalid-shape', (d) => canvasMaps(d).nodes.set('x', new Y.Text('t'))),
  change('a node that is an array', 'invalid-shape', (d) => canvasMaps(d).nodes.set('x', new Y.Array())),
  change('a nested map under a node field', 'invalid-shape', (d) => nodeMap(d, 'a').set('style', new Y.Map())),
  change('a nested map inside data', 'invalid-shape', (d) => dataOf(d, 'a').set('deep', new Y.Map())),
  change('a nested array inside data', 'invalid-shape', (d) => dataOf(d, 'a').set('list', new Y.Array())),
  change('a prompt as a nested text', 'invalid-shape', (d) => dataOf(d, 'a').set('prompt', new Y.Text('hi'))),
  change('a nested map in an edge', 'invalid-shape', (d) => edgeMap(d, 'e').set('data', new Y.Map())),
  change('a subdocument', 'invalid-shape', (d) => dataOf(d, 'a').set('doc', new Y.Doc())),
  change('binary content', 'invalid-shape', (d) => dataOf(d, 'a').set('blob', new Uint8Array(64))),
  change('data as a plain value', 'invalid-data', (d) => nodeMap(d, 'a').set('data', { type: 'generation', image: 'javascript:alert(1)' })),
  // Each field's rule.
  change('a javascript: image', 'invalid-image', (d) => dataOf(d, 'a').set('image', 'javascript:alert(document.cookie)')),
  change('a JavaScript: image behind spaces and a tab', 'invalid-image', (d) => dataOf(d, 'a').set('image', ' \tJavaScript:alert(1)')),
  change('a vbscript: image', 'invalid-image', (d) => dataOf(d, 'a').set('image', 'vbscript:msgbox(1)')),
  change('an image URL of 2,049 characters', 'invalid-image', (d) => dataOf(d, 'a').set('image', `https://img.example/${'x'.repeat(2030)}`)),
  change('an image that is an object', 'invalid-image', (d) => dataOf(d, 'a').set('image', { src: 'x' })),
  change(`a prompt of ${PROMPT_CHARS + 1} characters`, 'invalid-prompt', (d) => dataOf(d, 'a').set('prompt', 'p'.repeat(PROMPT_CHARS + 1))),
  change('a prompt of 20,000 characters', 'invalid-prompt', (d) => dataOf(d, 'a').set('prompt', 'p'.repeat(20_000))),
  change('a prompt with NUL', 'invalid-prompt', (d) => dataOf(d, 'a').set('prompt', 'a\u0000b')),
  change('an image with NUL', 'invalid-image', (d) => dataOf(d, 'a').set('image', 'https://img.example/a\u0000.png')),
  change('a node type that is no kind', 'invalid-node-type', (d) => nodeMap(d, 'a').set('type', 'script')),
  change('a data type that is no kind', 'invalid-data-type', (d) => dataOf(d, 'a').set('type', 'html')),
  change('a position with a string', 'invalid-position', (d) => nodeMap(d, 'a').set('position', { x: '1', y: 0 })),
  change('a position that is not finite', 'invalid-position', (d) => nodeMap(d, 'a').set('position', { x: Number.NaN, y: 0 })),
  change('a position with extra keys', 'invalid-position', (d) => nodeMap(d, 'a').set('position', { x: 0, y: 0, z: 'x'.repeat(1000) })),
  change('isGenerating as a string', 'invalid-is-generating', (d) => dataOf(d, 'a').set('isGenerating', 'true')),
  change('a model of 101 characters', 'invalid-model', (d) => dataOf(d, 'a').set('model', 'm'.repeat(101))),
  change('an edge source that is a number', 'invalid-source', (d) => edgeMap(d, 'e').set('source', 1)),
  change('an edge target of 201 characters', 'invalid-target', (d) => edgeMap(d, 'e').set('target', 't'.repeat(201))),
  change('an edge handle that is an object', 'invalid-handle', (d) => edgeMap(d, 'e').set('targetHandle', { a: 1 })),
  change('a malformed order key', 'invalid-order-key', (d) => nodeMap(d, 'a').set('#', '!')),
  change('an empty node id', 'invalid-id', (d) => addToCanvas(d, { nodes: [node('')] })),
  change('a node id of 201 characters', 'invalid-id', (d) => addToCanvas(d, { nodes: [node('n'.repeat(201))] })),
  change('a key of 201 characters', 'invalid-key', (d) => dataOf(d, 'a').set('k'.repeat(201), 1)),
  change('an extra value of 17 KB', 'invalid-value', (d) => nodeMap(d, 'a').set('style', { css: 'x'.repeat(17_000) })),
  change('an extra value nested 40 deep', 'invalid-value', (d) => dataOf(d, 'a').set('deep', JSON.parse('['.repeat(40) + ']'.repeat(40)))),
  change('an extra value that is a bigint', 'invalid-value', (d) => dataOf(d, 'a').set('big', BigInt(1))),
  // By node kind (src/kinds/): each node's data under its kind's rules, edges between ports that exist and fit.
  change('a new node of a type no kind has', 'invalid-node-type', (d) => addToCanvas(d, { nodes: [{ ...node('n'), type: 'iframe', data: { type: 'iframe' } }] })),
  change('a text node with an image', 'data-of-another-kind', (d) => addToCanvas(d, { nodes: [text('n', 'hi', { image: 'https://img.example/x.png' })] })),
  change(`a text node with a text of ${PROMPT_CHARS + 1} characters`, 'invalid-text', (d) => addToCanvas(d, { nodes: [text('n', 't'.repeat(PROMPT_CHARS + 1))] })),
  change('a text node whose text is a number', 'invalid-text', (d) => addToCanvas(d, { nodes: [text('n', 42)] })),
  change('a text node without its text', 'missing-data-text', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text' } }] })),
  change('a text node whose data says upload', 'invalid-data-type', (d) => addToCanvas(d, { nodes: [{ ...text('n'), data: { type: 'upload', text: 'hi' } }] })),
  change('a generation node with a numeric prompt', 'invalid-prompt', (d) => dataOf(d, 'a').set('prompt', 12345)),
  change('a generation node with a text', 'data-of-another-kind', (d) => dataOf(d, 'a').set('text', 'not a field of generation')),
  change('a generation node turned into a text node, its data left as is', 'invalid-data-type', (d) => nodeMap(d, 'a').set('type', 'text')),
  change('a generation node turned into a text node keeping its prompt', 'data-of-another-kind', (d) => {
    nodeMap(d, 'a').set('type', 'text');
    dataOf(d, 'a').set('type', 'text');
    dataOf(d, 'a').set('text', 'hi');
  }),
  change('a generation node turned into a text node with an edge into an image input', 'ports-do-not-fit', (d) => {
    nodeMap(d, 'a').set('type', 'text');
    dataOf(d, 'a').set('type', 'text');
    dataOf(d, 'a').delete('prompt');
    dataOf(d, 'a').set('text', 'hi');
  }),
  change('a generation node turned into an upload with an edge into it', 'unknown-port', (d) => nodeMap(d, 'b').set('type', 'upload')),
  change('an edge to an input port that does not exist', 'unknown-port', (d) => edgeMap(d, 'e').set('targetHandle', 'mask')),
  change('an edge from an output port that does not exist', 'unknown-port', (d) => edgeMap(d, 'e').set('sourceHandle', 'video')),
  change("an edge into an image's node (no inputs), with the node", 'unknown-port', (d) => addToCanvas(d, { nodes: [{ id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } }], edges: [edge('f', 'a', 'u')] })),
  change("an image into a generation's prompt", 'ports-do-not-fit', (d) => edgeMap(d, 'e').set('targetHandle', 'prompt')),
  change("a text into a generation's images, with the text node", 'ports-do-not-fit', (d) => addToCanvas(d, { nodes: [text('n')], edges: [edge('f', 'n', 'b')] })),
  // What REST requires of a node or edge that a change makes.
  change('a new node without position', 'missing-position', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'upload', data: { type: 'upload' } }] })),
  change('a new node without type', 'missing-type', (d) => addToCanvas(d, { nodes: [{ id: 'n', position: { x: 0, y: 0 }, data: { type: 'upload' } }] })),
  change('a new node whose data has no type', 'missing-data-type', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'upload', position: { x: 0, y: 0 }, data: {} }] })),
  change('a new edge without source', 'missing-source', (d) => addToCanvas(d, { edges: [{ id: 'f', target: 'a' }] })),
  change('a node whose data map is replaced by an empty one', 'missing-data-type', (d) => nodeMap(d, 'a').set('data', new Y.Map())),
  // Deleting what REST requires of a node or edge that stays.
  change("deleting a node's position", 'missing-position', (d) => nodeMap(d, 'a').delete('position')),
  change("deleting a node's type", 'missing-type', (d) => nodeMap(d, 'b').delete('type')),
  change("deleting a node's data", 'missing-data', (d) => nodeMap(d, 'a').delete('data')),
  change("deleting a node's data type", 'missing-data-type', (d) => dataOf(d, 'b').delete('type')),
  change("deleting an edge's target", 'missing-target', (d) => edgeMap(d, 'e').delete('target')),
  // Counts and bytes.
  change(`nodes beyond CANVAS_MAX_NODES (${MAX_NODES})`, 'too-many-nodes', (d) => addToCanvas(d, { nodes: Array.from({ length: MAX_NODES }, (_, i) => node(`many-${i}`)) }), 4413),
  change(`edges beyond CANVAS_MAX_EDGES (${MAX_EDGES})`, 'too-many-edges', (d) => addToCanvas(d, { edges: Array.from({ length: MAX_EDGES }, (_, i) => edge(`many-${i}`, 'a', 'b')) }), 4413),
  change(`a canvas past CANVAS_MAX_BYTES (${MAX_BYTES / 1024} KB) in extra values`, 'canvas-too-large', (d) => {
    for (let i = 0; i < 5; i++) nodeMap(d, 'a').set(`note${i}`, 'x'.repeat(15_000));
  }, 4413),
  change('a canvas past CANVAS_MAX_BYTES in prompts of new nodes', 'canvas-too-large', (d) => addToCanvas(d, { nodes: [1, 2, 3, 4].map((i) => node(`big-${i}`, { prompt: 'q'.repeat(PROMPT_CHARS), notes: 'y'.repeat(16_000) })) }), 4413),
  // An item whose parent the server never saw.
  {
    what: 'a data key of a node the server never saw',
    reason: 'unknown-parent',
    update(base) {
      const elsewhere = new Y.Doc();
      Y.applyUpdate(elsewhere, Y.encodeStateAsUpdate(base));
      addToCanvas(elsewhere, { nodes: [node('ghost')] });
      const before = Y.encodeStateVector(elsewhere);
      dataOf(elsewhere, 'ghost').set('image', 'javascript:alert(1)');
      return Y.encodeStateAsUpdate(elsewhere, before);
    },
  },
];

describe('hostile content on the live canvas', () => {
  let projectId: string;
  let writer: LiveClient;
  let other: LiveClient;
  const refusedWriters = new Set<number>();

  beforeAll(async () => {
    projectId = await project(ada);
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b')], edges: [edge('e', 'a', 'b')] })).status).toBe(200);
    writer = await live(ada, projectId);
    other = await live(bob, projectId);
  });

  it(`has at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES.map((c, i) => [c.what, c, i] as const))('refuses %s: not applied for others, not in REST, not stored, not loaded again', async (_what, c, i) => {
    const attacker = await live(ada, projectId);
    const update = c.update(writer.doc);
    for (const client of writersOf(update)) refusedWriters.add(client);
    attacker.socket.webSocket!.send(syncUpdate(attacker.provider.effectiveName, update));
    expect(await attacker.event('provider-close:')).toBe(`provider-close:${c.reason}`);
    attacker.close();

    // A legitimate change after it reaches the other editor: the refused one never did (updates arrive in order).
    dataOf(writer.doc, 'a').set('prompt', `after case ${i}`);
    await writer.saved();
    await docWhere(other.doc, (d) => promptOf(d, 'a') === `after case ${i}`);
    for (const client of writersOf(update)) expect(clientsIn(other.doc).has(client), 'seen by another editor').toBe(false);
    expect([...other.doc.share.keys()].every((name) => name === 'nodes' || name === 'edges')).toBe(true);

    const rest = await restCanvas(ada, projectId);
    expect({ nodes: rest.nodes, edges: rest.edges }).toEqual(renderCanvas(writer.doc));
    const stored = clientsOf(await storedState(projectId));
    for (const client of writersOf(update)) expect(stored.has(client), 'stored').toBe(false);

    const fresh = await live(bob, projectId);
    for (const client of writersOf(update)) expect(clientsIn(fresh.doc).has(client), 'loaded again').toBe(false);
    expect(renderCanvas(fresh.doc)).toEqual(renderCanvas(writer.doc));
    fresh.close();
  });

  it('legitimate edits still pass and reach everyone: adds up to the limits, moves, prompts, images, extra keys, deletions, a text into a prompt', async () => {
    const w = await live(ada, projectId);
    addToCanvas(w.doc, {
      nodes: [node('c', { image: 'https://img.example/c.png' }), node('d', { image: '/files/d.png' }), text('t', 'a caption')],
      edges: [edge('f', 'c', 'd'), { ...edge('p', 't', 'b'), targetHandle: 'prompt' }],
    });
    nodeMap(w.doc, 'a').set('position', { x: 10, y: -20.5 });
    nodeMap(w.doc, 'a').set('measured', { width: 200, height: 120 });
    dataOf(w.doc, 'b').set('prompt', 'p'.repeat(PROMPT_CHARS));
    dataOf(w.doc, 'b').set('error', 'Failed to generate image');
    await w.saved();
    canvasMaps(w.doc).nodes.delete('d');
    canvasMaps(w.doc).edges.delete('f');
    nodeMap(w.doc, 'a').delete('measured');
    dataOf(w.doc, 'c').delete('image');
    await w.saved();
    expect(w.events.some((e) => e.startsWith('provider-close'))).toBe(false);
    await docWhere(other.doc, (d) => canvasMaps(d).nodes.has('c') && !canvasMaps(d).nodes.has('d'));
    const rest = await restCanvas(bob, projectId);
    expect(rest.nodes.map((n: Json) => n.id)).toEqual(['a', 'b', 'c', 't']);
    expect(rest.nodes[3].data).toEqual({ type: 'text', text: 'a caption' });
    expect(rest.edges.find((e: Json) => e.id === 'p')).toEqual({ id: 'p', source: 't', target: 'b', targetHandle: 'prompt' });
    expect(rest.nodes[0].position).toEqual({ x: 10, y: -20.5 });
    expect(rest.nodes[1].data.prompt).toBe('p'.repeat(PROMPT_CHARS));
    expect(rest.nodes[2].data.image).toBeUndefined();
    w.close();
    // None of the refused writers made it in.
    const stored = clientsOf(await storedState(projectId));
    expect([...refusedWriters].filter((c) => stored.has(c))).toEqual([]);
  });
});

describe('images with a scheme the rules refuse', () => {
  it.each([['javascript:alert(1)'], [' JavaScript:alert(1)'], ['java\nscript:alert(1)'], ['vbscript:x'], ['blob:https://x.example/1']])('REST refuses a save with the image %j (400, nothing stored)', async (image) => {
    const projectId = await project(ada);
    const before = await restCanvas(ada, projectId);
    const res = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', { image })], edges: [] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^Invalid nodes\.0\.data\.image \(node "a"\): Invalid image URL: only http:, https:, data: URLs or a path$/);
    expect(await restCanvas(ada, projectId)).toEqual(before);
  });

  /** The REST canvas, the read-only link's and a version preview's texts, and a live editor's rendering. */
  async function servedEverywhere(projectId: string) {
    const rest = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    const link = await ada.client.post(`/api/user/project/${projectId}/share-link`, {});
    const shared = await t.client().get(`/api/shared/${link.json.token as string}`);
    const c = await live(ada, projectId);
    const editor = renderCanvas(c.doc);
    c.close();
    const version = await ada.client.post(`/api/user/project/${projectId}/versions`, { name: 'with the old image' });
    const preview = await ada.client.get(`/api/user/project/${projectId}/versions/${version.json.version.id as string}`);
    return { rest, shared, editor, preview };
  }
  const JAVASCRIPT = /javascript/i;

  it('one stored in the live document before the rules is never served: not by REST, the read-only link, a version preview or the editor', async () => {
    const projectId = await project(ada);
    // What an older service let in, stored before the document was ever opened here.
    const doc = new Y.Doc();
    applyCanvas(doc, { nodes: [node('a', { image: 'https://img.example/a.png' }), node('x', { image: 'javascript:alert(document.cookie)' })], edges: [] });
    await t.pool.query('INSERT INTO canvases (id, project_id, version) VALUES ($1, $2, 1)', [`old-${projectId}`, projectId]);
    await t.pool.query('INSERT INTO collab_updates (project_id, update) VALUES ($1, $2)', [projectId, Buffer.from(Y.encodeStateAsUpdate(doc))]);
    const { rest, shared, editor, preview } = await servedEverywhere(projectId);
    expect(rest.status).toBe(200);
    expect(rest.json.nodes.map((n: Json) => n.id)).toEqual(['a', 'x']);
    expect(rest.json.nodes[0].data.image).toBe('https://img.example/a.png');
    expect(rest.json.nodes[1].data).toEqual({ type: 'generation', prompt: 'p' });
    expect(shared.status).toBe(200);
    expect(shared.text).toContain('https://img.example/a.png');
    expect(shared.text).not.toMatch(JAVASCRIPT);
    expect(preview.status).toBe(200);
    expect(preview.text).not.toMatch(JAVASCRIPT);
    expect(editor.nodes.map((n) => (n as { data: Json }).data.image)).toEqual(['https://img.example/a.png', undefined]);
  });

  it('one in a canvas saved before live documents (never opened since) is never served either', async () => {
    const projectId = await project(ada);
    const nodes = [node('a', { image: 'https://img.example/a.png' }), node('x', { image: ' javascript:alert(1)' })];
    await t.pool.query('INSERT INTO canvases (id, project_id, nodes, edges, version) VALUES ($1, $2, $3, $4, 1)', [`legacy-${projectId}`, projectId, JSON.stringify(nodes), '[]']);
    const rest = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    expect(rest.status).toBe(200);
    expect(rest.json.nodes[1].data).toEqual({ type: 'generation', prompt: 'p' });
    const { shared, editor, preview } = await servedEverywhere(projectId);
    expect(shared.text).not.toMatch(JAVASCRIPT);
    expect(preview.text).not.toMatch(JAVASCRIPT);
    expect(editor.nodes.map((n) => (n as { data: Json }).data.image)).toEqual(['https://img.example/a.png', undefined]);
  });
});

describe('named versions: a cap per project and a rate per user', () => {
  const named = async (who: Who, projectId: string) =>
    ((await who.client.get(`/api/user/project/${projectId}/versions`)).json.versions as Array<{ kind: string }>).filter((v) => v.kind === 'named').length;

  it(`refuses a named version past VERSIONS_MAX_NAMED (${VERSIONS_MAX}) with 400 naming it, and a restore at the cap (nothing changes)`, async () => {
    const projectId = await project(cy);
    expect((await cy.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [] })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < VERSIONS_MAX; i++) {
      const res = await cy.client.post(`/api/user/project/${projectId}/versions`, { name: `v${i}` });
      expect(res.status).toBe(201);
      ids.push(res.json.version.id as string);
    }
    const over = await cy.client.post(`/api/user/project/${projectId}/versions`, { name: 'one more' });
    expect(over.status).toBe(400);
    expect(over.json).toEqual({ error: `A project has at most ${VERSIONS_MAX} named versions` });
    expect(await named(cy, projectId)).toBe(VERSIONS_MAX);
    // A restore keeps the canvas as a named version first: at the cap it is refused before anything changes.
    const before = await restCanvas(cy, projectId);
    const restore = await cy.client.request(`/api/user/project/${projectId}/versions/${ids[0]}/restore`, { method: 'POST' });
    expect(restore.status).toBe(400);
    expect(restore.json).toEqual({ error: `A project has at most ${VERSIONS_MAX} named versions` });
    expect(await restCanvas(cy, projectId)).toEqual(before);
    expect(await named(cy, projectId)).toBe(VERSIONS_MAX);
  });

  it(`answers 429 with Retry-After past RATE_LIMIT_VERSIONS_PER_MINUTE (${VERSIONS_PER_MINUTE}), nothing stored, and other users are not held`, async () => {
    const projects = [await project(bob), await project(bob), await project(bob)];
    for (const projectId of projects) expect((await bob.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [] })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < VERSIONS_PER_MINUTE; i++) statuses.push((await bob.client.post(`/api/user/project/${projects[i % 3]}/versions`, { name: `spam ${i}` })).status);
    expect(statuses.every((s) => s === 201)).toBe(true);
    const counts = await Promise.all(projects.map((p) => named(bob, p)));
    const spam = await bob.client.post(`/api/user/project/${projects[2]}/versions`, { name: 'spam' });
    expect(spam.status).toBe(429);
    expect(spam.json).toEqual({ error: 'Too many requests' });
    expect(Number(spam.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await Promise.all(projects.map((p) => named(bob, p)))).toEqual(counts);
    // Another user keeps their own rate.
    const mine = await project(ada);
    expect((await ada.client.post('/api/user/project/canvas', { projectId: mine, nodes: [node('a')], edges: [] })).status).toBe(200);
    expect((await ada.client.post(`/api/user/project/${mine}/versions`, { name: 'mine' })).status).toBe(201);
  });
});
