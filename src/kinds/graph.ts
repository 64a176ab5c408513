// The canvas as a graph that runs (DESIGN.md §12 "Runs", "Cache", "Lists and counts"): its nodes and the edges
// that fit their ports, the jobs each runnable node makes (one per list item and per count, each with its seed),
// every job's cache key (SHA-256, chained like a Merkle tree: an input's part is the key of what feeds it), the
// stale marks every editor computes from the document alone, and the plan of a run (which jobs, in which order,
// after which others). Pure TypeScript, no I/O and no Node built-ins: the service (src/runs/) and the web client
// (stale marks, estimates) import the same functions, so both compute the same keys.
//
// CONTRACT (session 19): the types and signatures below are what src/runs/ and web/ code against.
//
// How it is computed: graphOf reads the canvas once; an analysis (Tarjan's strongly connected components, one pass,
// no recursion) gives a topological order and the cycles; keysOf then walks that order once, so every node is keyed
// (and hashed) once, each from its inputs' keys. What every output gives (one value, or several: a list, or a node
// fanned out) is held per node and port while it walks.
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { edgeProblem, kindOf, portOf } from './index.js';
import type { NodeKind, Port, PortValue, SourceValue } from './kind.js';
import { noModelReason } from './model-roles.js';
import { RESULTS_MAX } from './steps-run-data.js';

/** The `data` keys that are a run's state, written by the service (never part of a key; a copy leaves them behind). */
export const RUN_STATE_KEYS: readonly string[] = ['image', 'isGenerating', 'job', 'error', 'resultKey', 'results', 'run'];

/**
 * The most jobs keysOf lists for one node: as many results as a node keeps (`data.results`, RESULTS_MAX). A node
 * fanned out over more (two long lists, a long list times a count) is not hashed job by job but blocked, saying how
 * many it would make; planRun refuses a run that holds it as `too_many_jobs`.
 */
export const NODE_JOBS_MAX = RESULTS_MAX;

/** The statuses of a run's job (docs/api.md "Runs"): `waiting` until its inputs are ready (or another job makes the same key), then its job's. */
export type RunJobStatus = 'waiting' | 'queued' | 'running' | 'cached' | 'succeeded' | 'failed' | 'skipped' | 'canceled';
export const RUN_JOB_STATUSES: readonly RunJobStatus[] = ['waiting', 'queued', 'running', 'cached', 'succeeded', 'failed', 'skipped', 'canceled'];

/** A node's `data.run`: its state in the run it was last part of, written by the service only (src/runs/run-state.ts) and shown by the editor. */
export interface NodeRunState {
  runId: string;
  /** The state of the node's jobs in that run (a fanned node: the least finished). */
  status: RunJobStatus;
  cached: boolean;
  done: number;
  total: number;
  reason?: string;
  costUsd?: number | null;
  estimateUsd?: number | null;
}

/** A canvas as the document or a REST body holds it (anything else in it is ignored). */
export interface CanvasLike {
  readonly nodes: readonly unknown[];
  readonly edges: readonly unknown[];
}

export interface GraphNode {
  readonly id: string;
  readonly type: string;
  /** Undefined for a type no kind has (such a node never runs and feeds nothing). */
  readonly kind: NodeKind | undefined;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface GraphEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** The ports the edge's handles name (absent handle: the kind's default port). */
  readonly from: Port;
  readonly to: Port;
}

/** An edge the engine ignores (DESIGN §12 "Ports"): its ports do not exist or do not fit; `message` names nodes and ports. */
export interface UnfitEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly message: string;
}

export interface Graph {
  /** In canvas order. */
  readonly nodes: ReadonlyMap<string, GraphNode>;
  /** Per target node: the fitting edges into it, in canvas order. */
  readonly incoming: ReadonlyMap<string, readonly GraphEdge[]>;
  /** Per source node: the fitting edges out of it, in canvas order. */
  readonly outgoing: ReadonlyMap<string, readonly GraphEdge[]>;
  readonly unfit: readonly UnfitEdge[];
}

/** Whether nodes of this kind run (have a task). */
export const isRunnable = (node: Pick<GraphNode, 'kind'>): boolean => node.kind?.task !== undefined;

