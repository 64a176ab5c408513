// Rate-limit counters shared by every instance, in PostgreSQL (RATE_LIMIT_STORE=postgres). One atomic upsert
// per counted request: it starts a new window when the old one has ended, else adds one.
import type pg from 'pg';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

const INCREMENT = `
INSERT INTO rate_limits AS r (key, count, reset_at) VALUES ($1, 1, now() + make_interval(secs => $2::double precision / 1000))
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.count + 1 END,
  reset_at = CASE WHEN r.reset_at <= now() THEN excluded.reset_at ELSE r.reset_at END
RETURNING count, GREATEST(0, ceil(extract(epoch FROM (reset_at - now())) * 1000))::int AS ttl`;

const READ = `SELECT count, GREATEST(0, ceil(extract(epoch FROM (reset_at - now())) * 1000))::int AS ttl FROM rate_limits WHERE key = $1 AND reset_at > now()`;
const PRUNE = `DELETE FROM rate_limits WHERE reset_at < now() - interval '1 minute'`;

/**
 * A store class for @fastify/rate-limit (which constructs it itself), bound to a pool. Ended windows are
 * pruned every few minutes; the timer does not keep the process alive.
 */
export function postgresRateLimitStore(pool: pg.Pool, onError: (err: Error) => void) {
  const prune = setInterval(() => pool.query(PRUNE).catch(onError), 5 * 60_000);
  prune.unref();
  class PostgresRateLimitStore {
    incr(key: string, cb: Callback, timeWindow: number) {
      pool.query<{ count: number; ttl: number }>(INCREMENT, [key, timeWindow]).then(
        ({ rows }) => cb(null, { current: rows[0].count, ttl: rows[0].ttl }),
        (err: Error) => cb(err),
      );
    }
    read(key: string, cb: Callback) {
      pool.query<{ count: number; ttl: number }>(READ, [key]).then(
        ({ rows }) => cb(null, rows[0] ? { current: rows[0].count, ttl: rows[0].ttl } : { current: 0, ttl: 0 }),
        (err: Error) => cb(err),
      );
    }
    child() {
      return new PostgresRateLimitStore();
    }
  }
  return { Store: PostgresRateLimitStore, stop: () => clearInterval(prune) };
}
