// `npm run backup` / `npm run restore` (docs/deploy.md, "Backup and restore"), on each store: a deployment with a
// user, a project whose canvas holds an uploaded and a generated image, a named version, a restore point and a
// generation is backed up, restored into an empty database and an empty store with the same public URL, and a service started on the
// restored deployment finds all of it, image bytes equal. Then the refusals (a target that is not empty) and a
// damaged backup (a checksum mismatch: nothing restored). Runs in the external-database project: pg_dump must be at
// least the server's major version, and the system's PostgreSQL comes with its own pg_dump. The embedded
// PostgreSQL (18) has none here: there the database part is written without pg_dump (src/ops/logical-dump.ts).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { migrateDatabase } from '../../src/db/index.js';
import { backup, restore, type Manifest } from '../../src/ops/backup.js';
import { dumpLogical, loadLogical } from '../../src/ops/logical-dump.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { uploadFile, type HttpClient } from '../helpers/http-client.js';
import { settled, untilJob } from '../helpers/jobs.js';
import { startStore, type StoreUnderTest } from '../helpers/stores.js';
import { createTestDatabase, openObjectStore, startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const lines: string[] = [];
const log = (line: string) => lines.push(line);

async function upload(client: HttpClient, data: Buffer): Promise<string> {
  const res = await uploadFile(client, data, { filename: 'photo.png' });
  expect(res.status, res.text).toBe(200);
  return res.json.url as string;
}

/** What the deployment holds, as its user reads it through the API. */
interface Seen {
  projects: unknown;
  canvas: { nodes: Array<{ data: { image?: string } }>; edges: unknown[] };
  versions: unknown;
  preview: unknown;
  generations: string[];
}

async function look(client: HttpClient, projectId: string, versionId: string): Promise<Seen> {
  const get = async (p: string) => {
    const res = await client.get(p);
    expect(res.status, `${p}: ${res.text}`).toBe(200);
    return res.json;
  };
  return {
    projects: (await get('/api/user/project?userId=ada%40example.com')) as unknown,
    canvas: await get(`/api/user/project/canvas?projectId=${projectId}`),
    versions: await get(`/api/user/project/${projectId}/versions`),
    preview: await get(`/api/user/project/${projectId}/versions/${versionId}`),
    generations: ((await get('/api/user/generations')).items as Array<{ id: string }>).map((g) => g.id).sort(),
  };
}

/** A deployment with data, made through the service's own routes. */
async function fill(t: TestApp) {
  const ada = await t.user('ada@example.com', 'Ada');
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Backed up' })).json.id as string;
  const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#3a7' } }).png().toBuffer();
  const uploaded = await upload(ada.client, png);
  const made = await ada.client.post('/api/generations', { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'grayscale' });
  expect(made.status, made.text).toBe(202);
  const job = await untilJob(ada.client, made.json.id as string, settled);
  expect(job.status).toBe('succeeded');
  const generated = (job.output as { imageUrl: string }).imageUrl;
  const nodes = [
    { id: 'u', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: uploaded } },
    { id: 'g', type: 'generation', position: { x: 300, y: 0 }, data: { type: 'generation', prompt: 'grayscale', image: generated } },
  ];
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [{ id: 'e', source: 'u', target: 'g' }] });
  expect(saved.status, saved.text).toBe(200);
  const version = await ada.client.post(`/api/user/project/${projectId}/versions`, { name: 'Two images' });
  expect(version.status, version.text).toBe(201);
  // A change after the version, so the version and the canvas differ.
  await ada.client.post('/api/user/project/canvas', { projectId, nodes: [...nodes, { id: 't', type: 'generation', position: { x: 0, y: 400 }, data: { type: 'generation', prompt: 'later' } }], edges: [] });
  const versionId = version.json.version.id as string;
  // A restore point too (taken when the document is compacted after the edit; see the app's settings below).
  await expect
    .poll(async () => ((await ada.client.get(`/api/user/project/${projectId}/versions`)).json.versions as Array<{ kind: string }>).filter((v) => v.kind === 'auto').length, { timeout: 60_000 })
    .toBeGreaterThan(0);
  return { projectId, versionId, images: [uploaded, generated], seen: await look(ada.client, projectId, versionId) };
}

async function objectNames(store: ObjectStore): Promise<string[]> {
  const names: string[] = [];
  for await (const name of store.list()) names.push(name);
  return names.sort();
}

