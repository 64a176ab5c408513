// Generation jobs (docs/api.md "Generation jobs"): a generation as a job in PostgreSQL, created at once (202) and
// run by a runner of some instance through the same GenerationService.generate as POST /api/image (quota, in-flight
// limit, inputs, model, storing, the live document's node). Our row in `generation_jobs` is the job's state; pg-boss
// (./queue.ts) carries the work. Every change of state is one conditional update of the row, so a cancel and a
// runner never both win: a canceled job never starts, and a running one that is canceled is aborted and records
// nothing.
import { randomUUID } from 'node:crypto';
import type { Transactions } from '../db/index.js';
import type { GenerationJobsRepository, GenerationJobView, UsersRepository } from '../db/repositories/index.js';
import type { GenerationJobRow, GenerationJobStatus } from '../db/schema.js';
import { AppError, jobFinished, jobNotFound, unauthorized } from '../errors.js';
import { statusOf } from '../http/error-handler.js';
import { decodeCursor, encodeCursor, type GenerationService } from '../services/generation.js';
import type { GenerationNodes } from '../services/generation-nodes.js';
import { createJobQueue, type JobQueue, type JobQueueOptions, type QueuedJob } from './queue.js';

export interface NewJob {
  images: string[];
  prompt: string;
  projectId?: string;
  nodeId?: string;
  model?: string;
}

export interface GenerationJobs {
  create(userId: string, input: NewJob): Promise<GenerationJobView>;
  get(userId: string, id: string): Promise<GenerationJobView>;
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
  transactions: Transactions;
  generation: Pick<GenerationService, 'generate'>;
  /** Generations into a canvas node: checked when the job is created (a refusal creates nothing). */
  nodes?: Pick<GenerationNodes, 'authorize'>;
  /** The queue's connection and this instance's share of the work. */
  queue: Pick<JobQueueOptions, 'url' | 'concurrency'>;
  /** Jobs one user may have running at once, on all instances together (0 = no limit). */
  runningPerUser: number;
  log: JobQueueOptions['log'] & { info(o: object, m: string): void };
  /** The queue (default: pg-boss, ./queue.ts). */
  createQueue?: (opts: JobQueueOptions) => JobQueue;
}

/** Job ids: `job_` and a UUID. Anything else is no job of anyone's (404 without a query). */
const JOB_ID = /^job_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long a job that found its user at the running limit waits before it is offered again. */
const RECHECK_SECONDS = 1;

