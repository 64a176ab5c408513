// Durability of the live canvas (issue 16 "Bad input and faults"; DESIGN.md §9 "Durability"): an edit the service
// acknowledged is in PostgreSQL, whatever happens next. (a) The service killed with SIGKILL in the middle of a
// stream of edits: after a restart on the same database every acknowledged edit is there. (b) PostgreSQL stopped
// while two people edit: they keep seeing each other live, are told the service is not saving, their edits stay
// unacknowledged; when PostgreSQL is back they are told so and every edit is acknowledged and stored.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/net-utils.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createOwnDatabase, startTestApp } from '../helpers/test-app.js';

const cleanups: Array<() => Promise<unknown>> = [];
const cleanUp = async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
};
afterEach(cleanUp);
afterAll(cleanUp);

const tempDir = async (prefix: string) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o755); // an embedded server runs as the `postgres` user when we are root
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
};
const node = (id: string, x = 0, prompt = 'p') => ({ id, type: 'generation', position: { x, y: 0 }, data: { type: 'generation', prompt } });
/** One edit: a new node `id`, in its own transaction (one update, one acknowledgement). */
const addNode = (doc: Y.Doc, id: string) => applyCanvas(doc, { nodes: [...renderCanvas(doc).nodes, node(id)], edges: renderCanvas(doc).edges });
const nodeIds = (canvas: { nodes: unknown[] }) => new Set(canvas.nodes.map((n) => (n as { id: string }).id));
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>;
const SAVING_FAILED = `stateless:${JSON.stringify({ type: 'saving', ok: false })}`;
const SAVING_OK = `stateless:${JSON.stringify({ type: 'saving', ok: true })}`;

