// The canvas document (src/collab/canvas-doc.ts): SPEC's `{ nodes, edges }` into a Yjs document and back —
// round trips, minimal updates, merges of concurrent edits, and what the order keys guarantee.
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, applyCanvas, canvasMaps, compareEntries, ORDER_KEY, renderCanvas, renderCanvasEntry } from '../../src/collab/canvas-doc.js';
import { isOrderKey, keyBetween, keysBetween } from '../../src/collab/order-keys.js';
import { peerOf, withCanvas } from '../helpers/yjs-docs.js';

type Json = Record<string, unknown>;
type Canvas = { nodes: Json[]; edges: Json[] };

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const node = (id: string, x = 0, extra: Json = {}) => ({ id, type: 'upload', position: { x, y: 0 }, data: { type: 'upload', image: `http://img/${id}.png`, ...extra } });
const generation = (id: string, prompt: string) => ({ id, type: 'generation', position: { x: 10.5, y: -3 }, data: { type: 'generation', prompt, isGenerating: false } });

/** The updates `doc` emits while `fn` runs. */
function updatesOf(doc: Y.Doc, fn: () => void): Uint8Array[] {
  const updates: Uint8Array[] = [];
  const listener = (update: Uint8Array) => updates.push(update);
  doc.on('update', listener);
  fn();
  doc.off('update', listener);
  return updates;
}
/** Exchanges what each doc has that the other lacks. */
function sync(a: Y.Doc, b: Y.Doc): void {
  const toB = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b));
  const toA = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a));
  Y.applyUpdate(b, toB);
  Y.applyUpdate(a, toA);
}
const bigCanvas = (n: number): Canvas => ({
  nodes: Array.from({ length: n }, (_, i) => ({ ...generation(`n${i}`, `prompt number ${i}`), position: { x: i * 10, y: i * 5 }, measured: { width: 256, height: 300 } })),
  edges: Array.from({ length: n - 1 }, (_, i) => ({ id: `e${i}`, source: `n${i}`, target: `n${i + 1}`, sourceHandle: null, targetHandle: null })),
});

