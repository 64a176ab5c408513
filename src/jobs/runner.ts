// The job runner (docs/api.md "Generation jobs"): a job is a row in `generation_jobs`, created at once (202) and
// run by the runner of some instance through the task its `task_kind` names (./task.ts: `generation` first,
// ./tasks/generation.ts). The row is the one record of a job's state: pg-boss (./queue.ts) only carries the work to
// a runner. Every change of state is one conditional update of the row, so a cancel and a runner never both win: a
// canceled job never starts, and a running one that is canceled is aborted and records nothing.
//
// The runner owns what is around a task: the per-user limits (counted from the rows, over live heartbeats), the
// heartbeat of the jobs it runs (`heartbeat_at`, every JOBS_HEARTBEAT_MS), and what becomes of a job whose heartbeat
// lapsed (JOBS_HEARTBEAT_LAPSE_MS: its instance died): a queued job's run is retried once, POST /api/image's job is
// failed with a reason. A dead instance's jobs never count against their user.
//
// Every change of state is recorded, in the same transaction and under the user's job lock, as an event of the
// user's (./job-events.ts streams them; POST /api/image waits for its job through them). A job tied to a canvas node
// shows in the node while it is queued or running, then its result or error: the runner is the only writer of a
// node's run state (./node-state.ts).
import { randomUUID } from 'node:crypto';
import type { ProjectAccess } from '../auth/project-access.js';
import type { Transactions, Tx } from '../db/index.js';
import type { GenerationJobsRepository, GenerationJobView, GenerationsGalleryRepository, JobOutcome, LapsedJob, UsersRepository } from '../db/repositories/index.js';
import type { GenerationJobRow, GenerationJobStatus, GenerationRow, JobProgress } from '../db/schema.js';
import type { ModelProgress } from '../models/index.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { Metrics } from '../metrics.js';
import { invalidRequest, isAppError, jobFinished, jobNotFound, nodeBusy, nodeNotFound, tooManyGenerations, unauthorized } from '../errors.js';
import { decodeCursor, pageOf, type GenerateResponse } from '../services/generation.js';
import { nodeJobInput } from './node-inputs.js';
import { modelRoleProblem, type ModelCatalogue } from './model-roles.js';
import { CANCELED, INTERRUPTED, type NodeRunState, type RunOutcome } from './node-state.js';
import type { JobEvents } from './job-events.js';
import { createJobQueue, type DeliveredJob, type JobQueue, type JobQueueOptions, type QueuedJob } from './queue.js';
import { taskList, type Task, type TaskOutput } from './task.js';
import { GENERATION_TASK } from './tasks/generation.js';

/**
 * A job as it is recorded in its events: the API's shape (http/presenters.ts presentJob), with the error as its
 * code — the API derives the HTTP status from it when it presents the event.
 */
export interface JobRecord {
  id: string;
  status: GenerationJobStatus;
  queuePosition: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: { code: string; error: string; details?: string } | null;
  output: { imageUrl: string } | null;
  projectId: string | null;
  nodeId: string | null;
  model: string | null;
  attempts: number;
  /** While running: what the task last said of its progress (a model's queue position, steps, a log line, a preview). */
  progress: JobProgress | null;
}

export const jobRecord = (j: GenerationJobView): JobRecord => ({
  id: j.id,
  status: j.status,
  queuePosition: j.queuePosition,
  createdAt: j.createdAt.toISOString(),
  startedAt: j.startedAt?.toISOString() ?? null,
  finishedAt: j.finishedAt?.toISOString() ?? null,
  error: j.status === 'failed' ? { code: j.errorCode ?? 'internal', error: j.error ?? 'Failed to generate image', ...(j.errorDetails ? { details: j.errorDetails } : {}) } : null,
  output: j.status === 'succeeded' && j.outputUrl ? { imageUrl: j.outputUrl } : null,
  projectId: j.projectId,
  nodeId: j.nodeId,
  model: j.model,
  attempts: j.attempts,
  progress: j.status === 'running' ? (j.progress ?? null) : null,
});

/** Queued node jobs whose position is refreshed in their nodes when a job starts. */
const POSITIONS_SHOWN = 50;
/** A run's job claimed by this instance in an advance's transaction (GenerationJobs.enqueue's handOff). */
export interface HandedJob {
  row: GenerationJobRow;
  attempt: number;
  view: GenerationJobView | null;
}

/** How often (at most) a running job's progress is stored and shown in its node. */
const PROGRESS_EVERY_MS = 1_000;
/** How often (at most) old events are pruned, when jobs are created. */
const PRUNE_EVERY_MS = 10 * 60_000;
/** Lapsed jobs settled per look. */
const LAPSED_BATCH = 50;

export interface NewJob {
  images: string[];
  /** The input port each image reaches (parallel to `images`); absent: all the kind's default port. */
  inputPorts?: string[];
  prompt: string;
  projectId?: string;
  nodeId?: string;
  model?: string;
  /** Write the prompt into the output PNG's XMP (off unless the user opts in). */
  promptInMetadata?: boolean;
  /** The task that runs it (./task.ts); `generation` when absent. */
  taskKind?: string;
  /**
   * A run's job (src/runs/): its run, the id chosen when it was planned, its cache key, seed and the node's data it
   * runs with. Such a job is not refused because its node is busy (the run's coordinator waits for the node itself).
   */
  run?: { runId: string; jobId: string; cacheKey: string; seed: number | null; params: Record<string, unknown> };
}

