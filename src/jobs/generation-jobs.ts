// Generation jobs (docs/api.md "Generation jobs"): a generation as a job in PostgreSQL, created at once (202) and
// run by a runner of some instance through the same GenerationService.generate as POST /api/image (quota, in-flight
// limit, inputs, model, storing, the live document's node). Our row in `generation_jobs` is the job's state; pg-boss
// (./queue.ts) carries the work. Every change of state is one conditional update of the row, so a cancel and a
// runner never both win: a canceled job never starts, and a running one that is canceled is aborted and records
// nothing.
//
// Every change of state is recorded, in the same transaction and under the user's job lock, as an event of the
// user's (./job-events.ts streams them; POST /api/image waits for its job through them). A job tied to a canvas node
// also shows in the node's `data.job` while it is queued or running (GenerationNodes.showJob).
import { randomUUID } from 'node:crypto';
import type { Transactions, Tx } from '../db/index.js';
import type { GenerationJobsRepository, GenerationJobView, GenerationsGalleryRepository, JobOutcome, UsersRepository } from '../db/repositories/index.js';
import type { GenerationJobRow, GenerationJobStatus, GenerationRow, JobProgress } from '../db/schema.js';
import type { ModelProgress } from '../models/index.js';
import { AppError, isAppError, jobFinished, jobNotFound, unauthorized } from '../errors.js';
import { statusOf } from '../http/error-handler.js';
import { decodeCursor, pageOf, type GenerateResponse, type GenerationService } from '../services/generation.js';
import { INTERRUPTED, type GenerationNodes } from '../services/generation-nodes.js';
import type { JobEvents } from './job-events.js';
import { createJobQueue, type JobQueue, type JobQueueOptions, type QueuedJob } from './queue.js';

/** A job as the API answers it (GET /api/generations/:id, and each event of the stream). */
export interface JobJson {
  id: string;
  status: GenerationJobStatus;
  queuePosition: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: { status: number; error: string; details?: string } | null;
  output: { imageUrl: string } | null;
  projectId: string | null;
  nodeId: string | null;
  model: string | null;
  attempts: number;
  /** While running: what the model last said of its progress (its provider's queue position, steps, a log line). */
  progress: JobProgress | null;
}

export const presentJob = (j: GenerationJobView): JobJson => ({
  id: j.id,
  status: j.status,
  queuePosition: j.queuePosition,
  createdAt: j.createdAt.toISOString(),
  startedAt: j.startedAt?.toISOString() ?? null,
  finishedAt: j.finishedAt?.toISOString() ?? null,
  error: j.status === 'failed' ? { status: j.errorStatus ?? 500, error: j.error ?? 'Failed to generate image', ...(j.errorDetails ? { details: j.errorDetails } : {}) } : null,
  output: j.status === 'succeeded' && j.outputUrl ? { imageUrl: j.outputUrl } : null,
  projectId: j.projectId,
  nodeId: j.nodeId,
  model: j.model,
  attempts: j.attempts,
  progress: j.status === 'running' ? (j.progress ?? null) : null,
});

/** Queued node jobs whose position is refreshed in their nodes when a job starts. */
const POSITIONS_SHOWN = 50;
/** How often (at most) a running job's progress is stored and shown in its node. */
const PROGRESS_EVERY_MS = 1_000;
/** How often (at most) old events are pruned, when jobs are created. */
const PRUNE_EVERY_MS = 10 * 60_000;

export interface NewJob {
  images: string[];
  prompt: string;
  projectId?: string;
  nodeId?: string;
  model?: string;
  /** Write the prompt into the output PNG's XMP (off unless the user opts in). */
  promptInMetadata?: boolean;
}