async function bytesOf(store: ObjectStore, name: string): Promise<Buffer> {
  const got = await store.get(name);
  if (!got) throw new Error(`object ${name} missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of got.stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The config `npm run restore` reads for a deployment: the service's settings (here, its store and database). */
const configOf = (env: Record<string, string>): Config => loadConfig({ LOG_LEVEL: 'silent', ...env }).config;

let backups: string;
beforeAll(async () => {
  backups = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-backups-'));
});
afterAll(async () => {
  await fs.rm(backups, { recursive: true, force: true });
});

describe.each([{ driver: 'local' }, { driver: 'azure' }, { driver: 's3' }] as const)('backup and restore on the $driver store', ({ driver }) => {
  let source: TestApp | undefined;
  let restored: TestApp | undefined;
  let store: StoreUnderTest | undefined;
  let target: { url: string; drop(): Promise<void> } | undefined;
  let restoreDataDir: string | undefined;
  const storeEnv: Record<string, string> = {};

  beforeAll(async () => {
    store = await startStore(driver);
    Object.assign(storeEnv, store.env);
  });
  afterAll(async () => {
    await restored?.close();
    await source?.close();
    await target?.drop();
    if (restoreDataDir) await fs.rm(restoreDataDir, { recursive: true, force: true });
    await store?.stop();
  });

  it('restores into an empty database and store a deployment where every project, canvas, version and image is found', async () => {
    // Compaction soon after an edit, with a restore point at every one (as test/api/versions.test.ts).
    source = await startTestApp({ ...storeEnv, COLLAB_COMPACT_AFTER_MS: '50', COLLAB_COMPACT_SPREAD_MS: '0', COLLAB_RESTORE_POINT_MINUTES: '0' });
    const before = await fill(source);

    const { dir, manifest } = await backup(source.config, { outDir: backups, log });
    // Compaction may take another restore point at any time: the backup holds those seen before it, and none made after.
    const sourceUser = await source.user('ada@example.com', 'Ada');
    const later = await look(sourceUser.client, before.projectId, before.versionId);
    expect(manifest).toMatchObject({ format: 1, store: { kind: driver, objects: expect.any(Number) }, database: { pgDumpMajor: expect.any(Number) } } satisfies Partial<Record<keyof Manifest, unknown>>);
    const sourceStore = await openObjectStore(source);
    const names = await objectNames(sourceStore);
    // Both images (and whatever else the service stored, e.g. thumbnails) are in the backup.
    for (const url of before.images) expect(names).toContain(sourceStore.nameFromUrl(url));
    expect(manifest.store.objects).toBe(names.length);
    const originals = new Map(await Promise.all(names.map(async (n) => [n, await bytesOf(sourceStore, n)] as const)));
    const baseUrl = source.baseUrl;
    await source.close();
    source = undefined;

    // An empty deployment with the same public URL: for Azure and S3 the same address, emptied (a new account or
    // bucket behind the same name); for the local store a new DATA_DIR under the same AUTH_URL.
    target = await createTestDatabase();
    let env: Record<string, string>;
    if (driver === 'local') {
      restoreDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-restored-'));
      env = { DATA_DIR: restoreDataDir, AUTH_URL: baseUrl, DATABASE_CONNECTION_STRING: target.url };
    } else {
      for (const name of names) await sourceStore.delete(name);
      expect(await objectNames(sourceStore)).toEqual([]);
      env = { ...storeEnv, DATABASE_CONNECTION_STRING: target.url };
    }
    await sourceStore.close();
    await restore(configOf(env), { dir, force: false, log });

    // The restored service (for the local store on a new address: its files are read by path there).
    const { AUTH_URL: _, ...serviceEnv } = env;
    restored = await startTestApp(serviceEnv);
    const ada = await restored.user('ada@example.com', 'Ada');
    const after = await look(ada.client, before.projectId, before.versionId);
    expect({ ...after, versions: null }).toEqual({ ...before.seen, versions: null });
    const versionIds = (seen: Seen) => (seen.versions as { versions: Array<{ id: string }> }).versions.map((v) => v.id);
    expect(versionIds(after)).toEqual(expect.arrayContaining(versionIds(before.seen)));
    expect(versionIds(later)).toEqual(expect.arrayContaining(versionIds(after)));
    expect(versionIds(after)).toContain(before.versionId);
    for (const url of before.images) {
      const res = await fetch(driver === 'local' ? new URL(new URL(url).pathname, restored.baseUrl) : url);
      expect(res.status, url).toBe(200);
      const name = new URL(url).pathname.split('/').pop()!;
      expect(Buffer.from(await res.arrayBuffer()).equals(originals.get(name)!), url).toBe(true);
    }
    // Every object, byte for byte.
    const restoredStore = await openObjectStore(restored);
    expect(await objectNames(restoredStore)).toEqual(names);
    for (const name of names) expect((await bytesOf(restoredStore, name)).equals(originals.get(name)!), name).toBe(true);
    await restoredStore.close();
  });
});

// The default setup (`npm start`): the embedded PostgreSQL 18, for which no pg_dump is found here (its package ships
// none; Debian's is older): the commands as an operator runs them, `npm run backup` against the running service, and
// `npm run restore` into a new DATA_DIR (the embedded database started by the command), then a service on it.
describe('backup and restore on the embedded database, without pg_dump', () => {
  let source: TestApp | undefined;
  let restored: TestApp | undefined;
  let restoreDataDir: string | undefined;
  afterAll(async () => {
    await restored?.close();
    await source?.close();
    if (restoreDataDir) await fs.rm(restoreDataDir, { recursive: true, force: true });
  });

  /** `npm run <script>` with only the given settings of ours (none of the harness's external database). */
  const npmRun = (args: string[], env: Record<string, string>) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_|AUTH_|OBJECT_STORAGE|TEST_|BACKUP_|VITEST)/.test(k)));
    return run('npm', ['run', '--silent', ...args], { env: { ...clean, LOG_LEVEL: 'silent', ...env } });
  };

  it('npm run backup dumps the rows through the driver; npm run restore loads them into a new DATA_DIR where every project, canvas, version and image is found', async () => {
    source = await startTestApp({ COLLAB_COMPACT_AFTER_MS: '50', COLLAB_COMPACT_SPREAD_MS: '0', COLLAB_RESTORE_POINT_MINUTES: '0' }, 'embedded');
    const before = await fill(source);
    // A job still queued when the backup is taken (a copy of the finished one, not yet offered to the queue): its
    // pg-boss job is not in the backup, and the restored deployment runs it all the same.
    const queued = `job_${randomUUID()}`;
    await source.pool.query(
      `INSERT INTO generation_jobs (id, task_kind, user_id, prompt, images, model, queue_priority)
       SELECT $1, task_kind, user_id, prompt, images, model, queue_priority FROM generation_jobs LIMIT 1`,
      [queued],
    );
    const sourceStore = await openObjectStore(source);
    const names = await objectNames(sourceStore);
    const originals = new Map(await Promise.all(names.map(async (n) => [n, await bytesOf(sourceStore, n)] as const)));
    await sourceStore.close();

    // While the service runs (the command uses its embedded server).
    const out = path.join(backups, 'embedded');
    const made = await npmRun(['backup', '--', '--out', out], { DATA_DIR: source.dataDir, AUTH_URL: source.baseUrl });
    expect(made.stdout).toMatch(/^database: no pg_dump \d+ or newer found: dumping the tables' rows through the driver instead/m);
    const [folder] = await fs.readdir(out);
    const dir = path.join(out, folder);
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.database).toMatchObject({ kind: 'logical', file: 'database.ndjson', migrations: expect.any(Number) });
    expect(manifest.database.tables).toMatchObject({ 'public.projects': 1, 'public.users': 1 });
    expect(manifest.database.tables!['public.generation_job_events']).toBeGreaterThan(0);
    expect(manifest.store.objects).toBe(names.length);
    const baseUrl = source.baseUrl;
    await source.close();
    source = undefined;

    restoreDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-restored-embedded-'));
    await fs.chmod(restoreDataDir, 0o755); // the embedded server runs as the `postgres` user when we are root
    // Rows fit the schema of their migrations: a backup of another migration count is refused, before anything.
    const other = `${dir}-other-release`;
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, 'manifest.json'), JSON.stringify({ ...manifest, database: { ...manifest.database, migrations: manifest.database.migrations - 1 } }));
    await expect(restore(configOf({ DATA_DIR: restoreDataDir, AUTH_URL: baseUrl }), { dir: other, force: false, log })).rejects.toThrow(
      `Refusing to restore: the backup's database is at migration ${manifest.database.migrations - 1}, this version of the service at ${manifest.database.migrations}. ` +
        `Restore with the release that made the backup (${manifest.app.name} ${manifest.app.version}), start it once, then upgrade.`,
    );
    expect(await fs.readdir(restoreDataDir)).toEqual([]);
    const restoredOut = await npmRun(['restore', '--', dir], { DATA_DIR: restoreDataDir, AUTH_URL: baseUrl });
    expect(restoredOut.stdout).toMatch(/^database: migrating PostgreSQL 18\.\S+ to migration \d+, then loading the tables' rows$/m);

    restored = await startTestApp({ DATA_DIR: restoreDataDir }, 'embedded');
    const ada = await restored.user('ada@example.com', 'Ada');
    const after = await look(ada.client, before.projectId, before.versionId);
    // (The queued job may have made its generation already.)
    expect({ ...after, versions: null, generations: null }).toEqual({ ...before.seen, versions: null, generations: null });
    expect(after.generations).toEqual(expect.arrayContaining(before.seen.generations));
    const versionIds = (seen: Seen) => (seen.versions as { versions: Array<{ id: string }> }).versions.map((v) => v.id);
    expect(versionIds(after)).toEqual(expect.arrayContaining(versionIds(before.seen)));
    expect(versionIds(after)).toContain(before.versionId);
    const job = await untilJob(ada.client, queued, settled);
    expect(job).toMatchObject({ status: 'succeeded' });
    for (const url of before.images) {
      const res = await fetch(new URL(new URL(url).pathname, restored.baseUrl));
      expect(res.status, url).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(originals.get(new URL(url).pathname.split('/').pop()!)!), url).toBe(true);
    }
    // The sequences go on past the restored rows.
    const seq = await restored.pool.query<{ last: string; max: string }>(
      'SELECT (SELECT last_value FROM generation_job_events_id_seq)::text AS last, (SELECT max(id) FROM generation_job_events)::text AS max',
    );
    expect(BigInt(seq.rows[0].last)).toBeGreaterThanOrEqual(BigInt(seq.rows[0].max));
    const edited = await ada.client.post('/api/user/project/canvas', { projectId: before.projectId, nodes: [], edges: [] });
    expect(edited.status, edited.text).toBe(200);
  });
});

