// Generations running right now, on any instance (a canvas read settles `isGenerating` by them): each row is a
// lease that counts until its `expires_at`, renewed while its generation runs, so the row of an instance that
// died stops counting by itself. A generation into a canvas node records the node: when such a lease lapses, an
// instance claims the row and settles the node's `isGenerating` in the live document.
import { and, eq, gt, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { runningGenerations } from '../schema.js';

/** The canvas node a generation writes its state into. */
export interface GenerationNode {
  projectId: string;
  nodeId: string;
}

export interface RunningGenerationsRepository {
  /**
   * Records generation `id` of the user (into `node`, if given; holding `reservedUsd` of the monthly free budget,
   * if given) as running for `leaseMs`; false (nothing written) when there is no such user.
   */
  start(id: string, userId: string, leaseMs: number, tx?: Tx, node?: GenerationNode, reservedUsd?: number): Promise<boolean>;
  /** Extends the lease to `leaseMs` from now, writing the row again if it was pruned meanwhile (not when the user is gone). */
  renew(id: string, userId: string, leaseMs: number, tx?: Tx, node?: GenerationNode, reservedUsd?: number): Promise<void>;
  /** Deletes the row of generation `id`. */
  remove(id: string, tx?: Tx): Promise<void>;
  /** Deletes the row of generation `id` and every expired row (of instances that died) that names no node. */
  removeWithExpired(id: string, tx?: Tx): Promise<void>;
  /**
   * Deletes up to `limit` expired rows that name a node, and returns their nodes (once each: one instance claims a
   * row), each with whether another generation into that node is still running.
   */
  claimLapsedNodes(limit: number, tx?: Tx): Promise<Array<GenerationNode & { stillRunning: boolean }>>;
  /** The user's generations running now, on any instance: rows that have not expired. */
  countByUser(userId: string, tx?: Tx): Promise<number>;
}

// INSERT … SELECT from users: the user check and the insert are one statement (drizzle's builder has no
// insert from a select of expressions).
const lease = (id: string, userId: string, leaseMs: number, node?: GenerationNode, reservedUsd?: number) => sql`
  INSERT INTO running_generations (id, user_id, expires_at, project_id, node_id, reserved_usd)
  SELECT ${id}::uuid, u.id, now() + make_interval(secs => ${leaseMs / 1000}::float8), ${node?.projectId ?? null}::uuid, ${node?.nodeId ?? null}::text,
    ${reservedUsd ?? null}::numeric
  FROM users u WHERE u.id = ${userId}::uuid`;

// SKIP LOCKED: instances sweeping at once claim different rows.
const claimLapsed = (limit: number) => sql`
  DELETE FROM running_generations g WHERE g.id IN (
    SELECT id FROM running_generations WHERE project_id IS NOT NULL AND expires_at <= now() ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
  RETURNING g.project_id AS "projectId", g.node_id AS "nodeId",
    EXISTS (SELECT 1 FROM running_generations r WHERE r.project_id = g.project_id AND r.node_id = g.node_id AND r.expires_at > now()) AS "stillRunning"`;

export function createRunningGenerationsRepository(db: Db): RunningGenerationsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async start(id, userId, leaseMs, tx, node, reservedUsd) {
      const { rows } = await on(tx).execute(sql`${lease(id, userId, leaseMs, node, reservedUsd)} RETURNING id`);
      return rows.length > 0;
    },
    async renew(id, userId, leaseMs, tx, node, reservedUsd) {
      await on(tx).execute(sql`${lease(id, userId, leaseMs, node, reservedUsd)} ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`);
    },
    async remove(id, tx) {
      await on(tx).delete(runningGenerations).where(eq(runningGenerations.id, id));
    },
    async removeWithExpired(id, tx) {
      await on(tx)
        .delete(runningGenerations)
        .where(or(eq(runningGenerations.id, id), and(lte(runningGenerations.expiresAt, sql`now()`), isNull(runningGenerations.projectId))));
    },
    async claimLapsedNodes(limit, tx) {
      // A read first (the usual answer is none): it takes no lock that waits on writers of the table.
      const [lapsed] = await on(tx)
        .select({ id: runningGenerations.id })
        .from(runningGenerations)
        .where(and(isNotNull(runningGenerations.projectId), lte(runningGenerations.expiresAt, sql`now()`)))
        .limit(1);
      if (!lapsed) return [];
      const { rows } = await on(tx).execute(claimLapsed(limit));
      return rows as unknown as Array<GenerationNode & { stillRunning: boolean }>;
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
