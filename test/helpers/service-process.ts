// The service as a real process: `node --import tsx src/server.ts`, as `npm start` runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the output contains `text`; rejects if the process exits first. */
  waitFor(text: string): Promise<void>;
  /** SIGKILL if still running (afterAll). */
  kill(): void;
}

/** `cwd`: the project folder to run from (default: this one), e.g. a copy of it in a closed folder. */
export function startService(env: Record<string, string>, opts: { cwd?: string } = {}): ServiceProcess {
  // Only what the test gives: none of the runner's own configuration leaks in.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|AUTH_|OAUTH_|OBJECT_STORAGE|IMAGE_MODEL|RATE_LIMIT|TEST_|NODE_ENV|VITEST|PAYMENTS_|VIDEO_)/.test(k)));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: opts.cwd ?? ROOT, env: { ...clean, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const output = () => out;
  return {
    child,
    output,
    exited,
    waitFor: (text) =>
      new Promise((resolve, reject) => {
        const cleanup = () => {
          child.stdout.off('data', check);
          child.stderr.off('data', check);
          child.off('exit', onExit);
        };
        const check = () => {
          if (out.includes(text)) {
            cleanup();
            resolve();
          }
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`exited before "${text}":\n${out}`));
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        child.once('exit', onExit);
        check();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The pid of the PostgreSQL server running in a cluster folder (first line of its `postmaster.pid`). */
export async function postmasterPid(cluster: string): Promise<number> {
  return Number((await fs.readFile(path.join(cluster, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}
