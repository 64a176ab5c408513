// `npm run bench:backup`: npm run backup and npm run restore (src/ops/backup.ts) in this process, on a local store
// of BENCH_BACKUP_OBJECTS random objects of BENCH_BACKUP_BYTES each (default 400 × 256 KiB) and a migrated, empty
// database on a PostgreSQL server of the system's (/usr/lib/postgresql/<newest>; its pg_dump does the dump).
// Prints one JSON line: seconds and MB/s each way, and how much the process grew (objects are streamed).
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrateDatabase } from '../src/db/index.js';
import { backup, restore } from '../src/ops/backup.js';
import { LocalObjectStore } from '../src/storage/local-object-store.js';

const N = Number(process.env.BENCH_BACKUP_OBJECTS ?? 400);
const SIZE = Number(process.env.BENCH_BACKUP_BYTES ?? 256 * 1024);
const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
if (!versions.length) throw new Error('No system PostgreSQL under /usr/lib/postgresql (apt-get install postgresql): the embedded one has no pg_dump.');
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'measure-backup-'));
await fs.chmod(root, 0o755);
const server = await startEmbeddedPostgres({ dir: path.join(root, 'pg'), password: 'pw', database: 'postgres', log: () => {}, binDir: `/usr/lib/postgresql/${versions[0]}/bin` });
try {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE DATABASE src');
  await admin.query('CREATE DATABASE dst');
  await admin.end();
  const url = (db: string) => {
    const u = new URL(server.url);
    u.pathname = `/${db}`;
    return u.toString();
  };
  await migrateDatabase(url('src'));
  const store = new LocalObjectStore(path.join(root, 'a', 'objects'), 'http://x.test');
  await store.init();
  for (let i = 0; i < N; i++) await store.put(`obj-${i}.png`, randomBytes(SIZE), { contentType: 'image/png', maxBytes: SIZE });
  const cfg = (dir: string, db: string) => loadConfig({ DATA_DIR: dir, AUTH_URL: 'http://x.test', DATABASE_CONNECTION_STRING: url(db) }).config;
  const rss0 = process.memoryUsage().rss;
  let t = performance.now();
  const { dir } = await backup(cfg(path.join(root, 'a'), 'src'), { outDir: path.join(root, 'out'), log: () => {} });
  const tb = performance.now() - t;
  t = performance.now();
  await restore(cfg(path.join(root, 'b'), 'dst'), { dir, force: false, log: () => {} });
  const tr = performance.now() - t;
  const mb = (N * SIZE) / 1048576;
  console.log(JSON.stringify({ objects: N, MB: mb, backupS: +(tb / 1000).toFixed(2), backupMBps: +(mb / (tb / 1000)).toFixed(1), restoreS: +(tr / 1000).toFixed(2), restoreMBps: +(mb / (tr / 1000)).toFixed(1), rssGrowthMB: +((process.memoryUsage().rss - rss0) / 1048576).toFixed(1) }));
} finally {
  await server.stop();
  await fs.rm(root, { recursive: true, force: true });
}
