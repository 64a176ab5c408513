// What the editor shows of graph runs (issue 35 points 1, 5 and 6), as pure functions: a node's run state as the
// service writes it into the live document (`data.run`, with `data.job` while its job is queued or running; only the
// service writes either, COMMON.md "Runs API"), the words of its badge ("Queued · 3rd", "Running · 40%", "Cached",
// "Done", "Failed: reason", "Skipped: reason"), prices as people read them, the estimate on a node's Run button (the
// node and the runnable nodes it depends on, from one estimate of the whole canvas), and a new seed for Run again.
import type { Estimate, RunJob, RunJobStatus, RunView } from '../api/run-types.js';
import { documentJob, ordinal, type DocumentJob } from './job.js';
import { findCycle, graphOf, keysOf, RUN_JOB_STATUSES, type NodeRunState } from '../../../src/kinds/graph.js';
import { kindOf } from './kinds.js';

/** A node's run state (`data.run`), as the runner writes it (src/kinds/graph.ts); anything else in the document is no run state. */
export type DocumentRun = NodeRunState;

const FINISHED: readonly RunJobStatus[] = ['cached', 'succeeded', 'failed', 'skipped', 'canceled'];
const REASON_MAX = 300;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isUsd = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function documentRun(value: unknown): DocumentRun | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { runId, status, cached, done, total, reason, costUsd, estimateUsd } = value as Record<string, unknown>;
  if (typeof runId !== 'string' || !runId || !RUN_JOB_STATUSES.includes(status as RunJobStatus)) return undefined;
  const line = typeof reason === 'string' ? reason.replace(/\s+/g, ' ').trim() : '';
  return {
    runId,
    status: status as RunJobStatus,
    cached: cached === true,
    done: isCount(done) ? done : 0,
    total: isCount(total) && total > 0 ? total : 1,
    ...(line ? { reason: line.length > REASON_MAX ? `${line.slice(0, REASON_MAX - 1)}…` : line } : {}),
    ...(costUsd === null || isUsd(costUsd) ? { costUsd } : {}),
    ...(estimateUsd === null || isUsd(estimateUsd) ? { estimateUsd } : {}),
  };
}

export const isFinished = (status: RunJobStatus): boolean => FINISHED.includes(status);

/** A price: "free", "<$0.01", "$0.04", "$1.20"; null: "price unknown" (a model with no published price). */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return 'price unknown';
  if (usd === 0) return 'free';
  if (usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

export type BadgeTone = 'waiting' | 'active' | 'done' | 'cached' | 'failed' | 'skipped' | 'canceled';

export interface RunBadge {
  tone: BadgeTone;
  text: string;
  /** The price shown beside it: the estimate while the run goes, what it cost once it is done. */
  price?: string;
}

/** The percentage of a running job's steps (its provider's report), if it says. */
function percentOf(job: DocumentJob | undefined): number | undefined {
  const step = job?.progress?.step;
  return step ? Math.round((100 * step.done) / step.total) : undefined;
}

/**
 * The node's badge from its `data.run` and `data.job` (its place in the queue, its progress): undefined when it has
 * been in no run (a job started by Generate, POST /api/generations, shows in the node's own job status).
 */
export function runBadge(data: Record<string, unknown>): RunBadge | undefined {
  const run = documentRun(data.run);
  if (!run) return undefined;
  // The job's own state (its place in the queue, its progress) only while the run says the node's job goes: a job
  // left in the document after the run moved on, or started since by Generate, is not the run's.
  const job = run.status === 'queued' || run.status === 'running' ? documentJob(data.job) : undefined;
  const of = run.total > 1 ? ` · ${run.done}/${run.total}` : '';
  const status: RunJobStatus = job?.status ?? run.status;
  const finished = isFinished(status);
  const price = finished ? (status === 'succeeded' || status === 'cached' ? formatUsd(run.cached ? 0 : run.costUsd) : undefined) : run.estimateUsd !== undefined ? `≈ ${formatUsd(run.estimateUsd)}` : undefined;
  const reason = run.reason ? `: ${run.reason}` : '';
  const badge = ((): Omit<RunBadge, 'price'> => {
    switch (status) {
      case 'waiting':
        return { tone: 'waiting', text: `Waiting for inputs${of}` };
      case 'queued':
        return { tone: 'waiting', text: `Queued${job?.queuePosition ? ` · ${ordinal(job.queuePosition)}` : ''}${of}` };
      case 'running': {
        const percent = percentOf(job);
        return { tone: 'active', text: `Running${percent !== undefined ? ` · ${percent}%` : ''}${of}` };
      }
      case 'cached':
        return { tone: 'cached', text: 'Cached' };
      case 'succeeded':
        return run.cached ? { tone: 'cached', text: 'Cached' } : { tone: 'done', text: 'Done' };
      case 'failed':
        return { tone: 'failed', text: `Failed${reason}` };
      case 'skipped':
        return { tone: 'skipped', text: `Skipped${reason}` };
      case 'canceled':
        return { tone: 'canceled', text: 'Canceled' };
    }
  })();
  return price ? { ...badge, price } : badge;
}

/** Whether nodes of this type run (their kind has a task): they get Run ▶. */
export const isRunnableType = (type: string | undefined): boolean => kindOf(type)?.task !== undefined;

interface EdgeLike {
  source: string;
  target: string;
}

/** Every node `nodeId` depends on (its inputs, theirs, …), not itself. */
export function ancestorsOf(nodeId: string, edges: readonly EdgeLike[]): Set<string> {
  const into = new Map<string, string[]>();
  for (const e of edges) (into.get(e.target) ?? into.set(e.target, []).get(e.target)!).push(e.source);
  const seen = new Set<string>();
  const stack = [...(into.get(nodeId) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || id === nodeId) continue;
    seen.add(id);
    stack.push(...(into.get(id) ?? []));
  }
  return seen;
}

/** Every node that depends on one of `ids` (not those themselves unless they depend on another). */
export function descendantsOf(ids: readonly string[], edges: readonly EdgeLike[]): Set<string> {
  const out = new Map<string, string[]>();
  for (const e of edges) (out.get(e.source) ?? out.set(e.source, []).get(e.source)!).push(e.target);
  const seen = new Set<string>();
  const stack = ids.flatMap((id) => out.get(id) ?? []);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(out.get(id) ?? []));
  }
  return seen;
}