/** What one input of a job is: the output of another job of the same plan, or a value the document already holds. */
export type JobInputSource =
  /** An upstream node's job `instance` (its result, once it is made or taken from the cache). */
  | { readonly nodeId: string; readonly instance: number }
  /** A text the document holds (a `text` node's text, a `list` item). */
  | { readonly text: string }
  /** An image the document holds (an upload's `data.image`, or a fresh upstream result: `data.results[i]` or `data.image`). */
  | { readonly image: string };

export interface JobInput {
  /** The input port of the node it reaches. */
  readonly port: string;
  readonly value: PortValue;
  readonly source: JobInputSource;
  /** Its part of the job's key: the key of the upstream job, the hash of the text, or the upload's content key. */
  readonly key: string;
}

/** One job a runnable node makes: one per combination of the list items that fan it out, times its count. */
export interface NodeJob {
  /** 0-based, in item order (then count order). */
  readonly instance: number;
  /** SHA-256 hex over kind, version, model, params, seed and the inputs' keys in port order. */
  readonly key: string;
  /** The node's `data.seed` plus the count index (null: the node has no seed: a kind with none, or not drawn yet). */
  readonly seed: number | null;
  /** Its inputs, port by port in the kind's port order, edges in canvas order within a port. */
  readonly inputs: readonly JobInput[];
}

export interface NodeKeys {
  /** The node's key: its one job's key, or the hash of its jobs' keys in order; null when it cannot run (`problem`). */
  readonly key: string | null;
  readonly jobs: readonly NodeJob[];
  /** Why it cannot be keyed or run now (an input with nothing connected, an upstream without an image, …), naming nodes. */
  readonly problem?: string;
  /** The node's model (`data.model`, null: the default) and the params that are in its key (its data without run state, seed, count). */
  readonly model: string | null;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A node's mark, as every editor shows it: `fresh` (its result is for its key), `stale` (it has a result, made for
 * another key: its inputs or settings changed since), `never` (it has no result yet), `blocked` (it cannot run:
 * `problem`), `source` (it does not run: an upload, a text, a list).
 */
export type NodeMark = 'fresh' | 'stale' | 'never' | 'blocked' | 'source';

export type RunMode = 'node' | 'downstream' | 'selection' | 'all';
export const RUN_MODES: readonly RunMode[] = ['node', 'downstream', 'selection', 'all'];

/** One job of a run's plan. */
export interface PlanStep extends NodeJob {
  readonly nodeId: string;
  /** The node's type, its task's kind (`generation`, `image-steps`, …) and model (null: the default). */
  readonly type: string;
  readonly taskKind: string;
  readonly model: string | null;
  /** The data the job runs with (its key's params), as the node had it when planned. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Indexes (into the plan's steps) of the steps this one takes an input from. */
  readonly deps: readonly number[];
}

export type PlanProblem =
  | { readonly code: 'cycle'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'node_not_found'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'not_runnable'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'missing_nodes'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'nothing_to_run'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'blocked'; readonly message: string; readonly nodeIds: readonly string[] }
  /** An edge into a node of the run whose ports do not exist or do not fit (the run would go without that input): both its nodes. */
  | { readonly code: 'unfit_edge'; readonly message: string; readonly nodeIds: readonly string[] }
  | { readonly code: 'too_many_jobs'; readonly message: string; readonly nodeIds: readonly string[]; readonly jobs: number; readonly max: number };

export type Plan =
  | {
      readonly ok: true;
      /** In topological order (a step's deps come before it); a node's steps in instance order. */
      readonly steps: readonly PlanStep[];
      /** The nodes planned, in topological order. */
      readonly nodeIds: readonly string[];
    }
  | { readonly ok: false; readonly problem: PlanProblem };

