// Starts what the service stands on, from the config: the DATA_DIR lock, generated secrets, the embedded
// PostgreSQL server or an external one. `close()` undoes it all, in reverse order.
import path from 'node:path';
import type { Config } from './config.js';
import { lockDataDir, persistentSecret } from './data-dir.js';
import { errorKey, onceEvery } from './log-limiter.js';
import { openDatabase, type Database } from './db/index.js';
import { startEmbeddedPostgres } from './db/embedded-postgres.js';
import { createObjectStore, type ObjectStore, type StorageConfig } from './storage/index.js';

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface Runtime {
  /** The config with generated values (AUTH_SECRET in embedded mode) filled in. */
  config: Config;
  database: Database;
  store: ObjectStore;
  close(): Promise<void>;
}

/**
 * The embedded PostgreSQL database of a DATA_DIR: the cluster's folder (src/db/embedded-postgres.ts may keep
 * it elsewhere and name it in `<dir>.location`), the password of its `postgres` user (generated once, kept in
 * DATA_DIR) and the database's name. The same at every start, so a client of its own (psql, pg_dump, a test)
 * can reach the database of a running service at `postgres://postgres:<password>@127.0.0.1:<port>/<database>`,
 * the port being the one in the cluster's `postmaster.pid`.
 */
export async function embeddedDatabase(dataDir: string): Promise<{ dir: string; password: string; database: string }> {
  return { dir: path.join(dataDir, 'postgres'), password: await persistentSecret(dataDir, 'postgres-password'), database: 'image_canvas' };
}

/** The object store's settings from the config (the same store for the service and any client of its own). */
export function storageConfig(config: Config): StorageConfig {
  return {
    connectionString: config.storage.connectionString,
    dataDir: config.dataDir,
    container: config.storage.container,
    publicUrl: config.storage.publicUrl,
    appBaseUrl: config.baseUrl,
  };
}

export async function startRuntime(config: Config, log: Logger): Promise<Runtime> {
  const undo: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of undo.reverse()) await step().catch((err) => log.error(`shutdown: ${(err as Error).message}`));
  };
  try {
    const usesDataDir = !config.database.url || !config.auth.secret || !config.storage.connectionString;
    if (usesDataDir) undo.push(await lockDataDir(config.dataDir));

    const secret = config.auth.secret ?? (await persistentSecret(config.dataDir, 'auth-secret'));
    let url = config.database.url;
    if (!url) {
      const embedded = await startEmbeddedPostgres({
        ...(await embeddedDatabase(config.dataDir)),
        systemDir: config.database.embeddedSystemDir,
        log: (m) => log.info(m),
      });
      undo.push(() => embedded.stop());
      url = embedded.url;
    }
    const poolError = onceEvery(30_000, (fields, m) => log.warn(m));
    const database = await openDatabase({
      url,
      directUrl: config.database.url ? config.database.directUrl : undefined, // the embedded server has no pooler
      poolSize: config.database.poolSize,
      statementTimeoutMs: config.database.statementTimeoutMs,
      // An idle connection lost (PostgreSQL restarting): told once per distinct error and 30 s, with its code.
      onError: (err) => poolError(errorKey(err), {}, `database: an idle connection failed: ${err.message}${(err as { code?: string }).code ? ` (${(err as { code?: string }).code})` : ''}`),
      // Each migration's own line is for the JSON log; a person's terminal gets the count and the time (first start).
      log: (m, detail) => (detail && config.logFormat === 'pretty' ? log.debug(m) : log.info(m)),
    });
    undo.push(() => database.close());

    const store = await createObjectStore(storageConfig(config));
    undo.push(() => store.close());
    await store.init();
    return { config: { ...config, auth: { ...config.auth, secret } }, database, store, close };
  } catch (err) {
    await close();
    throw err;
  }
}