/**
 * The runnable nodes an estimate can be asked for without a refusal: not those that cannot run now (src/kinds/graph.ts:
 * a problem such as an input with nothing connected) nor what depends on them; none on a canvas with a cycle.
 */
export function estimableIds(
  nodes: ReadonlyArray<{ id: string; type?: string; data: Record<string, unknown> }>,
  edges: ReadonlyArray<EdgeLike & { id: string; sourceHandle?: string | null; targetHandle?: string | null }>,
): string[] {
  const runnable = nodes.filter((n) => isRunnableType(n.type)).map((n) => n.id);
  if (runnable.length === 0) return [];
  try {
    const graph = graphOf({
      nodes: nodes.map((n) => ({ id: n.id, type: n.type, data: n.data })),
      edges: edges.map((e) => ({ id: e.id, source: e.source, target: e.target, sourceHandle: e.sourceHandle ?? null, targetHandle: e.targetHandle ?? null })),
    });
    if (findCycle(graph)) return [];
    const keys = keysOf(graph);
    const cannot = (id: string) => keys.get(id)?.key == null || keys.get(id)?.problem !== undefined;
    const out = new Set(runnable.filter(cannot));
    for (const id of descendantsOf([...out], edges)) out.add(id);
    return runnable.filter((id) => !out.has(id));
  } catch {
    return runnable; // the graph module cannot say (yet): ask for them all, and leave out what the service names
  }
}

/** What running some nodes would cost, from an estimate that covers them: the sum, whether all of it is cached, jobs unpriced. */
export interface PartEstimate {
  usd: number;
  cached: boolean;
  unpriced: boolean;
}

export function partOf(estimate: Estimate, ids: ReadonlySet<string>): PartEstimate | undefined {
  const nodes = estimate.nodes.filter((n) => ids.has(n.nodeId));
  if (nodes.length === 0) return undefined;
  return {
    usd: nodes.reduce((sum, n) => sum + (n.cached ? 0 : (n.costUsd ?? 0)), 0),
    cached: nodes.every((n) => n.cached),
    unpriced: nodes.some((n) => !n.cached && n.costUsd === null),
  };
}

/** The Run button's words: "Run", "Run · cached", "Run · free", "Run · $0.04", "Run · $0.04 + unpriced". */
export function runLabel(part: PartEstimate | undefined, verb = 'Run'): string {
  if (!part) return verb;
  if (part.cached) return `${verb} · cached`;
  if (part.unpriced) return part.usd > 0 ? `${verb} · ${formatUsd(part.usd)} + unpriced` : `${verb} · price unknown`;
  return `${verb} · ${formatUsd(part.usd)}`;
}

/** Node `nodeId`'s Run (mode `node`): the node and what it depends on (those already made are cached, costing nothing). */
export const nodeRunEstimate = (estimate: Estimate | undefined, nodeId: string, edges: readonly EdgeLike[]): PartEstimate | undefined =>
  estimate && partOf(estimate, new Set([nodeId, ...ancestorsOf(nodeId, edges)]));

/** The whole run's estimate as one part (Run all). */
export const totalEstimate = (estimate: Estimate | undefined): PartEstimate | undefined =>
  estimate && estimate.nodes.length > 0
    ? { usd: estimate.totalUsd, cached: estimate.nodes.every((n) => n.cached), unpriced: estimate.unpriced > 0 }
    : undefined;

