// The graph that runs (src/kinds/graph.ts): keys chained from the document alone, marks, fan-out over lists and
// counts, and the plan of each run mode, with the problems a plan is refused for.
import { describe, expect, it } from 'vitest';
import { findCycle, graphOf, hashOf, keysOf, marksOf, planRun, NODE_JOBS_MAX, type CanvasLike, type PlanStep } from '../../src/kinds/graph.js';

type Data = Record<string, unknown>;
const node = (id: string, type: string, data: Data = {}) => ({ id, type, position: { x: 0, y: 0 }, data: { type, ...data } });
const upload = (id: string, image: string | undefined = `https://img.example/${id}.png`) => node(id, 'upload', image ? { image } : {});
const gen = (id: string, data: Data = {}) => node(id, 'generation', { prompt: `prompt of ${id}`, seed: 7, ...data });
const text = (id: string, t: string) => node(id, 'text', { text: t });
const list = (id: string, items: string[]) => node(id, 'list', { items });
const adjust = (id: string, data: Data = {}) => node(id, 'adjust', { grayscale: true, ...data });
const edge = (source: string, target: string, targetHandle?: string, sourceHandle?: string) => ({
  id: `${source}-${target}${targetHandle ? `-${targetHandle}` : ''}`,
  source,
  target,
  ...(targetHandle ? { targetHandle } : {}),
  ...(sourceHandle ? { sourceHandle } : {}),
});

const keys = (canvas: CanvasLike) => keysOf(graphOf(canvas));
const keyOf = (canvas: CanvasLike, id: string) => keys(canvas).get(id)!.key;
const plan = (canvas: CanvasLike, mode: 'node' | 'downstream' | 'selection' | 'all', nodeIds?: string[], maxJobs = 200) => {
  const graph = graphOf(canvas);
  return planRun(graph, keysOf(graph), { mode, nodeIds, maxJobs });
};
const stepsOf = (canvas: CanvasLike, mode: 'node' | 'downstream' | 'selection' | 'all', nodeIds?: string[]) => {
  const p = plan(canvas, mode, nodeIds);
  if (!p.ok) throw new Error(`refused: ${p.problem.message}`);
  return p;
};
const brief = (s: PlanStep) => `${s.nodeId}#${s.instance}`;

/** upload a → generation g1 → adjust a1 → generation g2 (with text t into its prompt); upload b → g3, unrelated. */
const chain = (): CanvasLike => ({
  nodes: [upload('a'), gen('g1'), adjust('a1'), text('t', 'more'), gen('g2'), upload('b'), gen('g3')],
  edges: [edge('a', 'g1'), edge('g1', 'a1'), edge('a1', 'g2'), edge('t', 'g2', 'prompt'), edge('b', 'g3')],
});

describe('hashOf', () => {
  it('hashes canonical JSON: object keys in any order give one hash, arrays keep theirs, SHA-256 hex', () => {
    expect(hashOf({ a: 1, b: [1, 2] })).toBe(hashOf({ b: [1, 2], a: 1 }));
    expect(hashOf([1, 2])).not.toBe(hashOf([2, 1]));
    expect(hashOf({ a: 1, b: undefined })).toBe(hashOf({ a: 1 }));
    // echo -n '["text","x"]' | sha256sum
    expect(hashOf(['text', 'x'])).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOf('')).toBe('12ae32cb1ec02d01eda3581b127c1fee3b0dc53572ed6baf239721a03d82e126'); // sha256 of '""'
  });
});

