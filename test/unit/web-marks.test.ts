// Stale marks in the web client (web/src/canvas/marks.ts, issue 35 point 2): the marks every editor computes from
// the document through src/kinds/graph.ts — a changed upload or setting marks its node and everything downstream
// out of date, nothing upstream —, recomputed only when a key may change (a move or a job's progress keeps the same
// input, and unchanged marks keep their objects); the seed and count bounds; what "Use this" brings from a variant;
// the order of a fanned node's variants.
import { describe, expect, it } from 'vitest';
import { graphOf, keysOf } from '../../src/kinds/graph.js';
import {
  graphInputOf,
  markLabel,
  nodesNamedIn,
  problemInWords,
  MarkStore,
  marksOfCanvas,
  orderVariants,
  parseCount,
  parseSeed,
  randomSeed,
  SEED_MAX,
  storedCount,
  variantFields,
  type GraphInput,
} from '../../web/src/canvas/marks.js';

type Node = { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> };
type Edge = { id: string; source: string; target: string; sourceHandle?: string | null; targetHandle?: string | null };

const at = { x: 0, y: 0 };
/** upload → adjust → generation (+ a prompt), and a second upload feeding only the generation. */
function chain(): { nodes: Node[]; edges: Edge[] } {
  return {
    nodes: [
      { id: 'up', type: 'upload', position: at, data: { type: 'upload', image: '/files/a.png' } },
      { id: 'adj', type: 'adjust', position: at, data: { type: 'adjust', grayscale: true } },
      { id: 'gen', type: 'generation', position: at, data: { type: 'generation', prompt: 'a fox', seed: 7 } },
      { id: 'up2', type: 'upload', position: at, data: { type: 'upload', image: '/files/b.png' } },
    ],
    edges: [
      { id: 'e1', source: 'up', target: 'adj' },
      { id: 'e2', source: 'adj', target: 'gen' },
      { id: 'e3', source: 'up2', target: 'gen' },
    ],
  };
}

/** The canvas with each runnable node's result made for its key now (as the runner leaves it after a run). */
function ran(canvas: { nodes: Node[]; edges: Edge[] }): { nodes: Node[]; edges: Edge[] } {
  const keys = keysOf(graphOf(canvas));
  return {
    edges: canvas.edges,
    nodes: canvas.nodes.map((n) =>
      n.type === 'upload' ? n : { ...n, data: { ...n.data, image: `/files/${n.id}-result.png`, resultKey: keys.get(n.id)!.key } },
    ),
  };
}

const markOf = (canvas: { nodes: Node[]; edges: Edge[] }) => Object.fromEntries([...marksOfCanvas(canvas)].map(([id, m]) => [id, m.mark]));

