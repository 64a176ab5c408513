// A generation job as the service shows it in its node's `data.job` (docs/api.md "Generation jobs"): written
// while the job is unfinished, deleted when it ends (then `data.image` or `data.error` says how). The document
// is anyone's to write, so a value that is not the service's shape is no job. While it runs, `progress` is what
// its model's provider last said (at most once a second): its own queue position, steps done of a total, a log
// line; a field that is not the service's shape is left out.

export interface DocumentJob {
  id: string;
  status: 'queued' | 'running';
  /** 1 = the next queued job to start; null unless queued. */
  queuePosition: number | null;
  queuedAt: string | null;
  startedAt: string | null;
  /** Only while running, and only with at least one well-formed field. */
  progress?: JobProgress;
}

/** What the model's provider last reported of a running job (docs/api.md "Progress in the canvas"). */
export interface JobProgress {
  /** 1 = next in the provider's own queue. */
  queuePosition?: number;
  step?: { done: number; total: number };
  /** The provider's latest log line. */
  message?: string;
  /** The model's latest preview of the image (OpenAI's partial images): a small `data:image/webp` URL. */
  preview?: string;
}

/** Longest preview kept (a 256-pixel WebP is a few kilobytes; anything far larger is not the service's). */
const PREVIEW_MAX = 200_000;

/** Longest log line kept (the service shortens its own; anyone else's could be a page). */
const MESSAGE_MAX = 500;

const isoOrNull = (value: unknown): string | null => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : null);

/** The node's job, if `value` is one. */
export function documentJob(value: unknown): DocumentJob | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, status, queuePosition, queuedAt, startedAt, progress } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !id || (status !== 'queued' && status !== 'running')) return undefined;
  const shownProgress = status === 'running' ? documentProgress(progress) : undefined;
  return {
    id,
    status,
    queuePosition: isPosition(queuePosition) ? queuePosition : null,
    queuedAt: isoOrNull(queuedAt),
    startedAt: isoOrNull(startedAt),
    ...(shownProgress ? { progress: shownProgress } : {}),
  };
}

const isPosition = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** A job's `progress`, keeping only its well-formed fields; undefined when none is. */
export function documentProgress(value: unknown): JobProgress | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { queuePosition, step, message, preview } = value as Record<string, unknown>;
  const progress: JobProgress = {};
  if (isPosition(queuePosition)) progress.queuePosition = queuePosition;
  if (typeof step === 'object' && step !== null && !Array.isArray(step)) {
    const { done, total } = step as Record<string, unknown>;
    if (isCount(done) && isCount(total) && total > 0 && done <= total) progress.step = { done, total };
  }
  const line = typeof message === 'string' ? message.replace(/\s+/g, ' ').trim() : '';
  if (line) progress.message = line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
  // Only an image the service made small: a data URL of a raster type (never a link to fetch, never SVG).
  if (typeof preview === 'string' && preview.length <= PREVIEW_MAX && /^data:image\/(webp|png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(preview)) progress.preview = preview;
  return Object.keys(progress).length > 0 ? progress : undefined;
}

/** How a running job's progress reads in its node: a step bar (0–1 and its words), the provider's queue, the log line. */
export interface ProgressDisplay {
  step?: { value: number; text: string };
  queue?: string;
  message?: string;
}

export function progressDisplay(progress: JobProgress): ProgressDisplay {
  const { step, queuePosition, message } = progress;
  return {
    ...(step ? { step: { value: step.done / step.total, text: `Step ${step.done} of ${step.total}` } } : {}),
    ...(queuePosition !== undefined ? { queue: `Waiting at the provider: ${queuePosition === 1 ? 'next' : `${ordinal(queuePosition)} in line`}` } : {}),
    ...(message ? { message } : {}),
  };
}

/** 2 → "2nd", 11 → "11th", 23 → "23rd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** An error the service wrote into the node (a string, or `{ error, details? }` as its HTTP errors are). */
export function documentError(value: unknown): { error: string; details?: string; status?: number } | undefined {
  if (typeof value === 'string' && value) return { error: value };
  if (typeof value !== 'object' || value === null) return undefined;
  const { error, details, status } = value as Record<string, unknown>;
  if (typeof error !== 'string' || !error) return undefined;
  return { error, ...(typeof details === 'string' && details ? { details } : {}), ...(typeof status === 'number' ? { status } : {}) };
}

/** What the runner writes as a canceled job's node's `error` (src/jobs/runner.ts CANCELED). */
const CANCELED = 'Canceled';

/**
 * Whether the node says its last job was canceled, as the runner writes it when it ends the node's job: its
 * `error` is the word `Canceled`, or — a state rather than an error — `data.runState: "canceled"` (or `{ status:
 * "canceled" }`). Read tolerantly: anything else is not a canceled run.
 */
export function documentCanceled(data: Record<string, unknown>): boolean {
  if (documentError(data.error)?.error === CANCELED) return true;
  const state = data.runState;
  if (state === 'canceled') return true;
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>).status === 'canceled';
}

/** A job a refusal names: the node's queued or running job, as a 409 of POST /api/generations names it. */
export interface NamedJob {
  id: string;
  /** When the refusal says it (else: not known until the document shows the job). */
  status: 'queued' | 'running' | null;
  queuePosition: number | null;
}

/**
 * The node's running job that a refused start names (POST /api/generations answers 409 `{ error, jobId }`, maybe
 * with its `status` and `queuePosition`): undefined when the body names none.
 */
export function runningJobOf(body: unknown): NamedJob | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { jobId, status, queuePosition } = body as Record<string, unknown>;
  if (typeof jobId !== 'string' || !/^job_[0-9a-zA-Z-]{1,100}$/.test(jobId)) return undefined;
  const known = status === 'queued' || status === 'running' ? status : null;
  return { id: jobId, status: known, queuePosition: known === 'queued' && isPosition(queuePosition) ? queuePosition : null };
}

/** What a node says of its last run once nothing runs in it: the error, Canceled, or nothing. */
export type RunOutcome = { error: string; details?: string; status?: number; retryAt?: number } | 'canceled' | undefined;

/**
 * What an idle node shows of its last run. This tab's own answer (`ownError`: a refusal or a failure with its
 * status, so a quota shows its way out) comes first; then a cancel — this tab's (`ownCanceled`) or the one the
 * document says — over the error the document still holds from an earlier run; then the document's error.
 * Nothing while the node runs (`busy`): the job's state is shown instead.
 */
export function runOutcome({
  busy,
  ownError,
  ownCanceled,
  data,
}: {
  busy: boolean;
  ownError: Exclude<RunOutcome, 'canceled' | undefined> | undefined;
  ownCanceled: boolean;
  data: Record<string, unknown>;
}): RunOutcome {
  if (ownError) return ownError;
  if (busy) return undefined;
  if (ownCanceled || documentCanceled(data)) return 'canceled';
  return documentError(data.error);
}
