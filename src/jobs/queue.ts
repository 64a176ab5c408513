// The job queue: pg-boss (schema `pgboss`) carrying generation jobs to this instance's runner. Settings measured
// for pg-boss 12.38 (NOTES.md): LISTEN/NOTIFY for ~1 ms pickup, polling every 0.5 s for retried jobs (which send no
// NOTIFY), heartbeats every 10 s (the minimum) with the supervisor and monitor each second (the monitor is what
// fails a job whose heartbeat lapsed; its default, 60 s, would delay that a minute), so a job whose instance died is
// retried once about 10 s later; after that retry it goes to the dead-letter queue, which fails our row.
// Started lazily (start()): pg-boss's own start-up (schema check, queue set-up, listener) is paid by an instance
// only when it has jobs to run.
// Fairness across users: each job carries its turn as pg-boss's priority (the generation-jobs repository's
// nextPriority: users take turns, and a job whose user had nothing else unfinished goes first), and one of this
// instance's JOBS_CONCURRENCY workers takes only such first jobs, so users who each keep jobs running never hold
// up one who has none.
import { PgBoss, type Job } from 'pg-boss';
import { FIRST_JOB_PRIORITY } from '../db/repositories/generation-jobs.js';

export const GENERATION_QUEUE = 'generation';
export const GENERATION_DEAD_QUEUE = 'generation-dead';

/** What a pg-boss job carries: our job's id and its user (the per-user group). */
export interface QueuedJob {
  jobId: string;
  userId: string;
}

export interface JobQueueOptions {
  url: string;
  /** Jobs this instance runs at once. */
  concurrency: number;
  /** Jobs one user may have running at once (pg-boss's group limit; the runner checks it strictly too). 0: none. */
  runningPerUser: number;
  /** Runs a job; `retry` when pg-boss retries it (its first run's instance died). Throws only when it could not record. */
  run(job: QueuedJob, signal: AbortSignal, retry: boolean): Promise<void>;
  /** A job pg-boss gave up on (its runs' instances died, or recording failed twice). */
  dead(job: QueuedJob): Promise<void>;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
}

export interface JobQueue {
  /** Starts pg-boss and this instance's workers; later calls share the first start. */
  start(): Promise<void>;
  /** Queues a job (starting the queue first), to start at once or after `afterSeconds`, in its turn (`priority`); its pg-boss id. */
  send(job: QueuedJob, opts?: { afterSeconds?: number; priority?: number }): Promise<string>;
  /** Cancels the pg-boss job: a queued one never runs, a running one's signal aborts (on whichever instance). */
  cancel(bossJobId: string): Promise<void>;
  /** Stops the workers, waiting up to `timeoutMs` for running jobs. A queue never started stops at once. */
  stop(timeoutMs: number): Promise<void>;
}

const WORK = { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 };

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  let started: Promise<PgBoss> | undefined;
  let stopping = false;

  async function boot(): Promise<PgBoss> {
    const boss = new PgBoss({ connectionString: opts.url, useListenNotify: true, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, max: Math.max(4, opts.concurrency + 2) });
    boss.on('error', (err: Error) => opts.log.warn({ err }, 'job queue error'));
    await boss.start();
    await ensureQueue(boss, GENERATION_DEAD_QUEUE, { notify: true });
    await ensureQueue(boss, GENERATION_QUEUE, { notify: true, heartbeatSeconds: 10, retryLimit: 1, retryDelay: 0, expireInSeconds: 3600, deadLetter: GENERATION_DEAD_QUEUE });
    const perUser = opts.runningPerUser > 0 ? { groupConcurrency: opts.runningPerUser } : {};
    const handler = async ([job]: Job<QueuedJob>[]) => opts.run(job.data, job.signal, job.retryCount > 0);
    // With two workers or more, one is kept for jobs of users who had nothing else unfinished (FIRST_JOB_PRIORITY).
    const firstOnly = opts.concurrency > 1 ? 1 : 0;
    await boss.work<QueuedJob>(GENERATION_QUEUE, { ...WORK, localConcurrency: opts.concurrency - firstOnly, ...perUser }, handler);
    if (firstOnly) await boss.work<QueuedJob>(GENERATION_QUEUE, { ...WORK, localConcurrency: firstOnly, minPriority: FIRST_JOB_PRIORITY, ...perUser }, handler);
    await boss.work<QueuedJob>(GENERATION_DEAD_QUEUE, WORK, async ([job]: Job<QueuedJob>[]) => opts.dead(job.data));
    return boss;
  }

  const start = () => {
    if (stopping) return Promise.reject(new Error('the job queue is stopping'));
    started ??= boot().catch((err: unknown) => {
      started = undefined; // the next job tries again (the database may be back)
      throw err;
    });
    return started;
  };

  return {
    async start() {
      await start();
    },
    async send(job, { afterSeconds, priority } = {}) {
      const boss = await start();
      const id = await boss.send(GENERATION_QUEUE, job, { group: { id: job.userId }, ...(afterSeconds ? { startAfter: afterSeconds } : {}), ...(priority ? { priority } : {}) });
      if (!id) throw new Error('the job queue refused a job');
      return id;
    },
    async cancel(bossJobId) {
      const boss = await start();
      await boss.cancel(GENERATION_QUEUE, bossJobId);
    },
    async stop(timeoutMs) {
      stopping = true;
      const boss = await started?.catch(() => undefined);
      started = undefined; // a second stop has nothing to do
      await boss?.stop({ graceful: true, timeout: timeoutMs });
    },
  };
}

async function ensureQueue(boss: PgBoss, name: string, options: Parameters<PgBoss['createQueue']>[1]): Promise<void> {
  if (await boss.getQueue(name)) await boss.updateQueue(name, options);
  else await boss.createQueue(name, options);
}
