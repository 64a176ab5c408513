// The shapes of graph runs over HTTP (COMMON.md "Runs API", docs/api.md "Runs"): what ./runs.ts sends and answers.
// No imports, so pure modules (canvas/runs.ts) and their unit tests can use them.
export type RunMode = 'node' | 'downstream' | 'selection' | 'all';
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'canceled';
export type RunJobStatus = 'waiting' | 'queued' | 'running' | 'cached' | 'succeeded' | 'failed' | 'skipped' | 'canceled';

export interface EstimateNode {
  nodeId: string;
  jobs: number;
  /** Every job of the node would come from the cache. */
  cached: boolean;
  /** Null: a model with no published price. */
  costUsd: number | null;
}

export interface Estimate {
  totalUsd: number;
  /** How many jobs have no published price (not in the total). */
  unpriced: number;
  nodes: EstimateNode[];
}

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
  mode: RunMode;
  nodeIds: string[];
  status: RunStatus;
  createdAt: string;
  finishedAt: string | null;
  jobs: RunJob[];
  estimate: Estimate;
  costUsd: number;
}