describe('stale marks', () => {
  it('are fresh after a run, never before one, and sources are sources', () => {
    expect(markOf(chain())).toEqual({ up: 'source', adj: 'never', gen: 'never', up2: 'source' });
    expect(markOf(ran(chain()))).toEqual({ up: 'source', adj: 'fresh', gen: 'fresh', up2: 'source' });
  });

  it('a changed upload marks what it feeds and everything downstream out of date, nothing upstream or beside', () => {
    const canvas = ran(chain());
    canvas.nodes[0] = { ...canvas.nodes[0], data: { type: 'upload', image: '/files/other.png' } };
    expect(markOf(canvas)).toEqual({ up: 'source', adj: 'stale', gen: 'stale', up2: 'source' });
  });

  it('a changed setting marks its node and what is downstream, not what is upstream', () => {
    const canvas = ran(chain());
    canvas.nodes[1] = { ...canvas.nodes[1], data: { ...canvas.nodes[1].data, brightness: 1.5 } };
    expect(markOf(canvas)).toEqual({ up: 'source', adj: 'stale', gen: 'stale', up2: 'source' });
    const seed = ran(chain());
    seed.nodes[2] = { ...seed.nodes[2], data: { ...seed.nodes[2].data, seed: 8 } };
    expect(markOf(seed)).toEqual({ up: 'source', adj: 'fresh', gen: 'stale', up2: 'source' });
  });

  it('a node that cannot run is blocked, with the reason', () => {
    const canvas = chain();
    canvas.edges = canvas.edges.filter((e) => e.id !== 'e1'); // the adjust node has no input
    const marks = marksOfCanvas(canvas);
    expect(marks.get('adj')?.mark).toBe('blocked');
    expect(marks.get('adj')?.problem).toEqual(expect.any(String));
    expect(markLabel(marks.get('adj'))).toEqual({ text: 'Can’t run', title: marks.get('adj')!.problem });
  });

  it('keep the same objects when no mark changed, and a node’s own object when its mark did not', () => {
    const canvas = ran(chain());
    const first = marksOfCanvas(canvas);
    expect(marksOfCanvas(canvas, first)).toBe(first);
    canvas.nodes[1] = { ...canvas.nodes[1], data: { ...canvas.nodes[1].data, hue: 30 } };
    const second = marksOfCanvas(canvas, first);
    expect(second).not.toBe(first);
    expect(second.get('up')).toBe(first.get('up'));
    expect(second.get('adj')).not.toBe(first.get('adj'));
  });

  it('a problem names nodes by their names on the canvas', () => {
    const canvas = chain();
    canvas.edges = canvas.edges.filter((e) => e.id !== 'e1');
    const problem = marksOfCanvas(canvas).get('adj')!.problem!;
    expect(nodesNamedIn(problem)).toEqual(['adj']);
    const named = problemInWords(problem, (id) => (id === 'adj' ? 'Adjust 1' : undefined));
    expect(named.startsWith('Adjust 1 has no input image')).toBe(true);
    expect(named).not.toContain('"adj"');
    const two = 'node "g \\"x\\"" (generation) waits for node "a" (adjust), which has no image';
    expect(nodesNamedIn(two)).toEqual(['g "x"', 'a']);
    expect(problemInWords(two, (id) => ({ 'g "x"': 'Generate 1' })[id])).toBe('Generate 1 waits for node "a" (adjust), which has no image');
  });

  it('say what they mean: nothing for a fresh result or a source', () => {
    expect(markLabel({ mark: 'stale' })).toEqual({ text: 'Out of date', title: 'Its inputs or settings changed since its result was made — run it to update' });
    expect(markLabel({ mark: 'never' })?.text).toBe('Not run yet');
    expect(markLabel({ mark: 'fresh' })).toBeNull();
    expect(markLabel({ mark: 'source' })).toBeNull();
    expect(markLabel(undefined)).toBeNull();
  });

  it('compute a 200-node canvas', () => {
    const nodes: Node[] = [];
    const edges: Edge[] = [];
    for (let c = 0; c < 40; c++) {
      nodes.push({ id: `u${c}`, type: 'upload', position: at, data: { type: 'upload', image: `/files/${c}.png` } });
      let prev = `u${c}`;
      for (let i = 0; i < 4; i++) {
        const id = `n${c}-${i}`;
        nodes.push(i === 3 ? { id, type: 'generation', position: at, data: { type: 'generation', prompt: `p${c}`, seed: c } } : { id, type: 'adjust', position: at, data: { type: 'adjust', hue: i } });
        edges.push({ id: `e${c}-${i}`, source: prev, target: id });
        prev = id;
      }
    }
    const marks = marksOfCanvas(ran({ nodes, edges }));
    expect(marks.size).toBe(200);
    expect([...marks.values()].filter((m) => m.mark === 'fresh')).toHaveLength(160);
  });
});

