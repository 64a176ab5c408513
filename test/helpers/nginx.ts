// Debian's nginx (apt-get install nginx) as a child process for a test, in the foreground, on loopback only, with
// deploy/nginx.conf as shipped: the only changes are the instances' addresses (`app1:3000`, `app2:3000`, …) and the
// listen port, the two values the file marks as deployment-specific. Its prefix (temp files, logs, the pid file)
// is a temp folder that stop() removes. Without the binary a suite that needs it is skipped loudly; with CI=true
// it fails instead, as a missing redis-server does (./redis.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeWhenInstalled } from './installed.js';
import { freePort } from '../../src/net-utils.js';

export const NGINX = '/usr/sbin/nginx';
export const SHIPPED_NGINX_CONF = path.resolve(import.meta.dirname, '../../deploy/nginx.conf');

export const nginxAvailable = () => existsSync(NGINX);

/** `describe` when nginx is installed (./installed.ts). */
export function describeWithNginx(name: string, body: () => void): void {
  describeWhenInstalled({ label: 'nginx', binary: NGINX, pkg: 'nginx' }, name, body);
}

/**
 * The shipped configuration with `appN:3000` replaced by `instances[N-1]` (host:port) and its `listen` port by
 * `listen`: throws if the file names another number of instances or does not have exactly one `listen 8080;`.
 */
export function deployedConfig(shipped: string, instances: string[], listen: string): string {
  const named = new Set([...shipped.matchAll(/\bapp(\d+):3000\b/g)].map((m) => Number(m[1])));
  if (named.size !== instances.length || [...named].some((n) => !instances[n - 1])) {
    throw new Error(`deploy/nginx.conf names instances ${[...named].join(', ')}; the test has ${instances.length}`);
  }
  const listens = shipped.match(/\blisten 8080;/g) ?? [];
  if (listens.length !== 1) throw new Error(`deploy/nginx.conf has ${listens.length} "listen 8080;" lines, not one`);
  return shipped.replace(/\bapp(\d+):3000\b/g, (_m, n: string) => instances[Number(n) - 1]).replace(/\blisten 8080;/, `listen ${listen};`);
}

export interface NginxHandle {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The configuration it runs (the shipped one with the substitutions above). */
  config: string;
  /** What nginx wrote to its error log so far. */
  errorLog(): Promise<string>;
  /** Stops nginx and its workers (SIGTERM), removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts nginx with deploy/nginx.conf as shipped, the instances `host:port` as its upstream servers. */
export async function startNginx(instances: string[], opts: { port?: number; timeoutMs?: number } = {}): Promise<NginxHandle> {
  if (!nginxAvailable()) throw new Error(`No nginx at ${NGINX} (apt-get install nginx).`);
  const port = opts.port ?? (await freePort());
  const dir = await mkdtemp(path.join(tmpdir(), 'image-canvas-nginx-'));
  // Run as root, nginx's workers are `nobody`: they must reach the prefix (temp files for bodies and answers).
  await chmod(dir, 0o755);
  await mkdir(path.join(dir, 'logs'));
  const config = deployedConfig(await readFile(SHIPPED_NGINX_CONF, 'utf8'), instances, `127.0.0.1:${port}`);
  const confPath = path.join(dir, 'nginx.conf');
  await writeFile(confPath, config);
  const errorLogPath = path.join(dir, 'logs', 'error.log');
  // stderr at `notice` too (besides the error log), to see the moment it listens: "start worker processes".
  const child = spawn(NGINX, ['-p', `${dir}/`, '-c', confPath, '-e', errorLogPath, '-g', `daemon off; pid ${dir}/nginx.pid; error_log stderr notice;`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = once(child, 'exit');
  let output = '';
  let ready = false;
  child.stderr.on('data', (chunk: Buffer) => {
    if (!ready) output += chunk.toString();
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // Fast shutdown: the master stops its workers at once, open sockets and streams included, then exits.
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      // A bound on a start that never finishes, not a wait: readiness is the log line below.
      const timer = setTimeout(() => reject(new Error(`nginx did not start in ${opts.timeoutMs ?? 20_000} ms: ${output}`)), opts.timeoutMs ?? 20_000);
      const check = () => {
        if (!ready && /start worker process/.test(output)) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stderr.on('data', check);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`nginx exited (${signal ?? code}) before it was ready: ${output}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }

  return { url: `http://127.0.0.1:${port}`, port, config, errorLog: () => readFile(errorLogPath, 'utf8').catch(() => ''), stop };
}
