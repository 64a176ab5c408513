// The load client's process (see load.ts): runs one job at a time and answers with its result or error.
import pg from 'pg';
import { runHttpJob, runSqlJob, type Job, type LoadResult } from './load.js';

const send = (m: object) => process.send!(m);
// The bench process going away (Ctrl-C, a crash) takes the client with it.
process.on('disconnect', () => process.exit(0));
/** One pool per database, kept across jobs (the warm-up of the first job connects it). */
const pools = new Map<string, pg.Pool>();

function poolFor(db: Extract<Job, { kind: 'sql' }>['db']): pg.Pool {
  let pool = pools.get(db.connectionString);
  if (!pool) {
    pool = new pg.Pool({ connectionString: db.connectionString, max: db.max, statement_timeout: db.statement_timeout });
    pool.on('error', () => undefined); // an idle connection dropped at shutdown is not a result
    pools.set(db.connectionString, pool);
  }
  return pool;
}

process.on('message', async (message) => {
  const m = message as { id: number; job?: Job; close?: true };
  try {
    let result: LoadResult | undefined;
    if (m.close) {
      await Promise.all([...pools.values()].map((p) => p.end()));
      pools.clear();
    } else if (m.job?.kind === 'http') {
      result = await runHttpJob(m.job);
    } else if (m.job?.kind === 'sql') {
      result = await runSqlJob(m.job, poolFor(m.job.db));
    }
    send({ id: m.id, result });
  } catch (err) {
    send({ id: m.id, error: (err as Error).message });
  }
});