export interface GenerationJobs {
  create(userId: string, input: NewJob): Promise<GenerationJobView>;
  /**
   * Starts a node's job (POST /api/generations with `{ projectId, nodeId }`): its inputs from its incoming edges, its
   * settings from its data (./node-inputs.ts); `model` and `promptInMetadata` as given win over the node's.
   */
  /** `needsPrompt(model)`: whether the model the node runs (none: the default) needs a prompt (absent: every model does). */
  startNode(userId: string, node: { projectId: string; nodeId: string; model?: string; promptInMetadata?: boolean }, needsPrompt?: (model: string | undefined) => boolean): Promise<GenerationJobView>;
  /** POST /api/image: a job, waited for, answered as the generation itself answers (its result, or its error). */
  generateNow(user: { id: string; email: string }, input: NewJob): Promise<GenerateResponse>;
  /** The user's job events after `afterId` (null: from now on), until the returned stop (GET /api/generations/events). */
  follow(userId: string, afterId: number | null, onEvent: (event: { id: number; job: Record<string, unknown> }) => void): Promise<() => void>;
  get(userId: string, id: string): Promise<GenerationJobView>;
  /** The job and, once it succeeded, the lineage of the generation it made (GET /api/generations/:id). */
  detail(userId: string, id: string): Promise<{ job: GenerationJobView; lineage: GenerationRow | null }>;
  list(userId: string, opts: { status?: GenerationJobStatus; projectId?: string; cursor?: string; limit: number }): Promise<{ items: GenerationJobView[]; nextCursor: string | null }>;
  cancel(userId: string, id: string): Promise<GenerationJobView>;
  /** Starts the heartbeat and the look for lapsed jobs, and the queue now if any job is unfinished (at boot). */
  resume(): Promise<void>;
  /** Settles the jobs whose heartbeat lapsed (their instance died) now; how many. */
  settleLapsed(): Promise<number>;
  /** Stops this instance's runner, waiting up to `timeoutMs` for running jobs. */
  stop(timeoutMs: number): Promise<void>;
  /**
   * A run's jobs (src/runs/), queued together in the caller's transaction `tx`, which holds the user's job lock
   * (`jobs.lockUser`) and records the run's change; once it commits, `shown(view)` shows each in its node. Their views,
   * in the order given.
   */
  enqueue(userId: string, inputs: Array<NewJob & { run: NonNullable<NewJob['run']> }>, tx: Tx, opts?: { handOff?: boolean }): Promise<GenerationJobView[] & { handed?: HandedJob }>;
  /**
   * The chain handoff: with `handOff`, enqueue may claim the first job for this instance instead of queuing it (marked
   * running in `tx`, under the same per-user limit a claim checks, when this instance has a free worker); once `tx`
   * commits, `runHanded` runs it at once (as a delivered job runs: its heartbeat, cancel and hand-back alike, so a
   * kill -9 leaves it to the lapse settlement), or `dropHanded` forgets it when `tx` failed.
   */
  runHanded(handed: HandedJob): void;
  dropHanded(handed: HandedJob): void;
  shown(view: GenerationJobView): void;
  /** Records the job's current state as an event of its user's (under the user's lock, which `tx` holds). */
  recordIn(userId: string, jobId: string, tx: Tx): Promise<GenerationJobView | null>;
}