describe('round trip', () => {
  const cases: Record<string, Canvas> = {
    'SPEC nodes and edges (test/api/canvas.test.ts)': {
      nodes: [node('a'), generation('g', 'grayscale')],
      edges: [{ id: 'e1', source: 'a', target: 'g', sourceHandle: null, targetHandle: 'in' }],
    },
    'React Flow objects as the original client sends them (test/api/original-client.test.ts)': {
      nodes: [
        { id: 'upload-1', type: 'upload', position: { x: 100, y: 80 }, data: { type: 'upload', image: 'http://img/1.png' }, measured: { width: 256, height: 256 }, selected: false, dragging: false },
        { id: 'generation-2', type: 'generation', position: { x: 500, y: 80 }, data: { type: 'generation', prompt: 'grayscale', isGenerating: true }, measured: { width: 256, height: 300 }, width: 256, style: { zIndex: 3, opacity: 0.5 } },
      ],
      edges: [{ source: 'upload-1', sourceHandle: null, target: 'generation-2', targetHandle: null, id: 'xy-edge__upload-1-generation-2', animated: true }],
    },
    'empty': { nodes: [], edges: [] },
    'unusual but admitted shapes: no data, no position, odd keys': {
      nodes: [
        { id: 'z', type: 'upload' },
        { id: '', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', nested: { deep: [1, { two: null }] }, '#tag': 1 } },
        { id: 'a', '#': 'mine', '##': 2, '#order': 'x', order: 3, data: null, position: null },
        JSON.parse('{"id":"p","__proto__":{"polluted":true},"data":{"__proto__":{"x":1},"type":"upload"}}') as Json,
      ],
      edges: [{ id: 'e', source: 'z', target: 'a', data: { label: 'kept whole' } }],
    },
  };
  for (const [name, canvas] of Object.entries(cases)) {
    it(name, () => {
      const doc = withCanvas(canvas);
      expect(renderCanvas(doc)).toEqual(canvas);
      // A peer renders the same JSON text (keys in the same order), and the rendered objects are plain.
      const rendered = renderCanvas(peerOf(doc));
      expect(JSON.stringify(rendered)).toBe(JSON.stringify(renderCanvas(doc)));
      expect(rendered).toEqual(canvas);
      for (const n of rendered.nodes) expect(Object.getPrototypeOf(n)).toBe(Object.prototype);
    });
  }

  it('renders keys in SPEC schema order, then the rest sorted', () => {
    const doc = withCanvas({
      nodes: [{ zeta: 1, data: { isGenerating: false, extra: 1, prompt: 'p', type: 'generation' }, position: { y: 2, x: 1 }, alpha: 2, type: 'generation', id: 'n' }],
      edges: [{ targetHandle: null, target: 'n', sourceHandle: null, source: 'n', id: 'e' }],
    });
    expect(JSON.stringify(renderCanvas(doc))).toBe(
      '{"nodes":[{"id":"n","type":"generation","position":{"y":2,"x":1},"data":{"type":"generation","prompt":"p","isGenerating":false,"extra":1},"alpha":2,"zeta":1}],' +
        '"edges":[{"id":"e","source":"n","target":"n","sourceHandle":null,"targetHandle":null}]}',
    );
  });

  it('stores the shape of DESIGN §9: maps keyed by id, data as a nested map, order under the reserved key', () => {
    const doc = withCanvas({ nodes: [{ ...generation('g', 'p'), '#x': 1 }], edges: [{ id: 'e', source: 'g', target: 'g' }] });
    const { nodes, edges } = canvasMaps(doc);
    const g = nodes.get('g') as Y.Map<unknown>;
    expect(g).toBeInstanceOf(Y.Map);
    expect(g.get('position')).toEqual({ x: 10.5, y: -3 });
    expect(g.get('data')).toBeInstanceOf(Y.Map);
    expect((g.get('data') as Y.Map<unknown>).get('prompt')).toBe('p');
    expect(g.has('id')).toBe(false);
    expect(g.get('##x')).toBe(1);
    expect(isOrderKey(g.get(ORDER_KEY))).toBe(true);
    expect((edges.get('e') as Y.Map<unknown>).get('source')).toBe('g');
  });

  it('never throws on input the schemas would refuse, and never shares objects with the caller', () => {
    const doc = new Y.Doc();
    const input = { nodes: [null, 1, 'x', [], { type: 'no id' }, { id: 7 }, node('a'), node('a', 9)], edges: [{ id: 'e', source: 'a', target: 'a' }, { id: 'e', source: 'x', target: 'y' }] };
    expect(() => applyCanvas(doc, input)).not.toThrow();
    expect(renderCanvas(doc)).toEqual({ nodes: [node('a')], edges: [{ id: 'e', source: 'a', target: 'a' }] }); // first of each id
    expect(() => applyCanvas(doc, {})).not.toThrow();
    expect(renderCanvas(doc)).toEqual({ nodes: [], edges: [] });
    expect(() => applyCanvas(doc, { nodes: 'many', edges: null })).not.toThrow();

    const original = node('b');
    applyCanvas(doc, { nodes: [original] });
    original.position.x = 99;
    const rendered = renderCanvas(doc).nodes[0] as ReturnType<typeof node>;
    expect(rendered.position.x).toBe(0);
    rendered.position.x = 42;
    expect((renderCanvas(doc).nodes[0] as ReturnType<typeof node>).position.x).toBe(0);
  });

  it('renders and repairs what a hostile peer may have written', () => {
    const doc = withCanvas({ nodes: [node('a'), node('b')], edges: [] });
    const { nodes } = canvasMaps(doc);
    doc.transact(() => {
      nodes.set('junk', { not: 'a map' });
      (nodes.get('a') as Y.Map<unknown>).set(ORDER_KEY, 42);
      (nodes.get('b') as Y.Map<unknown>).set(ORDER_KEY, 'not a key!');
      (nodes.get('b') as Y.Map<unknown>).set('id', 'spoofed');
      (nodes.get('b') as Y.Map<unknown>).set('#id', 'spoofed too'); // reserved: never rendered
      (nodes.get('b') as Y.Map<unknown>).set('list', new Y.Array());
      const c = new Y.Map<unknown>();
      c.set(ORDER_KEY, 'a0');
      c.set('data', 'a string');
      nodes.set('c', c);
    });
    expect(() => renderCanvas(doc)).not.toThrow();
    // Not a string sorts first (''); any string sorts as a string.
    expect(renderCanvas(doc).nodes.map((n) => (n as Json).id)).toEqual(['a', 'c', 'b']);
    expect(Object.keys(renderCanvas(doc).nodes[2] as Json)).toEqual(['id', 'type', 'position', 'data', 'list']);
    const wanted = { nodes: [node('c'), node('b'), node('a')], edges: [] };
    applyCanvas(doc, wanted);
    expect(renderCanvas(doc)).toEqual(wanted);
    expect(renderCanvas(peerOf(doc))).toEqual(wanted);
  });
});

// ---------------------------------------------------------------------------------------------------------

const VALUES = [null, true, false, 0, 1, -2.5, 1e21, '', 'text', 'ünïcödé 😀', [1, 'two', null], { a: 1, b: [true] }, { nested: { deeper: 'x' } }];
const EXTRA_KEYS = ['measured', 'selected', 'dragging', 'width', 'style', 'zIndex', '#', '#hash', 'order', '__proto__', 'constructor'];
const DATA_KEYS = ['type', 'image', 'prompt', 'isGenerating', 'progress', 'error', '__proto__', '#'];

function randomCanvas(rnd: () => number, base?: Canvas): Canvas {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const set = (o: Json, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  const randomNode = (id: string): Json => {
    const n: Json = { id };
    if (rnd() < 0.95) n.type = pick(['upload', 'generation']);
    if (rnd() < 0.9) n.position = { x: Math.round(rnd() * 1000) / 4, y: Math.round(rnd() * 1000) / 4 };
    if (rnd() < 0.9) {
      const data: Json = {};
      for (const k of DATA_KEYS) if (rnd() < 0.4) set(data, k, pick(VALUES));
      n.data = data;
    } else if (rnd() < 0.3) n.data = pick(VALUES);
    for (const k of EXTRA_KEYS) if (rnd() < 0.15) set(n, k, pick(VALUES));
    return n;
  };
  const ids = Array.from({ length: 16 }, (_, i) => `n${i}`);
  let nodes: Json[];
  if (base && rnd() < 0.8) {
    // An edit of the base: some deleted, some changed, some moved, some added.
    nodes = base.nodes.filter(() => rnd() > 0.15).map((n) => {
      if (rnd() > 0.3) return n;
      const changed = randomNode(n.id as string);
      return rnd() < 0.5 ? changed : { ...n, position: changed.position, data: rnd() < 0.5 ? n.data : changed.data };
    });
    for (let i = 0; i < 3; i++) if (rnd() < 0.5 && nodes.length > 1) nodes.splice(Math.floor(rnd() * nodes.length), 0, ...nodes.splice(Math.floor(rnd() * nodes.length), 1));
    for (const id of ids) if (rnd() < 0.1 && !nodes.some((n) => n.id === id)) nodes.splice(Math.floor(rnd() * (nodes.length + 1)), 0, randomNode(id));
  } else {
    nodes = ids.filter(() => rnd() < 0.5).map(randomNode);
    nodes.sort(() => rnd() - 0.5);
  }
  const edges: Json[] = [];
  if (nodes.length > 0) {
    for (let i = 0; i < Math.floor(rnd() * 12); i++) {
      const e: Json = { id: `e${Math.floor(rnd() * 20)}`, source: pick(nodes).id, target: pick(nodes).id };
      if (rnd() < 0.5) e.sourceHandle = pick([null, 'out', 'a']);
      if (rnd() < 0.5) e.targetHandle = pick([null, 'in']);
      if (rnd() < 0.2) e.animated = pick(VALUES);
      if (!edges.some((x) => x.id === e.id)) edges.push(e);
    }
  }
  return { nodes, edges };
}

describe('random canvases (seeded)', () => {
  it('A then B renders B, on the doc and on a peer; applying B again changes nothing', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rnd = random(seed);
      const a = randomCanvas(rnd);
      const b = randomCanvas(rnd, a);
      const doc = withCanvas(a);
      expect(renderCanvas(doc), `seed ${seed}: A`).toEqual(a);
      const peer = peerOf(doc);
      const updates = updatesOf(doc, () => applyCanvas(doc, b));
      expect(renderCanvas(doc), `seed ${seed}: B`).toEqual(b);
      for (const u of updates) Y.applyUpdate(peer, u);
      expect(JSON.stringify(renderCanvas(peer)), `seed ${seed}: peer`).toBe(JSON.stringify(renderCanvas(doc)));
      expect(updatesOf(doc, () => expect(applyCanvas(doc, b)).toBe(false)), `seed ${seed}: again`).toEqual([]);
      expect(updatesOf(doc, () => applyCanvas(doc, renderCanvas(doc))), `seed ${seed}: rendered`).toEqual([]);
    }
  });

  it('random concurrent edits from one base converge to the same text on both peers', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed * 7919);
      const base = randomCanvas(rnd);
      const left = withCanvas(base);
      const right = peerOf(left);
      applyCanvas(left, randomCanvas(rnd, base));
      applyCanvas(right, randomCanvas(rnd, base));
      sync(left, right);
      const text = JSON.stringify(renderCanvas(left));
      expect(JSON.stringify(renderCanvas(right)), `seed ${seed}`).toBe(text);
      // Every node appears once.
      const ids = renderCanvas(left).nodes.map((n) => (n as Json).id);
      expect(new Set(ids).size, `seed ${seed}`).toBe(ids.length);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('minimal changes', () => {
  it('applying the same canvas twice emits no update', () => {
    const canvas = bigCanvas(50);
    const doc = withCanvas(canvas);
    expect(updatesOf(doc, () => applyCanvas(doc, structuredClone(canvas)))).toEqual([]);
  });

  it('all in one transaction, with the given origin', () => {
    const doc = withCanvas(bigCanvas(5));
    const origins: unknown[] = [];
    doc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin));
    const changed = bigCanvas(6);
    changed.nodes.reverse();
    changed.nodes[1].position = { x: -1, y: -1 };
    applyCanvas(doc, changed, 'rest');
    expect(origins).toEqual(['rest']);
  });

  it('moving one node of 200 sends a few dozen bytes; editing a prompt touches only that key', () => {
    const canvas = bigCanvas(200);
    const doc = withCanvas(canvas);
    const full = Y.encodeStateAsUpdate(doc).length;
    const moved = structuredClone(canvas);
    moved.nodes[120].position = { x: 1234.5, y: -20 };
    const moveUpdates = updatesOf(doc, () => applyCanvas(doc, moved));
    expect(moveUpdates).toHaveLength(1);
    const moveBytes = moveUpdates[0].length;
    expect(moveBytes).toBeLessThan(200);

    const edited = structuredClone(moved);
    (edited.nodes[7].data as Json).prompt = 'a new prompt';
    const changes: string[] = [];
    canvasMaps(doc).nodes.observeDeep((events) => {
      for (const event of events) for (const key of event.keys.keys()) changes.push([...event.path, key].join('.'));
    });
    const editBytes = updatesOf(doc, () => applyCanvas(doc, edited))[0].length;
    expect(changes).toEqual(['n7.data.prompt']);

    // Bring a node to the front (the end of the array): one order key is written.
    const reordered = structuredClone(edited);
    reordered.nodes.push(...reordered.nodes.splice(3, 1));
    changes.length = 0;
    const reorderBytes = updatesOf(doc, () => applyCanvas(doc, reordered))[0].length;
    expect(changes).toEqual([`n3.${ORDER_KEY}`]);
    expect(reorderBytes).toBeLessThan(200);
    expect(renderCanvas(doc)).toEqual(reordered);

    // Delete one node and its edges.
    const deleted = structuredClone(reordered);
    deleted.nodes = deleted.nodes.filter((n) => n.id !== 'n50');
    deleted.edges = deleted.edges.filter((e) => e.source !== 'n50' && e.target !== 'n50');
    const deleteBytes = updatesOf(doc, () => applyCanvas(doc, deleted))[0].length;
    expect(deleteBytes).toBeLessThan(200);
    console.log(`200 nodes + 199 edges: full state ${full} B; move one node ${moveBytes} B; edit one prompt ${editBytes} B; bring one to front ${reorderBytes} B; delete one node and 2 edges ${deleteBytes} B`);
  });

  it('only the moved entries get new order keys, also for moves and inserts all over', () => {
    const canvas = bigCanvas(100);
    const doc = withCanvas(canvas);
    const keyOf = (id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get(ORDER_KEY);
    const before = new Map(canvas.nodes.map((n) => [n.id as string, keyOf(n.id as string)]));
    const next = structuredClone(canvas);
    const move = (id: string, to: number) => next.nodes.splice(to, 0, ...next.nodes.splice(next.nodes.findIndex((n) => n.id === id), 1));
    move('n80', 10); // back
    move('n20', 50); // forward
    next.nodes.splice(0, 0, node('first'));
    next.nodes.splice(60, 0, node('middle'));
    next.nodes.push(node('last'));
    applyCanvas(doc, next);
    expect(renderCanvas(doc)).toEqual(next);
    const rekeyed = [...before].filter(([id, key]) => keyOf(id) !== key).map(([id]) => id);
    expect(rekeyed.sort()).toEqual(['n20', 'n80']);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('concurrent edits', () => {
  const base = { nodes: [generation('n1', 'old prompt'), generation('n2', 'second')], edges: [{ id: 'e', source: 'n1', target: 'n2' }] };

  it('one moves n1, the other edits its prompt: both keep both changes', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    const moved = structuredClone(base);
    moved.nodes[0].position = { x: 300, y: 400 };
    const prompted = structuredClone(base);
    prompted.nodes[0].data.prompt = 'new prompt';
    applyCanvas(ada, moved);
    applyCanvas(bob, prompted);
    sync(ada, bob);
    const both = structuredClone(base);
    both.nodes[0].position = { x: 300, y: 400 };
    both.nodes[0].data.prompt = 'new prompt';
    expect(renderCanvas(ada)).toEqual(both);
    expect(renderCanvas(bob)).toEqual(both);
  });

  it('two concurrent adds of different nodes both survive, in the same order on both sides', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    applyCanvas(ada, { ...base, nodes: [...base.nodes, node('from-ada')] });
    applyCanvas(bob, { ...base, nodes: [...base.nodes, node('b-from-bob')] });
    sync(ada, bob);
    const ids = renderCanvas(ada).nodes.map((n) => (n as Json).id);
    expect(ids).toEqual(['n1', 'n2', 'b-from-bob', 'from-ada']); // same order key: the id breaks the tie
    expect(JSON.stringify(renderCanvas(bob))).toBe(JSON.stringify(renderCanvas(ada)));
    // Applying what is rendered writes nothing, even with the tied keys.
    expect(updatesOf(ada, () => applyCanvas(ada, renderCanvas(ada)))).toEqual([]);
    // Inserting between the tied nodes still works.
    const between = renderCanvas(ada);
    between.nodes.splice(3, 0, node('between'));
    applyCanvas(ada, between);
    expect(renderCanvas(ada)).toEqual(between);
  });

  it('the same node added by two people appears once; so does a node moved by two people', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    applyCanvas(ada, { ...base, nodes: [node('same', 1), ...base.nodes] });
    applyCanvas(bob, { ...base, nodes: [...base.nodes, node('same', 2)] });
    sync(ada, bob);
    expect(renderCanvas(ada).nodes.filter((n) => (n as Json).id === 'same')).toHaveLength(1);
    expect(JSON.stringify(renderCanvas(bob))).toBe(JSON.stringify(renderCanvas(ada)));

    const now = renderCanvas(ada);
    const toFront = { ...now, nodes: [...now.nodes.filter((n) => (n as Json).id !== 'n1'), now.nodes.find((n) => (n as Json).id === 'n1')] };
    const toBack = { ...now, nodes: [now.nodes.find((n) => (n as Json).id === 'n1'), ...now.nodes.filter((n) => (n as Json).id !== 'n1')] };
    applyCanvas(ada, toFront);
    applyCanvas(bob, toBack);
    sync(ada, bob);
    expect(renderCanvas(ada).nodes.filter((n) => (n as Json).id === 'n1')).toHaveLength(1);
    expect(renderCanvas(ada).nodes).toHaveLength(now.nodes.length);
    expect(JSON.stringify(renderCanvas(bob))).toBe(JSON.stringify(renderCanvas(ada)));
  });

  it('a delete and an edit of the same node end the same on both sides (the delete wins)', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    applyCanvas(ada, { nodes: [base.nodes[1]], edges: [] });
    const edited = structuredClone(base);
    edited.nodes[0].data.prompt = 'edited while deleted';
    edited.nodes[0].position = { x: 1, y: 1 };
    applyCanvas(bob, edited);
    sync(ada, bob);
    expect(renderCanvas(ada)).toEqual({ nodes: [base.nodes[1]], edges: [] });
    expect(JSON.stringify(renderCanvas(bob))).toBe(JSON.stringify(renderCanvas(ada)));
  });
});

describe('adding (live clients)', () => {
  const base = { nodes: [generation('n1', 'one'), node('n2')], edges: [{ id: 'e', source: 'n2', target: 'n1' }] };

  it('appends after every entry, stored as applyCanvas stores it, touching nothing else', () => {
    const doc = withCanvas(base);
    const written = updatesOf(doc, () =>
      expect(addToCanvas(doc, { nodes: [node('#odd', 5, { prompt: 'p' }), generation('n3', 'three')], edges: [{ id: 'e2', source: 'n2', target: 'n3' }] }, 'me')).toBe(true),
    );
    expect(written).toHaveLength(1); // one transaction
    const expected = { nodes: [...base.nodes, node('#odd', 5, { prompt: 'p' }), generation('n3', 'three')], edges: [...base.edges, { id: 'e2', source: 'n2', target: 'n3' }] };
    expect(renderCanvas(doc)).toEqual(expected);
    // The same document as a whole-canvas write of that content would make: applying it changes nothing.
    expect(updatesOf(doc, () => applyCanvas(doc, expected))).toEqual([]);
    const added = canvasMaps(doc).nodes.get('#odd') as Y.Map<unknown>;
    expect(added.get('data')).toBeInstanceOf(Y.Map);
    // The update writes the new entries only: no field of the entries that were there.
    const roots = Y.decodeUpdate(written[0]).structs.filter((s): s is Y.Item => s instanceof Y.Item && typeof s.parent === 'string');
    expect(roots.map((s) => [s.parent, s.parentSub])).toEqual([['nodes', '#odd'], ['nodes', 'n3'], ['edges', 'e2']]);
    expect(Y.decodeUpdate(written[0]).ds.clients.size).toBe(0); // nothing deleted
  });

  it('transacts with the origin, also inside a transaction of the caller', () => {
    const doc = withCanvas(base);
    const origins: unknown[] = [];
    doc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin));
    addToCanvas(doc, { nodes: [node('a')] }, 'mine');
    doc.transact(() => {
      addToCanvas(doc, { nodes: [node('b')] });
      canvasMaps(doc).nodes.delete('n1');
    }, 'outer');
    expect(origins).toEqual(['mine', 'outer']);
    expect(renderCanvas(doc).nodes.map((n) => (n as Json).id)).toEqual(['n2', 'a', 'b']);
  });

  it('an id already present is updated in place and keeps its place; adding nothing writes nothing', () => {
    const doc = withCanvas(base);
    expect(updatesOf(doc, () => expect(addToCanvas(doc, {})).toBe(false))).toEqual([]);
    expect(updatesOf(doc, () => expect(addToCanvas(doc, { nodes: [base.nodes[0]] })).toBe(false))).toEqual([]);
    addToCanvas(doc, { nodes: [generation('n1', 'changed'), node('n4')] });
    expect(renderCanvas(doc).nodes).toEqual([generation('n1', 'changed'), base.nodes[1], node('n4')]);
  });

  it('two people adding at once both keep their nodes, in the same order on both sides; malformed keys are skipped', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    addToCanvas(ada, { nodes: [node('x-ada')] });
    addToCanvas(bob, { nodes: [node('x-bob')] });
    sync(ada, bob);
    expect(renderCanvas(ada).nodes.map((n) => (n as Json).id)).toEqual(['n1', 'n2', 'x-ada', 'x-bob']);
    expect(JSON.stringify(renderCanvas(bob))).toBe(JSON.stringify(renderCanvas(ada)));
    // A hostile peer's malformed key does not stop an append.
    (canvasMaps(ada).nodes.get('n1') as Y.Map<unknown>).set(ORDER_KEY, '~~bad');
    addToCanvas(ada, { nodes: [node('last')] });
    expect(renderCanvas(ada).nodes.map((n) => (n as Json).id).at(-1)).toBe('n1'); // '~~bad' sorts after every valid key
    expect(renderCanvas(ada).nodes.map((n) => (n as Json).id).at(-2)).toBe('last');
  });

  it('renders one entry as renderCanvas does; sorted by compareEntries, entries are in its order', () => {
    const rnd = random(7);
    const doc = withCanvas(bigCanvas(40));
    // Shuffle the order, add entries with ties, a hostile one without a key and one that is not a map.
    const shuffled = renderCanvas(doc);
    shuffled.nodes.sort(() => rnd() - 0.5);
    applyCanvas(doc, shuffled);
    const ada = peerOf(doc);
    addToCanvas(doc, { nodes: [node('tie-b')] });
    addToCanvas(ada, { nodes: [node('tie-a')] });
    sync(doc, ada);
    (canvasMaps(doc).nodes.get('n3') as Y.Map<unknown>).delete(ORDER_KEY);
    canvasMaps(doc).edges.set('plain', { source: 'a' });
    for (const collection of ['nodes', 'edges'] as const) {
      const ids: string[] = [];
      canvasMaps(doc)[collection].forEach((_v, id) => ids.push(id));
      const entries = ids.map((id) => renderCanvasEntry(doc, collection, id)).filter((e) => e !== undefined);
      expect(entries.sort(compareEntries).map((e) => e.value)).toEqual(renderCanvas(doc)[collection]);
    }
    expect(renderCanvasEntry(doc, 'nodes', 'n3')?.order).toBe('');
    expect(renderCanvasEntry(doc, 'edges', 'plain')).toBeUndefined();
    expect(renderCanvasEntry(doc, 'nodes', 'missing')).toBeUndefined();
  });
});

