// `npm run bench:idle-db`: what one idle instance costs PostgreSQL. Starts a PostgreSQL server (the system's when
// installed, else the embedded one) in a temp folder, one production-mode instance on a fresh database of it, waits
// until it serves and its job queue has started, then for IDLE_SECONDS (default 60) samples pg_stat_activity every
// second (connections, grouped by application_name, peak of each) and reads pg_stat_database's xact_commit +
// xact_rollback of that database at both ends (transactions per second; this script's own queries run in another
// database and are not counted). Settings for the instance are passed through from this process's environment
// (DATABASE_*, JOBS_*, SESSION_REVOCATION_POLL_MS), e.g. `JOBS_POLLING_INTERVAL_SECONDS=5 npm run bench:idle-db`.
// Everything started here is stopped at the end, also on failure or Ctrl-C.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { systemPostgresBinDir } from '../test/helpers/global-postgres.js';
import { startS3Server, type S3ServerHandle } from '../test/helpers/s3-server.js';
import { PRODUCTION_ENV } from '../test/helpers/production-env.js';
import { startService, type ServiceProcess } from '../test/helpers/service-process.js';

const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60);
const WARM_UP_SECONDS = Number(process.env.IDLE_WARM_UP_SECONDS ?? 10);
const DATABASE = 'idle_bench';
const PASSED_THROUGH = /^(DATABASE_(?!CONNECTION_STRING|DIRECT_URL)|JOBS_|SESSION_REVOCATION_POLL_MS$)/;

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-idle-'));
  await fs.chmod(dir, 0o755);
  let server: EmbeddedPostgres | undefined;
  let service: ServiceProcess | undefined;
  let admin: pg.Client | undefined;
  let s3: S3ServerHandle | undefined;
  const stop = async () => {
    service?.kill();
    await service?.exited;
    await admin?.end().catch(() => {});
    await s3?.stop();
    await server?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().finally(() => process.exit(130)));
  try {
    const binDir = systemPostgresBinDir();
    server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), password: 'bench-password', database: 'postgres', log: () => {}, binDir });
    admin = new pg.Client({ connectionString: server.url, application_name: 'idle-bench' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    const url = server.url.replace(/\/[^/]*$/, `/${DATABASE}`);
    const version = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
    const passed = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => PASSED_THROUGH.test(e[0]) && e[1] !== undefined));
    console.log(`# One idle instance on PostgreSQL ${version}${binDir ? ' (system)' : ' (embedded)'}; settings: ${JSON.stringify(passed)}`);

    s3 = await startS3Server();
    service = startService({
      ...PRODUCTION_ENV,
      DATABASE_CONNECTION_STRING: url,
      OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString,
      OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
      DATA_DIR: path.join(dir, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...passed,
    });
    await service.waitFor('Image Canvas is serving');
    console.log(`instance serving; warming up ${WARM_UP_SECONDS} s, then measuring ${IDLE_SECONDS} s`);
    await sleep(WARM_UP_SECONDS * 1000); // a measurement window, not synchronisation

    const xacts = async () => {
      await admin!.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await admin!.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [DATABASE]);
      return Number(rows[0].n);
    };
    const peak = new Map<string, number>();
    let peakTotal = 0;
    const before = await xacts();
    const startedAt = Date.now();
    while (Date.now() - startedAt < IDLE_SECONDS * 1000) {
      const { rows } = await admin.query<{ app: string; n: number }>(
        `SELECT coalesce(nullif(application_name, ''), '(none)') AS app, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' GROUP BY 1`,
        [DATABASE],
      );
      let total = 0;
      for (const { app, n } of rows) {
        peak.set(app, Math.max(peak.get(app) ?? 0, n));
        total += n;
      }
      peakTotal = Math.max(peakTotal, total);
      await sleep(1000);
    }
    // Statistics reach pg_stat_database when a backend flushes them (at most once a second, an idle one within
    // 10 s): the window's end is read after that lag, and the count divided by the window plus the lag's share.
    const seconds = (Date.now() - startedAt) / 1000;
    const after = await xacts();
    console.log('\n| what | value |\n| --- | --- |');
    console.log(`| idle transactions/s (${seconds.toFixed(0)} s) | ${((after - before) / seconds).toFixed(1)} |`);
    console.log(`| connections, peak total | ${peakTotal} |`);
    for (const [app, n] of [...peak].sort()) console.log(`| connections, peak, application_name=${app} | ${n} |`);
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