describe('keys', () => {
  it('are stable, and equal for equal graphs whatever the order of nodes and edges in the canvas', () => {
    const c = chain();
    const k1 = keys(c);
    const k2 = keys({ nodes: [...c.nodes].reverse(), edges: [...c.edges].reverse() });
    for (const id of ['a', 'g1', 'a1', 't', 'g2', 'b', 'g3']) {
      expect(k1.get(id)!.key).toMatch(/^[0-9a-f]{64}$/);
      expect(k2.get(id)!.key).toBe(k1.get(id)!.key);
    }
    expect(keys(chain()).get('g2')!.key).toBe(k1.get('g2')!.key);
  });

  it('a job key is the hash of kind, version, model, params, seed and the inputs’ keys, params without run state', () => {
    const k = keys({ nodes: [upload('a'), gen('g', { model: 'm1', image: 'https://x/r.png', resultKey: 'ab', job: { id: 'j' }, count: 1, number: 3 })], edges: [edge('a', 'g')] }).get('g')!;
    const image = hashOf(['image', 'https://img.example/a.png']);
    expect(k.model).toBe('m1');
    expect(k.params).toEqual({ prompt: 'prompt of g' });
    expect(k.jobs).toHaveLength(1);
    expect(k.jobs[0].key).toBe(hashOf(['job', 'generation', 1, 'm1', { prompt: 'prompt of g' }, 7, [['images', image]]]));
    expect(k.key).toBe(k.jobs[0].key);
    expect(k.jobs[0]).toMatchObject({ instance: 0, seed: 7, inputs: [{ port: 'images', value: 'image', source: { image: 'https://img.example/a.png' }, key: image }] });
    // Run state, the display number and a job in flight are not part of the key.
    const bare = keys({ nodes: [upload('a'), gen('g', { model: 'm1' })], edges: [edge('a', 'g')] }).get('g')!;
    expect(bare.key).toBe(k.key);
  });

  it('a prompt change changes that node’s key and every key downstream, and no other', () => {
    const before = keys(chain());
    const c = chain();
    (c.nodes[1] as { data: Data }).data.prompt = 'another prompt';
    const after = keys(c);
    for (const id of ['g1', 'a1', 'g2']) expect(after.get(id)!.key).not.toBe(before.get(id)!.key);
    for (const id of ['a', 't', 'b', 'g3']) expect(after.get(id)!.key).toBe(before.get(id)!.key);
  });

  it('a model, a seed, a text upstream or an image change the key; a node’s own result does not', () => {
    const base = keyOf(chain(), 'g2');
    const edit = (f: (c: CanvasLike) => void) => {
      const c = chain();
      f(c);
      return keyOf(c, 'g2');
    };
    const data = (c: CanvasLike, i: number) => (c.nodes[i] as { data: Data }).data;
    expect(edit((c) => (data(c, 4).model = 'other'))).not.toBe(base);
    expect(edit((c) => (data(c, 4).seed = 8))).not.toBe(base);
    expect(edit((c) => (data(c, 3).text = 'less'))).not.toBe(base);
    expect(edit((c) => (data(c, 0).image = 'https://img.example/other.png'))).not.toBe(base);
    expect(edit((c) => (data(c, 2).contrast = 2))).not.toBe(base);
    expect(edit((c) => Object.assign(data(c, 1), { image: 'https://x/1.png', resultKey: 'ff' }))).toBe(base);
  });

  it('a generation without a seed has jobs with seed null (the service draws one); a steps kind has no seed', () => {
    const k = keys({ nodes: [upload('a'), gen('g', { seed: undefined }), adjust('x', { seed: 3, count: 4 })], edges: [edge('a', 'g'), edge('a', 'x')] });
    expect(k.get('g')!.jobs.map((j) => j.seed)).toEqual([null]);
    expect(k.get('x')!.jobs.map((j) => j.seed)).toEqual([null]); // count is a seeded kind's
  });

  it('a node with nothing on its required input, or fed by a source without an image, has a problem naming the nodes', () => {
    const k = keys({
      nodes: [gen('lone'), adjust('x'), upload('empty', ''), gen('g'), adjust('after')],
      edges: [edge('empty', 'g'), edge('g', 'after')],
    });
    expect(k.get('lone')!.problem).toBe('node "lone" (generation) has no input image (connect a node with an image to its images input)');
    expect(k.get('lone')!.key).toBeNull();
    expect(k.get('x')!.problem).toMatch(/^node "x" \(adjust\) has no input image .*its image input/);
    expect(k.get('g')!.problem).toBe('node "g" (generation) waits for node "empty" (upload), which has no image');
    expect(k.get('after')!.problem).toBe('node "after" (adjust) waits for node "g" (generation), which waits for node "empty" (upload), which has no image');
    // No prompt and no text is not the graph's business (some models need none).
    expect(keys({ nodes: [upload('a'), gen('g', { prompt: undefined })], edges: [edge('a', 'g')] }).get('g')!.problem).toBeUndefined();
  });

  it('ignores an unfit edge and lists it with a reason', () => {
    const g = graphOf({
      nodes: [text('t', 'hi'), upload('a'), gen('g')],
      edges: [edge('a', 'g'), edge('t', 'g'), edge('a', 'g', 'nope'), edge('ghost', 'g'), { id: 'junk' }],
    });
    expect(g.unfit.map((e) => e.id)).toEqual(['t-g', 'a-g-nope', 'ghost-g']);
    expect(g.unfit[0].message).toMatch(/output "text" \(text\) of node "t" \(text\) does not fit input "images" \(image\) of node "g" \(generation\)/);
    expect(g.unfit[1].message).toMatch(/has no input "nope"/);
    expect(g.unfit[2].message).toMatch(/node "ghost".*is not in the canvas/);
    expect(g.incoming.get('g')!.map((e) => e.id)).toEqual(['a-g']);
    expect(keysOf(g).get('g')!.jobs[0].inputs).toHaveLength(1);
  });

  it('names a cycle, and marks the nodes on it and after it blocked', () => {
    const c: CanvasLike = {
      nodes: [upload('a'), gen('x'), adjust('y'), adjust('z'), adjust('w')],
      edges: [edge('a', 'x'), edge('x', 'y'), edge('y', 'z'), edge('z', 'x', 'images'), edge('z', 'w')],
    };
    const g = graphOf(c);
    expect(findCycle(g)).toEqual(['x', 'y', 'z', 'x']);
    expect(findCycle(graphOf(chain()))).toBeNull();
    const k = keysOf(g);
    expect(k.get('x')!.problem).toBe('node "x" (generation) is on a cycle (nodes "x", "y", "z")');
    expect(k.get('w')!.problem).toMatch(/^node "w" \(adjust\) waits for node "z" \(adjust\), which is on a cycle/);
    expect(marksOf(g, k).get('y')).toBe('blocked');
  });
});

