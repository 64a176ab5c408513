// The service as real processes: `node --import tsx src/server.ts`, as `npm start` runs it.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net-utils.js';
import { isProcessAlive as alive } from '../../src/data-dir.js';
import { postmasterPid as clusterPostmasterPid, startService as start, type ServiceProcess } from '../helpers/service-process.js';

const postmasterPid = (dataDir: string) => clusterPostmasterPid(path.join(dataDir, 'postgres'));

const started: ServiceProcess[] = [];
const startService = (env: Record<string, string>) => {
  const proc = start(env);
  started.push(proc);
  return proc;
};
const waitFor = (proc: ServiceProcess, text: string) => proc.waitFor(text);


let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-proc-'));
});
afterAll(async () => {
  for (const proc of started) proc.kill();
  // A postgres orphaned on purpose by a test that failed midway: stop it too (we started it).
  const pid = await postmasterPid(dataDir).catch(() => 0);
  if (pid && alive(pid)) process.kill(pid, 'SIGINT');
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('the service process', () => {
  it('refuses a second process on the same DATA_DIR, reclaims a server orphaned by kill -9, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const first = startService({ PORT: String(port), DATA_DIR: dataDir });
    await waitFor(first, 'Image Canvas is serving');
    expect((await fetch(`http://127.0.0.1:${port}/api/ready`)).status).toBe(200);

    const second = startService({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect((await second.exited).code).not.toBe(0);
    expect(second.output()).toMatch(/Another Image Canvas process \(pid \d+\) is already using the data folder/);

    // kill -9 leaves the PostgreSQL child running, with its pid file.
    const orphan = await postmasterPid(dataDir);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(orphan)).toBe(true);

    const port3 = await freePort();
    const third = startService({ PORT: String(port3), DATA_DIR: dataDir });
    await waitFor(third, 'Image Canvas is serving');
    expect(third.output()).toContain('left running by an earlier run');
    expect(alive(orphan)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${port3}/api/ready`)).status).toBe(200);

    const server = await postmasterPid(dataDir);
    third.child.kill('SIGTERM');
    expect(await third.exited).toEqual({ code: 0, signal: null });
    expect(alive(server)).toBe(false);
    expect(existsSync(path.join(dataDir, 'service.lock'))).toBe(false);
  });

  it('in production refuses to start and lists every missing required value', async () => {
    const proc = startService({ NODE_ENV: 'production', DATA_DIR: dataDir });
    const { code } = await proc.exited;
    expect(code).toBe(1);
    for (const name of ['OAUTH_CLIENT_ID', 'OAUTH_CLIENT_SECRET', 'AUTH_URL', 'AUTH_SECRET', 'OBJECT_STORAGE_CONNECTION_STRING', 'DATABASE_CONNECTION_STRING', 'IMAGE_MODEL_API_KEY']) {
      expect(proc.output()).toContain(`${name} is required when NODE_ENV=production`);
    }
  });
});