export interface GenerationJobs {
  create(userId: string, input: NewJob): Promise<GenerationJobView>;
  /** POST /api/image: a job, waited for, answered as the generation itself answers (its result, or its error). */
  generateNow(user: { id: string; email: string }, input: NewJob): Promise<GenerateResponse>;
  /** The user's job events after `afterId` (null: from now on), until the returned stop (GET /api/generations/events). */
  follow(userId: string, afterId: number | null, onEvent: (event: { id: number; job: Record<string, unknown> }) => void): Promise<() => void>;
  get(userId: string, id: string): Promise<GenerationJobView>;
  /** The job and, once it succeeded, the lineage of the generation it made (GET /api/generations/:id). */
  detail(userId: string, id: string): Promise<{ job: GenerationJobView; lineage: GenerationRow | null }>;
  list(userId: string, opts: { status?: GenerationJobStatus; projectId?: string; cursor?: string; limit: number }): Promise<{ items: GenerationJobView[]; nextCursor: string | null }>;
  cancel(userId: string, id: string): Promise<GenerationJobView>;
  /** Starts the queue now if any job is unfinished (at boot: queued jobs of before a restart run). */
  resume(): Promise<void>;
  /** Stops this instance's runner, waiting up to `timeoutMs` for running jobs. */
  stop(timeoutMs: number): Promise<void>;
}

export interface GenerationJobsDeps {
  jobs: GenerationJobsRepository;
  users: Pick<UsersRepository, 'findById'>;
  /** The generation a succeeded job made, for its lineage. */
  generations: Pick<GenerationsGalleryRepository, 'lineageOf'>;
  transactions: Transactions;
  generation: Pick<GenerationService, 'generate'>;
  /** Generations into a canvas node: checked when the job is created (a refusal creates nothing), and shown in it. */
  nodes?: Pick<GenerationNodes, 'authorize' | 'showJob'>;
  /** The queue's connection and this instance's share of the work. */
  queue: Pick<JobQueueOptions, 'url' | 'concurrency'>;
  /** Jobs one user may have running at once, on all instances together (0 = no limit). */
  runningPerUser: number;
  /** The model a job that names none runs: recorded in the job when it is queued. */
  defaultModel: string;
  /** The stream of job events (./job-events.ts). */
  events: JobEvents;
  /**
   * A POST /api/image job still unfinished this long after it was created ran on an instance that died (it cannot
   * outlast its model's timeout): it is failed with a reason, checked at boot and every `staleCheckMs`.
   */
  staleAfterMs: number;
  staleCheckMs: number;
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
}

/** A request waiting for its job's generation (POST /api/image): its answer, or its error. */
interface Waiter {
  resolve(r: GenerateResponse): void;
  reject(e: unknown): void;
}

/** Job ids: `job_` and a UUID. Anything else is no job of anyone's (404 without a query). */
const JOB_ID = /^job_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long a job that found its user at the running limit waits before it is offered again. */
const RECHECK_SECONDS = 1;