describe('marks', () => {
  it('fresh, stale, never, blocked and source, and a result from before keys is fresh', () => {
    const c = chain();
    const k = keys(c);
    const set = (i: number, d: Data) => Object.assign((c.nodes[i] as { data: Data }).data, d);
    set(1, { image: 'https://r/g1.png', resultKey: k.get('g1')!.key }); // fresh
    set(2, { image: 'https://r/a1.png', resultKey: 'ffff' }); // stale: made for another key
    set(6, { image: 'https://r/g3.png' }); // legacy: no resultKey
    (c.nodes as unknown[]).push(gen('lone'));
    const g = graphOf(c);
    const marks = marksOf(g, keysOf(g));
    expect(Object.fromEntries(marks)).toEqual({ a: 'source', g1: 'fresh', a1: 'stale', t: 'source', g2: 'never', b: 'source', g3: 'fresh', lone: 'blocked' });
  });

  it('a change upstream makes a fresh node downstream stale', () => {
    const c = chain();
    const k = keys(c);
    const data = (i: number) => (c.nodes[i] as { data: Data }).data;
    Object.assign(data(4), { image: 'https://r/g2.png', resultKey: k.get('g2')!.key });
    data(0).image = 'https://img.example/changed.png';
    const g = graphOf(c);
    expect(marksOf(g, keysOf(g)).get('g2')).toBe('stale');
  });
});

