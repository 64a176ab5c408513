// Notices between people on the live canvas (docs/api.md "Live canvas", the stateless messages): a member whose role
// changes or who is removed while connected is told what they may now do and by whom (an `access` message) before
// their socket closes — a viewer made editor reconnects read-write at once; everyone connected is told who restored
// which version and which version undoes it (a `restored` message). Every wait is for an event, never a clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { LINK_TOKEN_PREFIX } from '../../src/collab/protocol.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let app: TestApp;
const open: LiveClient[] = [];
const data = (doc: Y.Doc) => (canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>;
const node = { id: 'a', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  for (const c of open) c.close();
  await app?.close();
});

async function project(owner: Who, members: Array<[Who, 'editor' | 'viewer']>): Promise<string> {
  const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'People' })).json.id as string;
  expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes: [node], edges: [] })).status).toBe(200);
  for (const [who, role] of members) expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: who.email, role })).status).toBe(201);
  return projectId;
}

async function live(projectId: string, who: Who): Promise<LiveClient> {
  const c = await connectLive({ baseUrl: app.baseUrl, as: who.client, projectId });
  open.push(c);
  await c.event('authenticated');
  await c.saved();
  return c;
}

const stateless = (c: LiveClient, type: string) => c.event(`stateless:{"type":"${type}"`).then((e) => JSON.parse(e.slice('stateless:'.length)) as Record<string, unknown>);

describe('notices between people', () => {
  it('tells a member, naming who, that they can now edit (and lets them), can now only view, and were removed', async () => {
    const ana = await app.user('ana@example.com', 'Ana');
    const vic = await app.user('vic@example.com');
    const projectId = await project(ana, [[vic, 'viewer']]);
    const viewer = await live(projectId, vic);
    expect(viewer.events).toContain('authenticated:readonly');

    expect((await ana.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'editor' })).status).toBe(200);
    expect(await stateless(viewer, 'access')).toEqual({ type: 'access', access: 'edit', by: 'Ana' });
    expect(await viewer.event('close')).toBe('close:4403:role-changed');
    await viewer.event('authenticated:read-write'); // reconnected by itself, now able to write
    viewer.events.length = 0;

    expect((await ana.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' })).status).toBe(200);
    expect(await stateless(viewer, 'access')).toEqual({ type: 'access', access: 'view', by: 'Ana' });
    await viewer.event('authenticated:readonly');
    viewer.events.length = 0;

    expect((await ana.client.request(`/api/user/project/${projectId}/members/${vic.email}`, { method: 'DELETE' })).status).toBe(204);
    expect(await stateless(viewer, 'access')).toEqual({ type: 'access', access: 'none', by: 'Ana' });
    expect(await viewer.event('close')).toBe('close:4403:permission-denied');
  });

  it('tells everyone on the canvas who restored which version, and the version that undoes it', async () => {
    const ana = await app.user('ana@example.com', 'Ana');
    const bob = await app.user('bob@example.com');
    const projectId = await project(ana, [[bob, 'editor']]);
    const watcher = await live(projectId, bob);
    const version = (await ana.client.post(`/api/user/project/${projectId}/versions`, { name: 'First' })).json.version as { id: string; createdAt: string };
    const restored = await ana.client.request(`/api/user/project/${projectId}/versions/${version.id}/restore`, { method: 'POST' });
    expect(restored.status).toBe(200);
    const message = await stateless(watcher, 'restored');
    const versions = (await ana.client.get(`/api/user/project/${projectId}/versions`)).json.versions as Array<{ id: string; name: string | null }>;
    const before = versions.find((v) => v.name === 'Before restoring “First”')!;
    expect(message).toEqual({ type: 'restored', by: 'Ana', userId: ana.id, version: version.id, name: 'First', createdAt: version.createdAt, before: before.id });
  });

  it('lets a read-only link follow the canvas live, read-only; a revoked link is ended and refused', async () => {
    const ana = await app.user('ana@example.com', 'Ana');
    const projectId = await project(ana, []);
    const { token } = (await ana.client.post(`/api/user/project/${projectId}/share-link`, {})).json as { token: string };
    const owner = await live(projectId, ana);
    const holder = await connectLive({ baseUrl: app.baseUrl, as: null, projectId, token: `${LINK_TOKEN_PREFIX}${token}`, maxAttempts: 1 });
    open.push(holder);
    expect(await holder.event('authenticated')).toBe('authenticated:readonly');
    await holder.saved();
    // The owner's edit reaches the link's holder; the holder's own change is not applied.
    owner.doc.transact(() => data(owner.doc).set('prompt', 'live'));
    await docWhere(holder.doc, (d) => data(d).get('prompt') === 'live');
    holder.doc.transact(() => data(holder.doc).set('prompt', 'from the link'));
    const nodeA = (doc: Y.Doc) => canvasMaps(doc).nodes.get('a') as Y.Map<unknown>;
    owner.doc.transact(() => nodeA(owner.doc).set('position', { x: 5, y: 0 }));
    await owner.saved();
    await docWhere(holder.doc, (d) => (nodeA(d).get('position') as { x: number }).x === 5);
    expect(data(owner.doc).get('prompt')).toBe('live');
    expect((await ana.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.prompt).toBe('live');
    // Another token, or one with a changed character, is refused as no one's.
    const wrong = await connectLive({ baseUrl: app.baseUrl, as: null, projectId, token: `${LINK_TOKEN_PREFIX}${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, maxAttempts: 1 });
    open.push(wrong);
    expect(await wrong.event('authenticationFailed')).toBe('authenticationFailed:permission-denied');
    // Revoked: told, then closed.
    expect((await ana.client.request(`/api/user/project/${projectId}/share-link`, { method: 'DELETE' })).status).toBe(204);
    expect(await stateless(holder, 'access')).toEqual({ type: 'access', access: 'none' });
    expect(await holder.event('close')).toBe('close:4403:permission-denied');
  });
});
