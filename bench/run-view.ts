// The runs API's RunView (docs/api.md "Runs"), as far as the benchmarks read it: plain types, no imports, so the
// load client's process (./load-worker.ts) loads nothing else for it.

/** RunView as the runs API answers it (the fields measured here). */
export interface RunViewLike {
  id: string;
  status: 'running' | 'succeeded' | 'failed' | 'canceled';
  createdAt: string;
  finishedAt: string | null;
  jobs: Array<{ nodeId: string; instance: number; jobId: string; status: string; cached: boolean; reason: string | null }>;
}

export const runEnded = (status: string) => status === 'succeeded' || status === 'failed' || status === 'canceled';
