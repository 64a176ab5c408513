// Generations: the record of each successful generation (POST /api/image), read back as the user's history, and
// the model calls that recorded none but count for the free quota (spent calls).
import { and, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { generations, runningGenerations, spentModelCalls, type GenerationRow } from '../schema.js';

/** At most this many spent calls older than a day are deleted per spent call written, so the prune stays cheap. */
const SPENT_PRUNE_BATCH = 100;

export type NewGeneration = typeof generations.$inferInsert;

export interface GenerationsRepository {
  insert(generation: NewGeneration, tx?: Tx): Promise<void>;
  /** The user's generations, newest first (`createdAt`, then `id`), strictly after `after` in that order. */
  listByUser(userId: string, opts: { after?: { createdAt: Date; id: string }; limit: number }, tx?: Tx): Promise<GenerationRow[]>;
  /**
   * What the free quota counts: the user's generations recorded and calls spent in the last 24 hours, plus
   * those running now (unexpired rows in running_generations), in one statement, so all are read from one
   * snapshot (a generation that ends in between is counted exactly once).
   */
  countLastDayWithRunning(userId: string, tx?: Tx): Promise<number>;
  /** Records a model call of the user that recorded no generation (it counts for 24 hours); prunes old ones. */
  recordSpentCall(userId: string, tx?: Tx): Promise<void>;
}

export function createGenerationsRepository(db: Db): GenerationsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async insert(generation, tx) {
      await on(tx).insert(generations).values(generation);
    },
    listByUser(userId, { after, limit }, tx) {
      return on(tx)
        .select()
        .from(generations)
        .where(
          after
            ? and(eq(generations.userId, userId), or(lt(generations.createdAt, after.createdAt), and(eq(generations.createdAt, after.createdAt), lt(generations.id, after.id))))
            : eq(generations.userId, userId),
        )
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(limit);
    },
    async countLastDayWithRunning(userId, tx) {
      const recorded = on(tx)
        .select({ n: sql`count(*)` })
        .from(generations)
        .where(and(eq(generations.userId, userId), gt(generations.createdAt, sql`now() - interval '1 day'`)));
      const spent = on(tx)
        .select({ n: sql`count(*)` })
        .from(spentModelCalls)
        .where(and(eq(spentModelCalls.userId, userId), gt(spentModelCalls.createdAt, sql`now() - interval '1 day'`)));
      const running = on(tx)
        .select({ n: sql`count(*)` })
        .from(runningGenerations)
        .where(and(eq(runningGenerations.userId, userId), gt(runningGenerations.expiresAt, sql`now()`)));
      const { rows } = await on(tx).execute<{ used: string }>(sql`SELECT (${recorded}) + (${spent}) + (${running}) AS used`);
      return Number(rows[0].used);
    },
    async recordSpentCall(userId, tx) {
      await on(tx).insert(spentModelCalls).values({ userId });
      await on(tx).execute(sql`
        DELETE FROM spent_model_calls WHERE id IN (
          SELECT id FROM spent_model_calls WHERE created_at <= now() - interval '1 day' LIMIT ${SPENT_PRUNE_BATCH})`);
    },
  };
}