export interface GenerationJobsDeps {
  jobs: GenerationJobsRepository;
  users: Pick<UsersRepository, 'findById'>;
  /** The generation a succeeded job made, for its lineage. */
  generations: Pick<GenerationsGalleryRepository, 'lineageOf'>;
  transactions: Transactions;
  /** The task list (./task.ts): a job runs the task of its `task_kind`. */
  tasks: Task[];
  /** Jobs into a canvas node: checked when the job is created (a refusal creates nothing). */
  access?: Pick<ProjectAccess, 'require'>;
  /** A node's run state in the live document (./node-state.ts): written by this runner only. Absent: not shown. */
  nodeState?: NodeRunState;
  /** The canvas as it is now, for a node's job inputs (./node-inputs.ts). Absent: nodes cannot be started by id. */
  canvases?: Pick<LiveDocuments, 'read'>;
  /** The queue's connection and this instance's share of the work. */
  queue: Pick<JobQueueOptions, 'url' | 'concurrency' | 'settings'>;
  /** Jobs one user may have running at once, on all instances together (0 = no limit): the rest stay queued. */
  runningPerUser: number;
  /**
   * Generations one user may have running at once, on all instances together (GENERATIONS_IN_FLIGHT_PER_USER, 0 =
   * no limit): POST /api/image over it is 429 with nothing stored; a queued job waits for it as for `runningPerUser`.
   */
  inFlightPerUser: number;
  /** The model a job that names none runs: recorded in the job when it is queued. */
  defaultModel: string;
  /** The models this deployment runs: a node whose model does not do its kind's role is refused (./model-roles.ts). */
  models?: ModelCatalogue;
  /** The stream of job events (./job-events.ts). */
  events: JobEvents;
  /** How often running jobs' heartbeats are renewed and lapsed ones looked for (JOBS_HEARTBEAT_MS). */
  heartbeatMs: number;
  /** A heartbeat older than this (JOBS_HEARTBEAT_LAPSE_MS) is a dead instance's. */
  heartbeatLapseMs: number;
  /** How long events are kept (hours, at least 24). */
  eventsRetentionHours: number;
  /**
   * A model's preview made small enough to travel in the job and its node (a `data:` URL of at most
   * PREVIEW_SIZE pixels a side); undefined when it cannot be read. Absent: previews are not shown.
   */
  toPreview?: (image: { data: Buffer; mimeType: string }, owner?: string) => Promise<string | undefined>;
  /** Start the queue at boot (every instance runs jobs); false: on the first job this instance creates. */
  eagerStart: boolean;
  log: JobQueueOptions['log'] & { info(o: object, m: string): void };
  /** The queue (default: pg-boss, ./queue.ts). */
  createQueue?: (opts: JobQueueOptions) => JobQueue;
  /** Counts retries and jobs given up (absent: metrics are off). */
  metrics?: Pick<Metrics, 'jobRetried' | 'jobDead'>;
  /** Called once a job's row is final (succeeded, failed, canceled) and its node settled: a run's coordinator advances its run. */
  onJobEnded?: (job: { id: string; runId: string | null; projectId: string | null }) => void;
  /** Called once a run's job started running here: its run's coordinator shows it (never throws). */
  onRunJobStarted?: (runId: string) => void;
  /** Called at every heartbeat (and at resume): a run's coordinator advances the runs still running. */
  onHeartbeat?: () => Promise<void>;
}

/** Why a job whose run was lost is retried or failed (the code of its retry; its failure's is job_interrupted). */
const INSTANCE_STOPPED = 'instance_stopped';

/** A request waiting for its job's task (POST /api/image): its answer, or its error. */
interface Waiter {
  resolve(r: GenerateResponse): void;
  reject(e: unknown): void;
}

/** Job ids: `job_` and a UUID. Anything else is no job of anyone's (404 without a query). */
const JOB_ID = /^job_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/**
 * `Retry-After` of a request over the in-flight limit: a fixed, short wait. A generation takes from a fraction
 * of a second to about 30 seconds, so the slot is likely free within a few seconds, and a refused request is
 * cheap (one transaction, no input read, no model call). The per-minute rate limit still bounds retries.
 */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 5;
/** How long a job that found its user at the running limit waits before it is offered again. */
const RECHECK_SECONDS = 1;

/** How a job failed, as its row records it: a code and a reason, never an HTTP status. */
export function failureOf(err: unknown): JobOutcome & { status: 'failed' } {
  if (!isAppError(err)) return { status: 'failed', error: 'Failed to generate image', errorDetails: 'the job failed unexpectedly', errorCode: 'internal' };
  return {
    status: 'failed',
    error: err.message,
    errorDetails: err.details,
    errorCode: err.code,
    ...(err.extra ? { errorExtra: err.extra } : {}),
    ...(err.retryAfterSeconds !== undefined ? { errorRetryAfterSeconds: Math.ceil(err.retryAfterSeconds) } : {}),
  };
}

