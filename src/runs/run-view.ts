// A run as the API shows it (docs/api.md "Runs": RunView, RunJob) and as its nodes show it (`data.run`): each step's
// status is its job's once the job exists (a job taken from the cache is `cached`), else the step's own (`waiting`,
// `skipped`, `canceled`). One place derives them, so the API, the events and the document always agree.
import type { RunStepState } from '../db/repositories/index.js';
import type { RunJobStatus, RunRow } from '../db/schema.js';
import type { Estimate } from './prices.js';
import type { NodeRun } from './run-state.js';

export interface RunJob {
  nodeId: string;
  instance: number;
  jobId: string;
  status: RunJobStatus;
  cached: boolean;
  key: string;
  seed: number | null;
  queuePosition: number | null;
  costUsd: number | null;
  reason: string | null;
  imageUrl: string | null;
}

export interface RunView {
  id: string;
  projectId: string;
  userId: string;
  mode: string;
  nodeIds: string[];
  status: RunRow['status'];
  createdAt: string;
  finishedAt: string | null;
  jobs: RunJob[];
  estimate: Estimate;
  costUsd: number;
}

/** What a step is now: from its job once there is one. */
export interface StepNow {
  status: RunJobStatus;
  reason: string | null;
  imageUrl: string | null;
  costUsd: number | null;
}

export const FINAL: ReadonlySet<RunJobStatus> = new Set(['cached', 'succeeded', 'failed', 'skipped', 'canceled']);
export const DONE_OK: ReadonlySet<RunJobStatus> = new Set(['cached', 'succeeded']);

/** A failed job's reason: its error and, when it has them, its details. */
const failure = (job: NonNullable<RunStepState['job']>) => (job.errorDetails ? `${job.error ?? 'Failed'} (${job.errorDetails})` : (job.error ?? 'Failed'));

export function stepNow(step: RunStepState): StepNow {
  const job = step.job;
  if (job) {
    if (job.cacheHit) return { status: 'cached', reason: null, imageUrl: job.outputUrl, costUsd: 0 };
    switch (job.status) {
      case 'queued':
      case 'running':
        return { status: job.status, reason: null, imageUrl: null, costUsd: null };
      case 'succeeded':
        return { status: 'succeeded', reason: null, imageUrl: job.outputUrl, costUsd: job.costUsd };
      case 'failed':
        return { status: 'failed', reason: failure(job), imageUrl: null, costUsd: job.costUsd };
      case 'canceled':
        return { status: 'canceled', reason: step.reason ?? 'Canceled', imageUrl: null, costUsd: null };
    }
  }
  return { status: step.status, reason: step.reason, imageUrl: step.imageUrl, costUsd: step.costUsd === null ? null : Number(step.costUsd) };
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

export function presentRun(run: RunRow, steps: readonly RunStepState[]): RunView {
  const jobs = steps.map((s): RunJob => {
    const now = stepNow(s);
    return {
      nodeId: s.nodeId,
      instance: s.instance,
      jobId: s.jobId,
      status: now.status,
      cached: now.status === 'cached',
      key: s.key,
      seed: s.seed,
      queuePosition: now.status === 'queued' ? (s.job?.queuePosition ?? null) : null,
      costUsd: now.costUsd,
      reason: now.reason,
      imageUrl: now.imageUrl,
    };
  });
  return {
    id: run.id,
    projectId: run.projectId,
    userId: run.userId,
    mode: run.mode,
    nodeIds: run.nodeIds,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    jobs,
    estimate: run.estimate as unknown as Estimate,
    costUsd: round6(jobs.reduce((sum, j) => sum + (j.costUsd ?? 0), 0)),
  };
}

/** How unfinished a status is: the node shows its least finished job's. */
const RANK: Record<RunJobStatus, number> = { waiting: 0, queued: 1, running: 2, failed: 3, canceled: 4, skipped: 5, succeeded: 6, cached: 7 };

/** A node's `data.run` from its steps (in instance order). */
export function nodeRunOf(runId: string, nows: readonly StepNow[], estimateUsd: number | null | undefined): NodeRun {
  const least = nows.reduce((a, b) => (RANK[b.status] < RANK[a.status] ? b : a));
  const done = nows.filter((n) => FINAL.has(n.status)).length;
  const reason = nows.find((n) => n.reason !== null && n.status === least.status)?.reason ?? undefined;
  const allDone = done === nows.length;
  const cost = nows.some((n) => n.status === 'succeeded' && n.costUsd === null) ? null : round6(nows.reduce((s, n) => s + (n.costUsd ?? 0), 0));
  return {
    runId,
    status: least.status,
    cached: nows.every((n) => n.status === 'cached'),
    done,
    total: nows.length,
    ...(reason ? { reason } : {}),
    ...(allDone ? { costUsd: cost } : {}),
    ...(estimateUsd !== undefined ? { estimateUsd } : {}),
  };
}
