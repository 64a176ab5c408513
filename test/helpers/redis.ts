// Debian's redis-server (apt-get install redis-server) as a child process for a test: on loopback only, on a free
// port, persisting nothing (no RDB snapshots, no append-only file), with a temp folder as its working folder that
// stop() removes. Without the binary a suite that needs it is skipped loudly; with CI=true it fails instead, as a
// missing Chromium or system PostgreSQL does.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWhenInstalled } from './installed.js';
import { freePort } from '../../src/net-utils.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export const redisAvailable = () => existsSync(REDIS_SERVER);

export interface RedisHandle {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  pid: number;
  /** The server's working folder (removed by stop()). */
  dir: string;
  /** Kills the server, waits for it to exit, removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** `describe` when redis-server is installed (./installed.ts). */
export function describeWithRedis(name: string, body: () => void): void {
  describeWhenInstalled({ label: 'Redis', binary: REDIS_SERVER, pkg: 'redis-server' }, name, body);
}

/** Why one start failed; `portTaken` when another process took the port between freePort() and the bind. */
class StartError extends Error {
  constructor(message: string, readonly portTaken: boolean) {
    super(message);
  }
}

/** A redis-server on a free port, or on `port` (to start one again where a stopped one was: an outage that ends). */
export async function startRedis(opts: { timeoutMs?: number; port?: number } = {}): Promise<RedisHandle> {
  if (!redisAvailable()) throw new Error(`No redis-server at ${REDIS_SERVER} (apt-get install redis-server).`);
  // redis-server cannot report a kernel-chosen port (`--port 0` means "no TCP" and it exits), so a free port is
  // picked first; if something takes it before redis binds, try again with another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts.port ?? (await freePort()), opts.timeoutMs ?? 20_000);
    } catch (err) {
      if (!(err instanceof StartError && err.portTaken && attempt < 3 && opts.port === undefined)) throw err;
    }
  }
}

async function startOnce(port: number, timeoutMs: number): Promise<RedisHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'image-canvas-redis-'));
  // No config file: the built-in defaults (no daemon, log to stdout, no unix socket, protected mode) plus these.
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(REDIS_SERVER, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let output = '';
  let ready = false;
  // Keep reading both pipes for the server's whole life (a full pipe would block its logging); keep the text
  // only until it is ready, for the error message.
  const collect = (chunk: Buffer) => {
    if (!ready) output += chunk.toString();
  };
  child.stderr.on('data', collect);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // with no save points and no replicas, redis exits at once
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      // A bound on a start that never finishes, not a wait: readiness is the log line below.
      const timer = setTimeout(() => reject(new StartError(`redis-server did not start in ${timeoutMs} ms: ${output}`, false)), timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        collect(chunk);
        if (!ready && /Ready to accept connections/.test(output)) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new StartError(`redis-server exited (${signal ?? code}) before it was ready: ${output}`, /Address already in use/.test(output)));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  output = '';

  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid!, dir, stop };
}