describe('order keys', () => {
  it('a key between any two keys sorts between them; n keys spread between two', () => {
    const rnd = random(42);
    let keys = [keyBetween(null, null)];
    for (let i = 0; i < 3000; i++) {
      const at = Math.floor(rnd() * (keys.length + 1));
      const key = keyBetween(at > 0 ? keys[at - 1] : null, at < keys.length ? keys[at] : null);
      expect(isOrderKey(key)).toBe(true);
      keys.splice(at, 0, key);
    }
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
    keys = keysBetween('a0', 'a1', 500);
    expect([...keys].sort()).toEqual(keys);
    expect(keys.every((k) => k > 'a0' && k < 'a1' && isOrderKey(k))).toBe(true);
    // Appends stay short.
    expect(keysBetween(null, null, 10_000).at(-1)!.length).toBeLessThanOrEqual(4);
    expect(keysBetween(null, 'a0', 1000).every(isOrderKey)).toBe(true);
    const swapped = keyBetween('a1', 'a0'); // bounds in either order
    expect(swapped > 'a0' && swapped < 'a1').toBe(true);
    for (const bad of ['', 'a', 'a00', '!', 'a0 ', 'A' + '0'.repeat(26)]) expect(isOrderKey(bad), bad).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('cost (measured, not asserted)', () => {
  it('an edit of one node: from a full REST body vs as a single Yjs update, on 10 and 5,000 nodes', () => {
    const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))];
    const sizes = [10, 5000];
    const setups = sizes.map((size) => {
      const canvas = bigCanvas(size);
      const doc = withCanvas(canvas);
      return { size, canvas, doc, peer: peerOf(doc), rest: [] as number[], live: [] as number[], bytes: [] as number[] };
    });
    // REST: a whole body with one node moved, applied and rendered (what POST …/canvas will do).
    for (let round = 0; round < 15; round++) {
      for (const s of setups) {
        const body = structuredClone(s.canvas);
        body.nodes[Math.floor(s.size / 2)].position = { x: round, y: round };
        const t0 = performance.now();
        applyCanvas(s.doc, body);
        renderCanvas(s.doc);
        s.rest.push(performance.now() - t0);
      }
    }
    // Live: one node moved through the document (what the web client sends), applied on a peer.
    for (const s of setups) sync(s.doc, s.peer);
    const BATCH = 50;
    const updates = setups.map((s) => {
      const nodes = canvasMaps(s.doc).nodes;
      return updatesOf(s.doc, () => {
        for (let i = 0; i < 20 * BATCH; i++) (nodes.get(`n${(i * 7919) % s.size}`) as Y.Map<unknown>).set('position', { x: i, y: -i });
      });
    });
    for (let from = 0; from < 20 * BATCH; from += BATCH) {
      setups.forEach((s, k) => {
        const t0 = performance.now();
        for (let i = from; i < from + BATCH; i++) Y.applyUpdate(s.peer, updates[k][i]);
        s.live.push(((performance.now() - t0) / BATCH) * 1000);
      });
    }
    for (const s of setups) expect(renderCanvas(s.peer)).toEqual(renderCanvas(s.doc));
    console.log(
      setups
        .map((s, k) => {
          const bytes = updates[k].map((u) => u.length);
          return `${s.size} nodes: applyCanvas+renderCanvas median ${quantile(s.rest, 0.5).toFixed(2)} ms; ` +
            `Y.applyUpdate of one move (${Math.min(...bytes)}–${Math.max(...bytes)} B) median ${quantile(s.live, 0.5).toFixed(1)} µs, best batch ${quantile(s.live, 0).toFixed(1)} µs`;
        })
        .join('\n'),
    );
  });
});

describe('rendering content stored before the rules', () => {
  it('never renders an image URL of a scheme the canvas rules refuse (javascript:, vbscript:), and keeps allowed ones', () => {
    const doc = new Y.Doc();
    const bad = ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'vbscript:msgbox(1)'];
    const good = ['https://img.example/a.png', '/files/a.png', 'data:image/png;base64,AAAA'];
    doc.transact(() => {
      [...bad, ...good].forEach((image, i) => {
        const data = new Y.Map<unknown>();
        data.set('type', 'upload');
        data.set('image', image);
        const entry = new Y.Map<unknown>();
        entry.set('type', 'upload');
        entry.set('position', { x: i, y: 0 });
        entry.set('data', data);
        entry.set(ORDER_KEY, keysBetween(null, null, 10)[i]);
        canvasMaps(doc).nodes.set(`n${i}`, entry);
      });
    });
    const images = renderCanvas(doc).nodes.map((n) => (n as { data: Json }).data.image);
    expect(images).toEqual([...bad.map(() => undefined), ...good]);
    expect(renderCanvasEntry(doc, 'nodes', 'n0')!.value.data).toEqual({ type: 'upload' });
  });
});