describe('fan-out', () => {
  const three = list('l', ['red', 'green', 'blue']);

  it('a list of 3 texts into a generation’s prompt makes 3 jobs in item order', () => {
    const k = keys({ nodes: [upload('a'), three, gen('g')], edges: [edge('a', 'g'), edge('l', 'g', 'prompt')] }).get('g')!;
    expect(k.jobs.map((j) => j.inputs.find((i) => i.port === 'prompt')!.source)).toEqual([{ text: 'red' }, { text: 'green' }, { text: 'blue' }]);
    expect(k.jobs.map((j) => j.instance)).toEqual([0, 1, 2]);
    expect(new Set(k.jobs.map((j) => j.key)).size).toBe(3);
    expect(k.key).toBe(hashOf(['jobs', k.jobs.map((j) => j.key)]));
    expect(k.jobs[1].inputs.find((i) => i.port === 'prompt')!.key).toBe(hashOf(['text', 'green']));
    // Blank lines are kept as typed but are no items.
    const blank = keys({ nodes: [upload('a'), list('l', ['red', '', '  ', 'blue']), gen('g')], edges: [edge('a', 'g'), edge('l', 'g', 'prompt')] }).get('g')!;
    expect(blank.jobs.map((j) => j.inputs[1].source)).toEqual([{ text: 'red' }, { text: 'blue' }]);
  });

  it('count 2 gives seeds s and s + 1; a list of 3 times count 2 is 6 jobs, item by item', () => {
    const counted = keys({ nodes: [upload('a'), gen('g', { count: 2, seed: 40 })], edges: [edge('a', 'g')] }).get('g')!;
    expect(counted.jobs.map((j) => j.seed)).toEqual([40, 41]);
    const k = keys({ nodes: [upload('a'), three, gen('g', { count: 2, seed: 40 })], edges: [edge('a', 'g'), edge('l', 'g', 'prompt')] }).get('g')!;
    expect(k.jobs.map((j) => `${(j.inputs[1].source as { text: string }).text}/${j.seed}`)).toEqual(['red/40', 'red/41', 'green/40', 'green/41', 'blue/40', 'blue/41']);
    // The largest seed wraps to 0 rather than leave 0..2^31-1.
    const top = keys({ nodes: [upload('a'), gen('g', { count: 2, seed: 2 ** 31 - 1 })], edges: [edge('a', 'g')] }).get('g')!;
    expect(top.jobs.map((j) => j.seed)).toEqual([2 ** 31 - 1, 0]);
  });

  it('two lists make every combination, the first edge outermost', () => {
    const k = keys({
      nodes: [upload('a'), list('l1', ['x', 'y']), list('l2', ['1', '2', '3']), gen('g')],
      edges: [edge('a', 'g'), edge('l1', 'g', 'prompt'), edge('l2', 'g', 'prompt')],
    }).get('g')!;
    expect(k.jobs.map((j) => j.inputs.slice(1).map((i) => (i.source as { text: string }).text).join(''))).toEqual(['x1', 'x2', 'x3', 'y1', 'y2', 'y3']);
  });

  it('a node downstream of a fanned one gets one job per item, each taking item i', () => {
    const k = keys({ nodes: [upload('a'), three, gen('g'), adjust('x')], edges: [edge('a', 'g'), edge('l', 'g', 'prompt'), edge('g', 'x')] });
    const x = k.get('x')!;
    expect(x.jobs.map((j) => j.inputs[0].source)).toEqual([0, 1, 2].map((instance) => ({ nodeId: 'g', instance })));
    expect(x.jobs.map((j) => j.inputs[0].key)).toEqual(k.get('g')!.jobs.map((j) => j.key));
  });

  it('a list of images fans a crop out; an empty list blocks what it feeds', () => {
    const k = keys({
      nodes: [upload('a'), upload('b'), list('l', []), adjust('x'), list('empty', []), gen('g')],
      edges: [edge('a', 'l'), edge('b', 'l'), edge('l', 'x', undefined, 'images'), edge('a', 'g'), edge('empty', 'g', 'prompt')],
    });
    expect(k.get('x')!.jobs.map((j) => j.inputs[0].source)).toEqual([{ image: 'https://img.example/a.png' }, { image: 'https://img.example/b.png' }]);
    expect(k.get('empty')!.problem).toBe('node "empty" (list) has no texts and no images');
    expect(k.get('g')!.problem).toBe('node "g" (generation) waits for node "empty" (list), which has no texts');
  });

  it('a fan-out over the per-node bound is blocked, saying how many jobs, without hashing them', () => {
    const many = Array.from({ length: 100 }, (_, i) => `p${i}`);
    const k = keys({ nodes: [upload('a'), list('l1', many), list('l2', many), gen('g')], edges: [edge('a', 'g'), edge('l1', 'g', 'prompt'), edge('l2', 'g', 'prompt')] });
    expect(k.get('g')!.problem).toBe(`node "g" (generation) would make 10000 jobs; at most ${NODE_JOBS_MAX} for one node`);
  });
});

