// The canvas save fast path (src/http/canvas-body.ts) must give the zod schema's verdict and value for every
// body: same acceptance, same output (unknown fields dropped, keys in order). Bodies are a realistic canvas
// (uploads, generations and text nodes feeding their prompt port) with one or more generated faults each, from a
// fixed seed: bad values, nodes turned into another kind, edges given other ports.
import { describe, expect, it } from 'vitest';
import { makeCanvas } from '../../bench/api.js';
import { createCanvasBodyCheck } from '../../src/http/canvas-body.js';
import { canvasSchemas } from '../../src/http/schemas.js';

const limits = { canvasNodes: 40, canvasEdges: 60, promptChars: 200 } as Parameters<typeof canvasSchemas>[0];
const { CanvasBody } = canvasSchemas(limits);
const check = createCanvasBodyCheck(limits);

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

type Json = Record<string, unknown>;
const BAD_VALUES: unknown[] = [
  undefined, null, 0, -1, 1.5, 2 ** 31, 2 ** 31 - 1, 2 ** 53, 'x', '', true, [], {}, [1], { a: 1 },
  'a\u0000b', 'lone \ud800 high', 'lone \udc00 low', 'pair \ud83d\ude00 ok', 'x'.repeat(201), 'x'.repeat(2049), 'p'.repeat(201), 'm'.repeat(100), 'm'.repeat(101),
  'upload', 'generation', 'text', 'video', '__proto__', 'constructor',
  // Port names (src/kinds/): right on one side or kind, wrong on another.
  'image', 'images', 'prompt', 'in', 'out',
  // The run fields (src/kinds/graph.ts): seeds, counts, keys, results and a list's items.
  8, 9, 'abc123', 'f'.repeat(64), 'f'.repeat(65), 'ABC',
  ['red', 'green'], ['https://img.example/r.png', '/files/b.png'], ['javascript:x'], ['x\u0000'], [`data:image/png;base64,${'A'.repeat(3000)}`], Array.from({ length: 501 }, () => 'i'),
];

/** Images around the rules: data: URLs of any length and case are taken (a save stores them), other URLs up to 2,048. */
const IMAGES: unknown[] = [
  `data:image/png;base64,${'A'.repeat(5000)}`,
  `DATA:image/png;base64,${'A'.repeat(3000)}`,
  `data:text/plain,${'x'.repeat(2100)}`,
  'data:',
  `https://img.example/${'x'.repeat(2029)}`,
  `https://img.example/${'x'.repeat(2028)}`,
  `xdata:${'x'.repeat(2100)}`,
  `data:image/png;base64,${'A'.repeat(2100)}\u0000`,
  // Schemes (src/collab/canvas-rules.ts): http(s), data: and paths only.
  'javascript:alert(1)',
  ' JavaScript:alert(1)',
  'java\nscript:alert(1)',
  'vbscript:x',
  'blob:https://x.example/1',
  '/files/a.png',
  '//cdn.example/a.png',
  'HTTPS://img.example/a.png',
];

