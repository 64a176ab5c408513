// The live document's content limits (src/collab/update-check.ts) on decoded updates: what a peer's update would put
// in the document is judged by the canvas rules before it is applied — root maps, shapes, each field, counts and
// bytes — through items whose parent is in the update or already in the document, and through origins.
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { createUpdateCheck, measure, type UpdateLimits } from '../../src/collab/update-check.js';
import { peerOf, withCanvas } from '../helpers/yjs-docs.js';

type Json = Record<string, unknown>;
const LIMITS: UpdateLimits = { nodes: 50, edges: 50, bytes: 64 * 1024, promptChars: 100 };
const node = (id: string, extra: Json = {}) => ({ id, type: 'generation', position: { x: 1, y: 2 }, data: { type: 'generation', prompt: 'p', ...extra } });
const edge = (id: string, source: string, target: string) => ({ id, source, target });

/** The update a peer of `base` makes with `change` (one transaction). */
function updateOf(base: Y.Doc, change: (peer: Y.Doc) => void): Uint8Array {
  const peer = peerOf(base);
  const before = Y.encodeStateVector(peer);
  peer.transact(() => change(peer));
  const update = Y.encodeStateAsUpdate(peer, before);
  peer.destroy();
  return update;
}

/** The reason the check refuses `change` on a two-node canvas with (a fresh check), or null. */
function verdict(change: (peer: Y.Doc) => void, limits: UpdateLimits = LIMITS, base = withCanvas({ nodes: [node('a'), node('b')], edges: [edge('e', 'a', 'b')] })): string | null {
  const check = createUpdateCheck(limits);
  return check.check(Y.decodeUpdate(updateOf(base, change)), base)?.reason ?? null;
}

const nodeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).nodes.get(id) as Y.Map<unknown>;
const dataOf = (doc: Y.Doc, id: string) => nodeMap(doc, id).get('data') as Y.Map<unknown>;
const edgeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).edges.get(id) as Y.Map<unknown>;

