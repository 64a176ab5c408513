// A generation job as the service shows it in its node's `data.job` (docs/api.md "Generation jobs"): written
// while the job is unfinished, deleted when it ends (then `data.image` or `data.error` says how). The document
// is anyone's to write, so a value that is not the service's shape is no job.

export interface DocumentJob {
  id: string;
  status: 'queued' | 'running';
  /** 1 = the next queued job to start; null unless queued. */
  queuePosition: number | null;
  queuedAt: string | null;
  startedAt: string | null;
}

const isoOrNull = (value: unknown): string | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : null);

/** The node's job, if `value` is one. */
export function documentJob(value: unknown): DocumentJob | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, status, queuePosition, queuedAt, startedAt } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !id || (status !== 'queued' && status !== 'running')) return undefined;
  return {
    id,
    status,
    queuePosition: typeof queuePosition === 'number' && Number.isInteger(queuePosition) && queuePosition > 0 ? queuePosition : null,
    queuedAt: isoOrNull(queuedAt),
    startedAt: isoOrNull(startedAt),
  };
}

/** An error the service wrote into the node (a string, or `{ error, details? }` as its HTTP errors are). */
export function documentError(value: unknown): { error: string; details?: string; status?: number } | undefined {
  if (typeof value === 'string' && value) return { error: value };
  if (typeof value !== 'object' || value === null) return undefined;
  const { error, details, status } = value as Record<string, unknown>;
  if (typeof error !== 'string' || !error) return undefined;
  return { error, ...(typeof details === 'string' && details ? { details } : {}), ...(typeof status === 'number' ? { status } : {}) };
}
