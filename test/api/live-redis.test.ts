// Two instances of the service sharing live documents through Redis (COLLAB_REDIS_URL, src/collab/redis.ts): editors
// on different instances converge both ways, REST on either instance reads the same document, and each change is
// stored once (by the instance that received it). The editors' sockets name the project in their URL
// (/api/collab/<projectId>), as a load balancer routing by project sees them; here each goes to another instance
// directly, as after the balancer's hash changed (an instance went away): the document still works through Redis, and
// an older client on /api/collab sees it too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let redis: RedisHandle | undefined;
let database: { url: string; drop(): Promise<void> } | undefined;
const apps: TestApp[] = [];
const open: LiveClient[] = [];
const node = (id: string, x = 0) => ({ id, type: 'generation', position: { x, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>;

describeWithRedis('live documents on two instances through Redis', () => {
  beforeAll(async () => {
    [redis, database] = await Promise.all([startRedis(), createOwnDatabase()]);
    const env = {
      DATABASE_CONNECTION_STRING: database.url,
      COLLAB_REDIS_URL: redis.url,
      // No compaction while the test counts rows (it would fold them into the snapshot).
      COLLAB_COMPACT_AFTER_MS: '600000',
      COLLAB_COMPACT_MAX_MS: '600000',
    };
    // 'embedded' mode with a connection string: the app uses the given database and creates none of its own.
    for (let i = 0; i < 2; i++) apps.push(await startTestApp(env, 'embedded'));
  });
  afterAll(async () => {
    for (const c of open) c.close();
    for (const app of apps) await app.close();
    await database?.drop();
    await redis?.stop();
  });

  it('editors on different instances converge both ways; REST on either agrees; each change is stored once', async () => {
    const [one, two] = apps;
    const ada: Who = await one.user('ada@example.com');
    const bob: Who = await two.user('bob@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Shared' })).json.id as string;
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' })).status).toBeLessThan(300);
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b', 300)], edges: [], version: 0 })).json.version).toBe(1);
    const rows = async () => Number((await one.pool.query('SELECT count(*) AS n FROM collab_updates WHERE project_id = $1', [projectId])).rows[0].n);
    const rowsBefore = await rows();

    const a = await connectLive({ baseUrl: one.baseUrl, as: ada.client, projectId, url: 'project' });
    const b = await connectLive({ baseUrl: two.baseUrl, as: bob.client, projectId, url: 'project' });
    const old = await connectLive({ baseUrl: two.baseUrl, as: bob.client, projectId, url: 'shared' });
    open.push(a, b, old);
    expect(await a.event('authenticated')).toBe('authenticated:read-write');
    expect(await b.event('authenticated')).toBe('authenticated:read-write');
    await Promise.all([a.saved(), b.saved()]);
    expect(renderCanvas(b.doc)).toEqual(renderCanvas(a.doc));

    const edits = 3;
    for (let i = 0; i < edits; i++) {
      a.doc.transact(() => dataOf(a.doc, 'a').set('prompt', `ada-${i}`));
      await a.saved();
      await docWhere(b.doc, (d) => dataOf(d, 'a').get('prompt') === `ada-${i}`); // instance 1 → 2
      b.doc.transact(() => dataOf(b.doc, 'b').set('prompt', `bob-${i}`));
      await b.saved();
      await docWhere(a.doc, (d) => dataOf(d, 'b').get('prompt') === `bob-${i}`); // instance 2 → 1
    }
    expect(renderCanvas(a.doc)).toEqual(renderCanvas(b.doc));
    await old.saved();
    await docWhere(old.doc, (d) => dataOf(d, 'a').get('prompt') === `ada-${edits - 1}` && dataOf(d, 'b').get('prompt') === `bob-${edits - 1}`);

    // Stored once each: one row per change and the version stepped once per change (none stored by both instances).
    expect(await rows()).toBe(rowsBefore + 2 * edits);
    const viaTwo = (await bob.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    const viaOne = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect(viaTwo.version).toBe(1 + 2 * edits);
    expect(viaTwo).toEqual(viaOne);
    expect({ nodes: viaTwo.nodes, edges: viaTwo.edges }).toEqual(renderCanvas(a.doc));
    expect(viaTwo.nodes.map((n: { data: { prompt: string } }) => n.data.prompt)).toEqual([`ada-${edits - 1}`, `bob-${edits - 1}`]);
  });
});