describe('what marks are computed from', () => {
  it('stays the same object when a node moves, is selected or measured, or a job’s state changes', () => {
    const { nodes, edges } = chain();
    const first = graphInputOf(nodes, edges);
    const moved = nodes.map((n, i) => (i === 0 ? { ...n, position: { x: 50, y: 9 }, selected: true, measured: { width: 1, height: 2 } } : n));
    expect(graphInputOf(moved, edges, first)).toBe(first);
    const running = nodes.map((n) => (n.id === 'gen' ? { ...n, data: { ...n.data, job: { id: 'j', status: 'running' }, run: { done: 1 }, isGenerating: true, error: 'x' } } : n));
    expect(graphInputOf(running, edges.map((e) => ({ ...e })), first)).toBe(first);
  });

  it('changes when data a key or a mark reads changes, or an edge’s ends or ports, or a node is added', () => {
    const { nodes, edges } = chain();
    const first: GraphInput = graphInputOf(nodes, edges);
    const prompt = nodes.map((n) => (n.id === 'gen' ? { ...n, data: { ...n.data, prompt: 'a cat' } } : n));
    const changed = graphInputOf(prompt, edges, first);
    expect(changed).not.toBe(first);
    expect(changed.nodes[0]).toBe(first.nodes[0]); // unchanged nodes keep their objects
    const result = nodes.map((n) => (n.id === 'gen' ? { ...n, data: { ...n.data, resultKey: 'k' } } : n));
    expect(graphInputOf(result, edges, first)).not.toBe(first);
    expect(graphInputOf(nodes, edges.map((e) => (e.id === 'e3' ? { ...e, targetHandle: 'prompt' } : e)), first)).not.toBe(first);
    expect(graphInputOf(nodes, edges.slice(1), first)).not.toBe(first);
    expect(graphInputOf([...nodes, { id: 'x', type: 'text', position: at, data: { type: 'text', text: '' } }], edges, first)).not.toBe(first);
  });

  it('a store tells its listeners only when the marks change', () => {
    const store = new MarkStore();
    let told = 0;
    const stop = store.subscribe(() => told++);
    const marks = new Map([['a', { mark: 'stale' as const }]]);
    store.set(marks);
    store.set(marks);
    expect(told).toBe(1);
    expect(store.get('a')).toEqual({ mark: 'stale' });
    stop();
    store.set(new Map());
    expect(told).toBe(1);
  });
});

describe('seed and count', () => {
  it('a seed is a whole number 0 … 2^31 − 1', () => {
    expect(parseSeed('0')).toBe(0);
    expect(parseSeed(' 42 ')).toBe(42);
    expect(parseSeed(String(SEED_MAX))).toBe(SEED_MAX);
    for (const bad of ['', '-1', '1.5', '1e3', String(SEED_MAX + 1), 'abc', '0x10']) expect(parseSeed(bad)).toBeUndefined();
    for (let i = 0; i < 200; i++) {
      const seed = randomSeed();
      expect(Number.isInteger(seed) && seed >= 0 && seed <= SEED_MAX).toBe(true);
    }
    expect(new Set(Array.from({ length: 20 }, randomSeed)).size).toBeGreaterThan(1);
  });

  it('a count is 1 … 8, stored absent for 1', () => {
    expect([1, 3, 8].map((n) => parseCount(String(n)))).toEqual([1, 3, 8]);
    for (const bad of ['0', '9', '2.5', '', '-1']) expect(parseCount(bad)).toBeUndefined();
    expect(storedCount(1)).toBeUndefined();
    expect(storedCount(4)).toBe(4);
  });
});

describe('variants', () => {
  it('“Use this” brings the variant’s key and seed when it has them, and forgets the old key when it has none', () => {
    expect(variantFields({ outputImageUrl: '/a.png', cacheKey: 'abc', seed: 12 })).toEqual({ resultKey: 'abc', seed: 12 });
    expect(variantFields({ outputImageUrl: '/a.png' })).toEqual({ resultKey: undefined });
    expect(variantFields({ outputImageUrl: '/a.png', cacheKey: null, seed: null })).toEqual({ resultKey: undefined });
    expect(variantFields({ outputImageUrl: '/a.png', cacheKey: 'k', seed: -1 })).toEqual({ resultKey: 'k' });
  });

  it('a fanned node’s results come first, in item order, then the others newest first', () => {
    const g = (url: string) => ({ id: url, outputImageUrl: url });
    const newestFirst = [g('/x.png'), g('/r2.png'), g('/r1.png'), g('/r0.png'), g('/old.png')];
    const { items, inResults } = orderVariants(newestFirst, ['/r0.png', '/r1.png', '/r2.png']);
    expect(items.map((i) => i.id)).toEqual(['/r0.png', '/r1.png', '/r2.png', '/x.png', '/old.png']);
    expect(inResults).toBe(3);
    expect(orderVariants(newestFirst, undefined)).toEqual({ items: newestFirst, inResults: 0 });
    expect(orderVariants(newestFirst, [])).toEqual({ items: newestFirst, inResults: 0 });
  });
});
