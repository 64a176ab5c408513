// Spend (docs/api.md "Spend"): what generations cost, summed from `generations.cost` (USD; as the provider stated it,
// else the model's list price), per user today and this month, per project for its user, per person on a project.
// A job the cache answered makes no generation and so costs nothing here. Days and months are UTC.
import { sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { generationJobs } from '../schema.js';
import { DEFAULT_HEARTBEAT_LAPSE_MS, liveJobHolding } from './generation-jobs.js';

export interface ProjectSpendOfUser {
  projectId: string;
  name: string;
  usd: number;
  generations: number;
}

export interface PersonSpend {
  userId: string;
  name: string;
  email: string;
  usd: number;
  generations: number;
}

export interface SpendRepository {
  /**
   * What the user spent since UTC midnight: their generations' USD costs, plus what their running jobs hold
   * (`generation_jobs.reserved_usd`, with a live heartbeat; only set while the monthly free budget is on).
   */
  todayUsd(userId: string, tx?: Tx): Promise<number>;
  /** The user's USD costs since UTC midnight and since the first of this UTC month (recorded generations only). */
  userTotals(userId: string, tx?: Tx): Promise<{ todayUsd: number; monthUsd: number }>;
  /** The user's generations per project that still exists (all time), most spent first, then by name. */
  userProjects(userId: string, tx?: Tx): Promise<ProjectSpendOfUser[]>;
  /** Everyone's generations in the project (all time), per person, most spent first, then by name. */
  projectPeople(projectId: string, tx?: Tx): Promise<PersonSpend[]>;
}

/** The USD amount of a generation's cost (null when unknown or in another currency). */
const usd = sql`(CASE WHEN cost->>'currency' = 'USD' THEN (cost->>'amount')::numeric END)`;
const TODAY = sql`(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
const MONTH = sql`(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

export function createSpendRepository(db: Db, heartbeatLapseMs = DEFAULT_HEARTBEAT_LAPSE_MS): SpendRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async todayUsd(userId, tx) {
      const { rows } = await on(tx).execute<{ usd: string }>(sql`
SELECT (
  coalesce((SELECT sum(${usd}) FROM generations WHERE user_id = ${userId} AND created_at >= ${TODAY}), 0)
  + coalesce((SELECT sum(${generationJobs.reservedUsd}) FROM ${generationJobs}
      WHERE ${generationJobs.userId} = ${userId} AND ${liveJobHolding(heartbeatLapseMs)}), 0)
)::text AS usd`);
      return Number(rows[0].usd);
    },
    async userTotals(userId, tx) {
      const { rows } = await on(tx).execute<{ today: string; month: string }>(sql`
SELECT coalesce(sum(${usd}) FILTER (WHERE created_at >= ${TODAY}), 0)::text AS today,
  coalesce(sum(${usd}), 0)::text AS month
FROM generations WHERE user_id = ${userId} AND created_at >= ${MONTH}`);
      return { todayUsd: Number(rows[0].today), monthUsd: Number(rows[0].month) };
    },
    async userProjects(userId, tx) {
      const { rows } = await on(tx).execute<{ project_id: string; name: string; usd: string; generations: number }>(sql`
SELECT g.project_id, p.name, coalesce(sum(${usd}), 0)::text AS usd, count(*)::int AS generations
FROM generations g JOIN projects p ON p.id = g.project_id
WHERE g.user_id = ${userId}
GROUP BY g.project_id, p.name
ORDER BY coalesce(sum(${usd}), 0) DESC, p.name, g.project_id`);
      return rows.map((r) => ({ projectId: r.project_id, name: r.name, usd: Number(r.usd), generations: r.generations }));
    },
    async projectPeople(projectId, tx) {
      const { rows } = await on(tx).execute<{ user_id: string; name: string; email: string; usd: string; generations: number }>(sql`
SELECT g.user_id, u.name, u.email, coalesce(sum(${usd}), 0)::text AS usd, count(*)::int AS generations
FROM generations g JOIN users u ON u.id = g.user_id
WHERE g.project_id = ${projectId}
GROUP BY g.user_id, u.name, u.email
ORDER BY coalesce(sum(${usd}), 0) DESC, u.name, g.user_id`);
      return rows.map((r) => ({ userId: r.user_id, name: r.name, email: r.email, usd: Number(r.usd), generations: r.generations }));
    },
  };
}
