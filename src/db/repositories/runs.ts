// Runs of a project's graph (src/runs/, docs/api.md "Runs"): the run, its steps (`run_jobs`, one per job of the
// plan, in topological order), and what the coordinator reads in one statement each: the steps with their jobs' state
// and cost, the outputs already made for some keys in the project (the cache), and the unfinished jobs a step must
// wait for (the same key, or the same node, made by another run or alone).
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { generationJobs, generations, runJobs, runs, type GenerationJobStatus, type RunJobRow, type RunJobStatus, type RunRow, type RunStatus } from '../schema.js';
import { JOB_EVENTS_CHANNEL, queuePosition } from './generation-jobs.js';

export type NewRun = Pick<typeof runs.$inferInsert, 'id' | 'projectId' | 'userId' | 'mode' | 'nodeIds' | 'estimate'>;
export type NewRunJob = Omit<typeof runJobs.$inferInsert, 'status' | 'reason' | 'costUsd' | 'imageUrl'>;

/** A step as the coordinator sees it: its row, and its job's state once the job exists. */
export interface RunStepState extends RunJobRow {
  job: {
    status: GenerationJobStatus;
    cacheHit: boolean;
    outputUrl: string | null;
    generationId: string | null;
    error: string | null;
    errorDetails: string | null;
    queuePosition: number | null;
    /** What its generation cost (USD), as recorded; null when unknown or not made. */
    costUsd: number | null;
  } | null;
}

/** An output already made in the project for a key: the generation to reuse. */
export interface CachedOutput {
  generationId: string;
  outputUrl: string;
  model: string;
}

/** An unfinished job of the project a step waits for. */
export interface BusyJob {
  id: string;
  runId: string | null;
  nodeId: string | null;
  cacheKey: string | null;
}

/** A job taken from the cache: recorded as a succeeded job (no task ran, cost 0) reusing `generationId`. */
export interface CachedJob {
  id: string;
  userId: string;
  projectId: string;
  nodeId: string;
  runId: string;
  taskKind: string;
  model: string | null;
  cacheKey: string;
  seed: number | null;
  params: Record<string, unknown>;
  generationId: string;
  outputUrl: string;
}

export interface StepChange {
  idx: number;
  status: RunJobStatus;
  reason: string | null;
  costUsd: number | null;
  imageUrl: string | null;
}

export interface RunsRepository {
  insert(run: NewRun, steps: NewRunJob[], tx: Tx): Promise<void>;
  /** The run, locked until the transaction ends (its advances and cancel take turns); null when there is none. */
  lock(runId: string, tx: Tx): Promise<RunRow | null>;
  get(runId: string, tx?: Tx): Promise<RunRow | null>;
  /** The project's runs, newest first. */
  listByProject(projectId: string, limit: number, tx?: Tx): Promise<RunRow[]>;
  /** The steps in order, with their jobs' state. */
  steps(runId: string, tx?: Tx): Promise<RunStepState[]>;
  /** Steps of several runs (a list of runs), by run. */
  stepsOfRuns(runIds: string[], tx?: Tx): Promise<Map<string, RunStepState[]>>;
  /** Runs still running (oldest first, at most `limit`), optionally of one project. */
  running(limit: number, projectId?: string, tx?: Tx): Promise<Array<{ id: string; projectId: string }>>;
  /** Outputs the project already has for these keys (the newest of each). */
  cachedOutputs(projectId: string, keys: string[], tx?: Tx): Promise<Map<string, CachedOutput>>;
  /** Unfinished (queued or running) jobs of the project with one of these keys or into one of these nodes. */
  busy(projectId: string, keys: string[], nodeIds: string[], tx?: Tx): Promise<BusyJob[]>;
  insertCachedJobs(jobs: CachedJob[], tx: Tx): Promise<void>;
  updateSteps(runId: string, changes: StepChange[], tx: Tx): Promise<void>;
  finish(runId: string, status: RunStatus, costUsd: number, tx: Tx): Promise<void>;
  /** Records the run's state as an event of its user's job stream (job_id: the run's id), under the user's lock. */
  recordEvent(userId: string, runId: string, run: Record<string, unknown>, tx: Tx): Promise<void>;
  /** Records events of these jobs (each its state now) in one statement, under the user's lock. */
  recordJobEvents(userId: string, jobs: Array<{ id: string; job: Record<string, unknown> }>, tx: Tx): Promise<void>;
}

