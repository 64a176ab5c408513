// `npm start` as a person runs it (README): a SIGTERM (or Ctrl-C's SIGINT) to npm stops the service and the embedded
// PostgreSQL server it started, and npm exits cleanly. Before, npm's shell stood between npm and the service: the
// signal stopped npm and left the service and its database running. The real `npm start` in this folder, in a
// process group of its own that afterAll ends.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { isProcessAlive } from '../../src/data-dir.js';
import { freePort } from '../../src/net-utils.js';
import { postmasterPid } from '../helpers/service-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cleanups: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Whether any process of the group `pgid` is alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  it('SIGTERM to npm stops the service and its embedded PostgreSQL, and npm exits 0', { timeout: 180_000 }, async () => {
    // The web client built here first (as the browser tests' global setup does), so npm start's own --if-needed
    // finds it fresh and no two builds of web/dist ever run at once.
    await buildWeb({ ifNeeded: true, quiet: true });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-npm-start-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    // Only what the test gives: none of the runner's own configuration leaks in (as service-process.ts).
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|AUTH_|OAUTH_|OBJECT_STORAGE|IMAGE_MODEL|RATE_LIMIT|TEST_|NODE_ENV|VITEST|PAYMENTS_|VIDEO_|npm_)/.test(k)));
    const npm = spawn('npm', ['start'], { cwd: ROOT, env: { ...clean, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pgid = npm.pid!;
    // Whatever is left of the group (a failed run) is ours: ended here.
    cleanups.push(() => {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    });
    let out = '';
    npm.stdout.on('data', (c) => (out += c));
    npm.stderr.on('data', (c) => (out += c));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes('Image Canvas is serving')) resolve();
      };
      npm.stdout.on('data', check);
      npm.stderr.on('data', check);
      void exited.then(() => reject(new Error(`npm start exited before serving:\n${out}`)));
    });
    const serving = out.split('\n').find((l) => l.includes('Image Canvas is serving'))!;
    const servicePid = (JSON.parse(serving) as { pid: number }).pid;
    const postgresPid = await postmasterPid(path.join(dataDir, 'postgres'));
    expect(isProcessAlive(servicePid) && isProcessAlive(postgresPid)).toBe(true);

    npm.kill('SIGTERM');
    expect(await exited, out.slice(-3000)).toEqual({ code: 0, signal: null });
    // The service finished its shutdown (it stops PostgreSQL before it exits) and nothing of the group is left.
    await expect.poll(() => isProcessAlive(servicePid) || isProcessAlive(postgresPid) || groupAlive(pgid), { timeout: 30_000, interval: 100 }).toBe(false);
    expect(out).toContain('SIGTERM: finishing in-flight requests');
  });
});