describe('live canvas durability', () => {
  it('SIGKILL in the middle of a stream of edits: every acknowledged edit is there after a restart', async () => {
    // The database belongs to the test (an embedded server of its own, or one on the harness's server), so it
    // outlives the service process.
    const database = await createOwnDatabase();
    cleanups.push(() => database.drop());
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      AUTH_URL: baseUrl,
      AUTH_SECRET: 'live-durability-test-secret-0123456789abcdef',
      DATA_DIR: await tempDir('image-canvas-live-kill-'),
      DATABASE_CONNECTION_STRING: database.url,
      // The stream is fast on purpose: not the rate limit's business here.
      COLLAB_UPDATES_PER_SECOND: '100000',
    };
    const start = async () => {
      const proc: ServiceProcess = startService(env);
      cleanups.push(async () => {
        proc.kill();
        await proc.exited;
      });
      await proc.waitFor('Image Canvas is serving');
      return proc;
    };
    const first = await start();
    const ada = new HttpClient(baseUrl);
    await signIn(ada, 'ada@example.com', 'Ada');
    const me = (await ada.get('/api/user')).json as { id: string };
    const projectId = (await ada.post('/api/user/project', { userId: me.id, name: 'Killed' })).json.id as string;
    expect((await ada.post('/api/user/project/canvas', { projectId, nodes: [node('start')], edges: [], version: 0 })).status).toBe(200);

    const a: LiveClient = await connectLive({ baseUrl, as: ada, projectId });
    cleanups.push(async () => a.close());
    await a.saved();
    // Batches of edits; after some of them, wait for the acknowledgement: every key made so far is then known saved.
    const acknowledged = new Set<string>(['start']);
    const made: string[] = [];
    const batches = 12;
    const batchSize = 8;
    for (let b = 0; b < batches; b++) {
      for (let i = 0; i < batchSize; i++) {
        const id = `k${b}-${i}`;
        addNode(a.doc, id);
        made.push(id);
      }
      if (b % 3 === 2) {
        await a.saved();
        for (const id of made) acknowledged.add(id);
      }
    }
    // More edits in flight, and the service killed while they are.
    for (let i = 0; i < 20; i++) {
      const id = `late-${i}`;
      addNode(a.doc, id);
      made.push(id);
    }
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    a.close();
    expect(acknowledged.size).toBe(1 + 4 * 3 * batchSize);

    await start(); // same database, same folder, same port
    const reloaded = nodeIds((await ada.get(`/api/user/project/canvas?projectId=${projectId}`)).json);
    for (const id of acknowledged) expect(reloaded.has(id), `acknowledged ${id} is stored`).toBe(true);
    // Whatever else came back is something the editor made (unacknowledged edits may or may not have been stored).
    for (const id of reloaded) expect(id === 'start' || made.includes(id), `${id} was made by the editor`).toBe(true);
    const b: LiveClient = await connectLive({ baseUrl, as: ada, projectId });
    cleanups.push(async () => b.close());
    await b.saved();
    expect(nodeIds(renderCanvas(b.doc))).toEqual(reloaded);
  });

  it('PostgreSQL stopped while two people edit: live meanwhile, "not saving", nothing acknowledged; all stored once it is back', async () => {
    // A PostgreSQL server the test stops and starts (same folder, same port), as test/process/faults.test.ts does.
    const dir = await tempDir('image-canvas-live-pg-');
    const options = { dir: path.join(dir, 'pg'), password: 'live-pg-password', database: 'live', log: () => {}, port: await freePort() };
    let server: EmbeddedPostgres = await startEmbeddedPostgres(options);
    cleanups.push(() => server.stop());
    const t = await startTestApp({ DATABASE_CONNECTION_STRING: server.url }, 'embedded');
    cleanups.push(() => t.close());
    const [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Outage' })).json.id as string;
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' })).status).toBeLessThan(300);
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b', 300)], edges: [], version: 0 })).status).toBe(200);
    const a = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    const b = await connectLive({ baseUrl: t.baseUrl, as: bob.client, projectId });
    cleanups.push(async () => a.close(), async () => b.close());
    await Promise.all([a.saved(), b.saved()]);

    await server.stop();
    const edits = 4;
    for (let i = 0; i < edits; i++) {
      a.doc.transact(() => dataOf(a.doc, 'a').set('prompt', `ada-${i}`));
      await docWhere(b.doc, (d) => dataOf(d, 'a').get('prompt') === `ada-${i}`);
      b.doc.transact(() => dataOf(b.doc, 'b').set('prompt', `bob-${i}`));
      await docWhere(a.doc, (d) => dataOf(d, 'b').get('prompt') === `bob-${i}`);
    }
    addNode(a.doc, 'outage-node');
    await docWhere(b.doc, (d) => canvasMaps(d).nodes.has('outage-node'));
    await Promise.all([a.event(SAVING_FAILED), b.event(SAVING_FAILED)]);
    expect(a.provider.hasUnsyncedChanges).toBe(true);
    expect(b.provider.hasUnsyncedChanges).toBe(true);
    expect(a.events).not.toContain(SAVING_OK);

    server = await startEmbeddedPostgres(options); // same folder, same port
    await Promise.all([a.event(SAVING_OK), b.event(SAVING_OK)]);
    await Promise.all([a.saved(), b.saved()]);
    expect(a.events.indexOf(SAVING_OK)).toBeGreaterThan(a.events.indexOf(SAVING_FAILED));

    // In PostgreSQL: snapshot + log rebuild the document with every edit.
    const { rows } = await t.pool.query<{ update: Buffer }>('SELECT update FROM collab_updates WHERE project_id = $1 ORDER BY id', [projectId]);
    const { rows: snap } = await t.pool.query<{ state: Buffer }>('SELECT state FROM collab_snapshots WHERE project_id = $1', [projectId]);
    const stored = new Y.Doc();
    for (const u of [...snap.map((s) => s.state), ...rows.map((r) => r.update)]) Y.applyUpdate(stored, u);
    expect(dataOf(stored, 'a').get('prompt')).toBe(`ada-${edits - 1}`);
    expect(dataOf(stored, 'b').get('prompt')).toBe(`bob-${edits - 1}`);
    expect(canvasMaps(stored).nodes.has('outage-node')).toBe(true);
    expect(renderCanvas(stored)).toEqual(renderCanvas(a.doc));
    const rest = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect({ nodes: rest.nodes, edges: rest.edges }).toEqual(renderCanvas(b.doc));
    expect(rest.version).toBe(1 + 2 * edits + 1);
  });
});