export function createRunsRepository(db: Db): RunsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;

  async function stepsWhere(where: SQL, tx?: Tx): Promise<RunStepState[]> {
    const rows = await on(tx)
      .select({
        step: runJobs,
        status: generationJobs.status,
        cacheHit: generationJobs.cacheHit,
        outputUrl: generationJobs.outputUrl,
        generationId: generationJobs.generationId,
        error: generationJobs.error,
        errorDetails: generationJobs.errorDetails,
        queuePosition,
        cost: generations.cost,
      })
      .from(runJobs)
      .leftJoin(generationJobs, eq(generationJobs.id, runJobs.jobId))
      .leftJoin(generations, and(eq(generations.id, generationJobs.generationId), eq(generationJobs.cacheHit, false)))
      .where(where)
      .orderBy(asc(runJobs.runId), asc(runJobs.idx));
    return rows.map((r) => ({
      ...r.step,
      job:
        r.status === null
          ? null
          : {
              status: r.status,
              cacheHit: r.cacheHit ?? false,
              outputUrl: r.outputUrl,
              generationId: r.generationId,
              error: r.error,
              errorDetails: r.errorDetails,
              queuePosition: r.queuePosition,
              costUsd: r.cacheHit ? 0 : r.cost && r.cost.currency === 'USD' ? r.cost.amount : null,
            },
    }));
  }

  return {
    async insert(run, steps, tx) {
      await tx.insert(runs).values(run);
      // In chunks: PostgreSQL takes at most 65,535 parameters a statement.
      for (let i = 0; i < steps.length; i += 500) await tx.insert(runJobs).values(steps.slice(i, i + 500));
    },
    async lock(runId, tx) {
      const [row] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
      return row ?? null;
    },
    async get(runId, tx) {
      const [row] = await on(tx).select().from(runs).where(eq(runs.id, runId));
      return row ?? null;
    },
    async listByProject(projectId, limit, tx) {
      return on(tx).select().from(runs).where(eq(runs.projectId, projectId)).orderBy(desc(runs.createdAt), desc(runs.id)).limit(limit);
    },
    steps: (runId, tx) => stepsWhere(eq(runJobs.runId, runId), tx),
    async stepsOfRuns(runIds, tx) {
      const out = new Map<string, RunStepState[]>(runIds.map((id) => [id, []]));
      if (runIds.length === 0) return out;
      for (const step of await stepsWhere(inArray(runJobs.runId, runIds), tx)) out.get(step.runId)?.push(step);
      return out;
    },
    async running(limit, projectId, tx) {
      return on(tx)
        .select({ id: runs.id, projectId: runs.projectId })
        .from(runs)
        .where(and(eq(runs.status, 'running'), projectId ? eq(runs.projectId, projectId) : undefined))
        .orderBy(asc(runs.createdAt))
        .limit(limit);
    },
    async cachedOutputs(projectId, keys, tx) {
      const out = new Map<string, CachedOutput>();
      if (keys.length === 0) return out;
      const rows = await on(tx)
        .selectDistinctOn([generations.cacheKey], { key: generations.cacheKey, generationId: generations.id, outputUrl: generations.outputImageUrl, model: generations.model })
        .from(generations)
        .where(and(eq(generations.projectId, projectId), inArray(generations.cacheKey, keys)))
        .orderBy(generations.cacheKey, desc(generations.createdAt));
      for (const r of rows) if (r.key) out.set(r.key, { generationId: r.generationId, outputUrl: r.outputUrl, model: r.model });
      return out;
    },
    async busy(projectId, keys, nodeIds, tx) {
      if (keys.length === 0 && nodeIds.length === 0) return [];
      return on(tx)
        .select({ id: generationJobs.id, runId: generationJobs.runId, nodeId: generationJobs.nodeId, cacheKey: generationJobs.cacheKey })
        .from(generationJobs)
        .where(
          and(
            eq(generationJobs.projectId, projectId),
            inArray(generationJobs.status, ['queued', 'running']),
            sql`(${keys.length > 0 ? inArray(generationJobs.cacheKey, keys) : sql`false`} OR ${nodeIds.length > 0 ? inArray(generationJobs.nodeId, nodeIds) : sql`false`})`,
          ),
        );
    },
    async insertCachedJobs(jobs, tx) {
      if (jobs.length === 0) return;
      const now = new Date();
      await tx.insert(generationJobs).values(
        jobs.map((j) => ({
          id: j.id,
          taskKind: j.taskKind,
          userId: j.userId,
          projectId: j.projectId,
          nodeId: j.nodeId,
          prompt: typeof j.params.prompt === 'string' ? j.params.prompt : '',
          images: [],
          model: j.model,
          status: 'succeeded' as const,
          outputUrl: j.outputUrl,
          generationId: j.generationId,
          runId: j.runId,
          cacheKey: j.cacheKey,
          seed: j.seed,
          params: j.params,
          cacheHit: true,
          createdAt: now,
          startedAt: now,
          finishedAt: now,
        })),
      );
    },
    async updateSteps(runId, changes, tx) {
      if (changes.length === 0) return;
      const values = sql.join(
        changes.map((c) => sql`(${c.idx}::int, ${c.status}::text, ${c.reason}::text, ${c.costUsd === null ? null : String(c.costUsd)}::numeric, ${c.imageUrl}::text)`),
        sql`, `,
      );
      await tx.execute(sql`
        UPDATE run_jobs SET status = v.status, reason = v.reason, cost_usd = v.cost_usd, image_url = v.image_url
        FROM (VALUES ${values}) AS v(idx, status, reason, cost_usd, image_url)
        WHERE run_jobs.run_id = ${runId} AND run_jobs.idx = v.idx`);
    },
    async finish(runId, status, costUsd, tx) {
      await tx.update(runs).set({ status, costUsd: String(costUsd), finishedAt: status === 'running' ? null : sql`now()` }).where(eq(runs.id, runId));
    },
    async recordEvent(userId, runId, run, tx) {
      await tx.execute(sql`
        WITH e AS (INSERT INTO generation_job_events (user_id, job_id, job) VALUES (${userId}, ${runId}, ${JSON.stringify(run)}::jsonb) RETURNING id)
        SELECT id, pg_notify(${JOB_EVENTS_CHANNEL}, ${userId}) FROM e`);
    },
    async recordJobEvents(userId, jobs, tx) {
      if (jobs.length === 0) return;
      const values = sql.join(
        jobs.map((j) => sql`(${userId}::uuid, ${j.id}::text, ${JSON.stringify(j.job)}::jsonb)`),
        sql`, `,
      );
      await tx.execute(sql`
        WITH e AS (INSERT INTO generation_job_events (user_id, job_id, job) VALUES ${values} RETURNING id)
        SELECT pg_notify(${JOB_EVENTS_CHANNEL}, ${userId}) FROM (SELECT 1 FROM e LIMIT 1) AS one`);
    },
  };
}
