// The job queue: pg-boss (schema `pgboss`) carrying jobs to this instance's runner (./runner.ts). It only carries
// them: the job row is the record of a job's state, and the runner's heartbeat on it decides when a job's instance
// died and what becomes of the job (a retry is a new pg-boss job; a delivery of an older one finds the row's
// `boss_job_id` changed and does nothing). Settings measured for pg-boss 12.38 (NOTES.md): LISTEN/NOTIFY for ~1 ms
// pickup, polling every 0.5 s for delayed jobs (which send no NOTIFY), pg-boss's own heartbeat every 10 s (the
// minimum) with the supervisor and monitor each second, so a dead instance's pg-boss job stops holding its user's
// group slot about 10 s later; pg-boss never retries (retryLimit 0: retries are the runner's). Those intervals and
// pg-boss's pool size are settings (JobQueueSettings; the defaults are these numbers, docs/deploy.md "PostgreSQL
// connections and poolers"): an idle instance's transactions are mostly this polling and supervision.
// pg-boss holds at most `poolSize` + 1 connections (its pool and its LISTEN connection), all with the URL given
// (DATABASE_DIRECT_URL when set: LISTEN needs a session a transaction-mode pooler does not keep).
// Started lazily (start()): pg-boss's own start-up (schema check, queue set-up, listener) is paid by an instance
// only when it has jobs to run.
// Fairness across users: each job carries its turn as pg-boss's priority (the generation-jobs repository's
// nextPriority: users take turns, and a job whose user had nothing else unfinished goes first), and one of this
// instance's JOBS_CONCURRENCY workers takes only such first jobs, so users who each keep jobs running never hold
// up one who has none.
import { PgBoss, type Job } from 'pg-boss';
import { DEFAULT_JOB_QUEUE_SETTINGS, defaultJobsPoolSize, type JobQueueSettings } from '../config.js';
import { FIRST_JOB_PRIORITY } from '../db/repositories/generation-jobs.js';
import { errorKey, onceEvery } from '../log-limiter.js';

export const GENERATION_QUEUE = 'generation';
/**
 * The dead-letter queue of pg-boss's own retries, before they were the runner's: nothing sends to it nor works it. A
 * deployment that had it loses it at boot (with GENERATION_QUEUE's pointer to it), or once no old job names it.
 */
export const RETIRED_QUEUES = ['generation-dead'];

/** What a pg-boss job carries: our job's id and its user (the per-user group). */
export interface QueuedJob {
  jobId: string;
  userId: string;
}

/** A delivery: what the pg-boss job carries, and its pg-boss id (a job's row names its current one). */
export interface DeliveredJob extends QueuedJob {
  bossJobId: string;
}

export interface JobQueueOptions {
  /** The connection string pg-boss uses for its pool and its LISTEN connection. */
  url: string;
  /** Defaults: DEFAULT_JOB_QUEUE_SETTINGS and defaultJobsPoolSize(concurrency). */
  settings?: Partial<JobQueueSettings>;
  /** Jobs this instance runs at once. */
  concurrency: number;
  /** Jobs one user may have running at once (pg-boss's group limit; the runner checks it strictly too). 0: none. */
  runningPerUser: number;
  /** Runs a job. Throws only when it could not record. */
  run(job: DeliveredJob, signal: AbortSignal): Promise<void>;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
}

export interface JobQueue {
  /** Starts pg-boss and this instance's workers; later calls share the first start. */
  start(): Promise<void>;
  /** Queues a job (starting the queue first), to start at once or after `afterSeconds`, in its turn (`priority`); its pg-boss id. */
  send(job: QueuedJob, opts?: { afterSeconds?: number; priority?: number }): Promise<string>;
  /**
   * Queues several jobs in one statement (pg-boss's insert: the queue's settings apply as with send, one NOTIFY), each
   * under the pg-boss id given (a uuid, named in its row by the caller), in its turn.
   */
  sendMany(jobs: Array<{ job: QueuedJob; bossJobId: string; priority: number }>): Promise<void>;
  /** Cancels the pg-boss job: a queued one never runs, a running one's signal aborts (on whichever instance). */
  cancel(bossJobId: string): Promise<void>;
  /**
   * This instance's workers take no more jobs (a stop begins: its running jobs are being handed back); sending still
   * works, and what is sent is left to other instances.
   */
  pause(): Promise<void>;
  /** Stops the workers, waiting up to `timeoutMs` for running jobs. A queue never started stops at once. */
  stop(timeoutMs: number): Promise<void>;
}

