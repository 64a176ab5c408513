// Generation jobs (src/jobs/, docs/api.md "Generation jobs"): our record of each asynchronous generation. Every
// change of state is one conditional UPDATE, so a cancel and a runner never both win.
import { and, asc, count, desc, eq, gt, inArray, lt, max, or, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { generationJobEvents, generationJobs, type GenerationJobRow, type GenerationJobStatus, type JobProgress } from '../schema.js';

/**
 * The channel a committed job event is announced on, for every instance's SSE streams: the payload is the user's id,
 * followed by a space and the job's id when the event is the job's cancel (so the instance running the job can abort
 * it without reading the events).
 */
export const JOB_EVENTS_CHANNEL = 'generation_job_events';

/** The canvas node a job writes its state and result into. */
export interface GenerationNode {
  projectId: string;
  nodeId: string;
}

/** One change of a job's state as its owner's event stream shows it. */
export interface GenerationJobEvent {
  id: number;
  job: Record<string, unknown>;
}

/** How a job ended, as the runner records it. */
export interface JobOutcome {
  status: 'succeeded' | 'failed';
  outputUrl?: string;
  /** The model that made the output (after a fallback, the fallback): replaces the one asked for. */
  model?: string;
  outputText?: string;
  generationId?: string;
  error?: string;
  errorDetails?: string;
  /** The error's code (src/errors.ts ErrorCode): the API derives its HTTP status from it. */
  errorCode?: string;
  errorExtra?: Record<string, unknown>;
  errorRetryAfterSeconds?: number;
}

export type NewGenerationJob = Pick<typeof generationJobs.$inferInsert, 'id' | 'taskKind' | 'userId' | 'projectId' | 'nodeId' | 'prompt' | 'images' | 'model' | 'promptInMetadata' | 'createdAt' | 'queuePriority' | 'held' | 'runId' | 'cacheKey' | 'seed' | 'params'>;

/** A running job whose heartbeat lapsed (its instance died): what the runner needs to retry or fail it. */
export type LapsedJob = Pick<GenerationJobRow, 'id' | 'taskKind' | 'userId' | 'held' | 'attempts' | 'projectId' | 'nodeId' | 'queuePriority' | 'bossJobId' | 'runId'>;

/** The job queue as the rows say, for the metrics (every instance reads the same numbers). */
export interface JobQueueCounts {
  queued: number;
  running: number;
  /** Seconds since the oldest queued job was created; 0 when none is queued. */
  oldestQueuedAgeSeconds: number;
}

/** The priority of a job queued by a user with nothing else queued or running: ahead of every round. */
export const FIRST_JOB_PRIORITY = 1;

/** A job's row with its place in the queue (1 = next to start), null when it is not queued. */
export type GenerationJobView = GenerationJobRow & { queuePosition: number | null };

export interface GenerationJobsRepository {
  /** false when the user does not exist (any more). */
  insert(job: NewGenerationJob, tx?: Tx): Promise<boolean>;
  /** Several jobs in one statement (a run's batch); false when their user is gone (nothing inserted). */
  insertMany(jobs: NewGenerationJob[], tx: Tx): Promise<boolean>;
  /** The user's jobs with these ids, with their queue positions, in the order of `ids` (missing ones left out). */
  findMany(userId: string, ids: string[], tx?: Tx): Promise<GenerationJobView[]>;
  /**
   * The priorities `n` jobs queued one after another would get from nextPriority (one query): the first as it says,
   * the second one round later, each next one round after the one before. Call it under `lockUser`.
   */
  nextPriorities(userId: string, n: number, tx: Tx): Promise<number[]>;
  /** Whether another user's job is queued (the chain handoff then leaves the next job to the queue, in its turn). */
  othersQueued(userId: string, tx: Tx): Promise<boolean>;
  /** Events of several of the user's jobs (each its state now) in one statement, announced once. */
  recordEvents(userId: string, events: Array<{ id: string; job: Record<string, unknown> }>, tx: Tx): Promise<void>;
  setBossJobId(id: string, bossJobId: string, tx?: Tx): Promise<void>;
  /** The user's job with its queue position; null when the user has no job with that id. */
  find(userId: string, id: string, tx?: Tx): Promise<GenerationJobView | null>;
  /** Any user's job (the runner). */
  get(id: string, tx?: Tx): Promise<GenerationJobRow | null>;
  /** The user's jobs, newest first (`createdAt`, then `id`), strictly after `after`, optionally filtered. */
  listByUser(userId: string, opts: { status?: GenerationJobStatus; projectId?: string; after?: { createdAt: Date; id: string }; limit: number }, tx?: Tx): Promise<GenerationJobView[]>;
  /**
   * The priority of the user's next job (pg-boss runs the highest first, then the oldest): users take turns.
   * FIRST_JOB_PRIORITY when the user has nothing queued or running; else minus its round: one more than the
   * user's latest unfinished job's, and never behind the round being served now (the lowest round queued, else
   * the highest running), so a user who kept jobs queued waits its turn behind others, not behind its own
   * backlog, and a deep backlog is not passed over forever. Call it under `lockUser`.
   */
  nextPriority(userId: string, tx: Tx): Promise<number>;
  /** Locks the user's jobs for the running-limit check until the transaction ends (an advisory lock on the user). */
  lockUser(userId: string, tx: Tx): Promise<void>;
  /** The user's running jobs whose heartbeat is younger than `lapseMs` (a dead instance's count for nothing). */
  countRunning(userId: string, lapseMs: number, tx?: Tx): Promise<number>;
  /**
   * `queued` → `running` (its heartbeat now, holding nothing of the quota yet), one attempt more: the attempt's
   * number; null when the job is in another state.
   */
  markRunning(id: string, tx?: Tx): Promise<number | null>;
  /** `running` (attempt `attempt`) → an outcome; false when the job is no longer that run (canceled, or retried elsewhere). */
  finish(id: string, attempt: number, outcome: JobOutcome, tx?: Tx): Promise<boolean>;
  /** A running job's latest progress (false when it is not that run any more). */
  setProgress(id: string, attempt: number, progress: JobProgress, tx?: Tx): Promise<boolean>;
  /** Renews the heartbeat of these running jobs (this instance's). */
  heartbeat(ids: string[], tx?: Tx): Promise<void>;
  /** Running jobs whose heartbeat is older than `lapseMs` (at most `limit`, the longest lapsed first). */
  lapsed(lapseMs: number, limit: number, tx?: Tx): Promise<LapsedJob[]>;
  /** A lapsed job back to `queued` for its retry (still running and lapsed); false otherwise. */
  requeue(id: string, lapseMs: number, tx?: Tx): Promise<boolean>;
  /**
   * Hands a job this instance was running (this `attempt`) back to the queue as it stops: queued again, its attempt
   * not counted (a shutdown is no failure). false when the job is no longer that run (canceled, finished).
   */
  release(id: string, attempt: number, tx?: Tx): Promise<boolean>;
  /** A job of the node that is queued or running (`exceptId` aside): its id and status; null when none. */
  activeInNode(projectId: string, nodeId: string, tx?: Tx, exceptId?: string): Promise<{ id: string; status: GenerationJobStatus } | null>;
  /** Serialises starts of one node (an advisory lock until the transaction ends). */
  lockNode(projectId: string, nodeId: string, tx: Tx): Promise<void>;
  /** `queued` or `running` → `canceled`; the row before the change (null: no such job of the user). */
  cancel(userId: string, id: string, tx?: Tx): Promise<{ before: GenerationJobStatus } | null>;
  /** Jobs queued and running, and the oldest queued job's age (the partial indexes on status answer it). */
  queueCounts(tx?: Tx): Promise<JobQueueCounts>;
  /** Whether any job is queued or running (an instance starts its queue at boot only then). */
  anyUnfinished(tx?: Tx): Promise<boolean>;
  /** A job whose instance died: failed as `job_interrupted` with the reason, if still unfinished (and, with `lapseMs`, still lapsed). */
  failUnfinished(id: string, reason: string, tx?: Tx, lapseMs?: number): Promise<boolean>;
  /** Queued jobs tied to a node, with their positions (oldest first, at most `limit`). */
  queuedInNodes(limit: number, tx?: Tx): Promise<GenerationJobView[]>;
  /** Whether a job other than `exceptId` is queued or running into the node. */
  othersInNode(projectId: string, nodeId: string, exceptId: string, tx?: Tx): Promise<boolean>;
  /**
   * Records an event of the user's job and announces it (NOTIFY, sent at commit). Call it under `lockUser` in the
   * transaction that changed the job: the user's event ids then commit in increasing order.
   */
  recordEvent(userId: string, jobId: string, job: Record<string, unknown>, tx: Tx): Promise<number>;
  /** The user's events after `afterId`, oldest first. */
  eventsAfter(userId: string, afterId: number, limit: number, tx?: Tx): Promise<GenerationJobEvent[]>;
  /** The id of the user's newest event (0 when none). */
  lastEventId(userId: string, tx?: Tx): Promise<number>;
  /** Deletes events older than `hours`; how many went. */
  pruneEvents(hours: number, tx?: Tx): Promise<number>;
}

/**
 * Queued jobs that start before or with this one: its place in the queue (all users' queued jobs in the order
 * the runner takes them: the highest priority first, then the oldest).
 */
// The outer row's columns are named with their table: drizzle writes a column bare, and inside the subquery a bare
// name would be q's own (every queued job would count).
export const queuePosition = sql<number | null>`CASE WHEN generation_jobs.status = 'queued' THEN (
  SELECT count(*)::int FROM generation_jobs q
  WHERE q.status = 'queued' AND (q.queue_priority > generation_jobs.queue_priority
    OR (q.queue_priority = generation_jobs.queue_priority AND (q.created_at, q.id) <= (generation_jobs.created_at, generation_jobs.id)))
) END`.as('queue_position');

/**
 * GenerationJobsRepository.nextPriority (rounds are minus the priorities at or below 0), with the round being served
 * now in the same row (the second of a batch, after a first job at FIRST_JOB_PRIORITY, is served in it).
 */
const nextPriorityParts = (userId: string) => sql<{ priority: number; round: number }>`
  WITH mine AS (SELECT queue_priority AS p FROM generation_jobs WHERE user_id = ${userId}::uuid AND status IN ('queued', 'running')),
  now_served AS (SELECT COALESCE(
    (SELECT -max(queue_priority) FROM generation_jobs WHERE status = 'queued' AND queue_priority <= 0),
    (SELECT -min(queue_priority) FROM generation_jobs WHERE status = 'running' AND queue_priority <= 0),
    0) AS round)
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM mine) THEN ${FIRST_JOB_PRIORITY}
    ELSE -GREATEST((SELECT round FROM now_served), COALESCE((SELECT -min(p) + 1 FROM mine WHERE p <= 0), 0))
  END::int AS priority, (SELECT round FROM now_served)::int AS round`;

/** The time before which a heartbeat has lapsed. */
const lapsedBefore = (lapseMs: number) => sql`now() - make_interval(secs => ${lapseMs / 1000}::float8)`;
/** A running job's heartbeat has lapsed (or it never had one: a row of before heartbeats). */
const lapsedHeartbeat = (lapseMs: number) => sql`(${generationJobs.heartbeatAt} IS NULL OR ${generationJobs.heartbeatAt} < ${lapsedBefore(lapseMs)})`;

/** JOBS_HEARTBEAT_LAPSE_MS's default: a running job whose heartbeat is older is a dead instance's. */
export const DEFAULT_HEARTBEAT_LAPSE_MS = 30_000;

/** A live job (running, its heartbeat younger than `lapseMs`): its instance is alive, so it counts. */
export const liveJob = (lapseMs: number) => sql`(${generationJobs.status} = 'running' AND ${generationJobs.heartbeatAt} >= ${lapsedBefore(lapseMs)})`;
/** A live job holding a reservation of the free quota (the generations repository's `reserve`). */
export const liveJobHolding = (lapseMs: number) => sql`(${liveJob(lapseMs)} AND ${generationJobs.reservedUsd} IS NOT NULL)`;

export function createGenerationJobsRepository(db: Db): GenerationJobsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  const selectView = (tx?: Tx) => on(tx).select({ job: generationJobs, queuePosition }).from(generationJobs);
  const view = (r: { job: GenerationJobRow; queuePosition: number | null }): GenerationJobView => ({ ...r.job, queuePosition: r.queuePosition });
  return {
    async insert(job, tx) {
      try {
        await on(tx).insert(generationJobs).values(job);
        return true;
      } catch (err) {
        const e = err as { code?: string; cause?: { code?: string } };
        if ((e.cause?.code ?? e.code) === '23503') return false; // foreign_key_violation: no such user
        throw err;
      }
    },
    async insertMany(jobs, tx) {
      if (jobs.length === 0) return true;
      try {
        // In chunks: PostgreSQL takes at most 65,535 parameters a statement.
        for (let i = 0; i < jobs.length; i += 500) await tx.insert(generationJobs).values(jobs.slice(i, i + 500));
        return true;
      } catch (err) {
        const e = err as { code?: string; cause?: { code?: string } };
        if ((e.cause?.code ?? e.code) === '23503') return false; // foreign_key_violation: no such user
        throw err;
      }
    },
    async findMany(userId, ids, tx) {
      if (ids.length === 0) return [];
      const rows = await selectView(tx).where(and(eq(generationJobs.userId, userId), inArray(generationJobs.id, ids)));
      const byId = new Map(rows.map((r) => [r.job.id, view(r)]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
    async nextPriorities(userId, n, tx) {
      if (n <= 0) return [];
      const { rows } = await tx.execute<{ priority: number; round: number }>(nextPriorityParts(userId));
      const first = Number(rows[0].priority);
      // As nextPriority would answer after each insert: a first job leaves the round as it is (it is above 0); a job
      // at or below 0 is the user's lowest and the lowest queued, so the next is one round after it.
      const second = first === FIRST_JOB_PRIORITY ? -Number(rows[0].round) : first - 1;
      return Array.from({ length: n }, (_, i) => (i === 0 ? first : second - (i - 1)));
    },
    async othersQueued(userId, tx) {
      const { rows } = await tx.execute<{ any: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM generation_jobs WHERE status = 'queued' AND user_id <> ${userId}::uuid) AS any`);
      return rows[0].any === true;
    },
    async recordEvents(userId, events, tx) {
      if (events.length === 0) return;
      const values = sql.join(
        events.map((e) => sql`(${userId}::uuid, ${e.id}::text, ${JSON.stringify(e.job)}::jsonb)`),
        sql`, `,
      );
      await tx.execute(sql`
        WITH e AS (INSERT INTO generation_job_events (user_id, job_id, job) VALUES ${values} RETURNING id)
        SELECT pg_notify(${JOB_EVENTS_CHANNEL}, ${userId}) FROM (SELECT 1 FROM e LIMIT 1) AS one`);
    },
    async setBossJobId(id, bossJobId, tx) {
      await on(tx).update(generationJobs).set({ bossJobId }).where(eq(generationJobs.id, id));
    },
    async find(userId, id, tx) {
      const [row] = await selectView(tx).where(and(eq(generationJobs.userId, userId), eq(generationJobs.id, id)));
      return row ? view(row) : null;
    },
    async get(id, tx) {
      const [row] = await on(tx).select().from(generationJobs).where(eq(generationJobs.id, id));
      return row ?? null;
    },
    async listByUser(userId, { status, projectId, after, limit }, tx) {
      const rows = await selectView(tx)
        .where(
          and(
            eq(generationJobs.userId, userId),
            status ? eq(generationJobs.status, status) : undefined,
            projectId ? eq(generationJobs.projectId, projectId) : undefined,
            after ? or(lt(generationJobs.createdAt, after.createdAt), and(eq(generationJobs.createdAt, after.createdAt), lt(generationJobs.id, after.id))) : undefined,
          ),
        )
        .orderBy(desc(generationJobs.createdAt), desc(generationJobs.id))
        .limit(limit);
      return rows.map(view);
    },
    async nextPriority(userId, tx) {
      const { rows } = await tx.execute<{ priority: number; round: number }>(nextPriorityParts(userId));
      return Number(rows[0].priority);
    },
    async lockUser(userId, tx) {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`generation-jobs:${userId}`}, 0))`);
    },
    async countRunning(userId, lapseMs, tx) {
      const [row] = await on(tx)
        .select({ n: count() })
        .from(generationJobs)
        .where(and(eq(generationJobs.userId, userId), liveJob(lapseMs)));
      return row.n;
    },
    async markRunning(id, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ status: 'running', attempts: sql`${generationJobs.attempts} + 1`, startedAt: sql`now()`, heartbeatAt: sql`now()`, progress: null, reservedUsd: null })
        .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'queued')))
        .returning({ attempts: generationJobs.attempts });
      return rows[0]?.attempts ?? null;
    },
    async finish(id, attempt, outcome, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ ...outcome, progress: null, heartbeatAt: null, finishedAt: sql`now()` })
        .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'running'), eq(generationJobs.attempts, attempt)))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
    async setProgress(id, attempt, progress, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ progress })
        .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'running'), eq(generationJobs.attempts, attempt)))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
    async heartbeat(ids, tx) {
      if (ids.length === 0) return;
      await on(tx).update(generationJobs).set({ heartbeatAt: sql`now()` }).where(and(inArray(generationJobs.id, ids), eq(generationJobs.status, 'running')));
    },
    async lapsed(lapseMs, limit, tx) {
      return on(tx)
        .select({
          id: generationJobs.id,
          taskKind: generationJobs.taskKind,
          userId: generationJobs.userId,
          held: generationJobs.held,
          attempts: generationJobs.attempts,
          projectId: generationJobs.projectId,
          nodeId: generationJobs.nodeId,
          queuePriority: generationJobs.queuePriority,
          bossJobId: generationJobs.bossJobId,
          runId: generationJobs.runId,
        })
        .from(generationJobs)
        .where(and(eq(generationJobs.status, 'running'), lapsedHeartbeat(lapseMs)))
        .orderBy(sql`${generationJobs.heartbeatAt} NULLS FIRST`)
        .limit(limit);
    },
    async requeue(id, lapseMs, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ status: 'queued', heartbeatAt: null, progress: null, startedAt: null, reservedUsd: null })
        .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'running'), lapsedHeartbeat(lapseMs)))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
    async release(id, attempt, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ status: 'queued', attempts: sql`${generationJobs.attempts} - 1`, heartbeatAt: null, progress: null, startedAt: null })
        .where(and(eq(generationJobs.id, id), eq(generationJobs.status, 'running'), eq(generationJobs.attempts, attempt)))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
    async activeInNode(projectId, nodeId, tx, exceptId) {
      const [row] = await on(tx)
        .select({ id: generationJobs.id, status: generationJobs.status })
        .from(generationJobs)
        .where(and(eq(generationJobs.projectId, projectId), eq(generationJobs.nodeId, nodeId), inArray(generationJobs.status, ['queued', 'running']), exceptId ? sql`${generationJobs.id} <> ${exceptId}` : undefined))
        .orderBy(asc(generationJobs.createdAt))
        .limit(1);
      return row ?? null;
    },
    async lockNode(projectId, nodeId, tx) {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`job-node:${projectId}:${nodeId}`}, 0))`);
    },
    async cancel(userId, id, tx) {
      // The row as it was: a CTE reads the snapshot before the UPDATE.
      const { rows } = await on(tx).execute<{ before: GenerationJobStatus }>(sql`
        WITH before AS (SELECT id, status FROM generation_jobs WHERE id = ${id} AND user_id = ${userId} FOR UPDATE),
        changed AS (
          UPDATE generation_jobs SET status = 'canceled', finished_at = now()
          WHERE id IN (SELECT id FROM before WHERE status IN ('queued', 'running')) RETURNING id
        )
        SELECT status AS before FROM before`);
      return rows[0] ? { before: rows[0].before } : null;
    },
    async queueCounts(tx) {
      const { rows } = await on(tx).execute<{ queued: number; running: number; age: number }>(sql`
        SELECT (SELECT count(*)::int FROM generation_jobs WHERE status = 'queued') AS queued,
               (SELECT count(*)::int FROM generation_jobs WHERE status = 'running') AS running,
               coalesce((SELECT extract(epoch FROM now() - min(created_at))::float8 FROM generation_jobs WHERE status = 'queued'), 0) AS age`);
      return { queued: rows[0].queued, running: rows[0].running, oldestQueuedAgeSeconds: Math.max(0, rows[0].age) };
    },
    async anyUnfinished(tx) {
      const rows = await on(tx).select({ id: generationJobs.id }).from(generationJobs).where(inArray(generationJobs.status, ['queued', 'running'])).limit(1);
      return rows.length > 0;
    },
    async queuedInNodes(limit, tx) {
      const rows = await selectView(tx)
        .where(and(eq(generationJobs.status, 'queued'), sql`${generationJobs.nodeId} IS NOT NULL`))
        .orderBy(desc(generationJobs.queuePriority), asc(generationJobs.createdAt), asc(generationJobs.id))
        .limit(limit);
      return rows.map(view);
    },
    async othersInNode(projectId, nodeId, exceptId, tx) {
      const rows = await on(tx)
        .select({ id: generationJobs.id })
        .from(generationJobs)
        .where(and(eq(generationJobs.projectId, projectId), eq(generationJobs.nodeId, nodeId), inArray(generationJobs.status, ['queued', 'running']), sql`${generationJobs.id} <> ${exceptId}`))
        .limit(1);
      return rows.length > 0;
    },
    async recordEvent(userId, jobId, job, tx) {
      // One statement: the event, and its announcement (sent at commit).
      const payload = job.status === 'canceled' ? `${userId} ${jobId}` : userId;
      const { rows } = await tx.execute<{ id: string }>(sql`
        WITH e AS (INSERT INTO ${generationJobEvents} (user_id, job_id, job) VALUES (${userId}, ${jobId}, ${JSON.stringify(job)}::jsonb) RETURNING id)
        SELECT id, pg_notify(${JOB_EVENTS_CHANNEL}, ${payload}) FROM e`);
      return Number(rows[0].id);
    },
    async eventsAfter(userId, afterId, limit, tx) {
      return on(tx)
        .select({ id: generationJobEvents.id, job: generationJobEvents.job })
        .from(generationJobEvents)
        .where(and(eq(generationJobEvents.userId, userId), gt(generationJobEvents.id, afterId)))
        .orderBy(asc(generationJobEvents.id))
        .limit(limit);
    },
    async lastEventId(userId, tx) {
      const [row] = await on(tx).select({ id: max(generationJobEvents.id) }).from(generationJobEvents).where(eq(generationJobEvents.userId, userId));
      return row?.id ?? 0;
    },
    async pruneEvents(hours, tx) {
      const rows = await on(tx)
        .delete(generationJobEvents)
        .where(lt(generationJobEvents.createdAt, sql`now() - make_interval(hours => ${hours})`))
        .returning({ id: generationJobEvents.id });
      return rows.length;
    },
    async failUnfinished(id, reason, tx, lapseMs) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ status: 'failed', error: 'Failed to generate image', errorDetails: reason, errorCode: 'job_interrupted', progress: null, heartbeatAt: null, finishedAt: sql`now()` })
        .where(and(eq(generationJobs.id, id), inArray(generationJobs.status, ['queued', 'running']), lapseMs === undefined ? undefined : lapsedHeartbeat(lapseMs)))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
  };
}