describe('planRun', () => {
  const fresh = (c: CanvasLike, ...ids: string[]) => {
    for (const id of ids) {
      const k = keys(c).get(id)!;
      const n = c.nodes.find((x) => (x as { id: string }).id === id) as { data: Data };
      Object.assign(n.data, { image: `https://r/${id}.png`, resultKey: k.key, ...(k.jobs.length > 1 ? { results: k.jobs.map((j) => `https://r/${id}-${j.instance}.png`) } : {}) });
    }
    return c;
  };

  it('node: the node after its stale or never-run ancestors, in topological order with deps', () => {
    const p = stepsOf(chain(), 'node', ['g2']);
    expect(p.nodeIds).toEqual(['g1', 'a1', 'g2']);
    expect(p.steps.map(brief)).toEqual(['g1#0', 'a1#0', 'g2#0']);
    expect(p.steps.map((s) => s.deps)).toEqual([[], [0], [1]]);
    expect(p.steps[2]).toMatchObject({ type: 'generation', taskKind: 'generation', model: null, params: { prompt: 'prompt of g2' }, seed: 7 });
    expect(p.steps[1]).toMatchObject({ type: 'adjust', taskKind: 'image-steps' });
  });

  it('node: a fresh ancestor is not planned; its result is the input', () => {
    const c = fresh(chain(), 'g1', 'a1');
    const p = stepsOf(c, 'node', ['g2']);
    expect(p.steps.map(brief)).toEqual(['g2#0']);
    expect(p.steps[0].deps).toEqual([]);
    expect(p.steps[0].inputs[0]).toMatchObject({ port: 'images', source: { image: 'https://r/a1.png' } });
    // The node itself runs again even when fresh.
    expect(stepsOf(c, 'node', ['g1']).steps.map(brief)).toEqual(['g1#0']);
  });

  it('a fresh fanned ancestor gives result i to job i', () => {
    const c = fresh({ nodes: [upload('a'), list('l', ['p', 'q']), gen('g'), adjust('x')], edges: [edge('a', 'g'), edge('l', 'g', 'prompt'), edge('g', 'x')] }, 'g');
    const p = stepsOf(c, 'node', ['x']);
    expect(p.steps.map((s) => s.inputs[0].source)).toEqual([{ image: 'https://r/g-0.png' }, { image: 'https://r/g-1.png' }]);
  });

  it('downstream: the node, everything after it, and their stale ancestors', () => {
    const c = fresh(chain(), 'g1');
    const p = stepsOf(c, 'downstream', ['a1']);
    expect(p.nodeIds).toEqual(['a1', 'g2']);
    expect(p.steps.map((s) => s.deps)).toEqual([[], [0]]);
    expect(stepsOf(chain(), 'downstream', ['g1']).nodeIds).toEqual(['g1', 'a1', 'g2']);
  });

  it('downstream of a fanned node: deps per item', () => {
    const c: CanvasLike = { nodes: [upload('a'), list('l', ['p', 'q']), gen('g'), adjust('x')], edges: [edge('a', 'g'), edge('l', 'g', 'prompt'), edge('g', 'x')] };
    const p = stepsOf(c, 'downstream', ['g']);
    expect(p.steps.map(brief)).toEqual(['g#0', 'g#1', 'x#0', 'x#1']);
    expect(p.steps.map((s) => s.deps)).toEqual([[], [], [0], [1]]);
  });

  it('selection: the runnable nodes among those named, after their stale ancestors', () => {
    const p = stepsOf(chain(), 'selection', ['a1', 'g3', 't']);
    expect(new Set(p.nodeIds)).toEqual(new Set(['g1', 'a1', 'g3']));
    expect(p.nodeIds.indexOf('g1')).toBeLessThan(p.nodeIds.indexOf('a1'));
    expect(plan(chain(), 'selection', ['t', 'a'])).toMatchObject({ ok: false, problem: { code: 'nothing_to_run', nodeIds: ['t', 'a'] } });
  });

  it('all: every runnable node, fresh ones too', () => {
    const p = stepsOf(fresh(chain(), 'g1', 'g3'), 'all');
    expect(new Set(p.nodeIds)).toEqual(new Set(['g1', 'a1', 'g2', 'g3']));
    expect(plan({ nodes: [upload('a'), text('t', 'x')], edges: [] }, 'all')).toMatchObject({ ok: false, problem: { code: 'nothing_to_run' } });
  });

  it('refuses a cycle, naming its nodes', () => {
    const c: CanvasLike = { nodes: [upload('a'), gen('x'), adjust('y'), adjust('after')], edges: [edge('a', 'x'), edge('x', 'y'), edge('y', 'x'), edge('y', 'after')] };
    expect(plan(c, 'node', ['after'])).toEqual({ ok: false, problem: { code: 'cycle', message: 'The graph has a cycle: "x" → "y" → "x"; a run needs none', nodeIds: ['x', 'y'] } });
    expect(plan(c, 'all')).toMatchObject({ ok: false, problem: { code: 'cycle' } });
  });

  it('refuses too many jobs, with the numbers', () => {
    const items = Array.from({ length: 120 }, (_, i) => `p${i}`);
    const c: CanvasLike = { nodes: [upload('a'), list('l', items), gen('g', { count: 2 })], edges: [edge('a', 'g'), edge('l', 'g', 'prompt')] };
    expect(plan(c, 'node', ['g'])).toEqual({
      ok: false,
      problem: { code: 'too_many_jobs', message: 'The run would make 240 jobs; at most 200 (RUN_MAX_JOBS)', nodeIds: ['g'], jobs: 240, max: 200 },
    });
    expect(plan(c, 'node', ['g'], 240).ok).toBe(true);
    // Over the per-node bound too: still the numbers.
    const many = Array.from({ length: 100 }, (_, i) => `p${i}`);
    const big: CanvasLike = { nodes: [upload('a'), list('l1', many), list('l2', many), gen('g')], edges: [edge('a', 'g'), edge('l1', 'g', 'prompt'), edge('l2', 'g', 'prompt')] };
    expect(plan(big, 'all')).toMatchObject({ ok: false, problem: { code: 'too_many_jobs', message: 'The run would make 10000 jobs; at most 200 (RUN_MAX_JOBS)' } });
  });

  it('refuses missing, unknown and non-runnable nodes, and blocked ones naming why', () => {
    expect(plan(chain(), 'node', [])).toMatchObject({ ok: false, problem: { code: 'missing_nodes' } });
    expect(plan(chain(), 'node', ['g1', 'g2'])).toMatchObject({ ok: false, problem: { code: 'missing_nodes' } });
    expect(plan(chain(), 'downstream')).toMatchObject({ ok: false, problem: { code: 'missing_nodes' } });
    expect(plan(chain(), 'selection', [])).toMatchObject({ ok: false, problem: { code: 'missing_nodes' } });
    expect(plan(chain(), 'node', ['nope'])).toEqual({ ok: false, problem: { code: 'node_not_found', message: 'No node "nope" in this canvas', nodeIds: ['nope'] } });
    expect(plan(chain(), 'selection', ['g1', 'nope'])).toMatchObject({ ok: false, problem: { code: 'node_not_found', nodeIds: ['nope'] } });
    expect(plan(chain(), 'node', ['t'])).toEqual({ ok: false, problem: { code: 'not_runnable', message: 'node "t" (text) does not run', nodeIds: ['t'] } });
    const c: CanvasLike = { nodes: [upload('empty', ''), gen('g'), adjust('x')], edges: [edge('empty', 'g'), edge('g', 'x')] };
    expect(plan(c, 'node', ['x'])).toEqual({
      ok: false,
      problem: { code: 'blocked', message: 'Node "g" (generation) waits for node "empty" (upload), which has no image', nodeIds: ['g', 'x'] },
    });
  });

  it('refuses an unfit edge into a node of the run, naming both nodes; one from a node no longer there connects nothing', () => {
    const c: CanvasLike = {
      nodes: [upload('a'), node('v', 'video', {}), gen('g'), gen('other')],
      edges: [edge('a', 'g'), edge('v', 'g'), edge('a', 'other'), edge('gone', 'g')],
    };
    expect(plan(c, 'node', ['g'])).toEqual({
      ok: false,
      problem: { code: 'unfit_edge', message: 'The edge "v-g" from node "v" into node "g" cannot be used: node "v" is of type "video", which no kind has', nodeIds: ['v', 'g'] },
    });
    // Not in the run: no matter.
    expect(stepsOf(c, 'node', ['other']).nodeIds).toEqual(['other']);
    // A dangling edge (its source deleted) connects nothing.
    expect(stepsOf({ nodes: c.nodes.filter((n) => (n as { id: string }).id !== 'v'), edges: c.edges }, 'node', ['g']).nodeIds).toEqual(['g']);
  });

  it('plans through a list fed by a runnable node: the list’s images are that node’s jobs', () => {
    const c: CanvasLike = {
      nodes: [upload('a'), gen('g', { count: 2 }), list('l', []), adjust('x')],
      edges: [edge('a', 'g'), edge('g', 'l'), edge('l', 'x', undefined, 'images')],
    };
    const p = stepsOf(c, 'node', ['x']);
    expect(p.steps.map(brief)).toEqual(['g#0', 'g#1', 'x#0', 'x#1']);
    expect(p.steps.map((s) => s.deps)).toEqual([[], [], [0], [1]]);
  });
});

