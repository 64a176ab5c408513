// The live canvas (DESIGN.md §9, docs/api.md "Live canvas"): sign-in and roles on /api/collab, live editors
// converging, SPEC's canvas routes as views of the document, and acknowledged edits in PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, SESSION_COOKIE, upgradeStatus, type LiveClient, type LiveOptions } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
type Who = { client: HttpClient; id: string; email: string };
let ada: Who;
let bob: Who;
let vic: Who;
let eve: Who;
const open: LiveClient[] = [];
const node = (id: string, x = 0, prompt = 'p') => ({ id, type: 'generation', position: { x, y: 0 }, data: { type: 'generation', prompt } });
const project = async (who: Who) => (await who.client.post('/api/user/project', { userId: who.id, name: 'Live' })).json.id as string;
const live = async (as: Who | null, projectId: string, url?: LiveOptions['url']) => {
  const c = await connectLive({ baseUrl: t.baseUrl, as: as?.client ?? null, projectId, url });
  open.push(c);
  return c;
};
const nodeMap = (doc: Y.Doc, id: string) => canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined;
const promptOf = (doc: Y.Doc, id: string) => (nodeMap(doc, id)?.get('data') as Y.Map<unknown> | undefined)?.get('prompt');
const positionOf = (doc: Y.Doc, id: string) => nodeMap(doc, id)?.get('position') as { x: number; y: number } | undefined;
const canvas = async (who: Who, projectId: string) => (await who.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;

beforeAll(async () => {
  t = await startTestApp();
  [ada, bob, vic, eve] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com'), t.user('vic@example.com'), t.user('eve@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

/** A project of ada's with bob as editor and vic as viewer, and a saved canvas of two nodes. */
async function sharedProject() {
  const projectId = await project(ada);
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' });
  const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b', 300)], edges: [], version: 0 });
  expect(saved.json.version).toBe(1);
  return projectId;
}

describe('the socket', () => {
  it('refuses an upgrade with a session cookie that is not valid (401), from another origin (403), and on another path (404), with no body', async () => {
    const cookie = `${SESSION_COOKIE}=${await ada.client.cookie(SESSION_COOKIE)}`;
    // Without any session cookie the upgrade is let in, only to authenticate with an API token (test/api/live-tokens.test.ts).
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl })).toBe(101);
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie: `${SESSION_COOKIE}=forged` })).toBe(401);
    expect(await upgradeStatus(t.baseUrl, { origin: 'https://evil.example', cookie })).toBe(403);
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie }, '/api/other')).toBe(404);
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie })).toBe(101);
  });

  it('gives owner and editor read-write, a viewer read-only, anyone else the same refusal whether or not the project exists', async () => {
    const projectId = await sharedProject();
    expect(await (await live(ada, projectId)).event('authenticated')).toBe('authenticated:read-write');
    expect(await (await live(bob, projectId)).event('authenticated')).toBe('authenticated:read-write');
    expect(await (await live(vic, projectId)).event('authenticated')).toBe('authenticated:readonly');
    expect(await (await live(eve, projectId)).event('authentication')).toBe('authenticationFailed:permission-denied');
    expect(await (await live(eve, '00000000-0000-4000-8000-000000000000')).event('authentication')).toBe('authenticationFailed:permission-denied');
    expect(await (await live(eve, 'not-a-project', 'shared')).event('authentication')).toBe('authenticationFailed:permission-denied');
  });
});

