// Stale marks (issue 35 point 2, DESIGN.md §12 "Cache"): every editor computes each node's mark from the live
// document alone — `marksOf(graphOf(canvas), keysOf(graph))` of src/kinds/graph.ts, the same keys the runner
// computes — so "Out of date" shows on a node whose inputs or settings changed since its result was made, and on
// everything downstream of it (their keys change with it), with no round trip. Also the seed and count of a node
// (their bounds, a new seed), and what a variant brings to its node when it is made current ("Use this": its key
// and seed), and the order a fanned node's variants show in. No React and no DOM: unit-tested in
// test/unit/web-marks.test.ts; hooks/use-graph-marks.ts feeds it the document and components/node-mark.tsx shows it.
import { COUNT_MAX, SEED_MAX } from '../../../src/kinds/generation.js';
import { graphOf, keysOf, marksOf, type CanvasLike, type NodeMark } from '../../../src/kinds/graph.js';

/** A node's mark as the editor shows it; `problem` says why a `blocked` node cannot run. */
export interface MarkInfo {
  readonly mark: NodeMark;
  readonly problem?: string;
}
export type Marks = ReadonlyMap<string, MarkInfo>;

/** What marks are computed from: per node its id, type and data, per edge its ends and ports. */
export interface GraphInput extends CanvasLike {
  readonly nodes: readonly GraphInputNode[];
  readonly edges: readonly GraphInputEdge[];
}
interface GraphInputNode {
  readonly id: string;
  readonly type: string | undefined;
  readonly data: Readonly<Record<string, unknown>>;
}
interface GraphInputEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly sourceHandle?: string | null;
  readonly targetHandle?: string | null;
}

/**
 * Data keys that change while a job runs (its state, progress, error) but never a key or a mark: left out, so a
 * progress tick does not recompute every mark. (`image`, `resultKey` and `results` stay: a mark reads them.)
 */
const VOLATILE_KEYS = new Set(['job', 'run', 'isGenerating', 'error']);

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));

function sameData(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
}

function steadyData(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!VOLATILE_KEYS.has(key) && value !== undefined) out[key] = value;
  return out;
}

/**
 * The canvas as marks need it, from the editor's nodes and edges (xyflow's, or the document's JSON): `previous`
 * itself when nothing a mark depends on changed (a node moved, selected or measured, a job's progress), so that a
 * caller memoising on it recomputes only when a mark may change.
 */
export function graphInputOf(
  nodes: readonly { id: string; type?: string; data: Readonly<Record<string, unknown>> }[],
  edges: readonly GraphInputEdge[],
  previous?: GraphInput,
): GraphInput {
  const before = new Map(previous?.nodes.map((n) => [n.id, n]));
  let same = previous !== undefined && previous.nodes.length === nodes.length && previous.edges.length === edges.length;
  const nextNodes = nodes.map((n, i) => {
    const data = steadyData(n.data);
    const prev = before.get(n.id);
    const node = prev && prev.type === n.type && sameData(prev.data, data) ? prev : { id: n.id, type: n.type, data };
    if (node !== previous?.nodes[i]) same = false;
    return node;
  });
  const nextEdges = edges.map((e, i) => {
    const edge: GraphInputEdge = { id: e.id, source: e.source, target: e.target, sourceHandle: e.sourceHandle ?? null, targetHandle: e.targetHandle ?? null };
    const prev = previous?.edges[i];
    const kept = prev && prev.id === edge.id && prev.source === edge.source && prev.target === edge.target && prev.sourceHandle === edge.sourceHandle && prev.targetHandle === edge.targetHandle;
    if (!kept) same = false;
    return kept ? prev : edge;
  });
  return same && previous ? previous : { nodes: nextNodes, edges: nextEdges };
}

/**
 * Every node's mark (and a blocked node's problem), reusing `previous`'s entry of each node whose mark did not change
 * (and `previous` itself when none did), so that a node's badge redraws only when its own mark changes.
 */
export function marksOfCanvas(canvas: CanvasLike, previous?: Marks): Marks {
  const graph = graphOf(canvas);
  const keys = keysOf(graph);
  const marks = marksOf(graph, keys);
  const out = new Map<string, MarkInfo>();
  let same = previous !== undefined && previous.size === marks.size;
  for (const [id, mark] of marks) {
    const problem = mark === 'blocked' ? keys.get(id)?.problem : undefined;
    const prev = previous?.get(id);
    const info = prev && prev.mark === mark && prev.problem === problem ? prev : problem !== undefined ? { mark, problem } : { mark };
    if (info !== prev) same = false;
    out.set(id, info);
  }
  return same && previous ? previous : out;
}

/** No marks (none computed yet, or none can be). */
export const NO_MARKS: Marks = new Map();