describe('the database part without pg_dump', () => {
  it('round-trips every kind of value the types allow: bytea, JSON null apart from SQL NULL, arrays, NaN, infinity, tabs and newlines, generated and identity columns, sequences', async () => {
    const [from, to] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    const { default: pg } = await import('pg');
    const [a, b] = [new pg.Client({ connectionString: from.url }), new pg.Client({ connectionString: to.url })];
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-logical-'));
    try {
      await Promise.all([a.connect(), b.connect()]);
      const ddl = `CREATE TABLE t (id bigserial PRIMARY KEY, b bytea, j jsonb, js json, arr text[], f float8, n numeric, ts timestamptz, tsn timestamp,
        iv interval, s text, g tsvector GENERATED ALWAYS AS (to_tsvector('simple', s)) STORED, iden int GENERATED ALWAYS AS IDENTITY)`;
      await a.query(ddl);
      await b.query(ddl);
      await a.query(`INSERT INTO t (b, j, js, arr, f, n, ts, tsn, iv, s) VALUES
        ('\\x00ff0a09'::bytea, '"a string"', '{"a": [1, "x\\ty"]}', ARRAY['a,b', 'c"d', NULL, E'e\\nf'], 'NaN', 'NaN', '2026-01-01 12:34:56.789123+05', '2026-01-01 12:34:56.789123', '1 day 02:03:04', E'tab\\there\\nline'),
        (NULL, 'null', 'null', '{}', 1e-300, 12345678901234567890.123456789, 'infinity', '-infinity', NULL, NULL),
        (''::bytea, NULL, NULL, NULL, -0.1, 0, now(), now(), '-1 mon', 'é 😀')`);
      const file = path.join(dir, 'database.ndjson');
      const summary = await dumpLogical(from.url, file);
      expect(summary).toEqual({ tables: { 'public.t': 3 }, sequences: { 'public.t_id_seq': '3', 'public.t_iden_seq': '3' } });
      await loadLogical(to.url, file, summary, { replace: false });
      const rows = async (c: InstanceType<typeof pg.Client>) => (await c.query<{ r: string }>('SELECT t::text AS r FROM t ORDER BY id')).rows.map((r) => r.r);
      expect(await rows(b)).toEqual(await rows(a));
      expect((await b.query(`INSERT INTO t (s) VALUES ('next') RETURNING id::int, iden`)).rows).toEqual([{ id: 4, iden: 4 }]);
      // With --force (`replace`), the rows there are replaced.
      await loadLogical(to.url, file, summary, { replace: true });
      expect(await rows(b)).toEqual(await rows(a));
    } finally {
      await Promise.allSettled([a.end(), b.end()]);
      await Promise.all([from.drop(), to.drop(), fs.rm(dir, { recursive: true, force: true })]);
    }
  });
});

