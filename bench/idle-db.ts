// `npm run bench:idle-db`: what one instance costs PostgreSQL, idle and busy. Starts an S3 emulator and a PostgreSQL
// server (the system's when installed, else the embedded one) in a temp folder, and one production-mode instance on
// a fresh database of it. Once it serves (and IDLE_WARM_UP_SECONDS, 10, later), for IDLE_SECONDS (60) it samples
// pg_stat_activity every second (connections by application_name, the peak of each) and reads pg_stat_database's
// xact_commit + xact_rollback of that database at both ends (transactions/s; this script's own queries run in
// another database and are not counted). Then it sends BUSY_REQUESTS (2000) GET /api/ready, BUSY_CONCURRENCY (50)
// at a time, and prints the peak connections again (the request pool filled). Settings for the instance are passed
// through from this process's environment (DATABASE_*, JOBS_*, SESSION_REVOCATION_POLL_MS), e.g.
// `JOBS_POLLING_INTERVAL_SECONDS=5 npm run bench:idle-db`. Everything started here is stopped at the end, also on
// failure or Ctrl-C.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { systemPostgresBinDir } from '../test/helpers/global-postgres.js';
import { freePort } from '../test/helpers/azurite.js';
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
    const port = await freePort();
    service = startService({
      ...PRODUCTION_ENV,
      DATABASE_CONNECTION_STRING: url,
      OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString,
      OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
      DATA_DIR: path.join(dir, 'data'),
      PORT: String(port),
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
    /** Samples pg_stat_activity every `everyMs` until `done` settles: the peak of each application_name and of all. */
    const samplePeaks = async (done: Promise<unknown>, everyMs: number) => {
      const peak = new Map<string, number>();
      let total = 0;
      let finished = false;
      void done.finally(() => (finished = true));
      do {
        const { rows } = await admin!.query<{ app: string; n: number }>(
          `SELECT coalesce(nullif(application_name, ''), '(none)') AS app, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' GROUP BY 1`,
          [DATABASE],
        );
        for (const { app, n } of rows) peak.set(app, Math.max(peak.get(app) ?? 0, n));
        total = Math.max(total, rows.reduce((sum, r) => sum + r.n, 0));
        await Promise.race([sleep(everyMs), done]);
      } while (!finished);
      await done;
      return { peak, total };
    };
    const before = await xacts();
    const startedAt = Date.now();
    const idle = await samplePeaks(sleep(IDLE_SECONDS * 1000), 1000); // a measurement window, not synchronisation
    // Statistics reach pg_stat_database when a backend flushes them (at most once a second; an idle one within
    // 10 s), so each end of the window may lag by that much: over 60 s, a few per cent.
    const seconds = (Date.now() - startedAt) / 1000;
    const after = await xacts();

    // Then busy: BUSY_REQUESTS readiness checks (each a query on the request pool), BUSY_CONCURRENCY at a time, to
    // show the request pool filling up to DATABASE_POOL_SIZE beside the job queue's connections.
    const requests = Number(process.env.BUSY_REQUESTS ?? 2000);
    const concurrency = Number(process.env.BUSY_CONCURRENCY ?? 50);
    let next = 0;
    const statuses = new Map<number, number>();
    const worker = async () => {
      while (next++ < requests) {
        const res = await fetch(`http://127.0.0.1:${port}/api/ready`);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    const busy = await samplePeaks(Promise.all(Array.from({ length: concurrency }, worker)), 50);

    console.log('\n| what | value |\n| --- | --- |');
    console.log(`| idle transactions/s (${seconds.toFixed(0)} s) | ${((after - before) / seconds).toFixed(1)} |`);
    console.log(`| idle connections, peak total | ${idle.total} |`);
    for (const [app, n] of [...idle.peak].sort()) console.log(`| idle connections, peak, application_name=${app} | ${n} |`);
    console.log(`| busy (${requests} × GET /api/ready, ${concurrency} at a time: ${[...statuses].map(([code, n]) => `${n} × ${code}`).join(', ')}) connections, peak total | ${busy.total} |`);
    for (const [app, n] of [...busy.peak].sort()) console.log(`| busy connections, peak, application_name=${app} | ${n} |`);
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
