// The load client's process (see load.ts): runs one job at a time and answers with its result or error.
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { createCanvasesRepository, createCollabRepository } from '../src/db/repositories/index.js';
import * as schema from '../src/db/schema.js';
import { runCanvasJob, runFollowJob, runGenerationJobsJob, runHttpJob, type CanvasRepositories, type Job, type LoadResult, type RunTimeline } from './load.js';

const send = (m: object) => process.send!(m);
// The bench process going away (Ctrl-C, a crash) takes the client with it.
process.on('disconnect', () => process.exit(0));
/** One pool (and the repositories on it) per database, kept across jobs (the warm-up of the first job connects it). */
const pools = new Map<string, { pool: pg.Pool; repositories: CanvasRepositories }>();

function repositoriesFor(db: Extract<Job, { kind: 'canvas' }>['db']): CanvasRepositories {
  let open = pools.get(db.connectionString);
  if (!open) {
    const pool = new pg.Pool({ connectionString: db.connectionString, max: db.max, statement_timeout: db.statement_timeout });
    pool.on('error', () => undefined); // an idle connection dropped at shutdown is not a result
    const on = drizzle(pool, { schema });
    open = { pool, repositories: { canvases: createCanvasesRepository(on), collab: createCollabRepository(on) } };
    pools.set(db.connectionString, open);
  }
  return open.repositories;
}

async function handle(message: unknown): Promise<void> {
  const m = message as { id: number; job?: Job; close?: true };
  try {
    let result: LoadResult | RunTimeline | undefined;
    if (m.close) {
      await Promise.all([...pools.values()].map((p) => p.pool.end()));
      pools.clear();
    } else if (m.job?.kind === 'http') {
      result = await runHttpJob(m.job);
    } else if (m.job?.kind === 'jobs') {
      result = await runGenerationJobsJob(m.job);
    } else if (m.job?.kind === 'run') {
      result = await runFollowJob(m.job);
    } else if (m.job?.kind === 'canvas') {
      result = await runCanvasJob(m.job, repositoriesFor(m.job.db));
    }
    send({ id: m.id, result });
  } catch (err) {
    send({ id: m.id, error: (err as Error).message });
  }
}

process.on('message', (message) => void handle(message));
