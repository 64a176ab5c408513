// DATABASE_DIRECT_URL (docs/deploy.md, "PostgreSQL connections and poolers"): the sessions that a transaction-mode
// pooler would break — the migration's advisory lock, the job-events LISTEN connection and pg-boss (its pool and its
// LISTEN) — connect with it; only the request pool uses DATABASE_CONNECTION_STRING. The direct URL here names
// another role, so pg_stat_activity (and the owner of the migrated tables) says which URL each connection used, and
// each kind of connection is told apart by its application_name.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

const ROLE = `direct_${randomBytes(4).toString('hex')}`;
let database: { url: string; drop(): Promise<void> };
let admin: pg.Client;
let t: TestApp | undefined;
const streams: AbortController[] = [];

beforeAll(async () => {
  database = await createOwnDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`CREATE ROLE ${ROLE} LOGIN SUPERUSER PASSWORD 'direct-password'`);
  const direct = new URL(database.url);
  direct.username = ROLE;
  direct.password = 'direct-password';
  t = await startTestApp({ DATABASE_CONNECTION_STRING: database.url, DATABASE_DIRECT_URL: direct.toString(), JOBS_START: 'boot' });
});
afterAll(async () => {
  for (const s of streams) s.abort();
  await t?.close();
  await admin?.end().catch(() => undefined);
  await database?.drop();
  // The role is the cluster's (the external server is shared): dropped once its database is gone.
  const cleanup = new pg.Client({ connectionString: database.url.replace(/\/[^/?]*(\?|$)/, '/postgres$1') });
  cleanup.on('error', () => undefined);
  await cleanup
    .connect()
    .then(() => cleanup.query(`DROP ROLE IF EXISTS ${ROLE}`))
    .catch(() => undefined) // embedded: the server, and the role with it, stopped with the database
    .finally(() => cleanup.end().catch(() => undefined));
});

describe('DATABASE_DIRECT_URL', () => {
  it('carries the migration, the LISTEN connections and pg-boss; the request pool keeps the main URL', async () => {
    const app = t!;
    const mainUser = decodeURIComponent(new URL(database.url).username);
    // A follower of job events opens the instance's job-events LISTEN connection.
    const ada = await app.user('ada@example.com');
    const stream = new AbortController();
    streams.push(stream);
    const res = await fetch(new URL('/api/generations/events', app.baseUrl), { headers: { cookie: await ada.client.jar.getCookieString(app.baseUrl) }, signal: stream.signal });
    expect(res.status).toBe(200);

    const dbName = new URL(database.url).pathname.slice(1);
    const connections = async () =>
      (
        await admin.query<{ usename: string; app: string }>(
          `SELECT usename, application_name AS app FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name LIKE 'image-canvas%' ORDER BY 2, 1`,
          [dbName],
        )
      ).rows;
    await expect.poll(async () => new Set((await connections()).map((c) => c.app)), { timeout: 45_000, interval: 200 }).toEqual(new Set(['image-canvas', 'image-canvas-events', 'image-canvas-jobs']));
    for (const c of await connections()) expect(c, c.app).toEqual({ usename: c.app === 'image-canvas' ? mainUser : ROLE, app: c.app });
    // The migration ran as the direct URL's role: it created the tables.
    const owner = (await admin.query<{ tableowner: string }>(`SELECT tableowner FROM pg_tables WHERE tablename = 'generation_jobs'`)).rows[0].tableowner;
    expect(owner).toBe(ROLE);
  });
});