describe('restore refusals and a damaged backup (local store)', () => {
  let source: TestApp;
  let dir: string;
  let manifest: Manifest;
  const extra: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    source = await startTestApp();
    const ada = await source.user('ada@example.com', 'Ada');
    await ada.client.post('/api/user/project', { userId: ada.id, name: 'One' });
    await upload(ada.client, await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a37' } }).png().toBuffer());
    ({ dir, manifest } = await backup(source.config, { outDir: backups, log }));
  });
  afterAll(async () => {
    for (const undo of extra.reverse()) await undo();
    await source?.close();
  });

  /** An empty deployment under the source's public URL: a new database and DATA_DIR. */
  async function emptyTarget(): Promise<{ env: Record<string, string>; url: string; tables(): Promise<number>; objects(): Promise<string[]> }> {
    const db = await createTestDatabase();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-empty-'));
    extra.push(() => db.drop(), () => fs.rm(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir, AUTH_URL: source.baseUrl, DATABASE_CONNECTION_STRING: db.url };
    return {
      env,
      url: db.url,
      async tables() {
        const { default: pg } = await import('pg');
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        const n = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`)).rows[0].n;
        await c.end();
        return n;
      },
      async objects() {
        const store = await openObjectStore({ config: configOf(env) });
        try {
          return await objectNames(store);
        } finally {
          await store.close();
        }
      },
    };
  }

  it('npm run restore refuses a deployment that is not empty, naming its tables and objects, and changes nothing', async () => {
    const projects = (await source.pool.query('SELECT count(*)::int AS n FROM projects')).rows[0].n;
    const env = { ...process.env, DATA_DIR: source.dataDir, AUTH_URL: source.baseUrl, DATABASE_CONNECTION_STRING: source.databaseUrl, LOG_LEVEL: 'silent' };
    const failed = await run('npm', ['run', '--silent', 'restore', '--', dir], { env }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/^error: Refusing to restore: the database has \d+ tables \([^)]+\); the object store has objects \([^)]+\)\. Restore into an empty deployment, or pass --force\.\n$/);
    expect((await source.pool.query('SELECT count(*)::int AS n FROM projects')).rows[0].n).toBe(projects);
  });

  it('refuses a store whose public URL differs from the backup’s, naming both', async () => {
    const target = await emptyTarget();
    const other = { ...target.env, AUTH_URL: 'https://canvas.example.com' };
    await expect(restore(configOf(other), { dir, force: false, log })).rejects.toThrow(
      `Refusing to restore: the store's public URL is https://canvas.example.com/files, the backup's ${manifest.store.publicBase} (canvases keep the backup's URLs: keep the same AUTH_URL). Restore into an empty deployment, or pass --force.`,
    );
    expect(await target.tables()).toBe(0);
    expect(await target.objects()).toEqual([]);
  });

  it('refuses a damaged backup (an object or the dump not matching its checksum) and restores nothing', async () => {
    const names = (await fs.readdir(path.join(dir, 'objects'))).sort();
    expect(names.length).toBe(manifest.store.objects);
    for (const [file, shown] of [
      [path.join('objects', names[0]), `objects/${names[0]}`],
      ['database.dump', 'database.dump'],
    ]) {
      const damaged = `${dir}-damaged-${path.basename(file)}`;
      await fs.cp(dir, damaged, { recursive: true });
      extra.push(() => fs.rm(damaged, { recursive: true, force: true }));
      const bytes = await fs.readFile(path.join(damaged, file));
      bytes[bytes.length >> 1] ^= 0xff;
      await fs.writeFile(path.join(damaged, file), bytes);
      const target = await emptyTarget();
      await expect(restore(configOf(target.env), { dir: damaged, force: false, log })).rejects.toThrow(`The backup is damaged: ${shown} does not match its checksum. Nothing was restored.`);
      expect(await target.tables()).toBe(0);
      expect(await target.objects()).toEqual([]);
    }
  });

  it('with --force restores over a deployment that was started once (its tables made, no data)', async () => {
    const target = await emptyTarget();
    await migrateDatabase(target.url);
    await expect(restore(configOf(target.env), { dir, force: false, log })).rejects.toThrow(/^Refusing to restore: the database has \d+ tables \(drizzle\.__drizzle_migrations, /);
    await restore(configOf(target.env), { dir, force: true, log });
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    const names = (await c.query<{ name: string }>('SELECT name FROM projects')).rows.map((r) => r.name);
    await c.end();
    expect(names).toEqual(['One']);
    expect(await target.objects()).toHaveLength(manifest.store.objects);
  });
});
