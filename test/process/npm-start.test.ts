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

  it('a first start in a terminal prints a short banner, no warnings, one line per request and no stack for a 404', { timeout: 180_000 }, async () => {
    await buildWeb({ ifNeeded: true, quiet: true });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-npm-start-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|AUTH_|OAUTH_|OBJECT_STORAGE|IMAGE_MODEL|RATE_LIMIT|TEST_|NODE_ENV|VITEST|PAYMENTS_|VIDEO_|PUBLIC_ANALYTICS|LOG_|npm_)/.test(k)));
    // A terminal's format (the test has no terminal: LOG_FORMAT says what a TTY would choose).
    const npm = spawn('npm', ['start'], { cwd: ROOT, env: { ...clean, PORT: String(port), DATA_DIR: dataDir, LOG_FORMAT: 'pretty' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pgid = npm.pid!;
    cleanups.push(() => {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    });
    let out = '';
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => out.includes(text) && resolve();
        npm.stdout.on('data', check);
        npm.stderr.on('data', check);
        npm.once('exit', () => reject(new Error(`npm start exited before printing ${text}:\n${out}`)));
        check();
      });
    npm.stdout.on('data', (c) => (out += c));
    npm.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await seen('Stop with Ctrl+C.');
    const start = out;
    // The banner: where to open it, the offline engine said to be no AI model and how to use one, optional services in one line.
    expect(start).toContain(`Image Canvas is ready: open http://localhost:${port} in your browser.`);
    expect(start).toMatch(/offline engine[\s\S]*It is not an AI model\. To use one, set IMAGE_MODEL and its API key/);
    expect(start).toContain('Optional  not configured: payments, video, analytics');
    // No warnings on a first start with the defaults: no line per unset setting, no deprecation, no identity-provider notice.
    expect(start).not.toMatch(/WARN|is not set|Deprecation|MUST change|EBADENGINE/);
    // Short: the server's own lines (npm's header and the web build aside) fit on a screen.
    const serverLines = start.slice(start.indexOf('[')).split('\n').filter((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\]/.test(l));
    expect(serverLines.length, start).toBeLessThanOrEqual(10);

    // One line per request, and a browser's 404 is one line too (no "Reply was already sent" stack).
    const before = out.length;
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/no-such-page`, { headers: { accept: 'text/html' } })).status).toBe(404);
    await seen('/no-such-page → 404');
    const requestLines = out.slice(before).split('\n').filter(Boolean);
    expect(requestLines, out.slice(before)).toHaveLength(2);
    expect(requestLines[0]).toMatch(/GET \/api\/health → 200 in \d+ ms/);
    expect(out.slice(before)).not.toMatch(/already sent|at .*\.ts:\d+/);

    npm.kill('SIGTERM');
    expect(await exited, out.slice(-3000)).toBe(0);
  });
});
