// Generations: the record of each successful generation (POST /api/image, generation jobs) with its lineage, read
// back as the user's history (optionally searched by prompt words), and the model calls that recorded none but
// count for the free quota (spent calls). A project's gallery and one generation's lineage: ./generations-gallery.ts.
import { and, desc, eq, getTableColumns, gt, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { canvases, generationJobs, generations, spentModelCalls, type GenerationRow } from '../schema.js';
import { DEFAULT_HEARTBEAT_LAPSE_MS, liveJobHolding } from './generation-jobs.js';

/** At most this many spent calls older than a day are deleted per spent call written, so the prune stays cheap. */
const SPENT_PRUNE_BATCH = 100;
/** At most this many words of a search are used (a 200-character search has fewer). */
const SEARCH_WORDS = 32;

export type NewGeneration = Omit<typeof generations.$inferInsert, 'promptSearch'>;

/** A position in a newest-first list: rows strictly after it come next. */
export interface GenerationsAfter {
  createdAt: Date;
  id: string;
}

/** Filters of the user's history (GET /api/user/generations). */
export interface GenerationFilters {
  /** Words of the prompt (full text, config `simple`), the last one as a prefix; a search without words matches nothing. */
  q?: string;
  projectId?: string;
  model?: string;
}

export interface GenerationsRepository {
  insert(generation: NewGeneration, tx?: Tx): Promise<void>;
  /** The user's generations, newest first (`createdAt`, then `id`), strictly after `after` in that order, filtered. */
  listByUser(userId: string, opts: { after?: GenerationsAfter; limit: number } & GenerationFilters, tx?: Tx): Promise<GenerationRow[]>;
  /**
   * What the free quota counts: the user's generations recorded and calls spent in the last 24 hours, plus
   * those running now (jobs holding a reservation, with a live heartbeat: `reserve`), in one statement, so all are
   * read from one snapshot (a generation that ends in between is counted exactly once). Records of jobs of other
   * tasks than `generation` (a crop, a resize: no model call) are not counted.
   */
  countLastDayWithRunning(userId: string, tx?: Tx): Promise<number>;
  /**
   * The running job `jobId` holds its generation's place in the free quota, and `usd` of the monthly budget, until it
   * ends or its heartbeat lapses; false when the job is not running (canceled meanwhile).
   */
  reserve(jobId: string, usd: number, tx?: Tx): Promise<boolean>;
  /** The job holds nothing any more (its call is recorded as spent instead, in the same transaction). */
  release(jobId: string, tx?: Tx): Promise<void>;
  /** The user's generations of this calendar month (UTC): how many, how many have a cost in USD, and its sum. */
  monthSpend(userId: string, tx?: Tx): Promise<{ month: string; generations: number; priced: number; usd: number }>;
  /**
   * What counts against the user's monthly free budget (USD): this UTC month's recorded costs in USD, its spent
   * calls' costs, and what the user's running jobs hold (`reserve`).
   */
  monthBudgetUsed(userId: string, tx?: Tx): Promise<number>;
  /** Records a model call of the user that recorded no generation (it counts for 24 hours); prunes old ones. */
  recordSpentCall(userId: string, tx?: Tx, costUsd?: number): Promise<void>;
  /** The project's canvas version now (`canvases.version`); null when it has no canvas row. */
  canvasVersion(projectId: string, tx?: Tx): Promise<number | null>;
  /**
   * Ids of the generations whose output is one of `urls` and that the user may see as parents: their own, or
   * (with `projectId`) those made into the same project. Oldest first.
   */
  parentsOf(urls: string[], seenBy: { userId: string; projectId?: string | null }, tx?: Tx): Promise<string[]>;
}

/** Every column but the search vector (it stays in the database). */
export const generationColumns = (() => {
  const { promptSearch: _unused, ...columns } = getTableColumns(generations);
  return columns;
})();

/**
 * The search's words as a tsquery text: words of letters, marks and digits only (quotes, `&|!:*()` and every other
 * character are separators), joined by `&`, the last one a prefix (`red ca` → `red & ca:*`). Built only from such
 * words, it is always a valid tsquery; it is sent as a parameter. null when there is no word.
 */
export function prefixQuery(q: string): string | null {
  const words = (q.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, SEARCH_WORDS);
  if (words.length === 0) return null;
  return words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ');
}

/** The condition of a prompt search (`false` for a search without words). */
export function promptMatches(q: string): SQL {
  const query = prefixQuery(q);
  return query === null ? sql`false` : sql`${generations.promptSearch} @@ to_tsquery('simple', ${query})`;
}

/** Rows after `after` in the newest-first order (`createdAt` desc, then `id` desc). */
export const afterCursor = (after: GenerationsAfter): SQL =>
  or(lt(generations.createdAt, after.createdAt), and(eq(generations.createdAt, after.createdAt), lt(generations.id, after.id)))!;

/**
 * `heartbeatLapseMs`: a running job whose heartbeat is older holds nothing (its instance died: JOBS_HEARTBEAT_LAPSE_MS).
 */
export function createGenerationsRepository(db: Db, heartbeatLapseMs = DEFAULT_HEARTBEAT_LAPSE_MS): GenerationsRepository {
  const holding = (userId: string) => and(eq(generationJobs.userId, userId), liveJobHolding(heartbeatLapseMs));
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async insert(generation, tx) {
      await on(tx).insert(generations).values(generation);
    },
    listByUser(userId, { after, limit, q, projectId, model }, tx) {
      const conditions = [
        eq(generations.userId, userId),
        after && afterCursor(after),
        q !== undefined && promptMatches(q),
        projectId !== undefined && eq(generations.projectId, projectId),
        model !== undefined && eq(generations.model, model),
      ].filter((c): c is SQL => Boolean(c));
      return on(tx)
        .select(generationColumns)
        .from(generations)
        .where(and(...conditions))
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(limit);
    },
    async monthSpend(userId, tx) {
      const { rows } = await on(tx).execute<{ month: string; generations: number; priced: number; usd: string }>(sql`
SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
  count(*)::int AS generations,
  count(*) FILTER (WHERE cost->>'currency' = 'USD')::int AS priced,
  coalesce(sum((cost->>'amount')::numeric) FILTER (WHERE cost->>'currency' = 'USD'), 0)::text AS usd
FROM generations
WHERE user_id = ${userId} AND created_at >= (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`);
      const [row] = rows;
      return { month: row.month, generations: row.generations, priced: row.priced, usd: Number(row.usd) };
    },
    async monthBudgetUsed(userId, tx) {
      const { rows } = await on(tx).execute<{ used: string }>(sql`
WITH month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS start)
SELECT (
  coalesce((SELECT sum((cost->>'amount')::numeric) FROM generations, month
    WHERE user_id = ${userId} AND created_at >= month.start AND cost->>'currency' = 'USD'), 0)
  + coalesce((SELECT sum(cost_usd) FROM spent_model_calls, month WHERE user_id = ${userId} AND created_at >= month.start), 0)
  + coalesce((SELECT sum(${generationJobs.reservedUsd}) FROM ${generationJobs} WHERE ${holding(userId)}), 0)
)::text AS used`);
      return Number(rows[0].used);
    },
    async countLastDayWithRunning(userId, tx) {
      const recorded = on(tx)
        .select({ n: sql`count(*)` })
        .from(generations)
        .where(
          and(
            eq(generations.userId, userId),
            gt(generations.createdAt, sql`now() - interval '1 day'`),
            sql`NOT EXISTS (SELECT 1 FROM ${generationJobs} WHERE ${generationJobs.id} = ${generations.jobId} AND ${generationJobs.taskKind} <> 'generation')`,
          ),
        );
      const spent = on(tx)
        .select({ n: sql`count(*)` })
        .from(spentModelCalls)
        .where(and(eq(spentModelCalls.userId, userId), gt(spentModelCalls.createdAt, sql`now() - interval '1 day'`)));
      const running = on(tx).select({ n: sql`count(*)` }).from(generationJobs).where(holding(userId));
      const { rows } = await on(tx).execute<{ used: string }>(sql`SELECT (${recorded}) + (${spent}) + (${running}) AS used`);
      return Number(rows[0].used);
    },
    async reserve(jobId, usd, tx) {
      const rows = await on(tx)
        .update(generationJobs)
        .set({ reservedUsd: String(usd) })
        .where(and(eq(generationJobs.id, jobId), eq(generationJobs.status, 'running')))
        .returning({ id: generationJobs.id });
      return rows.length > 0;
    },
    async release(jobId, tx) {
      await on(tx).update(generationJobs).set({ reservedUsd: null }).where(eq(generationJobs.id, jobId));
    },
    async recordSpentCall(userId, tx, costUsd) {
      await on(tx)
        .insert(spentModelCalls)
        .values({ userId, costUsd: costUsd === undefined ? null : String(costUsd) });
      // A call with a cost counts against its month's budget: it stays until that month is over.
      await on(tx).execute(sql`
        DELETE FROM spent_model_calls WHERE id IN (
          SELECT id FROM spent_model_calls WHERE created_at <= now() - interval '1 day'
            AND (cost_usd IS NULL OR created_at < date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
          LIMIT ${SPENT_PRUNE_BATCH})`);
    },
    async canvasVersion(projectId, tx) {
      const [row] = await on(tx).select({ version: canvases.version }).from(canvases).where(eq(canvases.projectId, projectId));
      return row?.version ?? null;
    },
    async parentsOf(urls, { userId, projectId }, tx) {
      if (urls.length === 0) return [];
      const visible = projectId ? or(eq(generations.userId, userId), eq(generations.projectId, projectId)) : eq(generations.userId, userId);
      const rows = await on(tx)
        .select({ id: generations.id })
        .from(generations)
        .where(and(sql`${generations.outputImageUrl} = ANY(${sql.param(urls)}::text[])`, visible))
        .orderBy(generations.createdAt, generations.id);
      return rows.map((r) => r.id);
    },
  };
}
