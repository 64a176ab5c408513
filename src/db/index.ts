// The database port: a pg pool + drizzle, migrated at start-up under an advisory lock (drizzle's migrator
// takes none, and instances starting at the same time would otherwise run the migrations together and fail).
// The lock is a session lock, so the migration connects with `directUrl` (DATABASE_DIRECT_URL: past a
// transaction-mode pooler, which would hand the lock's session to someone else); so do the LISTEN connections and
// the job queue (src/jobs/). Each kind of connection has its own application_name (pg_stat_activity tells them
// apart): image-canvas (this pool), image-canvas-migrate, image-canvas-events, image-canvas-jobs.
import fs from 'node:fs/promises';
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
  /** The connection string of the pool. */
  url: string;
  /** The connection string for sessions (LISTEN, the job queue, src/jobs/): DATABASE_DIRECT_URL, else `url`. */
  directUrl: string;
  pool: pg.Pool;
  /** Throws when the server cannot answer (used by /api/ready). */
  check(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');
/** Any constant: every instance of the service agrees on it. */
const MIGRATION_LOCK_KEY = 727_274_001;

/** Where migration progress is told (the app's logger); silent when absent. */
/** `detail`: a line of the detail (each migration's name), which a person's terminal may leave out. */
export type MigrationLog = (msg: string, detail?: boolean) => void;

/** The migrations in the folder, in order: their names (drizzle's journal tags) and times (drizzle's `folderMillis`). */
async function migrationsInFolder(): Promise<{ tag: string; when: number }[]> {
  const journal = JSON.parse(await fs.readFile(path.join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string; when: number }[] };
  return journal.entries.map(({ tag, when }) => ({ tag, when }));
}

/** How many migrations this code has (`npm run restore` compares a backup's count with it). */
export async function migrationCount(): Promise<number> {
  return (await migrationsInFolder()).length;
}

/**
 * The migrations drizzle's migrator will apply: as it decides, those newer than the last one recorded in
 * `drizzle.__drizzle_migrations` (all of them on an empty database).
 */
async function pendingMigrations(client: pg.Client): Promise<{ tag: string; when: number }[]> {
  const all = await migrationsInFolder();
  const table = await client.query<{ found: string | null }>("SELECT to_regclass('drizzle.__drizzle_migrations')::text AS found");
  if (!table.rows[0]?.found) return all;
  const last = await client.query<{ created_at: string }>('SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1');
  const lastAt = last.rows[0] ? Number(last.rows[0].created_at) : -Infinity;
  return all.filter((m) => lastAt < m.when);
}

/**
 * Migrates the database under the advisory lock. Told to `log`: one line when migrations start (how many), one per
 * migration applied (its name), one when done (with the time taken) — or one line saying the schema is up to date.
 */
export async function migrateDatabase(url: string, log: MigrationLog = () => {}): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'image-canvas-migrate' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const pending = await pendingMigrations(client);
      if (pending.length === 0) log(`database migrations: the schema is up to date (${(await migrationsInFolder()).length} migrations)`);
      else {
        const started = performance.now();
        log(`database migrations: applying ${pending.length} (${pending[0].tag} to ${pending.at(-1)!.tag})`);
        await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
        for (const m of pending) log(`database migration applied: ${m.tag}`, true);
        log(`database migrations: done, ${pending.length} applied in ${Math.round(performance.now() - started)} ms`);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

export interface DatabaseOptions {
  url: string;
  /** For the migration lock and the session connections of src/jobs/; default `url`. */
  directUrl?: string;
  poolSize: number;
  statementTimeoutMs: number;
  onError: (err: Error) => void;
  /** Where migrations are told (migrateDatabase). */
  log?: MigrationLog;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const directUrl = opts.directUrl ?? opts.url;
  await migrateDatabase(directUrl, opts.log);
  const pool = new pg.Pool({
    connectionString: opts.url,
    application_name: 'image-canvas',
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
    directUrl,
    pool,
    async check() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
