// Where the embedded cluster lives (src/db/embedded-postgres-location.ts): the cases decided without starting a
// server. The moves themselves, as root, are in test/process/root-closed-folder.test.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeCluster, pointerFile } from '../../src/db/embedded-postgres-location.js';

let base: string;
const logs: string[] = [];
const log = (m: string) => logs.push(m);
const someIds = { uid: 12345, gid: 12345 }; // never used to run anything on these paths (a pointer decides first)

beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-location-'));
  logs.length = 0;
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function dataDirWithPointer(name: string, cluster: string, recorded?: string) {
  const dataDir = path.join(base, name);
  await fs.mkdir(dataDir, { recursive: true });
  const dir = path.join(dataDir, 'postgres');
  await fs.writeFile(pointerFile(dir), JSON.stringify({ cluster, dataDir: recorded ?? (await fs.realpath(dataDir)) }));
  return { dataDir, dir };
}

describe('placeCluster', () => {
  it('not root and no pointer: DATA_DIR/postgres, untouched', async () => {
    const dir = path.join(base, 'data', 'postgres');
    expect(await placeCluster(dir, undefined, path.join(base, 'system'), log)).toEqual({ dir, relocated: false });
    expect(existsSync(path.join(base, 'system'))).toBe(false);
    expect(existsSync(pointerFile(dir))).toBe(false);
  });

  it('a pointer names the cluster; a leftover DATA_DIR/postgres is reported, not used or deleted', async () => {
    const cluster = path.join(base, 'system', 'clusters', 'abc');
    await fs.mkdir(cluster, { recursive: true });
    await fs.writeFile(path.join(cluster, 'PG_VERSION'), '18\n');
    const { dir } = await dataDirWithPointer('data', cluster);
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'PG_VERSION'), '18\n');
    expect(await placeCluster(dir, someIds, path.join(base, 'system'), log)).toEqual({ dir: cluster, relocated: true });
    expect(logs.join('\n')).toContain(`${dir} is not used (the database lives in ${cluster})`);
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
  });

  it('not root, with a pointer: refused with a clear message rather than starting an empty database', async () => {
    const { dir } = await dataDirWithPointer('data', '/var/lib/image-canvas/clusters/abc');
    await expect(placeCluster(dir, undefined, path.join(base, 'system'), log)).rejects.toThrow(
      /lives in \/var\/lib\/image-canvas\/clusters\/abc .*run the service as root/,
    );
  });

  it('a copy of a data folder whose original still names the same cluster is refused', async () => {
    const cluster = path.join(base, 'system', 'clusters', 'abc');
    const original = await dataDirWithPointer('original', cluster);
    const copy = await dataDirWithPointer('copy', cluster, await fs.realpath(original.dataDir));
    await expect(placeCluster(copy.dir, someIds, path.join(base, 'system'), log)).rejects.toThrow(/is a copy of that folder.*Remove .*postgres\.location/);
    expect(await placeCluster(original.dir, someIds, path.join(base, 'system'), log)).toEqual({ dir: cluster, relocated: true });
  });

  it('a data folder that was moved keeps its cluster, and the pointer records the new path', async () => {
    const cluster = path.join(base, 'system', 'clusters', 'abc');
    const moved = await dataDirWithPointer('moved', cluster, path.join(base, 'gone'));
    expect(await placeCluster(moved.dir, someIds, path.join(base, 'system'), log)).toEqual({ dir: cluster, relocated: true });
    const pointer = JSON.parse(await fs.readFile(pointerFile(moved.dir), 'utf8'));
    expect(pointer).toMatchObject({ cluster, dataDir: await fs.realpath(moved.dataDir) });
    expect(logs.join('\n')).toContain('holds no database: a new, empty one is created there');
  });

  // As root, with the system folder on another file system (a volume, /dev/shm): the cluster is copied, not renamed.
  const postgresIds = (() => {
    if (process.getuid?.() !== 0) return undefined;
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      return undefined;
    }
  })();
  const otherFs = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(os.tmpdir()).dev;
  it.skipIf(!postgresIds || !otherFs)('as root, moves a cluster across file systems by copying it (owner postgres, 0700), setting aside what was in the way', async () => {
    const ids = postgresIds!;
    const shm = await fs.mkdtemp('/dev/shm/image-canvas-location-');
    try {
      await fs.chmod(shm, 0o755);
      const systemDir = path.join(shm, 'system');
      const closed = path.join(base, 'closed');
      const dir = path.join(closed, 'data', 'postgres');
      await fs.mkdir(path.join(dir, 'base', '1'), { recursive: true });
      await fs.writeFile(path.join(dir, 'PG_VERSION'), '18\n');
      await fs.writeFile(path.join(dir, 'base', '1', '1259'), 'rows');
      await fs.chmod(closed, 0o700);
      const real = await fs.realpath(path.join(closed, 'data'));
      // Something already at the target, with no pointer: an earlier, unfinished move.
      const target = path.join(systemDir, 'clusters', createHash('sha256').update(real).digest('hex').slice(0, 16));
      await fs.mkdir(target, { recursive: true });
      await fs.writeFile(path.join(target, 'PG_VERSION'), 'old\n');

      const placed = await placeCluster(dir, ids, systemDir, log);
      expect(placed).toEqual({ dir: target, relocated: true });
      expect(await fs.readFile(path.join(target, 'base', '1', '1259'), 'utf8')).toBe('rows');
      expect(await fs.readFile(path.join(target, 'PG_VERSION'), 'utf8')).toBe('18\n');
      expect(await fs.stat(path.join(target, 'base', '1', '1259'))).toMatchObject({ uid: ids.uid, gid: ids.gid });
      expect((await fs.stat(target)).mode & 0o777).toBe(0o700);
      expect(existsSync(dir)).toBe(false);
      expect(JSON.parse(await fs.readFile(pointerFile(dir), 'utf8'))).toMatchObject({ cluster: target, dataDir: real });
      const aside = (await fs.readdir(path.join(systemDir, 'clusters'))).filter((n) => n.includes('.replaced-'));
      expect(aside).toHaveLength(1);
      expect(await fs.readFile(path.join(systemDir, 'clusters', aside[0], 'PG_VERSION'), 'utf8')).toBe('old\n');
      expect(logs.join('\n')).toMatch(/Set .* aside .*Moving the embedded PostgreSQL data/s);
    } finally {
      await fs.rm(shm, { recursive: true, force: true });
    }
  });
});
