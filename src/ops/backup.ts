// `npm run backup` and `npm run restore` (docs/deploy.md, "Backup and restore"): a deployment's PostgreSQL
// database (pg_dump, custom format; without a pg_dump of the server's version, as on the embedded PostgreSQL, the
// tables' rows through the driver: ./logical-dump.ts) and every object of its store, in one folder with a manifest of counts,
// sizes, SHA-256 checksums and versions. Both read the service's own configuration (src/config.ts).
//
// Consistency: the dump is taken first (one snapshot of the whole database), the objects listed after it.
// Objects are write-once and never change, so every object the dump refers to is already in the store when
// the listing starts; objects written later are copied too and harmless. The one exception would be an object
// deleted while the backup runs, which is only ever one no longer referenced.
//
// Restore goes into an empty deployment (a database without tables, a store without objects, the same public
// URL) unless --force; it checks every checksum before it writes anything, then puts the objects, then
// restores the database in one transaction, so a failure leaves no half-restored database.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Config } from '../config.js';
import { DataDirLockedError, lockDataDir } from '../data-dir.js';
import { pointerFile } from '../db/embedded-postgres-location.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrateDatabase, migrationCount } from '../db/index.js';
import { embeddedDatabase, storageConfig } from '../runtime.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import { ObjectExistsError } from '../storage/errors.js';
import { isValidObjectName } from '../storage/object-name.js';
import { OpsError } from './errors.js';
import { dumpLogical, loadLogical } from './logical-dump.js';
import { pickTool, type FoundTool } from './pg-tools.js';

export { OpsError };

export const BACKUP_FORMAT = 1;
const MANIFEST = 'manifest.json';
const DUMP = 'database.dump';
/** The database part without pg_dump (./logical-dump.ts). */
const LOGICAL = 'database.ndjson';
const OBJECT_LIST = 'objects.ndjson';
const OBJECT_DIR = 'objects';
/** Objects copied at once (each one streamed, never held whole in memory). */
const PARALLEL = 8;
/** A progress line every this many objects. */
const PROGRESS_EVERY = 100;

export interface Manifest {
  format: number;
  app: { name: string; version: string };
  startedAt: string;
  finishedAt: string;
  database: {
    /** `pg_dump` (custom format, `pg_restore`d) or `logical` (./logical-dump.ts); absent in backups made before the latter: `pg_dump`. */
    kind?: 'pg_dump' | 'logical';
    file: string;
    bytes: number;
    sha256: string;
    serverVersion: string;
    /** pg_dump's version (kind `pg_dump`). */
    pgDump?: string;
    pgDumpMajor?: number;
    migrations: number;
    /** Rows per table and the sequences' values (kind `logical`). */
    tables?: Record<string, number>;
    sequences?: Record<string, string>;
  };
  store: { kind: ObjectStore['kind']; publicBase: string; objects: number; bytes: number; list: string; listSha256: string };
}

export interface ObjectEntry {
  name: string;
  size: number;
  sha256: string;
  contentType: string;
}

export type Log = (line: string) => void;

const sha256 = () => createHash('sha256');

async function fileDigest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = sha256();
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

