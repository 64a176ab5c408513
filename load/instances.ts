// LOAD_INSTANCES=2 for `npm run load:live`: two instances of the service sharing live documents through Redis, behind
// Debian's nginx with deploy/nginx.conf, to measure what routing live documents by project saves (docs/deploy.md,
// "Routing live documents"): the Redis traffic per edit with each editor's socket on /api/collab/<projectId>
// (hashed: a project's editors on one instance) against /api/collab (LOAD_COLLAB_URL=shared: round robin).
//
// Both instances run in this process (startTestApp, as the one instance of a run does; the second on the first's
// embedded PostgreSQL), with one AUTH_SECRET and nginx's address as AUTH_URL, so a session and an Origin are good on
// either. deploy/nginx.conf is used as shipped except for what one machine needs: the instances' loopback addresses
// for app1:3000 and app2:3000, a loopback port to listen on, files of its own, no per-address limits (every load
// client speaks from 127.0.0.1: they would count the whole run as one person), the Host header with its port, and the REST upstream on the first
// instance only — the bundled development identity provider keeps a sign-in's state in the memory of the instance
// that began it, so a sign-in spread over two instances fails; the live sockets, which are measured, are routed as
// shipped. Its access log names the instance each live socket went to, per project.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../src/net-utils.js';
import { HttpClient, signIn } from '../test/helpers/http-client.js';
import { startRedis, type RedisHandle } from '../test/helpers/redis.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';

export const NGINX = '/usr/sbin/nginx';
const REDIS_CLI = '/usr/bin/redis-cli';
const NGINX_CONF = new URL('../deploy/nginx.conf', import.meta.url);

/** Redis's own counters (INFO): PUBLISH calls, and bytes in and out (a publish goes out once per subscriber). */
export interface RedisCounters {
  publishes: number;
  bytesIn: number;
  bytesOut: number;
}

export interface Instances {
  /** The run's service as seen through nginx: its baseUrl is nginx's, its database and config the first instance's. */
  front: TestApp;
  apps: TestApp[];
  redis: RedisHandle;
  counters(): Promise<RedisCounters>;
  /** Of the projects whose live sockets have closed so far: how many, and how many of them were served by more than one instance. */
  routes(): Promise<{ projects: number; split: number }>;
  describe(): string;
  close(): Promise<void>;
}

/** deploy/nginx.conf for a run on this machine (see the top of this file); throws if the file no longer has what it substitutes. */
export function nginxConfig(shipped: string, { port, upstreams, dir }: { port: number; upstreams: [string, string]; dir: string }): string {
  const replace = (text: string, from: RegExp, to: string | ((...m: string[]) => string), what: string) => {
    if (!from.test(text)) throw new Error(`deploy/nginx.conf has no ${what} for the load run to substitute`);
    return text.replace(from, to as string);
  };
  let conf = shipped;
  // The REST upstream: the first instance only (sign-in state is per instance).
  conf = replace(conf, /(upstream image_canvas \{[^}]*\})/, (block) => block.replaceAll('app2:3000', 'app1:3000'), 'REST upstream image_canvas');
  conf = replace(conf, /\bapp1:3000\b/g, upstreams[0], 'app1:3000');
  conf = replace(conf, /\bapp2:3000\b/g, upstreams[1], 'app2:3000');
  // Host with its port ($http_host): behind nginx on a port other than 80, $host's bare name makes the service's
  // redirects (sign-in) go to port 80.
  conf = replace(conf, /proxy_set_header Host \$host;/g, 'proxy_set_header Host $http_host;', 'Host header');
  conf = replace(conf, /^(\s*)listen 8080;/m, `$1listen 127.0.0.1:${port};`, 'listen 8080');
  conf = replace(conf, /^\s*limit_(conn|req) [^;]*;\s*$/gm, '', 'per-address limit');
  return replace(conf, /^http \{$/m, `http {\n  log_format live '$collab_project $upstream_addr';\n  access_log ${path.join(dir, 'live.log')} live if=$collab_project;`, 'http block');
}