/** The marks an editor shows, read by node frames by id (hooks/use-graph-marks.ts `useNodeMark`). */
export class MarkStore {
  private marks: Marks = NO_MARKS;
  private readonly listeners = new Set<() => void>();

  get = (id: string): MarkInfo | undefined => this.marks.get(id);

  set(marks: Marks): void {
    if (marks === this.marks) return;
    this.marks = marks;
    for (const listener of this.listeners) listener();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/** How src/kinds/graph.ts names a node in a problem: `node "<id>" (<type>)`, the id as a JSON string. */
const NAMED_NODE = /node ("(?:[^"\\]|\\.)*")(?: \([a-z][a-z0-9-]*\))?/g;

const idOf = (quoted: string): string | undefined => {
  try {
    const id: unknown = JSON.parse(quoted);
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
};

/** The ids of the nodes a problem names, in order. */
export function nodesNamedIn(problem: string): string[] {
  return [...problem.matchAll(NAMED_NODE)].flatMap((m) => idOf(m[1]) ?? []);
}

/** A problem in people's words: each node it names by id called by its name on the canvas ("Generate 2"), when it has one. */
export function problemInWords(problem: string, nameOf: (id: string) => string | undefined): string {
  return problem.replace(NAMED_NODE, (whole, quoted: string) => {
    const id = idOf(quoted);
    return (id !== undefined && nameOf(id)) || whole;
  });
}

/** What a badge says for a mark: nothing for a fresh result or a source. */
export function markLabel(info: MarkInfo | undefined): { text: string; title: string } | null {
  switch (info?.mark) {
    case 'stale':
      return { text: 'Out of date', title: 'Its inputs or settings changed since its result was made — run it to update' };
    case 'never':
      return { text: 'Not run yet', title: 'It has no result yet — run it to make one' };
    case 'blocked':
      return { text: 'Can’t run', title: info.problem ?? 'It cannot run as it is' };
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Seeds and counts (src/kinds/graph.ts: a job's seed is `data.seed` plus its count index)

/** A seed's bounds (src/kinds/generation.ts: 0 … 2^31 − 1) and a count's (1 … 8). */
export { COUNT_MAX, SEED_MAX };
export const COUNT_MIN = 1;

/** A new seed, drawn at random (0 … SEED_MAX). */
export function randomSeed(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return word[0] % (SEED_MAX + 1);
}

const integerIn = (text: string, min: number, max: number): number | undefined => {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
};

/** A typed seed: a whole number 0 … SEED_MAX, else undefined (not a seed: kept in the box, marked invalid). */
export const parseSeed = (text: string): number | undefined => integerIn(text, 0, SEED_MAX);

/** A typed count: a whole number 1 … 8, else undefined. */
export const parseCount = (text: string): number | undefined => integerIn(text, COUNT_MIN, COUNT_MAX);

/** A node's count as stored: absent for 1 (the default, and the same key). */
export const storedCount = (count: number): number | undefined => (count === 1 ? undefined : count);

// ---------------------------------------------------------------------------------------------------------
// Variants

/** What the variants strip needs of a generation (GET /api/projects/{id}/generations' items). */
export interface VariantLike {
  readonly outputImageUrl: string;
  /** The job key it was made for (h/runs: `cacheKey`), absent on generations made before keys. */
  readonly cacheKey?: unknown;
  readonly seed?: unknown;
}

/**
 * What "Use this" writes besides the image and the prompt: the variant's key as the node's `resultKey` (so the node
 * is marked fresh when its settings and inputs are those the variant was made with; none known: removed, as a
 * result made before keys) and its seed (so running it again makes the same again), when it has them.
 */
export function variantFields(variant: VariantLike): { resultKey: string | undefined; seed?: number } {
  const seed = variant.seed;
  return {
    resultKey: typeof variant.cacheKey === 'string' && variant.cacheKey !== '' ? variant.cacheKey : undefined,
    ...(typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 && seed <= SEED_MAX ? { seed } : {}),
  };
}

/**
 * The variants in the order the strip shows them: a fanned node's results (`data.results`) first, in item order,
 * then the others as they came (newest first). `inResults` says whether the first ones are its results.
 */
export function orderVariants<V extends VariantLike>(items: readonly V[], results: unknown): { items: V[]; inResults: number } {
  if (!Array.isArray(results) || results.length === 0) return { items: [...items], inResults: 0 };
  const at = new Map<string, number>();
  results.forEach((url, i) => typeof url === 'string' && !at.has(url) && at.set(url, i));
  const ordered = items.filter((g) => at.has(g.outputImageUrl)).sort((a, b) => at.get(a.outputImageUrl)! - at.get(b.outputImageUrl)!);
  const seen = new Set<string>();
  const first = ordered.filter((g) => !seen.has(g.outputImageUrl) && seen.add(g.outputImageUrl));
  return { items: [...first, ...items.filter((g) => !first.includes(g))], inResults: first.length };
}