async function appInfo(): Promise<{ name: string; version: string }> {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package.json');
  const pkg = JSON.parse(await fs.readFile(file, 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

/** The public URL base objects get (`<base>/<name>`): it is written into canvases, so a restore keeps it. */
export function publicBaseOf(store: ObjectStore): string {
  const probe = 'backup-probe';
  return store.urlOf(probe).slice(0, -probe.length - 1);
}

/**
 * The database the service uses: DATABASE_CONNECTION_STRING, or the embedded server under DATA_DIR — the
 * running service's (the port from its `postmaster.pid`), or, when no service holds DATA_DIR, one started here
 * for the time of the command (holding DATA_DIR's lock, so the service cannot start meanwhile).
 */
export async function openDatabaseTarget(config: Config, log: Log): Promise<{ url: string; embedded: boolean; close(): Promise<void> }> {
  if (config.database.url) return { url: config.database.url, embedded: false, close: async () => {} };
  const { dir, password, database } = await embeddedDatabase(config.dataDir);
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDir(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    const pointer = await fs.readFile(pointerFile(dir), 'utf8').catch(() => undefined);
    const cluster = pointer ? (JSON.parse(pointer) as { cluster: string }).cluster : dir;
    const port = Number((await fs.readFile(path.join(cluster, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[3]);
    if (!Number.isInteger(port) || port <= 0) throw new OpsError(`The service holds ${config.dataDir} but its embedded PostgreSQL is not running (no port in ${cluster}/postmaster.pid).`);
    log(`database: the running service's embedded PostgreSQL on port ${port}`);
    return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`, embedded: true, close: async () => {} };
  }
  try {
    log('database: starting the embedded PostgreSQL under DATA_DIR (no service is running on it)');
    const server = await startEmbeddedPostgres({ dir, password, database, systemDir: config.database.embeddedSystemDir, log: () => {} });
    return {
      url: server.url,
      embedded: true,
      async close() {
        await server.stop();
        await unlock();
      },
    };
  } catch (err) {
    await unlock();
    throw err;
  }
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The URL without its password (handed to pg_dump/pg_restore in PGPASSWORD, never on a command line). */
function splitPassword(url: string): { dbname: string; password?: string } {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.password = '';
  return { dbname: parsed.toString(), password };
}

function runTool(file: string, args: string[], url: string): Promise<void> {
  const { dbname, password } = splitPassword(url);
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args, `--dbname=${dbname}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...(password !== undefined ? { PGPASSWORD: password } : {}) },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 16_384) stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new OpsError(`${path.basename(file)} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}

async function openStore(config: Config): Promise<ObjectStore> {
  const store = await createObjectStore(storageConfig(config));
  await store.init();
  return store;
}

/** Runs `fn` on every item of `items` with at most `limit` at once. */
async function eachParallel<T>(items: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  const worker = async () => {
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      await fn(next.value);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** A pass-through stream that hashes and counts what flows through it. */
function digester() {
  const hash = sha256();
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/**
 * Writes a backup of the deployment `config` describes into a new folder under `outDir` and returns its path.
 * The folder appears under its final name only when complete (it is written as `<name>.partial` first).
 */
export async function backup(config: Config, opts: { outDir: string; log: Log }): Promise<{ dir: string; manifest: Manifest }> {
  const { log } = opts;
  const startedAt = new Date();
  const name = `image-canvas-backup-${startedAt.toISOString().replace(/[:.]/g, '-')}`;
  const dir = path.resolve(opts.outDir, name);
  const partial = `${dir}.partial`;
  await fs.mkdir(path.join(partial, OBJECT_DIR), { recursive: true });
  const database = await openDatabaseTarget(config, log);
  let store: ObjectStore | undefined;
  try {
    // 1. The database, first (see the top of this file).
    const { server, serverMajor, migrations } = await withClient(database.url, async (c) => {
      const v = await c.query<{ server_version: string; num: string }>(`SELECT current_setting('server_version') AS server_version, current_setting('server_version_num') AS num`);
      const m = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`).catch(() => ({ rows: [{ n: 0 }] }));
      return { server: v.rows[0].server_version, serverMajor: Math.floor(Number(v.rows[0].num) / 10_000), migrations: m.rows[0].n };
    });
    // pg_dump when one of the server's version is found; else the tables' rows through the driver (./logical-dump.ts).
    const pgDump = await pickTool('pg_dump', serverMajor, `the database server is PostgreSQL ${server}`, config.database.pgBinDir).catch((err: unknown) => {
      if (!(err instanceof OpsError)) throw err;
      log(`database: no pg_dump ${serverMajor} or newer found: dumping the tables' rows through the driver instead (the job queue's pgboss schema is left out)`);
      return undefined;
    });
    let part: Pick<Manifest['database'], 'kind' | 'file' | 'pgDump' | 'pgDumpMajor' | 'tables' | 'sequences'>;
    if (pgDump) {
      log(`database: dumping PostgreSQL ${server} with ${pgDump.path} (${pgDump.major})`);
      await runTool(pgDump.path, ['--format=custom', `--file=${path.join(partial, DUMP)}`], database.url);
      part = { kind: 'pg_dump', file: DUMP, pgDump: pgDump.version, pgDumpMajor: pgDump.major };
    } else {
      const { tables, sequences } = await dumpLogical(database.url, path.join(partial, LOGICAL));
      const rows = Object.values(tables).reduce((a, b) => a + b, 0);
      log(`database: ${rows} rows of ${Object.keys(tables).length} tables dumped from one snapshot`);
      part = { kind: 'logical', file: LOGICAL, tables, sequences };
    }
    const dump = await fileDigest(path.join(partial, part.file));
    log(`database: ${mb(dump.bytes)} dumped`);

    // 2. Every object, streamed to a file of its own while its checksum is taken.
    store = await openStore(config);
    const list = createWriteStream(path.join(partial, OBJECT_LIST));
    let objects = 0;
    let bytes = 0;
    let vanished = 0;
    await eachParallel(store.list(), PARALLEL, async (objectName) => {
      if (!isValidObjectName(objectName)) {
        log(`objects: skipping ${JSON.stringify(objectName)} (not a name this service writes)`);
        return;
      }
      const got = await store!.get(objectName);
      if (!got) {
        vanished++; // deleted since it was listed: no longer referenced by anything
        return;
      }
      const digest = digester();
      await pipeline(got.stream, digest.stream, createWriteStream(path.join(partial, OBJECT_DIR, objectName)));
      const { bytes: size, sha256: sum } = digest.result();
      const entry: ObjectEntry = { name: objectName, size, sha256: sum, contentType: got.info.contentType };
      if (!list.write(`${JSON.stringify(entry)}\n`)) await new Promise<void>((resolve) => list.once('drain', () => resolve()));
      objects++;
      bytes += size;
      if (objects % PROGRESS_EVERY === 0) log(`objects: ${objects} copied (${mb(bytes)})`);
    });
    await new Promise<void>((resolve, reject) => list.end((err?: Error | null) => (err ? reject(err) : resolve())));
    log(`objects: ${objects} copied (${mb(bytes)})${vanished ? `, ${vanished} deleted while listed` : ''}`);
    const listDigest = await fileDigest(path.join(partial, OBJECT_LIST));

    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      app: await appInfo(),
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      database: { ...part, bytes: dump.bytes, sha256: dump.sha256, serverVersion: server, migrations },
      store: { kind: store.kind, publicBase: publicBaseOf(store), objects, bytes, list: OBJECT_LIST, listSha256: listDigest.sha256 },
    };
    await fs.writeFile(path.join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await fs.rename(partial, dir);
    log(`backup written to ${dir}`);
    return { dir, manifest };
  } catch (err) {
    await fs.rm(partial, { recursive: true, force: true });
    throw err;
  } finally {
    await store?.close();
    await database.close();
  }
}

async function readManifest(dir: string): Promise<Manifest> {
  const text = await fs.readFile(path.join(dir, MANIFEST), 'utf8').catch(() => {
    throw new OpsError(`${dir} is not a backup: it has no ${MANIFEST}`);
  });
  const manifest = JSON.parse(text) as Manifest;
  if (manifest.format !== BACKUP_FORMAT) throw new OpsError(`${dir} is a backup of format ${manifest.format}; this version reads format ${BACKUP_FORMAT}`);
  return manifest;
}

async function* objectEntries(dir: string): AsyncIterable<ObjectEntry> {
  const lines = createInterface({ input: createReadStream(path.join(dir, OBJECT_LIST)), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as ObjectEntry;
}

/** Every checksum of the backup, before anything is written; throws naming the first file that does not match. */
export async function verifyBackup(dir: string, log: Log): Promise<Manifest> {
  const manifest = await readManifest(dir);
  const mismatch = (file: string, what: string) => new OpsError(`The backup is damaged: ${file} ${what}. Nothing was restored.`);
  const dump = await fileDigest(path.join(dir, manifest.database.file)).catch(() => undefined);
  if (!dump) throw mismatch(manifest.database.file, 'is missing');
  if (dump.sha256 !== manifest.database.sha256 || dump.bytes !== manifest.database.bytes) throw mismatch(manifest.database.file, 'does not match its checksum');
  const list = await fileDigest(path.join(dir, manifest.store.list)).catch(() => undefined);
  if (!list || list.sha256 !== manifest.store.listSha256) throw mismatch(manifest.store.list, list ? 'does not match its checksum' : 'is missing');
  let checked = 0;
  let bytes = 0;
  for await (const entry of objectEntries(dir)) {
    if (!isValidObjectName(entry.name)) throw mismatch(manifest.store.list, `names an invalid object ${JSON.stringify(entry.name)}`);
    const file = path.join(OBJECT_DIR, entry.name);
    const got = await fileDigest(path.join(dir, file)).catch(() => undefined);
    if (!got) throw mismatch(file, 'is missing');
    if (got.sha256 !== entry.sha256 || got.bytes !== entry.size) throw mismatch(file, 'does not match its checksum');
    checked++;
    bytes += got.bytes;
    if (checked % PROGRESS_EVERY === 0) log(`verify: ${checked} of ${manifest.store.objects} objects checked`);
  }
  if (checked !== manifest.store.objects) throw mismatch(manifest.store.list, `lists ${checked} objects, the manifest ${manifest.store.objects}`);
  log(`verify: the dump and ${checked} objects (${mb(bytes)}) match their checksums`);
  return manifest;
}

/** What is not empty in the target: its tables (up to a few named) and its objects. */
async function targetContents(url: string, store: ObjectStore): Promise<string[]> {
  const problems: string[] = [];
  const tables = await withClient(url, async (c) =>
    (
      await c.query<{ name: string }>(
        `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
          WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
      )
    ).rows.map((r) => r.name),
  );
  if (tables.length) problems.push(`the database has ${tables.length} tables (${tables.slice(0, 3).join(', ')}${tables.length > 3 ? ', …' : ''})`);
  const names: string[] = [];
  for await (const name of store.list()) {
    names.push(name);
    if (names.length === 3) break;
  }
  if (names.length) problems.push(`the object store has objects (${names.join(', ')}${names.length === 3 ? ', …' : ''})`);
  return problems;
}

/**
 * Restores the backup in `dir` into the deployment `config` describes: checks, verifies, then objects, then the
 * database. Refuses a target that is not empty, or whose public object URL differs, unless `force`.
 */
export async function restore(config: Config, opts: { dir: string; force: boolean; log: Log }): Promise<Manifest> {
  const { log, force } = opts;
  const dir = path.resolve(opts.dir);
  const manifest = await readManifest(dir);
  const logical = manifest.database.kind === 'logical';
  if (logical) {
    // The rows fit the schema of the backup's migrations: this code must have the same ones.
    const known = await migrationCount();
    if (manifest.database.migrations !== known) {
      throw new OpsError(
        `Refusing to restore: the backup's database is at migration ${manifest.database.migrations}, this version of the service at ${known}. ` +
          `Restore with the release that made the backup (${manifest.app.name} ${manifest.app.version}), start it once, then upgrade.`,
        2,
      );
    }
  }
  const database = await openDatabaseTarget(config, log);
  let store: ObjectStore | undefined;
  try {
    store = await openStore(config);
    const problems = await targetContents(database.url, store);
    const base = publicBaseOf(store);
    if (base !== manifest.store.publicBase) {
      problems.push(
        `the store's public URL is ${base}, the backup's ${manifest.store.publicBase} (canvases keep the backup's URLs: keep the same ` +
          `${manifest.store.kind === 'local' ? 'AUTH_URL' : 'OBJECT_STORAGE_PUBLIC_URL or storage address'})`,
      );
    }
    if (problems.length && !force) throw new OpsError(`Refusing to restore: ${problems.join('; ')}. Restore into an empty deployment, or pass --force.`, 2);
    for (const p of problems) log(`--force: going on although ${p}`);
    const target = await withClient(database.url, async (c) => (await c.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v);
    let pgRestore: FoundTool | undefined;
    if (!logical) {
      const major = manifest.database.pgDumpMajor ?? 0;
      pgRestore = await pickTool('pg_restore', major, `the dump was written by pg_dump ${major}`, config.database.pgBinDir);
    }

    await verifyBackup(dir, log);

    // Objects first: once the database names them, they are there.
    let done = 0;
    let skipped = 0;
    await eachParallel(objectEntries(dir), PARALLEL, async (entry) => {
      if (force && (await store!.head(entry.name))) {
        skipped++; // objects are write-once: the same name is the same object
      } else {
        await store!
          .put(entry.name, createReadStream(path.join(dir, OBJECT_DIR, entry.name)), { contentType: entry.contentType, maxBytes: entry.size })
          .catch((err: unknown) => {
            if (err instanceof ObjectExistsError) skipped++;
            else throw err;
          });
      }
      done++;
      if (done % PROGRESS_EVERY === 0) log(`objects: ${done} of ${manifest.store.objects} restored`);
    });
    log(`objects: ${done} restored${skipped ? ` (${skipped} already there)` : ''}`);

    if (pgRestore) {
      log(`database: restoring into PostgreSQL ${target} with ${pgRestore.path} (${pgRestore.major})`);
      await runTool(
        pgRestore.path,
        ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', ...(force ? ['--clean', '--if-exists'] : []), path.join(dir, manifest.database.file)],
        database.url,
      );
    } else {
      log(`database: migrating PostgreSQL ${target} to migration ${manifest.database.migrations}, then loading the tables' rows`);
      await migrateDatabase(database.url);
      const at = await withClient(database.url, async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')).rows[0].n);
      if (at !== manifest.database.migrations) throw new OpsError(`The target database is at migration ${at}, the backup's at ${manifest.database.migrations}: restore into an empty database.`);
      await loadLogical(database.url, path.join(dir, manifest.database.file), { tables: manifest.database.tables ?? {}, sequences: manifest.database.sequences ?? {} }, { replace: force });
    }
    log(`restored the backup of ${manifest.startedAt} (${manifest.store.objects} objects, database of ${mb(manifest.database.bytes)})`);
    return manifest;
  } finally {
    await store?.close();
    await database.close();
  }
}