async function startNginx(port: number, upstreams: [string, string]) {
  if (!existsSync(NGINX)) throw new Error(`LOAD_INSTANCES=2 needs nginx at ${NGINX} (apt-get install nginx)`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-load-nginx-'));
  const conf = path.join(dir, 'nginx.conf');
  await fs.writeFile(conf, nginxConfig(await fs.readFile(NGINX_CONF, 'utf8'), { port, upstreams, dir }));
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')}; error_log ${path.join(dir, 'error.log')};`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (c: Buffer) => (errors += c.toString()));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // fast shutdown: open sockets are closed
      await exited;
    }
    await fs.rm(dir, { recursive: true, force: true });
  };
  // Ready when it accepts a connection on its port (nginx prints nothing when it starts); bounded.
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`nginx exited (${child.exitCode}): ${errors}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not listen on ${port} within 20 s: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}`, dir, pid: child.pid!, stop };
}

export async function startInstances(count: number, env: Record<string, string>): Promise<Instances> {
  if (count !== 2) throw new Error(`LOAD_INSTANCES must be 1 or 2 (deploy/nginx.conf names two instances), got ${count}`);
  // Stopped in the reverse order of starting: nginx, the second instance (on the first's PostgreSQL), the first, Redis.
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    while (cleanups.length) await cleanups.pop()!().catch((err: unknown) => console.error(`stopping the load run's instances: ${String(err)}`));
  };
  try {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const port = await freePort();
    const shared = { ...env, COLLAB_REDIS_URL: redis.url, AUTH_URL: `http://127.0.0.1:${port}`, AUTH_SECRET: randomBytes(32).toString('hex') };
    const first = await startTestApp(shared, 'embedded');
    cleanups.push(() => first.close());
    const second = await startTestApp({ ...shared, DATABASE_CONNECTION_STRING: first.databaseUrl }, 'embedded');
    cleanups.push(() => second.close());
    const nginx = await startNginx(port, [new URL(first.baseUrl).host, new URL(second.baseUrl).host]);
    cleanups.push(() => nginx.stop());
    const front: TestApp = {
      ...first,
      baseUrl: nginx.url,
      client: () => new HttpClient(nginx.url),
      async user(email, name = email.split('@')[0]) {
        const client = new HttpClient(nginx.url);
        const landed = await signIn(client, email, name);
        if (!landed.url.endsWith('/projects')) throw new Error(`sign-in ended at ${landed.url}`);
        const me = await client.get('/api/user');
        return { client, id: me.json.id, email: me.json.email };
      },
    };
    const info = async (section: string) => (await promisify(execFile)(REDIS_CLI, ['-p', String(redis.port), 'INFO', section])).stdout;
    const field = (text: string, re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    return {
      front,
      apps: [first, second],
      redis,
      async counters() {
        const [commands, stats] = await Promise.all([info('commandstats'), info('stats')]);
        return { publishes: field(commands, /cmdstat_publish:calls=(\d+)/), bytesIn: field(stats, /total_net_input_bytes:(\d+)/), bytesOut: field(stats, /total_net_output_bytes:(\d+)/) };
      },
      async routes() {
        const byProject = new Map<string, Set<string>>();
        const log = await fs.readFile(path.join(nginx.dir, 'live.log'), 'utf8').catch(() => '');
        for (const line of log.split('\n')) {
          const [project, upstream] = line.split(' ');
          if (!project || !upstream) continue;
          if (!byProject.has(project)) byProject.set(project, new Set());
          byProject.get(project)!.add(upstream);
        }
        return { projects: byProject.size, split: [...byProject.values()].filter((s) => s.size > 1).length };
      },
      describe: () =>
        `Two instances (both in this process, one event loop: the service columns are theirs together) at ${first.baseUrl} and ${second.baseUrl}, sharing live documents through Redis ${redis.url} (pid ${redis.pid}), ` +
        `behind nginx ${nginx.url} (pid ${nginx.pid}) with deploy/nginx.conf (its instances' addresses and port substituted, per-address limits off, REST on the first instance: load/instances.ts)`,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