export interface PlanOptions {
  readonly mode: RunMode;
  /** The node (`node`, `downstream`: exactly one) or nodes (`selection`: at least one); ignored for `all`. */
  readonly nodeIds?: readonly string[];
  /** RUN_MAX_JOBS: a plan of more steps is refused (`too_many_jobs`, saying how many). */
  readonly maxJobs: number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const q = (s: string) => JSON.stringify(s);

// ---------------------------------------------------------------------------------------------------------
// Hashes

/** Canonical JSON: JSON.stringify's text with object keys sorted; undefined members left out (null in arrays), non-finite numbers null. */
function canonical(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonical(value[i]);
    return out + ']';
  }
  if (isRec(value)) {
    let out = '{';
    let first = true;
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out += (first ? '' : ',') + JSON.stringify(key) + ':' + canonical(v);
      first = false;
    }
    return out + '}';
  }
  return 'null';
}

/**
 * Hashes already made, by their text: the editor keys the whole canvas again on every change, when most nodes'
 * texts are the same as before. Emptied when its texts pass HASH_MEMO_CHARS in all (a few MB).
 */
const hashMemo = new Map<string, string>();
const HASH_MEMO_CHARS = 2_000_000;
let hashMemoChars = 0;

function sha256Hex(text: string): string {
  let hash = hashMemo.get(text);
  if (hash === undefined) {
    hash = bytesToHex(sha256(utf8ToBytes(text)));
    if (text.length > HASH_MEMO_CHARS / 100) return hash; // a data: URL, say: not worth the room
    if (hashMemoChars + text.length > HASH_MEMO_CHARS) {
      hashMemo.clear();
      hashMemoChars = 0;
    }
    hashMemo.set(text, hash);
    hashMemoChars += text.length;
  }
  return hash;
}

/** SHA-256 hex of a value's canonical JSON (keys sorted): the one hash keys are made of. */
export function hashOf(value: unknown): string {
  return sha256Hex(canonical(value));
}

// ---------------------------------------------------------------------------------------------------------
// The graph

const nodeName = (id: string, node: GraphNode | undefined) => `node ${q(id)}${node ? ` (${node.type})` : ''}`;

/** The canvas as a graph: nodes by id (later duplicates ignored), fitting edges by node, unfit ones with a reason. */
export function graphOf(canvas: CanvasLike): Graph {
  const nodes = new Map<string, GraphNode>();
  for (const n of canvas.nodes) {
    if (!isRec(n) || typeof n.id !== 'string' || nodes.has(n.id)) continue;
    const type = typeof n.type === 'string' ? n.type : '';
    nodes.set(n.id, { id: n.id, type, kind: kindOf(type), data: isRec(n.data) ? n.data : {} });
  }
  const incoming = new Map<string, GraphEdge[]>();
  const outgoing = new Map<string, GraphEdge[]>();
  const unfit: UnfitEdge[] = [];
  canvas.edges.forEach((e, i) => {
    if (!isRec(e) || typeof e.source !== 'string' || typeof e.target !== 'string') return;
    const { source, target } = e;
    const id = typeof e.id === 'string' ? e.id : `edge-${i}`;
    const from = nodes.get(source);
    const to = nodes.get(target);
    const refuse = (message: string) => unfit.push({ id, source, target, message });
    if (!from) return refuse(`node ${q(source)}, which an edge into ${nodeName(target, to)} comes from, is not in the canvas`);
    if (!to) return refuse(`node ${q(target)}, which an edge from ${nodeName(source, from)} goes to, is not in the canvas`);
    for (const end of [from, to]) if (!end.kind) return refuse(`node ${q(end.id)} is of type ${q(end.type)}, which no kind has`);
    const handles = { source, target, sourceHandle: handle(e.sourceHandle), targetHandle: handle(e.targetHandle) };
    const problem = edgeProblem(handles, from.kind!, to.kind!);
    if (problem) return refuse(problem.message);
    const edge: GraphEdge = { id, source, target, from: portOf(from.kind!.outputs, handles.sourceHandle)!, to: portOf(to.kind!.inputs, handles.targetHandle)! };
    push(incoming, target, edge);
    push(outgoing, source, edge);
  });
  return { nodes, incoming, outgoing, unfit };
}

/** A handle as edgeProblem reads it: a name, or absent (null, undefined or anything not a string: the default port). */
const handle = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function push<T>(map: Map<string, T[]>, key: string, value: T) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const NO_EDGES: readonly GraphEdge[] = [];