describe('the URL: /api/collab/<projectId>, and /api/collab for older clients', () => {
  /** The status and body of an upgrade the service refuses. */
  const refusedUpgrade = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}${path}`, { headers });
      ws.on('open', () => {
        ws.terminate();
        reject(new Error(`${path}: upgraded`));
      });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('error', () => undefined);
    });

  it('serves the project its URL names, and any document on the old URL; editors on both converge', async () => {
    const projectId = await sharedProject();
    const cookie = `${SESSION_COOKIE}=${await ada.client.cookie(SESSION_COOKIE)}`;
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie }, `/api/collab/${projectId}`)).toBe(101);
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie }, `/api/collab/${projectId}?x=1`)).toBe(101);
    const byUrl = await live(ada, projectId); // /api/collab/<projectId>
    const old = await live(bob, projectId, 'shared'); // /api/collab
    expect(await byUrl.event('authenticated')).toBe('authenticated:read-write');
    expect(await old.event('authenticated')).toBe('authenticated:read-write');
    await Promise.all([byUrl.saved(), old.saved()]);
    byUrl.doc.transact(() => (nodeMap(byUrl.doc, 'a')!.get('data') as Y.Map<unknown>).set('prompt', 'from the new URL'));
    old.doc.transact(() => (nodeMap(old.doc, 'b')!.get('data') as Y.Map<unknown>).set('prompt', 'from the old URL'));
    await Promise.all([docWhere(old.doc, (d) => promptOf(d, 'a') === 'from the new URL'), docWhere(byUrl.doc, (d) => promptOf(d, 'b') === 'from the old URL')]);
    await Promise.all([byUrl.saved(), old.saved()]);
    expect((await canvas(ada, projectId)).nodes.map((n: { data: { prompt: string } }) => n.data.prompt)).toEqual(['from the new URL', 'from the old URL']);
  });

  it('refuses a document other than the one the URL names (document-not-in-url), even one the user may edit; nothing of it is served', async () => {
    const [projectId, other] = [await sharedProject(), await project(ada)];
    const wrong = await live(ada, projectId, { project: other });
    expect(await wrong.event('authentication')).toBe('authenticationFailed:document-not-in-url');
    expect(wrong.events).not.toContain('synced');
    expect(canvasMaps(wrong.doc).nodes.size).toBe(0);
    // Whoever asks, and whatever the project: the same refusal, before any role is looked at.
    expect(await (await live(eve, projectId, { project: other })).event('authentication')).toBe('authenticationFailed:document-not-in-url');
    // The project's own URL still serves it.
    expect(await (await live(ada, other)).event('authenticated')).toBe('authenticated:read-write');
  });

  it('refuses an upgrade whose URL names no project id (400, naming it) or has more after it (404)', async () => {
    const headers = { origin: t.baseUrl, cookie: `${SESSION_COOKIE}=${await ada.client.cookie(SESSION_COOKIE)}` };
    for (const path of ['/api/collab/not-a-project', '/api/collab/%E0%A4%A', `/api/collab/${'1'.repeat(36)}`]) {
      const refused = await refusedUpgrade(path, headers);
      expect(refused.status, path).toBe(400);
      expect(JSON.parse(refused.body), path).toEqual({ error: 'Invalid project id in the live canvas URL' });
    }
    expect(await upgradeStatus(t.baseUrl, headers, '/api/collab/00000000-0000-4000-8000-000000000000/x')).toBe(404);
    expect(await upgradeStatus(t.baseUrl, headers, '/api/collabx')).toBe(404);
  });
});

describe('editing together', () => {
  it('two editors converge; a move and a prompt edit of one node at once both survive; REST reads the result', async () => {
    const projectId = await sharedProject();
    const [a, b] = [await live(ada, projectId), await live(bob, projectId)];
    await Promise.all([a.saved(), b.saved()]);
    expect(promptOf(a.doc, 'a')).toBe('p');
    const before = (await canvas(ada, projectId)).version;
    // Concurrent: neither has seen the other's change when making its own.
    a.doc.transact(() => nodeMap(a.doc, 'a')!.set('position', { x: 50, y: 60 }));
    b.doc.transact(() => (nodeMap(b.doc, 'a')!.get('data') as Y.Map<unknown>).set('prompt', 'sunset'));
    await Promise.all([a.saved(), b.saved()]);
    await Promise.all([docWhere(a.doc, (d) => promptOf(d, 'a') === 'sunset'), docWhere(b.doc, (d) => positionOf(d, 'a')?.x === 50)]);
    expect(positionOf(b.doc, 'a')).toEqual({ x: 50, y: 60 });
    const read = await canvas(ada, projectId);
    expect(read.nodes[0]).toEqual({ id: 'a', type: 'generation', position: { x: 50, y: 60 }, data: { type: 'generation', prompt: 'sunset' } });
    expect(read.version).toBe(before + 2);
  });

  it("a viewer's change is never applied, stored or seen by others", async () => {
    const projectId = await sharedProject();
    const a = await live(ada, projectId);
    const v = await live(vic, projectId);
    await Promise.all([a.saved(), v.event('synced')]);
    const rows = async () => Number((await t.pool.query('SELECT count(*) AS n FROM collab_updates WHERE project_id = $1', [projectId])).rows[0].n);
    const stored = await rows();
    v.doc.transact(() => (nodeMap(v.doc, 'b')!.get('data') as Y.Map<unknown>).set('prompt', 'vandal'));
    // The editor's next change reaches the viewer: anything the viewer's change did would have arrived before it.
    a.doc.transact(() => (nodeMap(a.doc, 'a')!.get('data') as Y.Map<unknown>).set('prompt', 'mine'));
    await a.saved();
    await docWhere(v.doc, (d) => promptOf(d, 'a') === 'mine');
    expect(promptOf(a.doc, 'b')).toBe('p');
    expect(v.provider.hasUnsyncedChanges).toBe(true);
    expect(await rows()).toBe(stored + 1);
    expect((await canvas(ada, projectId)).nodes[1].data.prompt).toBe('p');
  });
});

describe('the REST canvas as a view of the document', () => {
  it('a REST save reaches live editors as a small change; live edits step the version; a stale version is 409', async () => {
    const projectId = await sharedProject();
    const a = await live(ada, projectId);
    await a.saved();
    const nodeA = nodeMap(a.doc, 'a');
    const saved = await bob.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', 0, 'rest'), node('b', 300)], edges: [], version: 1 });
    expect(saved).toMatchObject({ status: 200, json: { version: 2 } });
    await docWhere(a.doc, (d) => promptOf(d, 'a') === 'rest');
    expect(nodeMap(a.doc, 'a')).toBe(nodeA); // the same node, changed in place: not a reload
    a.doc.transact(() => nodeMap(a.doc, 'b')!.set('position', { x: 1, y: 2 }));
    await a.saved();
    const read = await canvas(bob, projectId);
    expect(read).toMatchObject({ version: 3, nodes: [{ id: 'a' }, { id: 'b', position: { x: 1, y: 2 } }] });
    // An old client still holding version 2 cannot wipe the live change.
    expect(await bob.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], version: 2 })).toMatchObject({ status: 409, json: { error: 'Canvas was changed elsewhere', version: 3 } });
    expect(canvasMaps(a.doc).nodes.size).toBe(2);
  });

  it('an acknowledged edit is in PostgreSQL', async () => {
    const projectId = await sharedProject();
    const a = await live(ada, projectId);
    await a.saved();
    a.doc.transact(() => (nodeMap(a.doc, 'a')!.get('data') as Y.Map<unknown>).set('prompt', 'durable'));
    await a.saved();
    const { rows } = await t.pool.query<{ update: Buffer }>('SELECT update FROM collab_updates WHERE project_id = $1 ORDER BY id', [projectId]);
    const { rows: snap } = await t.pool.query<{ state: Buffer }>('SELECT state FROM collab_snapshots WHERE project_id = $1', [projectId]);
    const doc = new Y.Doc();
    for (const r of [...snap.map((s) => s.state), ...rows.map((r) => r.update)]) Y.applyUpdate(doc, r);
    expect(promptOf(doc, 'a')).toBe('durable');
  });

  it('a canvas saved before live documents is moved into its document once, unchanged, with its version', async () => {
    const projectId = await project(ada);
    const nodes = [node('x', 5, 'old'), node('y', 9)];
    const edges = [{ id: 'e', source: 'x', target: 'y' }];
    await t.pool.query('INSERT INTO canvases (id, project_id, nodes, edges, version) VALUES ($1, $2, $3, $4, 7)', ['legacy-canvas', projectId, JSON.stringify(nodes), JSON.stringify(edges)]);
    expect(await canvas(ada, projectId)).toEqual({ id: 'legacy-canvas', projectId, nodes, edges, version: 7 });
    const a = await live(ada, projectId);
    await a.saved();
    expect(promptOf(a.doc, 'x')).toBe('old');
    const { rows } = await t.pool.query('SELECT nodes, edges, version FROM canvases WHERE project_id = $1', [projectId]);
    expect(rows[0]).toEqual({ nodes: null, edges: null, version: 7 });
    expect(await canvas(ada, projectId)).toEqual({ id: 'legacy-canvas', projectId, nodes, edges, version: 7 });
  });
});

describe('access that changes while connected', () => {
  it('a removed member is disconnected and refused; a member made viewer comes back read-only; deleting the project disconnects everyone', async () => {
    const projectId = await sharedProject();
    const a = await live(ada, projectId);
    const b = await live(bob, projectId);
    const v = await live(vic, projectId);
    await Promise.all([a.saved(), b.saved(), v.event('synced')]);
    expect(await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'viewer' })).toMatchObject({ status: 200 });
    await b.event('authenticated:readonly');
    b.doc.transact(() => (nodeMap(b.doc, 'a')!.get('data') as Y.Map<unknown>).set('prompt', 'after-downgrade'));
    expect((await ada.client.request(`/api/user/project/${projectId}/members/${vic.email}`, { method: 'DELETE' })).status).toBe(204);
    await v.event('authenticationFailed:permission-denied');
    a.doc.transact(() => (nodeMap(a.doc, 'b')!.get('data') as Y.Map<unknown>).set('prompt', 'owner'));
    await a.saved();
    await docWhere(b.doc, (d) => promptOf(d, 'b') === 'owner');
    expect(promptOf(a.doc, 'a')).toBe('p');
    expect(promptOf(v.doc, 'b')).toBe('p');
    expect((await ada.client.request(`/api/user/project/${projectId}`, { method: 'DELETE' })).status).toBe(204);
    await a.event('authenticationFailed:permission-denied');
  });
});
