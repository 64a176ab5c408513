// The database part of a backup without pg_dump (docs/deploy.md, "Backup and restore"): used when no pg_dump of
// the server's version is found — always so on the embedded PostgreSQL, whose package ships none. Only the `pg`
// driver is needed.
//
// Dump: in ONE read-only REPEATABLE READ transaction (one snapshot of the whole database), every table of the
// service's schemas (`public`, and `drizzle` but for its migration journal) is read through a server-side cursor,
// one row a line: `<schema>.<table>\t<row_to_json(row)>` (JSON escapes tabs and newlines, so neither occurs in a
// row; bytea comes as its `\x…` hex text, every other type as its text or JSON form, all read back by the type's
// own input function; json and jsonb columns as their text in a JSON string, so that a JSON `null` stays apart from
// SQL NULL; columns the server generates are left out). Then the sequences' values. The job queue's `pgboss` schema is left out: pg-boss makes it
// at its own start, in its own version (its tables are partitioned per queue by pg-boss's own functions: rows
// copied in would have to match its version exactly). A job's state lives in its `generation_jobs` row anyway
// (src/jobs/runner.ts), pg-boss only carries it to a runner; see the load for the jobs unfinished at backup time.
//
// Load: the schema is made by the service's own migrations (src/db/index.ts migrateDatabase) — the backup's
// migration count must equal the code's —, then in one transaction, with foreign keys and triggers off
// (`session_replication_role = replica`, which needs a superuser: the embedded database's `postgres` is one), each
// table's rows go in by batches through `json_populate_record`, generated columns left to the server; the row
// counts are checked against the manifest's and the sequences set. Jobs unfinished at backup time (queued or
// running: their pg-boss jobs are not in the backup) become runs whose instance died — `running` without a
// heartbeat —, which the first instance to start settles as it does after any crash: a queued job's run is
// offered to the queue again (retried once), POST /api/image's held job (its request is gone) is failed. A failure
// rolls it all back.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { OpsError } from './errors.js';

/** The schemas dumped (the service's tables and drizzle's). */
const SCHEMAS = ['public', 'drizzle'];
/** Left out: made by the migrations at load. */
const SKIPPED = new Set(['drizzle.__drizzle_migrations']);
/** Rows fetched from a cursor at once (a row may hold a large live document). */
const FETCH = 200;
/** A load batch: at most this many rows, or about this many bytes of JSON. */
const BATCH_ROWS = 500;
const BATCH_BYTES = 8 * 1024 * 1024;

export interface LogicalSummary {
  /** Rows per table (`schema.table`), in the order dumped. */
  tables: Record<string, number>;
  /** The sequences' values (`schema.sequence` → last value), those ever used. */
  sequences: Record<string, string>;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const qualified = (table: string) => {
  const dot = table.indexOf('.');
  return `${ident(table.slice(0, dot))}.${ident(table.slice(dot + 1))}`;
};

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
}

/** A table's columns the server does not generate (attribute name, and whether it is json or jsonb), in order. */
async function columnsOf(client: pg.Client, table: string): Promise<Array<{ name: string; json: string | null }>> {
  const { rows } = await client.query<{ name: string; json: string | null }>(
    `SELECT attname AS name, CASE WHEN atttypid IN ('json'::regtype, 'jsonb'::regtype) THEN format_type(atttypid, NULL) END AS json
       FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [qualified(table)],
  );
  return rows;
}

/** Writes every table's rows of the database at `url` to `file`, from one snapshot. */
export async function dumpLogical(url: string, file: string): Promise<LogicalSummary> {
  const client = new pg.Client({ connectionString: url, application_name: 'image-canvas-backup' });
  await client.connect();
  const out = createWriteStream(file);
  const summary: LogicalSummary = { tables: {}, sequences: {} };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tables = await client.query<{ name: string }>(
      `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
      [SCHEMAS],
    );
    for (const { name } of tables.rows) {
      if (SKIPPED.has(name)) continue;
      let rows = 0;
      const select = (await columnsOf(client, name)).map((c) => (c.json ? `${ident(c.name)}::text AS ${ident(c.name)}` : ident(c.name))).join(', ');
      await client.query(`DECLARE dump NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS j FROM (SELECT ${select} FROM ONLY ${qualified(name)}) r`);
      for (;;) {
        const page = await client.query<{ j: string }>(`FETCH ${FETCH} FROM dump`);
        for (const { j } of page.rows) await write(out, `${name}\t${j}\n`);
        rows += page.rows.length;
        if (page.rows.length < FETCH) break;
      }
      await client.query('CLOSE dump');
      summary.tables[name] = rows;
    }
    // Read after the rows (sequences are outside snapshots): never below an id the rows hold.
    const sequences = await client.query<{ name: string; last: string | null }>(
      `SELECT schemaname || '.' || sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = ANY($1) ORDER BY 1`,
      [SCHEMAS],
    );
    for (const { name, last } of sequences.rows) if (last !== null) summary.sequences[name] = last;
    await client.query('COMMIT');
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    await client.end();
  }
  return summary;
}

