// The database port: a pg pool + drizzle, migrated at start-up under an advisory lock (drizzle's migrator
// takes none, and instances starting at the same time would otherwise run the migrations together and fail).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.js';

export type Db = NodePgDatabase<typeof schema>;

/** An open transaction; every repository method takes one as its optional last parameter. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** What a repository statement runs on: the pool (one statement, autocommit) or an open transaction. */
export type Executor = Db | Tx;

/**
 * The transaction port of the services: `fn`'s repository calls, given the `tx`, commit together or not at
 * all (a throw rolls back and is rethrown).
 */
export interface Transactions {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export function createTransactions(db: Db): Transactions {
  return { transaction: (fn) => db.transaction(fn) };
}

export interface Database {
  db: Db;
  /** The connection string (the job queue, src/jobs/, opens its own connections with it). */
  url: string;
  pool: pg.Pool;
  /** Throws when the server cannot answer (used by /api/ready). */
  check(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');
/** Any constant: every instance of the service agrees on it. */
const MIGRATION_LOCK_KEY = 727_274_001;

export async function migrateDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  onError: (err: Error) => void;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  await migrateDatabase(opts.url);
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    statement_timeout: opts.statementTimeoutMs || undefined,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (server restarted) must not crash the process.
  pool.on('error', opts.onError);
  const db = drizzle(pool, { schema });
  return {
    db,
    url: opts.url,
    pool,
    async check() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