describe('the live document update check', () => {
  it("passes what the service and the web client write: REST's apply, adds, moves, prompts, deletes", () => {
    expect(verdict((d) => applyCanvas(d, { nodes: [node('a'), node('b', { image: 'https://img.example/b.png' }), node('c')], edges: [edge('e', 'a', 'b'), edge('f', 'b', 'c')] }))).toBeNull();
    expect(verdict((d) => addToCanvas(d, { nodes: [node('z', { measured: { width: 10, height: 20 } })], edges: [edge('g', 'a', 'z')] }))).toBeNull();
    expect(verdict((d) => nodeMap(d, 'a').set('position', { x: -5.5, y: 1e6 }))).toBeNull();
    expect(verdict((d) => dataOf(d, 'a').set('prompt', 'q'.repeat(100)))).toBeNull();
    expect(verdict((d) => dataOf(d, 'a').set('image', '/files/a.png'))).toBeNull();
    expect(verdict((d) => dataOf(d, 'a').set('image', 'data:image/png;base64,AAAA'))).toBeNull();
    expect(verdict((d) => dataOf(d, 'a').set('error', 'Failed to generate image'))).toBeNull();
    expect(verdict((d) => dataOf(d, 'a').delete('prompt'))).toBeNull();
    expect(verdict((d) => canvasMaps(d).nodes.delete('a'))).toBeNull();
    expect(verdict((d) => nodeMap(d, 'a').set('data', new Y.Map([['type', 'upload']])))).toBeNull();
    expect(verdict((d) => nodeMap(d, 'a').delete('measured'))).toBeNull();
    expect(verdict((d) => applyCanvas(d, { nodes: [], edges: [] }))).toBeNull();
  });

  it('passes a chain of changes made offline (items whose origins are earlier items of the same update)', () => {
    expect(
      verdict((d) => {
        for (let i = 0; i < 50; i++) {
          nodeMap(d, 'a').set('position', { x: i, y: i });
          dataOf(d, 'b').set('prompt', `p${i}`);
        }
      }),
    ).toBeNull();
    // And the same after the first of them is already in the document (origins in the store).
    const base = withCanvas({ nodes: [node('a')], edges: [] });
    const peer = peerOf(base);
    nodeMap(peer, 'a').set('position', { x: 9, y: 9 });
    Y.applyUpdate(base, Y.encodeStateAsUpdate(peer));
    const before = Y.encodeStateVector(peer);
    for (let i = 0; i < 5; i++) nodeMap(peer, 'a').set('position', { x: i, y: 0 });
    dataOf(peer, 'a').set('image', 'javascript:alert(1)');
    const check = createUpdateCheck(LIMITS);
    expect(check.check(Y.decodeUpdate(Y.encodeStateAsUpdate(peer, before)), base)?.reason).toBe('invalid-image');
  });

  it("passes what a person's undo and redo write (items redone through deleted ones), and the document follows the client", () => {
    const server = new Y.Doc();
    const client = new Y.Doc();
    const check = createUpdateCheck(LIMITS);
    const refusals: string[] = [];
    client.on('update', (u: Uint8Array) => {
      const refused = check.check(Y.decodeUpdate(u), server);
      if (refused) refusals.push(refused.reason);
      else Y.applyUpdate(server, u);
    });
    const me = { tab: 1 };
    const undo = new Y.UndoManager([canvasMaps(client).nodes, canvasMaps(client).edges], { trackedOrigins: new Set([me]) });
    const step = (fn: () => void) => {
      client.transact(fn, me);
      undo.stopCapturing();
    };
    step(() => addToCanvas(client, { nodes: [node('a', { image: '/x.png' }), node('b')], edges: [edge('e', 'a', 'b')] }));
    step(() => {
      canvasMaps(client).nodes.delete('a');
      canvasMaps(client).edges.delete('e');
    });
    step(() => dataOf(client, 'b').set('prompt', 'x'));
    step(() => nodeMap(client, 'b').set('position', { x: 5, y: 5 }));
    for (let i = 0; i < 3; i++) undo.undo();
    expect(canvasMaps(client).nodes.has('a')).toBe(true);
    for (let i = 0; i < 3; i++) undo.redo();
    for (let i = 0; i < 4; i++) undo.undo();
    for (let i = 0; i < 4; i++) undo.redo();
    expect(refusals).toEqual([]);
    expect(renderCanvas(server)).toEqual(renderCanvas(client));
  });

  const refusals: Array<[string, (d: Y.Doc) => void, string]> = [
    ['a root map other than nodes and edges', (d) => d.getMap('evil').set('k', 'v'), 'unknown-root'],
    ['a root array', (d) => d.getArray('list').push(['x']), 'unknown-root'],
    ['a root text', (d) => d.getText('t').insert(0, 'hello'), 'unknown-root'],
    ['a node that is not a map', (d) => canvasMaps(d).nodes.set('x', 'vandal'), 'invalid-shape'],
    ['a node that is a text', (d) => canvasMaps(d).nodes.set('x', new Y.Text('t')), 'invalid-shape'],
    ['an empty node id', (d) => canvasMaps(d).nodes.set('', new Y.Map()), 'invalid-id'],
    ['a node id over 200 characters', (d) => addToCanvas(d, { nodes: [node('n'.repeat(201))] }), 'invalid-id'],
    ['a javascript: image', (d) => dataOf(d, 'a').set('image', 'javascript:alert(1)'), 'invalid-image'],
    ['a JavaScript: image with spaces and a tab', (d) => dataOf(d, 'a').set('image', '  Java\tScript:alert(1)'), 'invalid-image'],
    ['a vbscript: image', (d) => dataOf(d, 'a').set('image', 'vbscript:x'), 'invalid-image'],
    ['an image URL over 2,048 characters', (d) => dataOf(d, 'a').set('image', `https://x.example/${'x'.repeat(2048)}`), 'invalid-image'],
    ['an image that is a number', (d) => dataOf(d, 'a').set('image', 5), 'invalid-image'],
    ['a prompt over the limit', (d) => dataOf(d, 'a').set('prompt', 'p'.repeat(101)), 'invalid-prompt'],
    ['a prompt with NUL', (d) => dataOf(d, 'a').set('prompt', 'a\u0000b'), 'invalid-prompt'],
    ['a prompt as a nested text', (d) => dataOf(d, 'a').set('prompt', new Y.Text('hello')), 'invalid-shape'],
    ['a node type that is no kind', (d) => nodeMap(d, 'a').set('type', 'script'), 'invalid-node-type'],
    ['a data type that is no kind', (d) => dataOf(d, 'a').set('type', 'x'), 'invalid-data-type'],
    ['a position with a string', (d) => nodeMap(d, 'a').set('position', { x: '1', y: 2 }), 'invalid-position'],
    ['a position that is not finite', (d) => nodeMap(d, 'a').set('position', { x: Infinity, y: 2 }), 'invalid-position'],
    ['a position with extra keys', (d) => nodeMap(d, 'a').set('position', { x: 1, y: 2, z: 3 }), 'invalid-position'],
    ['isGenerating that is not a boolean', (d) => dataOf(d, 'a').set('isGenerating', 'yes'), 'invalid-is-generating'],
    ['a model over 100 characters', (d) => dataOf(d, 'a').set('model', 'm'.repeat(101)), 'invalid-model'],
    ['data as a plain value', (d) => nodeMap(d, 'a').set('data', { type: 'generation' }), 'invalid-data'],
    ['a nested map under another node field', (d) => nodeMap(d, 'a').set('style', new Y.Map()), 'invalid-shape'],
    ['a nested map inside data', (d) => dataOf(d, 'a').set('deep', new Y.Map()), 'invalid-shape'],
    ['a nested array inside data', (d) => dataOf(d, 'a').set('deep', new Y.Array()), 'invalid-shape'],
    ['a nested map in an edge', (d) => edgeMap(d, 'e').set('data', new Y.Map()), 'invalid-shape'],
    ['binary content', (d) => dataOf(d, 'a').set('blob', new Uint8Array(10)), 'invalid-shape'],
    ['an extra value over 16 KB', (d) => nodeMap(d, 'a').set('style', { css: 'x'.repeat(17_000) }), 'invalid-value'],
    ['an extra value nested 40 deep', (d) => nodeMap(d, 'a').set('style', JSON.parse('['.repeat(40) + ']'.repeat(40))), 'invalid-value'],
    ['a key over 200 characters', (d) => dataOf(d, 'a').set('k'.repeat(201), 1), 'invalid-key'],
    ['a malformed order key', (d) => nodeMap(d, 'a').set('#', '!!'), 'invalid-order-key'],
    ['an edge source that is not a string', (d) => edgeMap(d, 'e').set('source', 5), 'invalid-source'],
    ['an edge target over 200 characters', (d) => edgeMap(d, 'e').set('target', 't'.repeat(201)), 'invalid-target'],
    ['an edge handle that is an object', (d) => edgeMap(d, 'e').set('sourceHandle', { a: 1 }), 'invalid-handle'],
    ['a new node without position', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'upload', data: { type: 'upload' } }] }), 'missing-position'],
    ['a new node without data', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'upload', position: { x: 0, y: 0 } }] }), 'missing-data'],
    ['a new node whose data has no type', (d) => addToCanvas(d, { nodes: [{ id: 'n', type: 'upload', position: { x: 0, y: 0 }, data: {} }] }), 'missing-data-type'],
    ['a new edge without target', (d) => addToCanvas(d, { edges: [{ id: 'f', source: 'a' }] }), 'missing-target'],
    ['a data map replaced by one without type', (d) => nodeMap(d, 'a').set('data', new Y.Map()), 'missing-data-type'],
    ["deleting a node's position", (d) => nodeMap(d, 'a').delete('position'), 'missing-position'],
    ["deleting a node's data", (d) => nodeMap(d, 'a').delete('data'), 'missing-data'],
    ["deleting a node's data type", (d) => dataOf(d, 'a').delete('type'), 'missing-data-type'],
    ["deleting an edge's source", (d) => edgeMap(d, 'e').delete('source'), 'missing-source'],
  ];
  it.each(refusals)('refuses %s', (_what, change, reason) => {
    expect(verdict(change)).toBe(reason);
  });

  it('refuses nodes and edges beyond the counts, re-added ids included', () => {
    const limits = { ...LIMITS, nodes: 3, edges: 1 };
    expect(verdict((d) => addToCanvas(d, { nodes: [node('c')] }), limits)).toBeNull();
    expect(verdict((d) => addToCanvas(d, { nodes: [node('c'), node('d')] }), limits)).toBe('too-many-nodes');
    expect(verdict((d) => addToCanvas(d, { edges: [edge('f', 'a', 'b')] }), limits)).toBe('too-many-edges');
    // A deleted node's id set again (its item has an origin: no parent in the update) counts as a new node.
    const base = withCanvas({ nodes: [node('a'), node('b'), node('c')], edges: [] });
    canvasMaps(base).nodes.delete('c');
    expect(verdict((d) => addToCanvas(d, { nodes: [node('c'), node('x')] }), limits, base)).toBe('too-many-nodes');
  });

  it('refuses an item whose parent is neither in the update nor in the document', () => {
    const base = withCanvas({ nodes: [node('a')], edges: [] });
    const elsewhere = peerOf(base);
    addToCanvas(elsewhere, { nodes: [node('n')] }); // never sent to base
    const before = Y.encodeStateVector(elsewhere);
    dataOf(elsewhere, 'n').set('prompt', 'orphan');
    const check = createUpdateCheck(LIMITS);
    expect(check.check(Y.decodeUpdate(Y.encodeStateAsUpdate(elsewhere, before)), base)?.reason).toBe('unknown-parent');
  });

  it('holds the canvas to the byte limit, measured as REST measures it, and lets deletions through', () => {
    const limits = { ...LIMITS, bytes: 4096 };
    const base = withCanvas({ nodes: [node('a')], edges: [] });
    let clock = 0;
    const check = createUpdateCheck(limits, () => clock);
    const apply = (change: (d: Y.Doc) => void) => {
      const update = updateOf(base, change);
      const refused = check.check(Y.decodeUpdate(update), base);
      if (!refused) Y.applyUpdate(base, update);
      return refused?.reason ?? null;
    };
    const restBytes = () => {
      const { nodes, edges } = renderCanvas(base);
      return Buffer.byteLength(JSON.stringify(nodes)) + Buffer.byteLength(JSON.stringify(edges));
    };
    const big = (id: string) => (d: Y.Doc) => addToCanvas(d, { nodes: [node(id, { note: 'x'.repeat(900) })] });
    // Fill it with nodes of ~1 KB each until refused: the canvas is then within one node of the limit, never over.
    let i = 0;
    while (apply(big(`n${i}`)) === null) i++;
    expect(i).toBeGreaterThan(1);
    expect(restBytes()).toBeLessThanOrEqual(4096);
    expect(restBytes()).toBeGreaterThan(4096 - 1100);
    expect(apply(big('again'))).toBe('canvas-too-large');
    // A deletion always passes; the room it made counts once the canvas is measured again (at most every 2 s).
    expect(apply((d) => canvasMaps(d).nodes.delete('n0'))).toBeNull();
    clock += 1_000;
    expect(apply(big('again'))).toBe('canvas-too-large');
    clock += 1_000;
    expect(apply(big('again'))).toBeNull();
    expect(restBytes()).toBeLessThanOrEqual(4096);
    expect(check.bytesOf(base)!.measured).toBeLessThanOrEqual(4096);
  });

  it('counts changes of any origin in its bound (the service, another instance), never over the limit', () => {
    const limits = { ...LIMITS, bytes: 4096 };
    const base = withCanvas({ nodes: [node('a')], edges: [] });
    const check = createUpdateCheck(limits);
    expect(check.check(Y.decodeUpdate(updateOf(base, (d) => dataOf(d, 'a').set('prompt', 'x'))), base)).toBeNull();
    const measured = check.bytesOf(base)!.bound;
    // The service adds 3 KB (a REST save, checked by REST) without the check seeing it.
    addToCanvas(base, { nodes: [node('big', { note: 'y'.repeat(3000) })] });
    expect(check.bytesOf(base)!.bound).toBeGreaterThan(measured + 3000);
    expect(check.check(Y.decodeUpdate(updateOf(base, (d) => addToCanvas(d, { nodes: [node('more', { note: 'z'.repeat(900) })] }))), base)?.reason).toBe('canvas-too-large');
  });
});