/** A repeated queue error (PostgreSQL restarting: ~12 a second) is told again at most this often. */
const ERRORS_TOLD_EVERY_MS = 30_000;

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  let started: Promise<PgBoss> | undefined;
  let stopping = false;
  /** While a stop waits for the running jobs: they are handed back through it (runner.ts), then it is gone. */
  let draining: PgBoss | undefined;
  const queueError = onceEvery(ERRORS_TOLD_EVERY_MS, (fields, msg) => opts.log.warn(fields, msg));
  const settings: JobQueueSettings = { ...DEFAULT_JOB_QUEUE_SETTINGS, poolSize: defaultJobsPoolSize(opts.concurrency), ...opts.settings };
  const WORK = { pollingIntervalSeconds: settings.pollingIntervalSeconds, notifyPollingIntervalSeconds: settings.pollingIntervalSeconds };

  async function boot(): Promise<PgBoss> {
    const boss = new PgBoss({
      connectionString: opts.url,
      application_name: 'image-canvas-jobs',
      useListenNotify: true,
      supervise: settings.supervise,
      superviseIntervalSeconds: settings.superviseIntervalSeconds,
      monitorIntervalSeconds: settings.monitorIntervalSeconds,
      maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
      max: settings.poolSize,
    });
    boss.on('error', (err: Error) => queueError(errorKey(err), { err }, 'job queue error')); // once per distinct error and 30 s
    await boss.start();
    await ensureQueue(boss, GENERATION_QUEUE, { notify: true, heartbeatSeconds: 10, retryLimit: 0, expireInSeconds: 3600 });
    await retireQueues(boss, opts.log);
    const perUser = opts.runningPerUser > 0 ? { groupConcurrency: opts.runningPerUser } : {};
    const handler = async ([job]: Job<QueuedJob>[]) => opts.run({ ...job.data, bossJobId: job.id }, job.signal);
    // With two workers or more, one is kept for jobs of users who had nothing else unfinished (FIRST_JOB_PRIORITY).
    const firstOnly = opts.concurrency > 1 ? 1 : 0;
    await boss.work<QueuedJob>(GENERATION_QUEUE, { ...WORK, localConcurrency: opts.concurrency - firstOnly, ...perUser }, handler);
    if (firstOnly) await boss.work<QueuedJob>(GENERATION_QUEUE, { ...WORK, localConcurrency: firstOnly, minPriority: FIRST_JOB_PRIORITY, ...perUser }, handler);
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
      const boss = draining ?? (await start());
      const id = await boss.send(GENERATION_QUEUE, job, { group: { id: job.userId }, ...(afterSeconds ? { startAfter: afterSeconds } : {}), ...(priority ? { priority } : {}) });
      if (!id) throw new Error('the job queue refused a job');
      return id;
    },
    async sendMany(jobs) {
      if (jobs.length === 0) return;
      const boss = draining ?? (await start());
      await boss.insert(
        GENERATION_QUEUE,
        jobs.map(({ job, bossJobId, priority }) => ({ id: bossJobId, data: job, group: { id: job.userId }, ...(priority ? { priority } : {}) })),
      );
    },
    async cancel(bossJobId) {
      const boss = await start();
      await boss.cancel(GENERATION_QUEUE, bossJobId);
    },
    async pause() {
      const boss = await started?.catch(() => undefined);
      await boss?.offWork(GENERATION_QUEUE, { wait: false });
    },
    async stop(timeoutMs) {
      stopping = true;
      const boss = await started?.catch(() => undefined);
      started = undefined; // a second stop has nothing to do
      draining = boss;
      try {
        await boss?.stop({ graceful: true, timeout: timeoutMs });
      } finally {
        draining = undefined;
      }
    },
  };
}

async function retireQueues(boss: PgBoss, log: JobQueueOptions['log']): Promise<void> {
  if ((await boss.getQueue(GENERATION_QUEUE))?.deadLetter) await boss.updateQueue(GENERATION_QUEUE, { deadLetter: null });
  for (const name of RETIRED_QUEUES) {
    if (!(await boss.getQueue(name))) continue;
    // Refused while an old job still names it as its dead letter (until pg-boss deletes such jobs): tried at each boot.
    await boss.deleteQueue(name).catch((err: unknown) => log.warn({ err, queue: name }, 'a retired job queue stays until no old job names it'));
  }
}

async function ensureQueue(boss: PgBoss, name: string, options: Parameters<PgBoss['createQueue']>[1]): Promise<void> {
  if (await boss.getQueue(name)) await boss.updateQueue(name, options);
  else await boss.createQueue(name, options);
}
