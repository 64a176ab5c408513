// Generations running right now, on any instance (a canvas read settles `isGenerating` by them): each row is a
// lease that counts until its `expires_at`, renewed while its generation runs, so the row of an instance that
// died stops counting by itself.
import { and, eq, gt, lte, or, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { runningGenerations } from '../schema.js';

export interface RunningGenerationsRepository {
  /** Records generation `id` of the user as running for `leaseMs`; false (nothing written) when there is no such user. */
  start(id: string, userId: string, leaseMs: number, tx?: Tx): Promise<boolean>;
  /** Extends the lease to `leaseMs` from now, writing the row again if it was pruned meanwhile (not when the user is gone). */
  renew(id: string, userId: string, leaseMs: number, tx?: Tx): Promise<void>;
  /** Deletes the row of generation `id`. */
  remove(id: string, tx?: Tx): Promise<void>;
  /** Deletes the row of generation `id` and every expired row (of instances that died). */
  removeWithExpired(id: string, tx?: Tx): Promise<void>;
  /** The user's generations running now, on any instance: rows that have not expired. */
  countByUser(userId: string, tx?: Tx): Promise<number>;
}

// INSERT … SELECT from users: the user check and the insert are one statement (drizzle's builder has no
// insert from a select of expressions).
const lease = (id: string, userId: string, leaseMs: number) => sql`
  INSERT INTO running_generations (id, user_id, expires_at)
  SELECT ${id}::uuid, u.id, now() + make_interval(secs => ${leaseMs / 1000}::float8) FROM users u WHERE u.id = ${userId}::uuid`;

export function createRunningGenerationsRepository(db: Db): RunningGenerationsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async start(id, userId, leaseMs, tx) {
      const { rows } = await on(tx).execute(sql`${lease(id, userId, leaseMs)} RETURNING id`);
      return rows.length > 0;
    },
    async renew(id, userId, leaseMs, tx) {
      await on(tx).execute(sql`${lease(id, userId, leaseMs)} ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`);
    },
    async remove(id, tx) {
      await on(tx).delete(runningGenerations).where(eq(runningGenerations.id, id));
    },
    async removeWithExpired(id, tx) {
      await on(tx).delete(runningGenerations).where(or(eq(runningGenerations.id, id), lte(runningGenerations.expiresAt, sql`now()`)));
    },
    async countByUser(userId, tx) {
      const [row] = await on(tx)
        .select({ n: sql<number>`count(*)::int` })
        .from(runningGenerations)
        .where(and(eq(runningGenerations.userId, userId), gt(runningGenerations.expiresAt, sql`now()`)));
      return row.n;
    },
  };
}