describe('speed (printed, not asserted)', () => {
  it('keys a 50-node chain and a 500-node graph', () => {
    const chain50: CanvasLike = {
      nodes: [upload('u'), ...Array.from({ length: 50 }, (_, i) => adjust(`n${i}`, { brightness: 1 + (i % 3) / 10 }))],
      edges: Array.from({ length: 50 }, (_, i) => edge(i === 0 ? 'u' : `n${i - 1}`, `n${i}`)),
    };
    const nodes: unknown[] = [];
    const edges: unknown[] = [];
    for (let b = 0; b < 50; b++) {
      nodes.push(upload(`u${b}`), text(`t${b}`, `text ${b}`));
      for (let i = 0; i < 8; i++) {
        const id = `b${b}n${i}`;
        nodes.push(i % 2 === 0 ? gen(id) : adjust(id));
        edges.push(edge(i === 0 ? `u${b}` : `b${b}n${i - 1}`, id));
        if (i % 2 === 0) edges.push(edge(`t${b}`, id, 'prompt'));
      }
    }
    const big: CanvasLike = { nodes, edges };
    expect(big.nodes).toHaveLength(500);
    const time = (c: CanvasLike, runs: number) => {
      const start = performance.now();
      for (let i = 0; i < runs; i++) {
        const g = graphOf(c);
        keysOf(g);
        marksOf(g, keysOf(g));
      }
      return (performance.now() - start) / runs;
    };
    time(chain50, 20); // warm up
    time(big, 5);
    const list100: CanvasLike = {
      nodes: [upload('a'), list('l', Array.from({ length: 100 }, (_, i) => `prompt ${i}`)), gen('g')],
      edges: [edge('a', 'g'), edge('l', 'g', 'prompt')],
    };
    const results = { chain50: time(chain50, 50), graph500: time(big, 20), list100: time(list100, 50) };
    const g = graphOf(chain50);
    const start = performance.now();
    for (let i = 0; i < 50; i++) planRun(g, keysOf(g), { mode: 'all', maxJobs: 200 });
    const plan50 = (performance.now() - start) / 50;
    console.log(`graph.ts (graphOf + keysOf + marksOf), ms per canvas: 50-node chain ${results.chain50.toFixed(2)}, 500-node graph ${results.graph500.toFixed(2)}, list of 100 into a generation ${results.list100.toFixed(2)}; planRun all on the chain ${plan50.toFixed(3)}`);
  });
});
