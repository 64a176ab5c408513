// Boots the whole service the way server.ts does, on a free loopback port, in a temp DATA_DIR; in
// "external" mode with DATABASE_CONNECTION_STRING naming a fresh database on the harness's server.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { pointerFile } from '../../src/db/embedded-postgres-location.js';
import { embeddedDatabase, storageConfig } from '../../src/runtime.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { HttpClient, signIn } from './http-client.js';

export type DbMode = 'embedded' | 'external';
export const dbMode = (): DbMode => (process.env.TEST_DB_MODE === 'external' ? 'external' : 'embedded');

/** A new, empty database on the harness's external server; returns its URL. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = inject('postgresAdminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A database of the test's own on the project's kind of server: a fresh one on the harness's external server,
 * or, in the embedded project, an embedded server of its own (e.g. for apps that must share one).
 */
export async function createOwnDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (dbMode() === 'external') return createTestDatabase();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-own-pg-'));
  await fs.chmod(dir, 0o755); // the embedded server runs as the `postgres` user when we are root
  const server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), password: 'own-password', database: 'own', log: () => {} });
  return {
    url: server.url,
    async drop() {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  /** The config the app was built from. */
  config: Config;
  baseUrl: string;
  dataDir: string;
  /** The app's database: the external one made for it, or the embedded server the app started. */
  databaseUrl: string;
  /** A pool of the test's own on the app's database (closed by `close()`). */
  pool: pg.Pool;
  client(): HttpClient;
  /** A client signed in through the bundled identity provider, and the user's id. */
  user(email: string, name?: string): Promise<{ client: HttpClient; id: string; email: string }>;
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, mode: DbMode = dbMode(), build: Omit<BuildOptions, 'serverFactory'> = {}): Promise<TestApp> {
  // Bind first, so the port is ours before the config names it (no window for another process to take it).
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-test-'));
  await fs.chmod(dataDir, 0o755); // the embedded server runs as the `postgres` user when we are root
  const database = mode === 'external' ? await createTestDatabase() : undefined;
  const baseUrl = `http://127.0.0.1:${port}`;
  const { config } = loadConfig({
    PORT: String(port),
    AUTH_URL: baseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(database ? { DATABASE_CONNECTION_STRING: database.url } : {}),
    ...env,
  });
  let app: FastifyInstance | undefined;
  let pool: pg.Pool | undefined;
  let databaseUrl: string;
  try {
    app = await buildApp(config, { ...build, serverFactory: (handler) => server.on('request', handler) });
    await app.ready();
    databaseUrl = database?.url ?? config.database.url ?? (await runningEmbeddedDatabaseUrl(config.dataDir));
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    // An idle connection dropped when the server stops (embedded: with the app) is not a test failure.
    pool.on('error', () => undefined);
  } catch (err) {
    // Nothing started for this app may outlive the failure (its embedded PostgreSQL included).
    await pool?.end().catch(() => undefined);
    await app?.close().catch(() => undefined);
    server.close();
    await database?.drop().catch(() => undefined);
    await fs.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    app,
    config,
    baseUrl,
    dataDir,
    databaseUrl,
    pool,
    client: () => new HttpClient(baseUrl),
    async user(email, name = email.split('@')[0]) {
      const client = new HttpClient(baseUrl);
      const landed = await signIn(client, email, name);
      if (!landed.url.endsWith('/projects')) throw new Error(`sign-in ended at ${landed.url}`);
      const me = await client.get('/api/user');
      return { client, id: me.json.id, email: me.json.email };
    },
    async close() {
      await pool.end();
      await app.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Rows of a table, straight from the database the app uses (to prove what was or was not stored). */
export async function countRows(t: Pick<TestApp, 'pool'>, table: 'users' | 'projects' | 'canvases' | 'generations'): Promise<number> {
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0].n;
}

/**
 * The URL of the embedded server that a service started on `dataDir`: its database and password from the
 * service's own `embeddedDatabase`, the port from the running cluster's `postmaster.pid` (PostgreSQL writes the
 * port on its fourth line).
 */
export async function runningEmbeddedDatabaseUrl(dataDir: string): Promise<string> {
  const { dir, password, database } = await embeddedDatabase(dataDir);
  const pointer = await fs.readFile(pointerFile(dir), 'utf8').catch(() => undefined);
  const cluster = pointer ? (JSON.parse(pointer) as { cluster: string }).cluster : dir;
  const port = Number((await fs.readFile(path.join(cluster, 'postmaster.pid'), 'utf8')).split('\n')[3]);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no running embedded PostgreSQL server in ${cluster}`);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** An object store of the test's own on the app's storage (same driver, folder or bucket); the caller closes it. */
export async function openObjectStore(t: Pick<TestApp, 'config'>): Promise<ObjectStore> {
  const store = await createObjectStore(storageConfig(t.config));
  await store.init();
  return store;
}