export function createGenerationJobs(deps: GenerationJobsDeps): GenerationJobs {
  const { jobs, transactions, log } = deps;
  /** This instance's running jobs: a cancel here aborts at once (one elsewhere arrives through pg-boss's signal). */
  const running = new Map<string, AbortController>();
  const queue = (deps.createQueue ?? createJobQueue)({ ...deps.queue, runningPerUser: deps.runningPerUser, run, dead, log });

  async function find(userId: string, id: string): Promise<GenerationJobView> {
    const job = JOB_ID.test(id) ? await jobs.find(userId, id) : null;
    if (!job) throw jobNotFound();
    return job;
  }

  /** The strict per-user check, under a lock on the user's jobs: marks the job running, or says why not. */
  async function claim({ jobId, userId }: QueuedJob, retry: boolean): Promise<GenerationJobRow | 'gone' | 'wait'> {
    return transactions.transaction(async (tx) => {
      await jobs.lockUser(userId, tx);
      const row = await jobs.get(jobId, tx);
      const rerun = retry && row?.status === 'running'; // its instance died: this is pg-boss's one retry
      if (!row || (row.status !== 'queued' && !rerun)) return 'gone';
      if (!rerun && deps.runningPerUser > 0 && (await jobs.countRunning(userId, tx)) >= deps.runningPerUser) return 'wait';
      await jobs.markRunning(jobId, { retry }, tx);
      return row;
    });
  }

  async function run(job: QueuedJob, signal: AbortSignal, retry: boolean): Promise<void> {
    const claimed = await claim(job, retry);
    if (claimed === 'gone') return; // canceled (or finished) before it started
    if (claimed === 'wait') {
      // pg-boss's group limit let it through a moment early (simultaneous fetches): offered again shortly.
      const bossJobId = await queue.send(job, { afterSeconds: RECHECK_SECONDS });
      await jobs.setBossJobId(job.jobId, bossJobId);
      return;
    }
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal.addEventListener('abort', onAbort);
    running.set(job.jobId, abort);
    try {
      const user = await deps.users.findById(job.userId);
      if (!user) {
        await jobs.finish(job.jobId, { status: 'failed', error: 'Unauthorized', errorStatus: 401 });
        return;
      }
      const { images, prompt, projectId, nodeId } = claimed;
      try {
        const result = await deps.generation.generate(
          { id: user.id, email: user.email },
          { images, prompt, ...(projectId !== null && nodeId !== null ? { projectId, nodeId } : {}), signal: abort.signal },
        );
        const recorded = await jobs.finish(job.jobId, { status: 'succeeded', outputUrl: result.imageUrl, generationId: result.generationId });
        if (!recorded) log.warn({ jobId: job.jobId, generationId: result.generationId }, 'a generation job was canceled as its result was being recorded; the generation stays');
      } catch (err) {
        if (abort.signal.aborted) return; // canceled: the row says so already, and nothing was recorded
        if (!(err instanceof AppError)) log.error({ err, jobId: job.jobId }, 'a generation job failed unexpectedly');
        const failure = err instanceof AppError ? { error: err.message, errorDetails: err.details, errorStatus: statusOf((err as AppError).code) } : { error: 'Failed to generate image', errorStatus: 500 };
        await jobs.finish(job.jobId, { status: 'failed', ...failure });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      running.delete(job.jobId);
    }
  }

  async function dead(job: QueuedJob): Promise<void> {
    if (await jobs.failUnfinished(job.jobId, 'the instance running the job stopped, and so did the one running its retry')) {
      log.warn({ jobId: job.jobId }, 'a generation job was given up after its retry');
    }
  }

  return {
    async create(userId, input) {
      const node = input.projectId !== undefined && input.nodeId !== undefined ? { projectId: input.projectId, nodeId: input.nodeId } : undefined;
      if (node && deps.nodes) await deps.nodes.authorize(userId, node); // 404/403 now, as POST /api/image answers them
      const id = `job_${randomUUID()}`;
      const job = { id, userId, prompt: input.prompt, images: input.images, projectId: node?.projectId ?? null, nodeId: node?.nodeId ?? null, model: input.model ?? null, createdAt: new Date() };
      if (!(await jobs.insert(job))) throw unauthorized(); // a session that outlived its user
      try {
        await jobs.setBossJobId(id, await queue.send({ jobId: id, userId }));
      } catch (err) {
        // Not queued, and not acknowledged (the answer is an error): the row goes too, if the database lets it.
        await jobs.delete(id).catch(() => {});
        throw err;
      }
      return find(userId, id);
    },

    get: find,

    async list(userId, { status, projectId, cursor, limit }) {
      const after = cursor ? decodeCursor(cursor) : undefined;
      const rows = await jobs.listByUser(userId, { status, projectId, after, limit: limit + 1 });
      const items = rows.slice(0, limit);
      return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
    },

    async cancel(userId, id) {
      const job = await find(userId, id);
      const changed = await jobs.cancel(userId, id);
      if (!changed) throw jobNotFound();
      if (changed.before !== 'queued' && changed.before !== 'running') throw jobFinished(changed.before);
      running.get(id)?.abort();
      if (job.bossJobId) {
        await queue.cancel(job.bossJobId).catch((err: unknown) => log.warn({ err, jobId: id }, 'could not cancel a job in the queue (it will not run: its row is canceled)'));
      }
      return find(userId, id);
    },

    async resume() {
      if (await jobs.anyUnfinished()) await queue.start();
    },

    async stop(timeoutMs) {
      await queue.stop(timeoutMs);
    },
  };
}