/** A node's own price before it runs (its line in the estimate): "≈ $0.04", "cached". */
export function nodePriceBefore(estimate: Estimate | undefined, nodeId: string): string | undefined {
  const line = estimate?.nodes.find((n) => n.nodeId === nodeId);
  if (!line) return undefined;
  return line.cached ? 'cached' : `≈ ${formatUsd(line.costUsd)}`;
}

/** A new seed (Run again): a whole number in the kinds' range, 0 to 2³¹ − 1, never the one it had. */
export function newSeed(previous: unknown, random: () => number = Math.random): number {
  for (;;) {
    const seed = Math.floor(random() * 2 ** 31);
    if (seed !== previous) return seed;
  }
}

/** What decides the estimate: the nodes' data without what the service writes while runs go, and the edges. */
export function estimateSignature(nodes: ReadonlyArray<{ id: string; type?: string; data: Record<string, unknown> }>, edges: ReadonlyArray<EdgeLike & { sourceHandle?: string | null; targetHandle?: string | null }>): string {
  return JSON.stringify([nodes.map((n) => [n.id, n.type, dataSignature(n.data)]), edges.map((e) => [e.source, e.target, e.sourceHandle ?? null, e.targetHandle ?? null])]);
}

const VOLATILE = new Set(['job', 'run', 'isGenerating', 'error', 'number']);
/** Per data object (a node's data keeps its object while only its position changes): its part of the signature. */
const dataSignatures = new WeakMap<object, string>();
function dataSignature(data: Record<string, unknown>): string {
  let part = dataSignatures.get(data);
  if (part === undefined) {
    part = JSON.stringify(Object.entries(data).filter(([k]) => !VOLATILE.has(k)).sort(([a], [b]) => (a < b ? -1 : 1)));
    dataSignatures.set(data, part);
  }
  return part;
}

/** The run ids the document's nodes name (`data.run.runId`), and a signature of their states (what changes as a run goes). */
export function documentRuns(nodes: ReadonlyArray<{ id: string; data: Record<string, unknown> }>): { runIds: Set<string>; signature: string } {
  const runIds = new Set<string>();
  const parts: string[] = [];
  for (const n of nodes) {
    const run = documentRun(n.data.run);
    const job = documentJob(n.data.job);
    if (run) runIds.add(run.runId);
    if (run || job) parts.push(`${n.id}:${run?.runId}:${run?.status}:${run?.done}:${job?.status}:${job?.queuePosition}`);
  }
  return { runIds, signature: parts.join('|') };
}

/** A job's status in the run panel's words. */
export function jobStatusText(job: Pick<RunJob, 'status' | 'queuePosition' | 'reason'>): string {
  switch (job.status) {
    case 'waiting':
      return 'Waiting for inputs';
    case 'queued':
      return job.queuePosition ? `Queued · ${ordinal(job.queuePosition)}` : 'Queued';
    case 'running':
      return 'Running';
    case 'cached':
      return 'Cached';
    case 'succeeded':
      return 'Done';
    case 'failed':
      return `Failed${job.reason ? `: ${job.reason}` : ''}`;
    case 'skipped':
      return `Skipped${job.reason ? `: ${job.reason}` : ''}`;
    case 'canceled':
      return 'Canceled';
  }
}

/** A job's price in the run panel: cached, what it cost once done, its share of its node's estimate before. */
export function jobCostText(job: Pick<RunJob, 'nodeId' | 'status' | 'cached' | 'costUsd'>, estimate: Estimate): string {
  if (job.cached || job.status === 'cached') return 'cached';
  if (job.status === 'succeeded' || job.status === 'failed') return job.costUsd !== null ? formatUsd(job.costUsd) : job.status === 'succeeded' ? formatUsd(null) : '';
  if (isFinished(job.status)) return '';
  const line = estimate.nodes.find((n) => n.nodeId === job.nodeId);
  if (!line) return '';
  return line.cached ? 'cached' : `≈ ${formatUsd(line.costUsd === null ? null : line.costUsd / Math.max(1, line.jobs))}`;
}

/** A run's status and total in the panel's words: the estimate while it goes, what it cost once it ended. */
export function runSummary(run: RunView): { status: string; total: string } {
  const done = run.jobs.filter((j) => isFinished(j.status)).length;
  const status = run.status === 'running' ? `Running · ${done} of ${run.jobs.length} jobs done` : run.status === 'succeeded' ? 'Done' : run.status === 'failed' ? 'Failed' : 'Canceled';
  const estimate = totalEstimate(run.estimate);
  const total =
    run.status === 'running'
      ? `Estimate: ${estimate?.cached ? 'cached' : formatUsd(run.estimate.totalUsd)}${run.estimate.unpriced > 0 ? ` (+ ${run.estimate.unpriced} unpriced)` : ''}`
      : `Cost: ${formatUsd(run.costUsd)} (estimate ${estimate?.cached ? 'cached' : formatUsd(run.estimate.totalUsd)})`;
  return { status, total };
}