export function createGenerationJobs(deps: GenerationJobsDeps): GenerationJobs {
  const { jobs, transactions, log } = deps;
  /**
   * This instance's running jobs: a cancel here aborts at once (one elsewhere arrives through pg-boss's signal, or
   * for POST /api/image's jobs as the cancel's announcement).
   */
  const running = new Map<string, AbortController>();
  const queue = (deps.createQueue ?? createJobQueue)({ ...deps.queue, runningPerUser: deps.runningPerUser, run, dead, log });
  let prunedAt = 0;

  async function find(userId: string, id: string): Promise<GenerationJobView> {
    const job = JOB_ID.test(id) ? await jobs.find(userId, id) : null;
    if (!job) throw jobNotFound();
    return job;
  }

  /** Records the job's current state as an event (under the user's lock, which the caller holds); the view. */
  async function record(userId: string, jobId: string, tx: Tx): Promise<GenerationJobView | null> {
    const view = await jobs.find(userId, jobId, tx);
    if (view) await jobs.recordEvent(userId, jobId, presentJob(view) as unknown as Record<string, unknown>, tx);
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
    const node = view && nodeOf(view);
    if (!node || !deps.nodes || (view.status !== 'queued' && view.status !== 'running')) return;
    void deps.nodes.showJob(node, {
      id: view.id,
      status: view.status,
      queuePosition: view.queuePosition,
      queuedAt: view.createdAt.toISOString(),
      startedAt: view.startedAt?.toISOString() ?? null,
      ...(view.progress ? { progress: view.progress } : {}),
    });
  }

  /**
   * Takes an ended job out of its node; `isGenerating` ends too unless another job runs into it. A job that failed
   * shows its error there (also one that failed before its generation reached the node: the quota, a limit).
   */
  async function endInNode(view: { id: string; projectId: string | null; nodeId: string | null }, error?: string) {
    const node = nodeOf(view);
    if (!node || !deps.nodes) return;
    const others = await jobs.othersInNode(node.projectId, node.nodeId, view.id).catch(() => true);
    await deps.nodes.showJob(node, { ended: view.id, idle: !others, ...(error !== undefined ? { error } : {}) });
  }

  /**
   * A running job's progress, as its model reports it: stored in the job (an event of the stream) and shown in its
   * node, at most once every PROGRESS_EVERY_MS, the latest report last. A report after the job ended changes nothing.
   */
  function progressOf({ jobId, userId }: QueuedJob) {
    let latest: JobProgress | undefined;
    let timer: NodeJS.Timeout | undefined;
    let lastAt = 0;
    let stopped = false;
    const write = async (p: JobProgress) => {
      try {
        const { view } = await change(userId, jobId, (tx) => jobs.setProgress(jobId, p, tx));
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
    if (!deps.nodes) return;
    try {
      for (const view of await jobs.queuedInNodes(POSITIONS_SHOWN)) showInNode(view);
    } catch (err) {
      log.warn({ err }, 'could not refresh the queue positions shown in nodes');
    }
  }

  /** The strict per-user check, under a lock on the user's jobs: marks the job running, or says why not. */
  async function claim({ jobId, userId }: QueuedJob, retry: boolean): Promise<{ row: GenerationJobRow; view: GenerationJobView | null } | 'gone' | 'wait'> {
    return transactions.transaction(async (tx) => {
      await jobs.lockUser(userId, tx);
      const row = await jobs.get(jobId, tx);
      const rerun = retry && row?.status === 'running'; // its instance died: this is pg-boss's one retry
      if (!row || (row.status !== 'queued' && !rerun)) return 'gone';
      // (POST /api/image's jobs never come here: they start as they are created, with that route's own limits.)
      if (!rerun && deps.runningPerUser > 0 && (await jobs.countRunning(userId, tx)) >= deps.runningPerUser) return 'wait';
      await jobs.markRunning(jobId, { retry }, tx);
      return { row, view: await record(userId, jobId, tx) };
    });
  }

  function failureOf(err: unknown): JobOutcome {
    if (!isAppError(err)) return { status: 'failed', error: 'Failed to generate image', errorStatus: 500, errorCode: 'internal' };
    const e = err;
    return {
      status: 'failed',
      error: e.message,
      errorDetails: e.details,
      errorStatus: statusOf(e.code),
      errorCode: e.code,
      ...(e.extra ? { errorExtra: e.extra } : {}),
      ...(e.retryAfterSeconds !== undefined ? { errorRetryAfterSeconds: Math.ceil(e.retryAfterSeconds) } : {}),
    };
  }

  /**
   * Runs a job: claimed here (from the queue), or — POST /api/image's — `started` already, running since its creation,
   * with its user at hand and the request waiting for what the generation answers (`waiter`).
   */
  async function run(job: QueuedJob, signal: AbortSignal, retry: boolean, started?: { row: GenerationJobRow; user: { id: string; email: string }; waiter: Waiter }): Promise<void> {
    const claimed = started ? { row: started.row, view: null } : await claim(job, retry);
    if (claimed === 'gone') return; // canceled (or finished) before it started
    if (claimed === 'wait') {
      // pg-boss's group limit let it through a moment early (simultaneous fetches): offered again shortly, in its turn.
      const priority = (await jobs.get(job.jobId))?.queuePriority;
      const bossJobId = await queue.send(job, { afterSeconds: RECHECK_SECONDS, ...(priority !== undefined ? { priority } : {}) });
      await jobs.setBossJobId(job.jobId, bossJobId);
      return;
    }
    if (!started) {
      showInNode(claimed.view);
      void refreshPositions();
    }
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal.addEventListener('abort', onAbort);
    running.set(job.jobId, abort);
    const waiter = started?.waiter;
    const { row } = claimed;
    const progress = progressOf(job);
    // POST /api/image is answered once the job's record and its node are final, as before jobs.
    let answer: () => void = () => {};
    let failed: string | undefined; // the error the node shows
    try {
      const user = started?.user ?? (await deps.users.findById(job.userId));
      if (!user) {
        await change(job.userId, job.jobId, (tx) => jobs.finish(job.jobId, failureOf(unauthorized()), tx));
        answer = () => waiter?.reject(unauthorized());
        return;
      }
      const node = nodeOf(row);
      try {
        const result = await deps.generation.generate({ id: user.id, email: user.email }, {
            images: row.images,
            prompt: row.prompt,
            ...(node ?? {}),
            signal: abort.signal,
            promptInMetadata: row.promptInMetadata,
            // The default runs as the default (SPEC's limits, its fallback); another model by its name.
            ...(row.model && row.model !== deps.defaultModel ? { model: row.model } : {}),
            onProgress: progress.report,
            lineage: { jobId: row.id, queuedMs: Math.max(0, Date.now() - row.createdAt.getTime()) },
            // The job succeeds in the transaction that records its generation, under the user's lock: a cancel
            // committed first wins (nothing is recorded), one that comes after finds the job finished (409).
            commit: async (tx, made) => {
              await jobs.lockUser(job.userId, tx);
              const outcome: JobOutcome = { status: 'succeeded', outputUrl: made.imageUrl, generationId: made.generationId, model: made.model, ...(made.text ? { outputText: made.text } : {}) };
              if (!(await jobs.finish(job.jobId, outcome, tx))) {
                abort.abort(); // canceled meanwhile (its abort may still be on its way from another instance)
                return false;
              }
              await record(job.userId, job.jobId, tx);
              return true;
            },
          });
        answer = () => waiter?.resolve(result);
      } catch (err) {
        answer = () => waiter?.reject(err);
        if (abort.signal.aborted) return; // canceled: the row says so already, and nothing was recorded
        if (!(err instanceof AppError)) log.error({ err, jobId: job.jobId }, 'a generation job failed unexpectedly');
        failed = err instanceof AppError ? err.message : 'Failed to generate image';
        await change(job.userId, job.jobId, (tx) => jobs.finish(job.jobId, failureOf(err), tx));
      }
    } catch (err) {
      answer = () => waiter?.reject(err);
      throw err;
    } finally {
      progress.stop();
      signal.removeEventListener('abort', onAbort);
      running.delete(job.jobId);
      await endInNode(row, failed).catch((err: unknown) => log.warn({ err, jobId: job.jobId }, 'could not settle a job in its node'));
      answer();
    }
  }

  async function dead(job: QueuedJob): Promise<void> {
    const { result: failed, view } = await change(job.userId, job.jobId, (tx) => jobs.failUnfinished(job.jobId, 'the instance running the job stopped, and so did the one running its retry', tx));
    if (failed) {
      log.warn({ jobId: job.jobId }, 'a generation job was given up after its retry');
      if (view) await endInNode(view, INTERRUPTED);
    }
  }

  /**
   * A new job: queued in pg-boss, or — `local`, POST /api/image's — started at once by this instance (its `queued` and
   * `running` states recorded in the one transaction).
   */
  async function create(userId: string, input: NewJob, id = `job_${randomUUID()}`, { local = false } = {}): Promise<GenerationJobView> {
    const node = input.projectId !== undefined && input.nodeId !== undefined ? { projectId: input.projectId, nodeId: input.nodeId } : undefined;
    if (node && deps.nodes) await deps.nodes.authorize(userId, node); // 404/403 now, as POST /api/image answers them
    const job = { id, userId, prompt: input.prompt, images: input.images, projectId: node?.projectId ?? null, nodeId: node?.nodeId ?? null, model: input.model ?? deps.defaultModel, promptInMetadata: input.promptInMetadata === true, createdAt: new Date() };
    // One transaction under the user's lock: the row, its place in pg-boss and its first event. A runner that picks
    // the job up at once waits for the lock, so its `running` event always follows `queued`. If anything fails,
    // nothing is kept (a pg-boss job without a row finds nothing to run).
    const { view } = await change(userId, id, async (tx) => {
      // Its turn among all users' jobs (the repository's nextPriority); POST /api/image's counts for later ones.
      const queuePriority = await jobs.nextPriority(userId, tx);
      if (!(await jobs.insert({ ...job, queuePriority }, tx))) throw unauthorized(); // a session that outlived its user
      if (!local) await jobs.setBossJobId(id, await queue.send({ jobId: id, userId }, { priority: queuePriority }), tx);
      else {
        await record(userId, id, tx); // queued…
        await jobs.markRunning(id, { retry: false }, tx); // …and running, recorded below
      }
      return true;
    });
    if (!view) throw jobNotFound();
    showInNode(view);
    prune();
    return view;
  }

  let staleTimer: NodeJS.Timeout | undefined;
  /** Fails POST /api/image jobs whose instance died (see `staleAfterMs`). */
  async function failStale(): Promise<void> {
    try {
      for (const stale of await jobs.staleLocal(deps.staleAfterMs)) {
        if (running.has(stale.id)) continue;
        const { result, view } = await change(stale.userId, stale.id, (tx) => jobs.failUnfinished(stale.id, 'the instance running the job stopped', tx));
        if (result && view) await endInNode(view, INTERRUPTED);
      }
    } catch (err) {
      log.warn({ err }, 'could not look for generation jobs whose instance stopped');
    }
  }

  function prune() {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    jobs.pruneEvents(deps.eventsRetentionHours).catch((err: unknown) => log.warn({ err }, 'could not prune old job events'));
  }

  return {
    create: (userId, input) => create(userId, input),

    async generateNow(user, input) {
      // POST /api/image: a job like any other (its row, states, events, node progress, cancel), run by this instance,
      // which holds the request: the answer is here, and the route keeps its own limits (in flight per user) and this
      // instance's model. A cancel from another instance arrives as the cancel's announcement and aborts it.
      const id = `job_${randomUUID()}`;
      let waiter!: Waiter;
      const answer = new Promise<GenerateResponse>((resolve, reject) => (waiter = { resolve, reject }));
      const stop = await deps.events.onCanceled(id, () => running.get(id)?.abort());
      try {
        const row = await create(user.id, { ...input, model: undefined }, id, { local: true });
        void run({ jobId: id, userId: user.id }, new AbortController().signal, false, { row, user, waiter }).catch((err: unknown) => waiter.reject(err));
        return await answer;
      } finally {
        stop();
      }
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
      if (job.bossJobId) {
        await queue.cancel(job.bossJobId).catch((err: unknown) => log.warn({ err, jobId: id }, 'could not cancel a job in the queue (it will not run: its row is canceled)'));
      }
      // A queued job never reaches the runner: its node is settled here (a running one's, by its runner), and the
      // queued node jobs behind it moved up.
      if (changed.before === 'queued') {
        await endInNode(job);
        void refreshPositions();
      }
      return view ?? find(userId, id);
    },

    async resume() {
      if (!staleTimer && deps.staleCheckMs > 0) {
        staleTimer = setInterval(() => void failStale(), deps.staleCheckMs);
        staleTimer.unref();
      }
      await failStale();
      if (deps.eagerStart || (await jobs.anyUnfinished())) await queue.start();
    },

    async stop(timeoutMs) {
      clearInterval(staleTimer);
      await queue.stop(timeoutMs);
    },
  };
}
