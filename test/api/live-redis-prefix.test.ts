// Two deployments on one Redis (docs/deploy.md "Redis"): production, and a staging copy of its database (the same
// project ids, as a restored backup has) on the same server under another name. Without COLLAB_REDIS_PREFIX each
// derives its prefix from its database (src/db/identity.ts), so their channels differ and an edit on staging never
// reaches production's editors, while production's instances still share their documents.
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { captureLogs } from '../helpers/log-capture.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

let redis: RedisHandle | undefined;
let database: { url: string; drop(): Promise<void> } | undefined;
const apps: TestApp[] = [];
const open: LiveClient[] = [];
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const promptOf = (doc: Y.Doc) => ((canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>).get('prompt');

/** The database at `url` under another name. */
const renamed = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();

describeWithRedis('two deployments on one Redis', () => {
  let projectId: string;
  beforeAll(async () => {
    [redis, database] = await Promise.all([startRedis(), createOwnDatabase()]);
    const env = { COLLAB_REDIS_URL: redis.url };
    // Production's project, then the copy: CREATE DATABASE … TEMPLATE, with nobody connected to production.
    const first = await startTestApp({ ...env, DATABASE_CONNECTION_STRING: database.url }, 'embedded');
    const ada = await first.user('ada@example.com');
    projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Shared' })).json.id as string;
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);
    await first.close();
    const admin = new pg.Client({ connectionString: renamed(database.url, 'postgres') });
    await admin.connect();
    try {
      const name = new URL(database.url).pathname.slice(1);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      await admin.query(`CREATE DATABASE staging TEMPLATE "${name}"`);
    } finally {
      await admin.end();
    }
    const logs = [captureLogs(), captureLogs(), captureLogs()];
    for (const [i, url] of [database.url, database.url, renamed(database.url, 'staging')].entries()) {
      apps.push(await startTestApp({ ...env, DATABASE_CONNECTION_STRING: url, LOG_LEVEL: 'info' }, 'embedded', { logStream: logs[i].stream }));
    }
    const prefixes = await Promise.all(logs.map(async (log) => (await log.line((l) => l.redis === 'up')).prefix));
    expect(prefixes[0]).toMatch(/^image-canvas:[0-9a-f]{12}$/);
    expect(prefixes[1]).toBe(prefixes[0]);
    expect(prefixes[2]).toMatch(/^image-canvas:[0-9a-f]{12}$/);
    expect(prefixes[2]).not.toBe(prefixes[0]);
  });
  afterAll(async () => {
    for (const c of open) c.close();
    for (const app of apps) await app.close();
    await database?.drop();
    await redis?.stop();
  });

  it("an edit on staging never reaches production's editors; production's instances share theirs", async () => {
    const [production, production2, staging] = apps;
    const editor = async (app: TestApp) => {
      const c = await connectLive({ baseUrl: app.baseUrl, as: (await app.user('ada@example.com')).client, projectId });
      open.push(c);
      await c.saved();
      return c;
    };
    const [p1, p2, s] = [await editor(production), await editor(production2), await editor(staging)];
    // Both deployments hold the same document name, each on its own channel.
    const probe = new Redis(redis!.url, { maxRetriesPerRequest: 0 });
    try {
      const channels = (await probe.pubsub('CHANNELS', `*${projectId}*`)) as string[];
      expect(channels).toHaveLength(2);
    } finally {
      probe.disconnect();
    }

    s.doc.transact(() => ((canvasMaps(s.doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('prompt', 'staging'));
    await s.saved();
    p1.doc.transact(() => ((canvasMaps(p1.doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('prompt', 'production'));
    await p1.saved();
    // Through Redis to production's other instance (by then staging's edit, made before, would have arrived too)…
    await docWhere(p2.doc, (d) => promptOf(d) === 'production');
    // …and neither way between the deployments: no change of the other's editor in either document.
    const holds = (doc: Y.Doc, from: Y.Doc) => Y.decodeStateVector(Y.encodeStateVector(doc)).has(from.clientID);
    expect(holds(p2.doc, p1.doc)).toBe(true);
    expect([holds(p1.doc, s.doc), holds(p2.doc, s.doc), holds(s.doc, p1.doc)]).toEqual([false, false, false]);
    expect(promptOf(s.doc)).toBe('staging');
  });
});