export function createGenerationJobs(deps: GenerationJobsDeps): GenerationJobs {
  const { jobs, transactions, log } = deps;
  const tasks = taskList(deps.tasks);
  /** This instance's running jobs: a cancel (here, or announced from elsewhere) aborts at once; their heartbeats are renewed. */
  const running = new Map<string, AbortController>();
  /** Stopping: no job is handed to this instance any more (the chain handoff). */
  let stopped = false;
  /** This instance's running queued jobs (not POST /api/image's, whose request waits): handed back when it stops. */
  const handBack = new Map<string, () => void>();
  const queue = (deps.createQueue ?? createJobQueue)({ ...deps.queue, runningPerUser: deps.runningPerUser, run, log });
  const lapseMs = deps.heartbeatLapseMs;
  /** The user's running jobs at which a queued one waits: the stricter of the two limits (0: none). */
  const perUser = [deps.runningPerUser, deps.inFlightPerUser].filter((n) => n > 0);
  const runningLimit = perUser.length > 0 ? Math.min(...perUser) : 0;
  let prunedAt = 0;

  async function find(userId: string, id: string): Promise<GenerationJobView> {
    const job = JOB_ID.test(id) ? await jobs.find(userId, id) : null;
    if (!job) throw jobNotFound();
    return job;
  }

  /** Records the job's current state as an event (under the user's lock, which the caller holds); the view. */
  async function record(userId: string, jobId: string, tx: Tx): Promise<GenerationJobView | null> {
    const view = await jobs.find(userId, jobId, tx);
    if (view) await jobs.recordEvent(userId, jobId, jobRecord(view) as unknown as Record<string, unknown>, tx);
    return view;
  }

  /** Changes a job under its user's lock and records the change when there was one. */
  async function change<T>(userId: string, jobId: string, apply: (tx: Tx) => Promise<T>): Promise<{ result: T; view: GenerationJobView | null }> {
    return transactions.transaction(async (tx) => {
      await jobs.lockUser(userId, tx);
      const result = await apply(tx);
      return { result, view: result ? await record(userId, jobId, tx) : null };
    });
  }

  const nodeOf = (j: { projectId: string | null; nodeId: string | null }) => (j.projectId !== null && j.nodeId !== null ? { projectId: j.projectId, nodeId: j.nodeId } : undefined);

  /** Shows a queued or running job in its node (in the background: the document never holds up the job). */
  function showInNode(view: GenerationJobView | null) {
    void nodeShows(view);
  }

  /** Shows a queued or running job in its node; `handedBack`: queued again after it ran here (./node-state.ts). */
  async function nodeShows(view: GenerationJobView | null, opts?: { handedBack?: boolean }) {
    const node = view && nodeOf(view);
    if (!node || !deps.nodeState || (view.status !== 'queued' && view.status !== 'running')) return;
    await deps.nodeState.show(node, {
      id: view.id,
      status: view.status,
      queuePosition: view.queuePosition,
      queuedAt: view.createdAt.toISOString(),
      startedAt: view.startedAt?.toISOString() ?? null,
      ...(view.progress ? { progress: view.progress } : {}),
    }, opts);
  }

  /**
   * Takes an ended job out of its node, with its outcome: its image, or its error (also one that failed before its
   * task reached the node: the quota, a limit), `Canceled`, `The generation was interrupted`. `isGenerating` ends
   * too unless another job runs into the node.
   */
  async function endInNode(view: { id: string; projectId: string | null; nodeId: string | null; runId?: string | null }, outcome?: RunOutcome) {
    const node = nodeOf(view);
    if (!node || !deps.nodeState) return;
    // A run's result is written by its coordinator (src/runs/), with its key and, for a fanned node, every item's.
    if (view.runId && outcome && 'image' in outcome) outcome = undefined;
    const others = await jobs.othersInNode(node.projectId, node.nodeId, view.id).catch(() => true);
    await deps.nodeState.show(node, { ended: view.id, idle: !others, ...(outcome ? { outcome } : {}) });
  }

  /**
   * A running job's progress, as its task reports it: stored in the job (an event of the stream) and shown in its
   * node, at most once every PROGRESS_EVERY_MS, the latest report last. A report after the job ended changes nothing.
   */
  function progressOf(jobId: string, userId: string, attempt: number) {
    let latest: JobProgress | undefined;
    let timer: NodeJS.Timeout | undefined;
    let lastAt = 0;
    let stopped = false;
    const write = async (p: JobProgress) => {
      try {
        const { view } = await change(userId, jobId, (tx) => jobs.setProgress(jobId, attempt, p, tx));
        if (!stopped) showInNode(view);
      } catch (err) {
        log.warn({ err, jobId }, "could not store a job's progress");
      }
    };
    const flush = () => {
      timer = undefined;
      if (stopped || !latest) return;
      const p = latest;
      latest = undefined;
      lastAt = Date.now();
      void write(p);
    };
    // The latest preview stays in every later report until a newer one is made small (in order: one at a time).
    let preview: string | undefined;
    let previews = Promise.resolve();
    /** The fields of the latest report (a preview made small later joins the latest ones, not its own report's). */
    let fields: JobProgress = {};
    /** The latest report's fields with the latest preview, stored at the next turn of the once-a-second writes. */
    const show = () => {
      latest = { ...fields, ...(preview ? { preview } : {}) };
      timer ??= setTimeout(flush, Math.max(0, lastAt + PROGRESS_EVERY_MS - Date.now()));
    };
    return {
      report: (p: ModelProgress) => {
        if (stopped) return;
        fields = { ...(p.queuePosition !== undefined ? { queuePosition: p.queuePosition } : {}), ...(p.step ? { step: p.step } : {}), ...(p.message ? { message: p.message } : {}) };
        if (p.preview && deps.toPreview) {
          const image = p.preview;
          previews = previews.then(async () => {
            const small = await deps.toPreview!(image, userId).catch(() => undefined);
            if (stopped || small === undefined) return;
            preview = small;
            show();
          });
          if (Object.keys(fields).length === 0) return; // only a preview: reported once it is made small
        }
        show();
      },
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** A job started or a queued one was canceled: the queued node jobs behind it moved up. */
  async function refreshPositions() {
    if (!deps.nodeState) return;
    try {
      for (const view of await jobs.queuedInNodes(POSITIONS_SHOWN)) showInNode(view);
    } catch (err) {
      log.warn({ err }, 'could not refresh the queue positions shown in nodes');
    }
  }

  /**
   * Offers a job to the queue as a new pg-boss job, to start after `afterSeconds`, and names it in the row — under
   * the user's lock (held by the caller's transaction), so its delivery finds the row naming it.
   */
  async function offer(job: QueuedJob, priority: number, tx: Tx, afterSeconds?: number) {
    const bossJobId = await queue.send(job, { priority, ...(afterSeconds ? { afterSeconds } : {}) });
    await jobs.setBossJobId(job.jobId, bossJobId, tx);
  }

  /**
   * The strict per-user check, under a lock on the user's jobs: marks the job running (its first heartbeat), or says
   * why not. A delivery of a pg-boss job the row no longer names (an older offer) is `gone`.
   */
  async function claim({ jobId, userId, bossJobId }: DeliveredJob): Promise<{ row: GenerationJobRow; attempt: number; view: GenerationJobView | null } | 'gone' | 'waits'> {
    return transactions.transaction(async (tx) => {
      await jobs.lockUser(userId, tx);
      const row = await jobs.get(jobId, tx);
      if (!row || row.status !== 'queued' || row.bossJobId !== bossJobId) return 'gone';
      if (runningLimit > 0 && (await jobs.countRunning(userId, lapseMs, tx)) >= runningLimit) {
        // Its user is at the limit (pg-boss's group limit let it through a moment early, or a POST /api/image runs):
        // offered again shortly, in its turn.
        await offer({ jobId, userId }, row.queuePriority, tx, RECHECK_SECONDS);
        return 'waits';
      }
      const attempt = await jobs.markRunning(jobId, tx);
      if (attempt === null) return 'gone';
      return { row: { ...row, status: 'running' as const, attempts: attempt }, attempt, view: await record(userId, jobId, tx) };
    });
  }

  /** Runs a job the queue delivered. */
  async function run(delivered: DeliveredJob, signal: AbortSignal): Promise<void> {
    const claimed = await claim(delivered);
    if (claimed === 'gone' || claimed === 'waits') return; // canceled or finished before it started, or offered again
    showInNode(claimed.view);
    void refreshPositions();
    if (claimed.row.runId) deps.onRunJobStarted?.(claimed.row.runId); // its run shows it running in its node
    await runClaimed(claimed.row, claimed.attempt, signal);
  }

  /**
   * Runs a claimed job's task: claimed from the queue, or — POST /api/image's — running since its creation, with its
   * user at hand and the request waiting for what the task answers (`held`).
   */
  async function runClaimed(row: GenerationJobRow, attempt: number, signal: AbortSignal, held?: { user: { id: string; email: string }; waiter: Waiter }): Promise<void> {
    const { id: jobId, userId } = row;
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal.addEventListener('abort', onAbort);
    running.set(jobId, abort);
    // A cancel committed on any instance is announced: this run aborts at once.
    const unwatch = await deps.events.onCanceled(jobId, onAbort).catch((err: unknown) => {
      log.warn({ err, jobId }, "could not watch a job's cancel (a cancel elsewhere still ends it: it records nothing)");
      return () => {};
    });
    const waiter = held?.waiter;
    const progress = progressOf(jobId, userId, attempt);
    // POST /api/image is answered once the job's record and its node are final.
    let answer: () => void = () => {};
    let shown: RunOutcome | undefined; // what the node shows once the job ended
    // This instance stops: a queued job's run is aborted and the job handed back to the queue (./queue.ts pause()).
    let releasing = false;
    let handedBack: GenerationJobView | null = null;
    if (!held) {
      handBack.set(jobId, () => {
        releasing = true;
        abort.abort();
      });
    }
    /** Queued again for another instance (or this one's next start), its attempt not counted; false if it ended meanwhile. */
    const release = async () => {
      try {
        const { result, view } = await change(userId, jobId, async (tx) => {
          if (!(await jobs.release(jobId, attempt, tx))) return false;
          await offer({ jobId, userId }, row.queuePriority, tx);
          return true;
        });
        if (result) {
          handedBack = view;
          log.info({ jobId, task: row.taskKind }, 'a running job is handed back to the queue: this instance stops');
        }
        return result;
      } catch (err) {
        // Left running: its heartbeat lapses and another instance retries it.
        log.warn({ err, jobId }, 'could not hand a running job back to the queue (it is retried once its heartbeat lapses)');
        return false;
      }
    };
    const fail = async (err: unknown) => {
      answer = () => waiter?.reject(err);
      if (abort.signal.aborted) {
        if (releasing && (await release())) return;
        shown = { error: CANCELED }; // canceled: the row says so already, and nothing was recorded
        return;
      }
      if (!isAppError(err)) log.error({ err, jobId, task: row.taskKind }, 'a job failed unexpectedly');
      const outcome = failureOf(err);
      shown = { error: outcome.error ?? 'Failed to generate image' };
      const { result: ended } = await change(userId, jobId, (tx) => jobs.finish(jobId, attempt, outcome, tx));
      if (ended) dead(jobId, row.taskKind, attempt, outcome.errorCode ?? 'internal');
      else shown = (await jobs.get(jobId))?.status === 'canceled' ? { error: CANCELED } : undefined;
    };
    try {
      const user = held?.user ?? (await deps.users.findById(userId));
      const task = tasks.get(row.taskKind);
      if (!user) await fail(unauthorized());
      else if (!task) await fail(new Error(`no task of kind ${JSON.stringify(row.taskKind)} on this instance`));
      else {
        try {
          const result = await task.run({
            job: row,
            user: { id: user.id, email: user.email },
            signal: abort.signal,
            progress: progress.report,
            // The job succeeds in the transaction that records the task's result, under the user's lock: a cancel
            // committed first wins (nothing is recorded), one that comes after finds the job finished (409).
            commit: async (tx, output: TaskOutput) => {
              await jobs.lockUser(userId, tx);
              const outcome: JobOutcome = { status: 'succeeded', outputUrl: output.imageUrl, generationId: output.generationId, ...(output.model ? { model: output.model } : {}), ...(output.text ? { outputText: output.text } : {}) };
              if (!(await jobs.finish(jobId, attempt, outcome, tx))) {
                abort.abort(); // canceled meanwhile (its abort may still be on its way from another instance)
                return false;
              }
              await record(userId, jobId, tx);
              return true;
            },
          });
          shown = { image: result.output.imageUrl };
          answer = () => waiter?.resolve(result.response as GenerateResponse);
        } catch (err) {
          await fail(err);
        }
      }
    } catch (err) {
      answer = () => waiter?.reject(err);
      throw err;
    } finally {
      progress.stop();
      unwatch();
      signal.removeEventListener('abort', onAbort);
      running.delete(jobId);
      handBack.delete(jobId);
      if (handedBack) await nodeShows(handedBack, { handedBack: true });
      else {
        ended(row); // the row is final: its run goes on while the node is settled
        await endInNode(row, shown).catch((err: unknown) => log.warn({ err, jobId }, 'could not settle a job in its node'));
      }
      answer();
    }
  }

  /**
   * A new job: queued in pg-boss, or — `held`, POST /api/image's — started at once by this instance (its `queued` and
   * `running` states recorded in the one transaction), within the user's in-flight limit (else 429, nothing stored).
   * A node with a queued or running job refuses another (409 naming it).
   */
  /** The row of a new job. */
  function newRow(userId: string, input: NewJob, id: string, held: boolean) {
    const node = input.projectId !== undefined && input.nodeId !== undefined ? { projectId: input.projectId, nodeId: input.nodeId } : undefined;
    return {
      id,
      taskKind: input.taskKind ?? GENERATION_TASK,
      userId,
      prompt: input.prompt,
      images: input.images,
      inputPorts: input.inputPorts ?? null,
      projectId: node?.projectId ?? null,
      nodeId: node?.nodeId ?? null,
      model: input.model ?? deps.defaultModel,
      promptInMetadata: input.promptInMetadata === true,
      createdAt: new Date(),
      held,
      ...(input.run ? { runId: input.run.runId, cacheKey: input.run.cacheKey, seed: input.run.seed, params: input.run.params } : {}),
    };
  }

  /** A run's coordinator hears of a job's end (a failure of it is its own to log). */
  function ended(row: { id: string; runId: string | null; projectId: string | null }) {
    if (!deps.onJobEnded) return;
    try {
      deps.onJobEnded({ id: row.id, runId: row.runId, projectId: row.projectId });
    } catch (err) {
      log.warn({ err, jobId: row.id }, "could not tell a job's end to its run");
    }
  }

  async function create(userId: string, input: NewJob, id = `job_${randomUUID()}`, { held = false } = {}): Promise<{ view: GenerationJobView; attempt: number }> {
    const node = input.projectId !== undefined && input.nodeId !== undefined ? { projectId: input.projectId, nodeId: input.nodeId } : undefined;
    if (node && deps.access) await deps.access.require({ userId }, node.projectId, 'generate'); // 404/403 now, as POST /api/image answers them
    const job = newRow(userId, input, id, held);
    // One transaction under the user's lock: the row, its place in pg-boss and its first event. A runner that picks
    // the job up at once waits for the lock, so its `running` event always follows `queued`. If anything fails,
    // nothing is kept (a pg-boss job without a row finds nothing to run).
    let attempt = 0;
    const { view } = await change(userId, id, async (tx) => {
      if (node) {
        await jobs.lockNode(node.projectId, node.nodeId, tx);
        const active = await jobs.activeInNode(node.projectId, node.nodeId, tx);
        if (active) throw nodeBusy(active.id, active.status);
      }
      await jobs.lockUser(userId, tx);
      if (held && deps.inFlightPerUser > 0 && (await jobs.countRunning(userId, lapseMs, tx)) >= deps.inFlightPerUser) {
        throw tooManyGenerations(deps.inFlightPerUser, IN_FLIGHT_RETRY_AFTER_SECONDS);
      }
      // Its turn among all users' jobs (the repository's nextPriority); POST /api/image's counts for later ones.
      const queuePriority = await jobs.nextPriority(userId, tx);
      if (!(await jobs.insert({ ...job, queuePriority }, tx))) throw unauthorized(); // a session that outlived its user
      if (!held) await offer({ jobId: id, userId }, queuePriority, tx);
      else {
        await record(userId, id, tx); // queued…
        attempt = (await jobs.markRunning(id, tx)) ?? 0; // …and running, recorded below
      }
      return true;
    });
    if (!view) throw jobNotFound();
    showInNode(view);
    prune();
    return { view, attempt };
  }

  /**
   * Jobs whose heartbeat lapsed (their instance died): a queued job's run is retried once (queued again, in its
   * turn), then failed; POST /api/image's job (its request died with its instance) is failed at once. Each under its
   * user's lock, and only if still lapsed: instances looking at once settle each job once.
   */
  async function settleLapsed(): Promise<number> {
    let settled = 0;
    const candidates = await jobs.lapsed(lapseMs, LAPSED_BATCH);
    for (const job of candidates) {
      if (running.has(job.id)) continue; // ours, alive: its heartbeat is on its way
      try {
        if (await settleOne(job)) settled++;
      } catch (err) {
        log.warn({ err, jobId: job.id }, 'could not settle a job whose instance stopped');
      }
    }
    return settled;
  }

  /** A job given up on (failed, no retry): one log line and the counter. */
  function dead(jobId: string, task: string, attempt: number, code: string) {
    log.warn({ jobId, task, attempt, code }, 'job dead: it failed and will not be retried');
    deps.metrics?.jobDead(task, code);
  }

  async function settleOne(job: LapsedJob): Promise<boolean> {
    const retry = !job.held && job.attempts < 2;
    const reason = job.held
      ? 'the instance running the job stopped'
      : retry
        ? ''
        : 'the instance running the job stopped, and so did the one running its retry';
    const { result, view } = await change(job.userId, job.id, async (tx) => {
      if (!retry) return jobs.failUnfinished(job.id, reason, tx, lapseMs);
      if (!(await jobs.requeue(job.id, lapseMs, tx))) return false;
      await offer({ jobId: job.id, userId: job.userId }, job.queuePriority, tx);
      return true;
    });
    if (!result) return false;
    // Its pg-boss job of the dead run no longer holds its user's group slot (pg-boss would free it ~10 s later).
    if (job.bossJobId) await queue.cancel(job.bossJobId).catch((err: unknown) => log.warn({ err, jobId: job.id }, "could not end a dead run's job in the queue"));
    if (retry) {
      log.warn({ jobId: job.id, task: job.taskKind, attempt: job.attempts, code: INSTANCE_STOPPED }, 'job retried: its instance stopped, it is queued again');
      deps.metrics?.jobRetried(job.taskKind, INSTANCE_STOPPED);
      showInNode(view);
    } else {
      dead(job.id, job.taskKind, job.attempts, 'job_interrupted');
      await endInNode(job, { error: INTERRUPTED });
      ended(job);
    }
    return true;
  }

  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<unknown> = Promise.resolve();
  /** Every heartbeat: this instance's running jobs say they are alive, and lapsed jobs are settled. */
  function beat() {
    beating = beating.then(async () => {
      try {
        await jobs.heartbeat([...running.keys()]);
      } catch (err) {
        log.warn({ err }, "could not renew running jobs' heartbeat");
      }
      try {
        await settleLapsed();
      } catch (err) {
        log.warn({ err }, 'could not look for jobs whose instance stopped');
      }
      try {
        await deps.onHeartbeat?.();
      } catch (err) {
        log.warn({ err }, 'could not advance the runs still running');
      }
    });
  }

  function prune() {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    jobs.pruneEvents(deps.eventsRetentionHours).catch((err: unknown) => log.warn({ err }, 'could not prune old job events'));
  }

  return {
    create: async (userId, input) => (await create(userId, input)).view,

    async startNode(userId, { projectId, nodeId, model, promptInMetadata }, needsPrompt) {
      const node = { projectId, nodeId };
      if (deps.access) await deps.access.require({ userId }, projectId, 'generate'); // who may, before the canvas is read
      if (!deps.canvases) throw nodeNotFound(nodeId);
      const { nodeType, ...input } = await nodeJobInput(deps.canvases, node, { model, needsPrompt });
      const problem = deps.models && nodeType ? modelRoleProblem(deps.models, { id: nodeId, type: nodeType }, input.taskKind === undefined || input.taskKind === GENERATION_TASK ? (model ?? input.model) : input.model) : undefined;
      if (problem) throw invalidRequest(problem);
      // The model and the prompt's metadata are a generation's; another task's job keeps what its node gives.
      const asked = (input.taskKind ?? GENERATION_TASK) === GENERATION_TASK ? { ...(model !== undefined ? { model } : {}), ...(promptInMetadata !== undefined ? { promptInMetadata } : {}) } : {};
      return (await create(userId, { ...input, ...node, ...asked })).view;
    },

    async generateNow(user, input) {
      // POST /api/image: a job like any other (its row, states, events, node progress, cancel), run by this instance,
      // which holds the request: the answer is here, and the route keeps its own limit (in flight per user) and this
      // instance's model.
      let waiter!: Waiter;
      const answer = new Promise<GenerateResponse>((resolve, reject) => (waiter = { resolve, reject }));
      const { view, attempt } = await create(user.id, { ...input, model: undefined }, undefined, { held: true });
      void runClaimed(view, attempt, new AbortController().signal, { user, waiter }).catch((err: unknown) => waiter.reject(err));
      return answer;
    },

    follow: (userId, afterId, onEvent) => deps.events.follow(userId, afterId, onEvent),

    get: find,

    async detail(userId, id) {
      const job = await find(userId, id);
      const lineage = job.status === 'succeeded' && job.generationId ? await deps.generations.lineageOf(userId, job.generationId) : null;
      return { job, lineage };
    },

    async list(userId, { status, projectId, cursor, limit }) {
      const after = cursor ? decodeCursor(cursor) : undefined;
      const rows = await jobs.listByUser(userId, { status, projectId, after, limit: limit + 1 });
      return pageOf(rows, limit);
    },

    async cancel(userId, id) {
      const job = await find(userId, id);
      const { result: changed, view } = await change(userId, id, async (tx) => {
        const c = await jobs.cancel(userId, id, tx);
        return c && (c.before === 'queued' || c.before === 'running') ? c : null;
      });
      if (!changed) {
        const now = await find(userId, id);
        throw jobFinished(now.status);
      }
      running.get(id)?.abort();
      if (job.bossJobId && changed.before === 'queued') {
        await queue.cancel(job.bossJobId).catch((err: unknown) => log.warn({ err, jobId: id }, 'could not cancel a job in the queue (it will not run: its row is canceled)'));
      }
      // A queued job never reaches the runner: its node is settled here (a running one's, by its runner), and the
      // queued node jobs behind it moved up.
      if (changed.before === 'queued') {
        await endInNode(job, { error: CANCELED });
        void refreshPositions();
        ended(job);
      }
      return view ?? find(userId, id);
    },

    async enqueue(userId, inputs, tx, opts) {
      if (inputs.length === 0) return [];
      // A few statements for any number of jobs (a list's run queues a hundred at once): their turns, their rows
      // naming their pg-boss jobs, the pg-boss jobs in one insert, their `queued` events. Under the user's lock (the
      // caller's), so a delivery's claim finds its row.
      const priorities = await jobs.nextPriorities(userId, inputs.length, tx);
      // The handoff: the first job is this instance's when a worker is free, its user under the limit and no other
      // user's job waits (then it goes through the queue in its turn: users keep taking turns).
      const handOff =
        opts?.handOff === true &&
        !stopped &&
        running.size < deps.queue.concurrency &&
        (runningLimit === 0 || (await jobs.countRunning(userId, lapseMs, tx)) < runningLimit) &&
        !(await jobs.othersQueued(userId, tx));
      const rows = inputs.map((input, i) => ({
        ...newRow(userId, input, input.run.jobId, false),
        queuePriority: priorities[i],
        bossJobId: handOff && i === 0 ? null : randomUUID(),
      }));
      if (!(await jobs.insertMany(rows, tx))) throw unauthorized(); // the run's user was deleted
      await queue.sendMany(rows.flatMap((r) => (r.bossJobId ? [{ job: { jobId: r.id, userId }, bossJobId: r.bossJobId, priority: r.queuePriority }] : [])));
      const views = await jobs.findMany(userId, rows.map((r) => r.id), tx);
      if (views.length !== rows.length) throw jobNotFound();
      await jobs.recordEvents(userId, views.map((v) => ({ id: v.id, job: jobRecord(v) as unknown as Record<string, unknown> })), tx);
      if (!handOff) return views;
      const attempt = await jobs.markRunning(rows[0].id, tx);
      if (attempt === null) return views;
      const row = { ...views[0], status: 'running' as const, attempts: attempt };
      running.set(row.id, new AbortController()); // its worker is taken (and its heartbeat kept) from now on
      return Object.assign(views, { handed: { row, attempt, view: await record(userId, row.id, tx) } });
    },

    runHanded(handed) {
      showInNode(handed.view);
      void refreshPositions();
      if (handed.row.runId) deps.onRunJobStarted?.(handed.row.runId);
      runClaimed(handed.row, handed.attempt, new AbortController().signal).catch((err: unknown) => log.error({ err, jobId: handed.row.id }, 'a handed job could not record'));
    },

    dropHanded(handed) {
      running.delete(handed.row.id);
    },

    shown(view) {
      showInNode(view);
      prune();
    },

    recordIn: (userId, jobId, tx) => record(userId, jobId, tx),

    settleLapsed,

    async resume() {
      if (!timer && deps.heartbeatMs > 0) {
        timer = setInterval(beat, deps.heartbeatMs);
        timer.unref();
      }
      beat();
      await beating;
      if (deps.eagerStart || (await jobs.anyUnfinished())) await queue.start();
    },

    async stop(timeoutMs) {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
      // Drain: take no more jobs, hand the running ones back to the queue (their runs abort), then wait for them.
      await queue.pause().catch((err: unknown) => log.warn({ err }, 'could not stop taking jobs'));
      const handing = [...handBack.values()];
      if (handing.length > 0) log.info({ jobs: handing.length }, 'stopping: running jobs are handed back to the queue');
      for (const release of handing) release();
      await queue.stop(timeoutMs);
      await beating;
    },
  };
}