function mutate(body: Json, rnd: () => number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  const value = () => structuredClone(pick(BAD_VALUES));
  const nodes = body.nodes as Json[];
  const edges = body.edges as Json[];
  const target = pick(['body', 'node', 'data', 'position', 'edge', 'dup', 'dangling', 'many', 'extra', 'missing', 'image', 'kind', 'port'] as const);
  const setOrDelete = (o: Json, keys: string[]) => {
    const key = pick(keys);
    if (typeof o !== 'object' || o === null) return `${key} (parent already replaced)`;
    const v = value();
    if (v === undefined) delete o[key];
    else o[key] = v;
    return key;
  };
  switch (target) {
    case 'body':
      return `body.${setOrDelete(body, ['id', 'projectId', 'nodes', 'edges', 'version', 'other'])}`;
    case 'node':
      return `node.${setOrDelete(pick(nodes), ['id', 'type', 'position', 'data', 'label'])}`;
    case 'data':
      return `data.${setOrDelete(pick(nodes).data as Json, ['type', 'image', 'prompt', 'isGenerating', 'model', 'text', 'label', 'seed', 'count', 'resultKey', 'results', 'items'])}`;
    case 'position':
      return `position.${setOrDelete(pick(nodes).position as Json, ['x', 'y', 'z'])}`;
    case 'edge':
      return `edge.${setOrDelete(pick(edges), ['id', 'source', 'target', 'sourceHandle', 'targetHandle', 'animated'])}`;
    case 'dup':
      if (!Array.isArray(nodes) || !nodes[1]) return 'duplicate (no nodes)';
      nodes[1].id = nodes[0].id;
      return 'duplicate node id';
    case 'dangling':
      pick(edges)[pick(['source', 'target'])] = 'no-such-node';
      return 'edge to an unknown node';
    case 'many':
      (pick([nodes, edges]) as unknown[]).push(...Array.from({ length: 61 }, () => structuredClone(nodes[0])));
      return 'too many items';
    case 'extra':
      Object.assign(pick(nodes), JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}'));
      return 'prototype-looking keys';
    case 'missing': {
      // Missing nodes and/or edges mean empty ones (edges to the missing nodes then dangle).
      const keys = pick([['nodes'], ['edges'], ['nodes', 'edges']]);
      for (const key of keys) delete body[key];
      return `missing ${keys.join(' and ')}`;
    }
    case 'kind': {
      // A node turned into another kind, keeping or changing its data's type: the data then fits the kind or not.
      const n = pick(nodes);
      if (typeof n !== 'object' || n === null || typeof n.data !== 'object' || n.data === null) return 'kind (parent already replaced)';
      n.type = pick(['upload', 'generation', 'text', 'list']);
      if (rnd() < 0.7) (n.data as Json).type = n.type;
      if (n.type === 'text' && rnd() < 0.7) (n.data as Json).text = pick(['', 'words', 'p'.repeat(201)]);
      if (n.type === 'list' && rnd() < 0.7) (n.data as Json).items = pick([[], ['a', 'b'], ['p'.repeat(201)]]);
      return `node kind ${String(n.type)}`;
    }
    case 'port': {
      const e = pick(edges);
      if (typeof e !== 'object' || e === null) return 'port (parent already replaced)';
      e[pick(['sourceHandle', 'targetHandle'])] = pick([null, 'image', 'images', 'prompt', 'text', 'in', '']);
      return 'edge port';
    }
    case 'image': {
      const data = pick(nodes)?.data as Json | undefined;
      if (typeof data !== 'object' || data === null) return 'image (parent already replaced)';
      data.image = pick(IMAGES);
      return 'data.image: a data: URL or a long URL';
    }
  }
}

function baseBody(seed: number): Json {
  const { nodes, edges } = makeCanvas('user-1', seed);
  const body: Json = { projectId: '6f1c2f4e-0000-4000-8000-000000000000', nodes: nodes.slice(0, 30), edges: [] };
  const ids = new Set((body.nodes as Json[]).map((n) => n.id));
  body.edges = edges.filter((e) => ids.has(e.source) && ids.has(e.target)).slice(0, 40);
  (body.edges as Json[]).forEach((e, i) => i % 3 === 0 && (e.sourceHandle = i % 2 ? null : 'image'));
  // Some text nodes feeding the generations' prompt port (src/kinds/text.ts).
  const withText = body.nodes as Json[];
  const generations = withText.filter((n) => n.type === 'generation');
  for (let i = 0; i < 4; i++) {
    const id = `text-${seed}-${i}`;
    withText.push({ id, type: 'text', position: { x: i, y: seed % 7 }, data: { type: 'text', text: i % 2 ? `words ${i}` : '' } });
    (body.edges as Json[]).push({ id: `te-${i}`, source: id, target: generations[i % generations.length].id, ...(i % 2 ? { sourceHandle: 'text' } : {}), targetHandle: 'prompt' });
  }
  // A list of prompts into a generation's prompt port, and the run fields a run writes (src/kinds/graph.ts).
  const listId = `list-${seed}`;
  withText.push({ id: listId, type: 'list', position: { x: 0, y: 0 }, data: { type: 'list', items: seed % 3 ? ['red', 'green'] : [] } });
  (body.edges as Json[]).push({ id: `le-${seed}`, source: listId, target: generations[0].id, targetHandle: 'prompt' });
  Object.assign(generations[0].data as Json, { seed: seed * 7919, count: 1 + (seed % 8), resultKey: 'ab'.repeat(32), results: ['https://img.example/r0.png', '/files/r1.png'] });
  if (seed % 2) body.version = seed % 5;
  if (seed % 3) body.id = `canvas-${seed}`;
  return body;
}