describe('the live document update check, by node kind (src/kinds/)', () => {
  const text = (id: string, value: unknown = 'hello', extra: Json = {}) => ({ id, type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: value, ...extra } });
  const upload = (id: string) => ({ id, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: '/files/u.png' } });
  const wire = (id: string, source: string, target: string, handles: Json = {}) => ({ id, source, target, ...handles });
  // a, b: generation; t: text; u: upload; edges a → b (images, the default) and t → b (prompt).
  const canvas = () => withCanvas({ nodes: [node('a'), node('b'), text('t'), upload('u')], edges: [wire('e', 'a', 'b'), wire('p', 't', 'b', { targetHandle: 'prompt' })] });
  const judge = (change: (peer: Y.Doc) => void) => verdict(change, LIMITS, canvas());

  it("holds each data key to its node's kind: a text node's text, a generation's prompt, keys of another kind", () => {
    expect(judge((d) => dataOf(d, 't').set('text', 'x'.repeat(100)))).toBeNull();
    expect(judge((d) => dataOf(d, 't').set('text', 'x'.repeat(101)))).toBe('invalid-text');
    expect(judge((d) => dataOf(d, 't').set('text', 42))).toBe('invalid-text');
    expect(judge((d) => dataOf(d, 'a').set('prompt', 42))).toBe('invalid-prompt');
    // `image` is a key of upload and generation nodes, not of a text node; `text` not of a generation node.
    expect(judge((d) => dataOf(d, 't').set('image', 'https://img.example/a.png'))).toBe('data-of-another-kind');
    expect(judge((d) => dataOf(d, 'a').set('text', 'hello'))).toBe('data-of-another-kind');
    // A key no kind has stays an extra value on any node.
    expect(judge((d) => dataOf(d, 't').set('note', 'kept'))).toBeNull();
    // data.type: the kind's own (a SPEC node may carry either SPEC type, a text node only `text`).
    expect(judge((d) => dataOf(d, 'a').set('type', 'upload'))).toBeNull();
    expect(judge((d) => dataOf(d, 't').set('type', 'upload'))).toBe('invalid-data-type');
    // A text node's text is required: deleting it is refused.
    expect(judge((d) => dataOf(d, 't').delete('text'))).toBe('missing-data-text');
  });

  it("refuses a node of a type no kind has, and a new node without its kind's required data", () => {
    expect(judge((d) => addToCanvas(d, { nodes: [{ ...node('z'), type: 'mystery', data: { type: 'mystery' } }] }))).toBe('invalid-node-type');
    expect(judge((d) => nodeMap(d, 'a').set('type', 'mystery'))).toBe('invalid-node-type');
    expect(judge((d) => addToCanvas(d, { nodes: [text('z')] }))).toBeNull();
    expect(judge((d) => addToCanvas(d, { nodes: [{ id: 'z', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text' } }] }))).toBe('missing-data-text');
    expect(judge((d) => addToCanvas(d, { nodes: [text('z', 'x'.repeat(101))] }))).toBe('invalid-text');
    expect(judge((d) => addToCanvas(d, { nodes: [text('z', 'ok', { prompt: 'p' })] }))).toBe('data-of-another-kind');
    // A text node's data replaced by a map without its text.
    expect(judge((d) => nodeMap(d, 't').set('data', new Y.Map([['type', 'text']])))).toBe('missing-data-text');
  });

  it("re-checks a node's existing data and edges when its type changes", () => {
    // generation → upload: SPEC's data fits both, and so do its edges (an upload has no inputs, though).
    expect(judge((d) => nodeMap(d, 'a').set('type', 'upload'))).toBeNull();
    expect(judge((d) => nodeMap(d, 'b').set('type', 'upload'))).toBe('unknown-port');
    // generation → text: its data.type is not `text`, its prompt is not a text node's, it has no text.
    expect(judge((d) => nodeMap(d, 'a').set('type', 'text'))).toBe('invalid-data-type');
    expect(
      judge((d) => {
        nodeMap(d, 'a').set('type', 'text');
        dataOf(d, 'a').set('type', 'text');
      }),
    ).toBe('data-of-another-kind');
    expect(
      judge((d) => {
        nodeMap(d, 'a').set('type', 'text');
        dataOf(d, 'a').delete('prompt');
        dataOf(d, 'a').set('type', 'text');
      }),
    ).toBe('missing-data-text');
    // With all of it, the data passes; its edge a → b now carries text into b's image input.
    expect(
      judge((d) => {
        nodeMap(d, 'a').set('type', 'text');
        dataOf(d, 'a').delete('prompt');
        dataOf(d, 'a').set('type', 'text');
        dataOf(d, 'a').set('text', 'now a text');
      }),
    ).toBe('ports-do-not-fit');
    // The same node replaced whole by a text node: its edges are re-checked too.
    expect(judge((d) => canvasMaps(d).nodes.set('a', new Y.Map()) && addToCanvas(d, { nodes: [text('a')] }))).toBe('ports-do-not-fit');
    // text → upload with SPEC data: t → b's prompt input then carries an image.
    expect(
      judge((d) => {
        nodeMap(d, 't').set('type', 'upload');
        dataOf(d, 't').delete('text');
        dataOf(d, 't').set('type', 'upload');
      }),
    ).toBe('ports-do-not-fit');
    // Its edge deleted in the same change, it passes.
    expect(
      judge((d) => {
        nodeMap(d, 't').set('type', 'upload');
        dataOf(d, 't').delete('text');
        dataOf(d, 't').set('type', 'upload');
        canvasMaps(d).edges.delete('p');
      }),
    ).toBeNull();
  });

  it('refuses edges naming ports their kinds lack, or ports whose values do not fit', () => {
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'u', 'a')] }))).toBeNull();
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'u', 'a', { sourceHandle: 'image', targetHandle: 'images' })] }))).toBeNull();
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 't', 'a', { targetHandle: 'prompt' })] }))).toBeNull();
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'u', 'a', { targetHandle: 'mask' })] }))).toBe('unknown-port');
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'u', 'a', { sourceHandle: 'nope' })] }))).toBe('unknown-port');
    // An upload has no inputs; a text output does not fit an image input; an image does not fit a prompt.
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'a', 'u')] }))).toBe('unknown-port');
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 't', 'a')] }))).toBe('ports-do-not-fit');
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'u', 'a', { targetHandle: 'prompt' })] }))).toBe('ports-do-not-fit');
    // A handle changed on an existing edge.
    expect(judge((d) => edgeMap(d, 'p').set('targetHandle', 'images'))).toBe('ports-do-not-fit');
    expect(judge((d) => edgeMap(d, 'p').delete('targetHandle'))).toBe('ports-do-not-fit');
    expect(judge((d) => edgeMap(d, 'e').set('target', 'u'))).toBe('unknown-port');
    // Nodes and the edge between them added in one change.
    expect(judge((d) => addToCanvas(d, { nodes: [text('t2'), node('g2')], edges: [wire('n', 't2', 'g2', { targetHandle: 'prompt' })] }))).toBeNull();
    expect(judge((d) => addToCanvas(d, { nodes: [text('t2'), node('g2')], edges: [wire('n', 't2', 'g2')] }))).toBe('ports-do-not-fit');
    // An edge whose end is not a node (yet) is not judged, as before.
    expect(judge((d) => addToCanvas(d, { edges: [wire('n', 'gone', 'a', { sourceHandle: 'whatever' })] }))).toBeNull();
  });

  it('takes a seeded measure (made where the document was loaded) instead of rendering the document at its first check', () => {
    const limits = { ...LIMITS, bytes: 4096 };
    const grow = (base: Y.Doc, id: string) => Y.decodeUpdate(updateOf(base, (d) => addToCanvas(d, { nodes: [node(id)] })));
    let renders = 0;
    const check = createUpdateCheck(limits, undefined, () => renders++);

    const seeded = withCanvas({ nodes: [node('a'), node('b')], edges: [] });
    check.seed(seeded, measure(seeded));
    expect(check.bytesOf(seeded)).toEqual({ measured: measure(seeded), bound: measure(seeded) });
    expect(check.check(grow(seeded, 'c'), seeded)).toBeNull();
    expect(renders).toBe(0);
    // Changes applied after the seed raise its bound, as after a measure.
    addToCanvas(seeded, { nodes: [node('d', { note: 'x'.repeat(500) })] });
    expect(check.bytesOf(seeded)!.bound).toBeGreaterThan(check.bytesOf(seeded)!.measured + 500);
    // A document already checked keeps its own numbers.
    check.seed(seeded, 1);
    expect(check.bytesOf(seeded)!.measured).toBe(measure(withCanvas({ nodes: [node('a'), node('b')], edges: [] })));

    // Without a seed, the first change that adds content renders the document once.
    const unseeded = withCanvas({ nodes: [node('a'), node('b')], edges: [] });
    expect(check.check(grow(unseeded, 'c'), unseeded)).toBeNull();
    expect(renders).toBe(1);
    expect(check.bytesOf(unseeded)!.measured).toBe(measure(unseeded));

    // A seed counts as a measure taken then: near the limit a change is refused until the document may be measured
    // again (REMEASURE_MS), which then finds the room.
    let clock = 0;
    const timed = createUpdateCheck(limits, () => clock, () => renders++);
    const near = withCanvas({ nodes: [node('a')], edges: [] });
    timed.seed(near, 4090);
    expect(timed.check(grow(near, 'c'), near)?.reason).toBe('canvas-too-large');
    expect(renders).toBe(1);
    clock += 2_000;
    expect(timed.check(grow(near, 'c'), near)).toBeNull();
    expect(renders).toBe(2);
    expect(timed.bytesOf(near)!.measured).toBe(measure(near));
  });
});
