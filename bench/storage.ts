// Bench section "storage": what storing a canvas costs PostgreSQL itself, by column type and compression.
// One connection updates one row with the benchmark's 83 KB canvas (a node moved each time), as a save does;
// the baseline is the storage before migration 0005 (jsonb, pglz). lz4 rows appear when the server has lz4
// (the embedded binaries do not: BENCH_STORAGE_URL=<admin URL of another server> measures that one instead).
// Besides req/s, the notes give the server's own CPU per update (from /proc, when the server is on this
// machine) and the WAL written per update.
import fs from 'node:fs';
import pg from 'pg';
import { makeCanvas } from './api.js';
import { runLoad, toRow } from './load.js';
import type { Row, Section } from './table.js';
import type { ApiContext } from './api.js';

const UPDATES = 600;

export const storageSection: Section<ApiContext> = async ({ t, notes }, rows) => {
  const url = process.env.BENCH_STORAGE_URL ?? t.databaseUrl;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS bench_storage');
    const info = (await client.query(`SELECT pg_backend_pid() AS pid, current_setting('server_version') AS version,
      'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`)).rows[0] as { pid: number; version: string; lz4: boolean };
    const cpuMs = (): number | undefined => {
      try {
        const fields = fs.readFileSync(`/proc/${info.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
      } catch {
        return undefined; // the server is elsewhere
      }
    };
    const variants: Array<[type: 'jsonb' | 'json', compression: 'pglz' | 'lz4']> = [['jsonb', 'pglz'], ['json', 'pglz']];
    if (info.lz4) variants.push(['jsonb', 'lz4'], ['json', 'lz4']);
    const { nodes, edges } = makeCanvas('00000000-0000-4000-8000-000000000000', 11);
    const edgesJson = JSON.stringify(edges);
    let baseline: Row | undefined;
    const perUpdate: string[] = [];
    for (const [type, compression] of variants) {
      await client.query('DROP TABLE IF EXISTS bench_storage.canvases');
      await client.query(`CREATE TABLE bench_storage.canvases (id int PRIMARY KEY, nodes ${type} NOT NULL, edges ${type} NOT NULL, version int NOT NULL)`);
      await client.query(`ALTER TABLE bench_storage.canvases ALTER COLUMN nodes SET COMPRESSION ${compression}, ALTER COLUMN edges SET COMPRESSION ${compression}`);
      await client.query('INSERT INTO bench_storage.canvases VALUES (1, $1, $2, 1)', [JSON.stringify(nodes), edgesJson]);
      const update = async (i: number) => {
        nodes[i % nodes.length].position.x += 1;
        await client.query(`UPDATE bench_storage.canvases SET nodes = $1::${type}, edges = $2::${type}, version = version + 1 WHERE id = 1 RETURNING version`, [JSON.stringify(nodes), edgesJson]);
      };
      const wal0 = (await client.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn as string;
      const cpu0 = cpuMs();
      const result = await runLoad({ name: `${type}/${compression}`, requests: UPDATES, warmup: 50, concurrency: 1 }, update);
      const cpu1 = cpuMs();
      const wal = Number((await client.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS b', [wal0])).rows[0].b);
      const n = UPDATES + 50;
      const row = toRow(`canvas row update at PostgreSQL: ${type}, ${compression}${type === 'jsonb' && compression === 'pglz' ? ' (before migration 0005)' : ''}`, result, baseline);
      baseline ??= row;
      rows.push(row);
      perUpdate.push(`${type}/${compression} ${cpu0 !== undefined && cpu1 !== undefined ? `${((cpu1 - cpu0) / n).toFixed(2)} ms CPU, ` : ''}${(wal / n / 1024).toFixed(1)} KiB WAL`);
    }
    notes.push(
      `Storage (PostgreSQL ${info.version}${process.env.BENCH_STORAGE_URL ? ', BENCH_STORAGE_URL' : ', embedded'}; ${info.lz4 ? 'has lz4' : 'no lz4 in this build'}), per update of the 83 KB canvas: ${perUpdate.join('; ')}.`,
    );
  } finally {
    await client.query('DROP SCHEMA IF EXISTS bench_storage CASCADE').catch(() => undefined);
    await client.end();
  }
};
