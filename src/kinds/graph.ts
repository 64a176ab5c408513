// The canvas as a graph that runs (DESIGN.md §12 "Runs", "Cache", "Lists and counts"): its nodes and the edges
// that fit their ports, the jobs each runnable node makes (one per list item and per count, each with its seed),
// every job's cache key (SHA-256, chained like a Merkle tree: an input's part is the key of what feeds it), the
// stale marks every editor computes from the document alone, and the plan of a run (which jobs, in which order,
// after which others). Pure TypeScript, no I/O and no Node built-ins: the service (src/runs/) and the web client
// (stale marks, estimates) import the same functions, so both compute the same keys.
//
// CONTRACT (session 19): the types and signatures below are what src/runs/ and web/ code against. The bodies are
// filled in on branch h/graph.
import type { NodeKind, Port, PortValue } from './kind.js';

/** The `data` keys that are a run's state, written by the service (never part of a key; a copy leaves them behind). */
export const RUN_STATE_KEYS: readonly string[] = ['image', 'isGenerating', 'job', 'error', 'resultKey', 'results', 'run'];

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

const todo = (): never => {
  throw new Error('src/kinds/graph.ts: not implemented yet (branch h/graph)');
};

/** The canvas as a graph: nodes by id (later duplicates ignored), fitting edges by node, unfit ones with a reason. */
export function graphOf(canvas: CanvasLike): Graph {
  void canvas;
  return todo();
}

/** A cycle among the graph's fitting edges (node ids in order, the first repeated last), or null. */
export function findCycle(graph: Graph): readonly string[] | null {
  void graph;
  return todo();
}

/** Every node's jobs and keys (sources too: their key is what they feed), computed once per graph. */
export function keysOf(graph: Graph): ReadonlyMap<string, NodeKeys> {
  void graph;
  return todo();
}

/** Every node's mark (see NodeMark), from the document alone. */
export function marksOf(graph: Graph, keys: ReadonlyMap<string, NodeKeys>): ReadonlyMap<string, NodeMark> {
  void graph;
  void keys;
  return todo();
}

/** The plan of a run: the nodes the mode names, after the stale or never-run runnable nodes they depend on. */
export function planRun(graph: Graph, keys: ReadonlyMap<string, NodeKeys>, options: PlanOptions): Plan {
  void graph;
  void keys;
  void options;
  return todo();
}

/** SHA-256 hex of a value's canonical JSON (keys sorted): the one hash keys are made of. */
export function hashOf(value: unknown): string {
  void value;
  return todo();
}