interface Analysis {
  /** Every node, upstream before downstream (the nodes of one cycle together). */
  readonly order: readonly string[];
  /** A node on a cycle → the nodes of its cycle (its strongly connected component), in canvas order. */
  readonly cycleOf: ReadonlyMap<string, readonly string[]>;
}
const analyses = new WeakMap<Graph, Analysis>();

/** Tarjan's strongly connected components, without recursion: a topological order and the cycles, once per graph. */
function analyse(graph: Graph): Analysis {
  const made = analyses.get(graph);
  if (made) return made;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const enter = (id: string) => {
    index.set(id, next);
    low.set(id, next++);
    stack.push(id);
    onStack.add(id);
  };
  for (const start of graph.nodes.keys()) {
    if (index.has(start)) continue;
    enter(start);
    const work: [string, number][] = [[start, 0]];
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const out = graph.outgoing.get(v) ?? NO_EDGES;
      if (i < out.length) {
        top[1] = i + 1;
        const w = out[i].target;
        if (!index.has(w)) {
          enter(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
    }
  }
  // Tarjan finishes a component after every component it reaches: reversed, upstream comes first.
  const order: string[] = [];
  const cycleOf = new Map<string, readonly string[]>();
  const position = new Map<string, number>();
  let p = 0;
  for (const id of graph.nodes.keys()) position.set(id, p++);
  for (let c = components.length - 1; c >= 0; c--) {
    const component = components[c].sort((a, b) => position.get(a)! - position.get(b)!);
    order.push(...component);
    const only = component[0];
    if (component.length > 1 || (graph.outgoing.get(only) ?? NO_EDGES).some((e) => e.target === only)) {
      for (const id of component) cycleOf.set(id, component);
    }
  }
  const analysis = { order, cycleOf };
  analyses.set(graph, analysis);
  return analysis;
}

/** A cycle through `from` among `members` (node ids in order, the first repeated last). */
function cycleThrough(graph: Graph, from: string, members: readonly string[]): string[] {
  const inside = new Set(members);
  const parent = new Map<string, string>();
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const e of graph.outgoing.get(v) ?? NO_EDGES) {
      if (!inside.has(e.target)) continue;
      if (e.target === from) {
        const path = [from];
        for (let u: string | undefined = v; u !== undefined && u !== from; u = parent.get(u)) path.push(u);
        return [from, ...path.slice(1).reverse(), from];
      }
      if (!parent.has(e.target)) {
        parent.set(e.target, v);
        queue.push(e.target);
      }
    }
  }
  return [from, from]; // not reached: every member of a component lies on a cycle through any other
}

const pathText = (path: readonly string[]) => path.map(q).join(' → ');

