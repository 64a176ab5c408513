// Rate-limit counters shared by every instance (RATE_LIMIT_STORE=postgres): one row per limited key and
// window. One atomic upsert per counted request: it starts a new window when the old one has ended, else adds one.
import { and, DrizzleQueryError, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { rateLimits } from '../schema.js';

export interface RateLimitCount {
  /** Requests counted in the current window. */
  count: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

export interface RateLimitsRepository {
  /** Counts one request of `key` in its window of `windowMs` (a new window when the last one has ended). */
  increment(key: string, windowMs: number, tx?: Tx): Promise<RateLimitCount>;
  /** The current window's count of `key`; null when it has none running. */
  read(key: string, tx?: Tx): Promise<RateLimitCount | null>;
  /** Deletes windows that ended over a minute ago. */
  pruneEnded(tx?: Tx): Promise<void>;
}

const ttl = sql<number>`GREATEST(0, ceil(extract(epoch FROM (${rateLimits.resetAt} - now())) * 1000))::int`;

/** The driver's error as is (these calls went straight to the pool before; the rate-limit plugin logs them). */
async function driverErrors<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    throw err instanceof DrizzleQueryError && err.cause ? err.cause : err;
  }
}

export function createRateLimitsRepository(db: Db): RateLimitsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async increment(key, windowMs, tx) {
      const ended = sql`${rateLimits.resetAt} <= now()`;
      const [row] = await driverErrors(
        on(tx)
          .insert(rateLimits)
          .values({ key, count: 1, resetAt: sql`now() + make_interval(secs => ${windowMs}::double precision / 1000)` })
          .onConflictDoUpdate({
            target: rateLimits.key,
            set: {
              count: sql`CASE WHEN ${ended} THEN 1 ELSE ${rateLimits.count} + 1 END`,
              resetAt: sql`CASE WHEN ${ended} THEN excluded.reset_at ELSE ${rateLimits.resetAt} END`,
            },
          })
          .returning({ count: rateLimits.count, ttl }),
      );
      return row;
    },
    async read(key, tx) {
      const [row] = await driverErrors(
        on(tx)
          .select({ count: rateLimits.count, ttl })
          .from(rateLimits)
          .where(and(eq(rateLimits.key, key), gt(rateLimits.resetAt, sql`now()`))),
      );
      return row ?? null;
    },
    async pruneEnded(tx) {
      await driverErrors(on(tx).delete(rateLimits).where(lt(rateLimits.resetAt, sql`now() - interval '1 minute'`)));
    },
  };
}
