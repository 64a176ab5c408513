// What PostgreSQL was doing during a step, from its own views, over a connection of its own (not the
// service's pool): every 200 ms, the service's active statements by wait event ("CPU" when none: running or
// waiting for a core), plus the WAL written and checkpoints over the step.
import pg from 'pg';

export interface PgActivity {
  /** The service's connections in a statement or a transaction (not idle) at a sampled moment, on average. */
  busyAvg: number;
  /** Statements of the service running at a sampled moment, on average. */
  activeAvg: number;
  /** Share of the active-statement samples per wait event, largest first ("CPU", "IO:WalSync", …). */
  waits: Array<[string, number]>;
  walMiBPerS: number;
  checkpoints: number;
  autovacuumAvg: number;
}

const SAMPLE = `
SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, count(*)::int AS n,
       bool_or(backend_type = 'autovacuum worker') AS autovacuum
FROM pg_stat_activity
WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type IN ('client backend', 'autovacuum worker')
GROUP BY 1, backend_type = 'autovacuum worker'`;

const BUSY = `
SELECT count(*)::int AS n FROM pg_stat_activity
WHERE state <> 'idle' AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND datname = current_database()`;

const COUNTERS = `
SELECT (SELECT wal_bytes FROM pg_stat_wal)::float8 AS wal,
       (SELECT num_timed + num_requested FROM pg_stat_checkpointer)::int AS checkpoints`;

export class PgWatch {
  private constructor(private readonly client: pg.Client) {}

  static async connect(connectionString: string): Promise<PgWatch> {
    const client = new pg.Client({ connectionString, statement_timeout: 5_000 });
    client.on('error', () => undefined); // dropped at shutdown: not a result
    await client.connect();
    return new PgWatch(client);
  }

  /** Starts sampling; the returned function stops it and answers what was seen. */
  async start(): Promise<() => Promise<PgActivity>> {
    const started = Date.now();
    const before = (await this.client.query<{ wal: number; checkpoints: number }>(COUNTERS)).rows[0];
    const waits = new Map<string, number>();
    let samples = 0;
    let active = 0;
    let autovacuum = 0;
    let connectionsBusy = 0;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return; // never two samples at once on one connection
      busy = true;
      Promise.all([this.client.query<{ wait: string; n: number; autovacuum: boolean }>(SAMPLE), this.client.query<{ n: number }>(BUSY)])
        .then(([{ rows }, connections]) => {
          samples++;
          connectionsBusy += connections.rows[0].n;
          for (const r of rows) {
            if (r.autovacuum) autovacuum += r.n;
            else {
              active += r.n;
              waits.set(r.wait, (waits.get(r.wait) ?? 0) + r.n);
            }
          }
        })
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 200);
    return async () => {
      clearInterval(timer);
      const after = (await this.client.query<{ wal: number; checkpoints: number }>(COUNTERS)).rows[0];
      const seconds = (Date.now() - started) / 1000;
      return {
        busyAvg: samples ? connectionsBusy / samples : 0,
        activeAvg: samples ? active / samples : 0,
        waits: [...waits].sort((a, b) => b[1] - a[1]).map(([w, n]) => [w, active ? n / active : 0]),
        walMiBPerS: (after.wal - before.wal) / 2 ** 20 / seconds,
        checkpoints: after.checkpoints - before.checkpoints,
        autovacuumAvg: samples ? autovacuum / samples : 0,
      };
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