/** A cycle among the graph's fitting edges (node ids in order, the first repeated last), or null. */
export function findCycle(graph: Graph): readonly string[] | null {
  const { order, cycleOf } = analyse(graph);
  for (const id of order) {
    const members = cycleOf.get(id);
    if (members) return cycleThrough(graph, members[0], members);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Keys

/** Why a node cannot run, as the nodes it feeds name it: who (`node "u" (upload)`) and what (`has no image`). */
interface Cause {
  readonly who: string;
  readonly what: string;
}

/** One value an output gives: its key, and where a job takes it from. */
interface Item {
  readonly key: string;
  readonly source: JobInputSource;
}

/** What one output port of a node gives: its items (several: it fans out what it feeds), or why it gives none. */
type Given =
  | { readonly ok: true; readonly items: readonly Item[]; readonly fanned: boolean }
  | { readonly ok: false; readonly cause: Cause; readonly direct: boolean; readonly jobs: number };

interface KeyState {
  readonly keys: ReadonlyMap<string, NodeKeys>;
  /** Per node: how many jobs it would make (also for a node over NODE_JOBS_MAX, which has none listed). */
  readonly jobCounts: ReadonlyMap<string, number>;
}
const keyStates = new WeakMap<ReadonlyMap<string, NodeKeys>, KeyState>();
const keysByGraph = new WeakMap<Graph, ReadonlyMap<string, NodeKeys>>();

/** The keys of a kind's declared data fields (what a REST save keeps), minus run state, seed, count and model. */
const paramKeysByKind = new Map<NodeKind, readonly string[]>();
const NOT_PARAMS = new Set([...RUN_STATE_KEYS, 'type', 'seed', 'count', 'model']);
function paramKeysOf(kind: NodeKind): readonly string[] {
  let keys = paramKeysByKind.get(kind);
  if (!keys) paramKeysByKind.set(kind, (keys = Object.keys(kind.data({ promptChars: 1 })).filter((k) => !NOT_PARAMS.has(k))));
  return keys;
}

const SEED_SPACE = 2 ** 31;
const isSeed = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < SEED_SPACE;
const countOf = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 8 ? v : 1);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * Every node's jobs and keys (sources too: their key is what they feed), computed once per graph: each node once,
 * upstream first, each job's key hashed once.
 */
export function keysOf(graph: Graph): ReadonlyMap<string, NodeKeys> {
  const made = keysByGraph.get(graph);
  if (made) return made;
  const { order, cycleOf } = analyse(graph);
  const keys = new Map<string, NodeKeys>();
  const jobCounts = new Map<string, number>();
  /** Per node and output port: what it gives. */
  const given = new Map<string, Map<string, Given>>();
  const giveAll = (id: string, ports: readonly Port[], g: Given) => given.set(id, new Map(ports.map((p) => [p.name, g])));

  for (const id of order) {
    const node = graph.nodes.get(id)!;
    const kind = node.kind;
    const who = nodeName(id, node);
    const blocked = (cause: Cause, direct: boolean, problem: string, jobs = 0): void => {
      keys.set(id, { key: null, jobs: [], problem, model: null, params: {} });
      jobCounts.set(id, jobs);
      if (kind) giveAll(id, kind.outputs, { ok: false, cause, direct, jobs });
    };
    const members = cycleOf.get(id);
    if (members) {
      const what = `is on a cycle (${members.length === 1 ? 'it feeds itself' : `nodes ${members.map(q).join(', ')}`})`;
      blocked({ who, what }, true, `${who} ${what}`);
      continue;
    }
    if (!kind) {
      keys.set(id, { key: null, jobs: [], problem: `${who} is of a type no kind has`, model: null, params: {} });
      continue;
    }
    // What reaches each input port: edges in canvas order (a port that takes one value: the first edge only).
    const inputs: { port: Port; edge: GraphEdge; given: Given }[] = [];
    const into = graph.incoming.get(id) ?? NO_EDGES;
    for (const port of kind.inputs) {
      let taken = 0;
      for (const edge of into) {
        if (edge.to.name !== port.name || (!port.list && taken > 0)) continue;
        taken++;
        inputs.push({ port, edge, given: given.get(edge.source)?.get(edge.from.name) ?? { ok: false, cause: { who: nodeName(edge.source, graph.nodes.get(edge.source)), what: 'gives nothing' }, direct: true, jobs: 0 } });
      }
    }
    const waiting = inputs.find((i) => !i.given.ok);
    const waitProblem = (): string | null => {
      if (!waiting || waiting.given.ok) return null;
      const { cause, direct } = waiting.given;
      const upstream = nodeName(waiting.edge.source, graph.nodes.get(waiting.edge.source));
      return direct ? `${who} waits for ${cause.who}, which ${cause.what}` : `${who} waits for ${upstream}, which waits for ${cause.who}, which ${cause.what}`;
    };

    if (!kind.task) {
      // A source: what each output gives, from its data (or passed on from an input).
      if (!kind.gives) {
        keys.set(id, { key: null, jobs: [], model: null, params: {} });
        continue;
      }
      const problem = waitProblem();
      if (problem && waiting && !waiting.given.ok) {
        blocked(waiting.given.cause, false, problem);
        continue;
      }
      const gives = kind.gives(node.data);
      const outputs = new Map<string, Given>();
      const parts: unknown[] = [];
      for (const port of kind.outputs) {
        const g = gives[port.name];
        let items: Item[] = [];
        if (Array.isArray(g)) {
          items = (g as readonly SourceValue[]).map((value) => ({ key: 'text' in value ? hashOf(['text', value.text]) : hashOf(['image', value.image]), source: value }));
        } else if (g && 'from' in g) {
          for (const i of inputs) if (i.port.name === g.from && i.given.ok) items.push(...i.given.items);
        }
        parts.push([port.name, items.map((i) => i.key)]);
        outputs.set(port.name, items.length > 0 ? { ok: true, items, fanned: port.list || items.length > 1 } : { ok: false, cause: { who, what: `has no ${port.name}` }, direct: true, jobs: 0 });
      }
      given.set(id, outputs);
      const empty = kind.outputs.length > 0 && [...outputs.values()].every((g) => !g.ok);
      const one = outputs.size === 1 ? [...outputs.values()][0] : undefined;
      const key = one?.ok && one.items.length === 1 ? one.items[0].key : hashOf(['source', node.type, parts]);
      keys.set(id, { key: empty ? null : key, jobs: [], ...(empty ? { problem: `${who} has no ${kind.outputs.map((p) => p.name).join(' and no ')}` } : {}), model: null, params: {} });
      continue;
    }

    // A runnable node.
    const model = str(node.data.model) ?? kind.task?.models?.default ?? null;
    const params: Rec = {};
    for (const k of paramKeysOf(kind)) if (node.data[k] !== undefined) params[k] = node.data[k];
    // The default input, and whatever else the node's data needs (an inpainting edit's mask), must be connected.
    const required = [kind.inputs.find((p) => p.default), ...(kind.requires?.(node.data) ?? []).map((name) => kind.inputs.find((p) => p.name === name))].find(
      (port) => port !== undefined && !inputs.some((i) => i.port === port),
    );
    if (required) {
      const what = `has no input ${required.value} (connect a node with ${required.value === 'image' ? 'an image' : `a ${required.value}`} to its ${required.name} input)`;
      blocked({ who, what }, true, `${who} ${what}`);
      keys.set(id, { ...keys.get(id)!, model, params });
      continue;
    }
    // A kind that runs a model of a role other than `generate` (whose default is the deployment's), with none chosen
    // and no default for its role (remove-background): nothing to run.
    const roleOfModel = kind.task.models?.role;
    if (model === null && roleOfModel && roleOfModel !== 'generate') {
      const what = `has no model: ${noModelReason(roleOfModel)}`;
      blocked({ who, what }, true, `${who} ${what}`);
      keys.set(id, { ...keys.get(id)!, model, params });
      continue;
    }
    const problem = waitProblem();
    if (problem && waiting && !waiting.given.ok) {
      blocked(waiting.given.cause, false, problem);
      keys.set(id, { ...keys.get(id)!, model, params });
      continue;
    }
    const ready = inputs as { port: Port; edge: GraphEdge; given: Extract<Given, { ok: true }> }[];
    const fanned = ready.filter((i) => i.given.fanned);
    const count = kind.seeded ? countOf(node.data.count) : 1;
    let combos = 1;
    for (const f of fanned) combos *= f.given.items.length;
    const total = combos * count;
    if (total > NODE_JOBS_MAX) {
      const what = `would make ${total} jobs; at most ${NODE_JOBS_MAX} for one node`;
      blocked({ who, what }, true, `${who} ${what}`, total);
      keys.set(id, { ...keys.get(id)!, model, params });
      continue;
    }
    const seed = kind.seeded && isSeed(node.data.seed) ? node.data.seed : null;
    // The key's text, as canonical(['job', type, version, model, params, seed, inputs]) would make it, its common head once.
    const head = `["job",${canonical(kind.type)},${canonical(kind.version)},${canonical(model)},${canonical(params)},`;
    const jobs: NodeJob[] = [];
    const pick = new Array<number>(ready.length).fill(0);
    for (let combo = 0; combo < combos; combo++) {
      // Mixed radix, the first fanned input outermost.
      let rest = combo;
      for (let f = fanned.length - 1; f >= 0; f--) {
        const n = fanned[f].given.items.length;
        pick[ready.indexOf(fanned[f])] = rest % n;
        rest = Math.floor(rest / n);
      }
      const jobInputs: JobInput[] = ready.map((i, r) => {
        const item = i.given.items[i.given.fanned ? pick[r] : 0];
        return { port: i.port.name, value: i.port.value, source: item.source, key: item.key };
      });
      const inputsText = canonical(jobInputs.map((i) => [i.port, i.key]));
      for (let c = 0; c < count; c++) {
        const jobSeed = seed === null ? null : (seed + c) % SEED_SPACE;
        jobs.push({ instance: jobs.length, key: sha256Hex(`${head}${canonical(jobSeed)},${inputsText}]`), seed: jobSeed, inputs: jobInputs });
      }
    }
    const key = jobs.length === 1 ? jobs[0].key : hashOf(['jobs', jobs.map((j) => j.key)]);
    keys.set(id, { key, jobs, model, params });
    jobCounts.set(id, jobs.length);
    const items = jobs.map((j) => ({ key: j.key, source: { nodeId: id, instance: j.instance } }));
    giveAll(id, kind.outputs, { ok: true, items, fanned: jobs.length > 1 });
  }
  keysByGraph.set(graph, keys);
  keyStates.set(keys, { keys, jobCounts });
  return keys;
}

// ---------------------------------------------------------------------------------------------------------
// Marks

/** Every node's mark (see NodeMark), from the document alone. */
export function marksOf(graph: Graph, keys: ReadonlyMap<string, NodeKeys>): ReadonlyMap<string, NodeMark> {
  const marks = new Map<string, NodeMark>();
  for (const [id, node] of graph.nodes) marks.set(id, markOf(node, keys.get(id)));
  return marks;
}

function markOf(node: GraphNode, keys: NodeKeys | undefined): NodeMark {
  if (!isRunnable(node)) return 'source';
  if (!keys || keys.problem !== undefined || keys.key === null) return 'blocked';
  if (str(node.data.image) === null) return 'never';
  const resultKey = node.data.resultKey;
  if (typeof resultKey !== 'string') return 'fresh'; // a result from before keys: taken as it is
  return resultKey === keys.key ? 'fresh' : 'stale';
}

// ---------------------------------------------------------------------------------------------------------
// Plans

const idList = (ids: readonly string[]) => {
  const shown = ids.slice(0, 5).map(q).join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
};

/** The plan of a run: the nodes the mode names, after the stale or never-run runnable nodes they depend on. */
export function planRun(graph: Graph, keys: ReadonlyMap<string, NodeKeys>, options: PlanOptions): Plan {
  const refuse = (problem: PlanProblem): Plan => ({ ok: false, problem });
  const { mode, maxJobs } = options;
  const ids = [...new Set(options.nodeIds ?? [])];
  if ((mode === 'node' || mode === 'downstream') && ids.length !== 1) {
    return refuse({ code: 'missing_nodes', message: `A run of mode ${q(mode)} names exactly one node in nodeIds (it names ${ids.length})`, nodeIds: ids });
  }
  if (mode === 'selection' && ids.length === 0) return refuse({ code: 'missing_nodes', message: 'A run of mode "selection" names at least one node in nodeIds', nodeIds: [] });
  if (mode !== 'all') {
    const missing = ids.filter((id) => !graph.nodes.has(id));
    if (missing.length > 0) return refuse({ code: 'node_not_found', message: `No node ${idList(missing)} in this canvas`, nodeIds: missing });
  }
  if (mode === 'node' || mode === 'downstream') {
    const node = graph.nodes.get(ids[0])!;
    if (!isRunnable(node)) return refuse({ code: 'not_runnable', message: `${nodeName(node.id, node)} does not run`, nodeIds: [node.id] });
  }
  const marks = marksOf(graph, keys);
  const runnable = (id: string) => isRunnable(graph.nodes.get(id)!);

  // The nodes the mode names.
  let targets: string[];
  if (mode === 'all') targets = [...graph.nodes.keys()].filter(runnable);
  else if (mode === 'selection') targets = ids.filter(runnable);
  else if (mode === 'node') targets = ids;
  else {
    const seen = new Set<string>(ids);
    const queue = [...ids];
    for (let i = 0; i < queue.length; i++) {
      for (const e of graph.outgoing.get(queue[i]) ?? NO_EDGES) {
        if (!seen.has(e.target)) {
          seen.add(e.target);
          queue.push(e.target);
        }
      }
    }
    targets = queue.filter(runnable);
  }
  if (targets.length === 0) {
    return refuse({
      code: 'nothing_to_run',
      message: mode === 'all' ? 'The canvas has no node that runs' : `None of the nodes ${idList(ids)} runs`,
      nodeIds: ids,
    });
  }

  // Then what they depend on that is not fresh, upstream through sources (a list) and through planned nodes.
  const planned = new Set<string>(targets);
  const involved = new Set<string>(targets);
  const queue = [...targets];
  for (let i = 0; i < queue.length; i++) {
    for (const e of graph.incoming.get(queue[i]) ?? NO_EDGES) {
      const up = e.source;
      if (involved.has(up)) continue;
      const mark = marks.get(up);
      if (mark === 'fresh') continue;
      involved.add(up);
      if (mark !== 'source') planned.add(up);
      queue.push(up);
    }
  }

  const { order, cycleOf } = analyse(graph);
  for (const id of order) {
    const members = involved.has(id) ? cycleOf.get(id) : undefined;
    if (members) {
      return refuse({ code: 'cycle', message: `The graph has a cycle: ${pathText(cycleThrough(graph, members[0], members))}; a run needs none`, nodeIds: members });
    }
  }
  // An edge into the run that the engine would ignore (a node of a kind this version does not know, ports that do
  // not fit) is refused rather than run without it; one from a node no longer in the canvas connects nothing.
  const unfit = graph.unfit.find((e) => involved.has(e.target) && graph.nodes.has(e.source));
  if (unfit) {
    return refuse({ code: 'unfit_edge', message: `The edge ${q(unfit.id)} from node ${q(unfit.source)} into node ${q(unfit.target)} cannot be used: ${unfit.message}`, nodeIds: [unfit.source, unfit.target] });
  }
  const nodeIds = order.filter((id) => planned.has(id));
  const state = keyStates.get(keys);
  const jobs = nodeIds.reduce((sum, id) => sum + (state?.jobCounts.get(id) ?? keys.get(id)?.jobs.length ?? 0), 0);
  if (jobs > maxJobs) {
    return refuse({ code: 'too_many_jobs', message: `The run would make ${jobs} jobs; at most ${maxJobs} (RUN_MAX_JOBS)`, nodeIds, jobs, max: maxJobs });
  }
  const blocked = nodeIds.filter((id) => keys.get(id)?.problem !== undefined || keys.get(id)?.key == null);
  if (blocked.length > 0) {
    const first = keys.get(blocked[0])?.problem ?? `${nodeName(blocked[0], graph.nodes.get(blocked[0]))} cannot run`;
    return refuse({ code: 'blocked', message: `${first[0].toUpperCase()}${first.slice(1)}`, nodeIds: blocked });
  }

  // The steps, upstream first; an input from a node not planned is its current result.
  const steps: PlanStep[] = [];
  const firstStep = new Map<string, number>();
  for (const id of nodeIds) {
    const node = graph.nodes.get(id)!;
    const k = keys.get(id)!;
    firstStep.set(id, steps.length);
    for (const job of k.jobs) {
      const deps = new Set<number>();
      const inputs = job.inputs.map((input): JobInput => {
        const source = input.source;
        if (!('nodeId' in source)) return input;
        const first = firstStep.get(source.nodeId);
        if (first !== undefined) {
          deps.add(first + source.instance);
          return input;
        }
        const data = graph.nodes.get(source.nodeId)?.data ?? {};
        const results = Array.isArray(data.results) ? data.results : [];
        const image = str(results[source.instance]) ?? str(data.image) ?? '';
        return { ...input, source: { image } };
      });
      steps.push({
        ...job,
        inputs,
        nodeId: id,
        type: node.type,
        taskKind: node.kind!.task!.kind,
        model: k.model,
        params: k.params,
        deps: [...deps].sort((a, b) => a - b),
      });
    }
  }
  return { ok: true, steps, nodeIds };
}