/**
 * Loads `file` (written by dumpLogical) into the migrated database at `url`, in one transaction; with `replace`,
 * the tables' rows are emptied first. Checks every table's row count against `summary`.
 */
export async function loadLogical(url: string, file: string, summary: LogicalSummary, opts: { replace: boolean }): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'image-canvas-restore' });
  await client.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SET LOCAL session_replication_role = replica');
    } catch (err) {
      throw new OpsError(`Restoring this backup needs a superuser (to load the tables with foreign keys off): ${(err as Error).message}`);
    }
    const names = Object.keys(summary.tables);
    // Every table the backup has must exist (the same migrations made it); its columns the server does not generate.
    // Per table: its columns, and what reads each from a row `e.v` (json ones from their text) and `r` (the rest).
    const columns = new Map<string, { list: string; values: string }>();
    for (const name of names) {
      const cols = await columnsOf(client, name);
      if (cols.length === 0) throw new OpsError(`The backup has a table ${name} that the migrated database does not have.`);
      columns.set(name, {
        list: cols.map((c) => ident(c.name)).join(', '),
        values: cols.map((c) => (c.json ? `(e.v->>'${c.name.replace(/'/g, "''")}')::${c.json}` : `r.${ident(c.name)}`)).join(', '),
      });
    }
    if (opts.replace && names.length) await client.query(`TRUNCATE ${names.map(qualified).join(', ')}`);

    const loaded = new Map<string, number>();
    let table = '';
    let batch: string[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      const cols = columns.get(table)!;
      const res = await client.query(
        `INSERT INTO ${qualified(table)} (${cols.list}) OVERRIDING SYSTEM VALUE
         SELECT ${cols.values} FROM json_array_elements($1::json) AS e(v), LATERAL json_populate_record(NULL::${qualified(table)}, e.v) AS r`,
        [`[${batch.join(',')}]`],
      );
      loaded.set(table, (loaded.get(table) ?? 0) + (res.rowCount ?? 0));
      batch = [];
      bytes = 0;
    };
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      const tab = line.indexOf('\t');
      const name = line.slice(0, tab);
      if (tab < 0 || !columns.has(name)) throw new OpsError(`The backup's database file has a line of an unknown table ${JSON.stringify(name)}.`);
      if (name !== table || batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) {
        await flush();
        table = name;
      }
      const row = line.slice(tab + 1);
      batch.push(row);
      bytes += row.length;
    }
    await flush();
    for (const name of names) {
      const got = loaded.get(name) ?? 0;
      if (got !== summary.tables[name]) throw new OpsError(`The backup's ${name} loaded ${got} rows, the manifest says ${summary.tables[name]}. Nothing was restored.`);
    }
    if ('public.generation_jobs' in summary.tables) {
      await client.query(`UPDATE generation_jobs SET status = 'running', heartbeat_at = NULL, boss_job_id = NULL WHERE status IN ('queued', 'running')`);
    }
    for (const [name, last] of Object.entries(summary.sequences)) {
      await client.query('SELECT setval(to_regclass($1), $2::bigint, true)', [qualified(name), last]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}
