// Rate-limit counters shared by every instance, in PostgreSQL (RATE_LIMIT_STORE=postgres), through the
// rate-limits repository: one atomic upsert per counted request.
import type { RateLimitsRepository } from '../db/repositories/index.js';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A store class for @fastify/rate-limit (which constructs it itself), bound to the repository. Ended windows
 * are pruned every few minutes; the timer does not keep the process alive.
 */
export function postgresRateLimitStore(counters: RateLimitsRepository, onError: (err: Error) => void) {
  const prune = setInterval(() => {
    counters.pruneEnded().catch(onError);
  }, 5 * 60_000);
  prune.unref();
  class PostgresRateLimitStore {
    incr(key: string, cb: Callback, timeWindow: number) {
      counters.increment(key, timeWindow).then(
        (row) => cb(null, { current: row.count, ttl: row.ttl }),
        (err: Error) => cb(err),
      );
    }
    read(key: string, cb: Callback) {
      counters.read(key).then(
        (row) => cb(null, row ? { current: row.count, ttl: row.ttl } : { current: 0, ttl: 0 }),
        (err: Error) => cb(err),
      );
    }
    child() {
      return new PostgresRateLimitStore();
    }
  }
  return { Store: PostgresRateLimitStore, stop: () => clearInterval(prune) };
}