describe('canvas save fast path', () => {
  it('gives the zod verdict and value for valid and broken bodies (2,000 cases)', () => {
    const rnd = random(20261122);
    let accepted = 0;
    let refused = 0;
    const acceptedWith = { missing: 0, image: 0, kind: 0, port: 0, runData: 0 };
    for (let i = 0; i < 2000; i++) {
      const body = baseBody(i);
      const faults = i % 10 === 0 ? [] : Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => {
              try {
                return mutate(body, rnd);
              } catch {
                return 'a fault whose target an earlier fault replaced';
              }
            });
      // Parse from text, as a request body arrives (own `__proto__` keys and all).
      const input = JSON.parse(JSON.stringify(body)) as unknown;
      const expected = CanvasBody.safeParse(structuredClone(input));
      const got = check(input);
      const what = `case ${i}: ${faults.join(', ') || 'no fault'}`;
      expect(got !== undefined, what).toBe(expected.success);
      if (expected.success) {
        accepted++;
        expect(got, what).toStrictEqual(expected.data);
        expect(JSON.stringify(got), what).toBe(JSON.stringify(expected.data));
        if (faults.some((f) => f.startsWith('missing'))) acceptedWith.missing++;
        if (faults.some((f) => f.startsWith('data.image:'))) acceptedWith.image++;
        if (faults.some((f) => f.startsWith('node kind'))) acceptedWith.kind++;
        if (faults.some((f) => f === 'edge port')) acceptedWith.port++;
        if (faults.some((f) => /^data\.(seed|count|resultKey|results|items)$/.test(f))) acceptedWith.runData++;
      } else refused++;
    }
    // Both sides of the verdict are exercised.
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
    // Bodies without nodes or edges, and with data: URL images, are among the accepted ones.
    expect(acceptedWith.missing).toBeGreaterThan(10);
    expect(acceptedWith.image).toBeGreaterThan(10);
    // So are nodes changed to another kind, and edges whose ports changed (when the result still fits).
    expect(acceptedWith.kind).toBeGreaterThan(10);
    expect(acceptedWith.port).toBeGreaterThan(10);
    // And the run fields (a seed, a count, a result key, results, a list's items) changed to values that still fit.
    expect(acceptedWith.runData).toBeGreaterThan(10);
  });

  it('does not accept what is not an object', () => {
    for (const body of [null, [], 'x', 1, true]) expect(check(body)).toBeUndefined();
  });

  it('takes missing nodes and edges as empty ones, as the schema does', () => {
    const projectId = '6f1c2f4e-0000-4000-8000-000000000000';
    for (const body of [{ projectId }, { projectId, nodes: [] }, { projectId, edges: [] }, { projectId, version: 0 }, { id: 'c', projectId }]) {
      const expected = CanvasBody.safeParse(structuredClone(body));
      expect(expected.success).toBe(true);
      expect(check(body)).toStrictEqual(expected.data);
      expect(JSON.stringify(check(body))).toBe(JSON.stringify(expected.data));
      expect(check(body)).toMatchObject({ nodes: [], edges: [] });
    }
    // Only a missing value is empty: null and other non-arrays stay refused.
    for (const body of [{ projectId, nodes: null }, { projectId, edges: null }, { projectId, nodes: {} }]) {
      expect(check(body)).toBeUndefined();
      expect(CanvasBody.safeParse(body).success).toBe(false);
    }
  });
});
