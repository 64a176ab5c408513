// Sharing (docs/api.md "Sharing"): members with roles on the canvas REST routes, the shared-with-me list, and
// the read-only link; every refusal without a role is the same whether or not the project exists.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let owner: Who;
let ada: Who;
let bob: Who;
let eve: Who;
const MAX_MEMBERS = 3;
/** Reads of links per address a minute: more than the tests before the last one make. */
const PER_MINUTE = 40;

const node = (id: string, x = 0) => ({ id, type: 'upload', position: { x, y: 0 }, data: { type: 'upload', image: `http://img/${id}.png` } });
const project = async (who: Who, name = 'Shared') => (await who.client.post('/api/user/project', { userId: who.id, name })).json.id as string;
const members = (id: string) => `/api/user/project/${id}/members`;
const invite = (who: Who, id: string, email: string, role: string) => who.client.post(members(id), { email, role });
const remove = (who: Who, id: string, email: string) => who.client.request(`${members(id)}/${encodeURIComponent(email)}`, { method: 'DELETE' });
const readCanvas = (who: Who, id: string) => who.client.get(`/api/user/project/canvas?projectId=${id}`);
const saveCanvas = (who: Who, body: Record<string, unknown>) => who.client.post('/api/user/project/canvas', body);
const makeLink = (who: Who, id: string) => who.client.request(`/api/user/project/${id}/share-link`, { method: 'POST' });
const revokeLink = (who: Who, id: string) => who.client.request(`/api/user/project/${id}/share-link`, { method: 'DELETE' });
const shared = (who: Who) => who.client.get('/api/user/project/shared');
const NOT_FOUND = { status: 404, json: { error: 'Project not found' } };
const FORBIDDEN = { status: 403, json: { error: 'Forbidden' } };
const storedFiles = async () => (await fs.readdir(path.join(t.dataDir, 'objects'), { recursive: true }).catch(() => [])).sort();
const rows = async (sql: string, params: unknown[]) => (await t.pool.query(sql, params)).rows;

beforeAll(async () => {
  t = await startTestApp({ PROJECT_MAX_MEMBERS: String(MAX_MEMBERS), RATE_LIMIT_SHARED_PER_MINUTE: String(PER_MINUTE) });
  [owner, ada, bob, eve] = await Promise.all([
    t.user('owner@example.com', 'Olive'),
    t.user('ada@example.com', 'Ada'),
    t.user('bob@example.com', 'Bob'),
    t.user('eve@example.com', 'Eve'),
  ]);
});
afterAll(() => t?.close());

describe('sharing a project', () => {
  it('owner invites ada as editor (201) and bob as viewer; re-inviting changes the role (200); both see it in /shared', async () => {
    const id = await project(owner);
    await saveCanvas(owner, { projectId: id, nodes: [node('a')], edges: [] });
    const invited = await invite(owner, id, 'Ada@Example.com', 'viewer');
    expect(invited).toMatchObject({ status: 201, json: { email: 'ada@example.com', role: 'viewer', createdAt: expect.any(String) } });
    expect(await invite(owner, id, 'ada@example.com', 'editor')).toMatchObject({ status: 200, json: { email: 'ada@example.com', role: 'editor', createdAt: invited.json.createdAt } });
    expect((await invite(owner, id, 'bob@example.com', 'viewer')).status).toBe(201);

    const list = await owner.client.get(members(id));
    expect(list).toMatchObject({ status: 200 });
    expect(list.json).toEqual({
      owner: { email: 'owner@example.com', name: 'Olive' },
      members: [
        { email: 'ada@example.com', role: 'editor', createdAt: invited.json.createdAt },
        { email: 'bob@example.com', role: 'viewer', createdAt: expect.any(String) },
      ],
    });
    // Members read the list too.
    expect((await bob.client.get(members(id))).json).toEqual(list.json);

    const adaShared = await shared(ada);
    expect(adaShared.status).toBe(200);
    const mine = (await owner.client.get(`/api/user/project?userId=${owner.id}`)).json.find((p: { id: string }) => p.id === id);
    expect(adaShared.json).toContainEqual({ ...mine, role: 'editor', owner: { email: 'owner@example.com', name: 'Olive' } });
    expect((await shared(bob)).json).toContainEqual({ ...mine, role: 'viewer', owner: { email: 'owner@example.com', name: 'Olive' } });
    // GET /api/user/project keeps its meaning: the projects you own.
    expect((await ada.client.get(`/api/user/project?userId=${ada.id}`)).json.map((p: { id: string }) => p.id)).not.toContain(id);
    expect((await shared(eve)).json).toEqual([]);
  });

  it('an editor reads and saves the canvas (versions included); a viewer reads, and a save is 403 that changes nothing', async () => {
    const id = await project(owner);
    await invite(owner, id, 'ada@example.com', 'editor');
    await invite(owner, id, 'bob@example.com', 'viewer');
    const first = await saveCanvas(owner, { projectId: id, nodes: [node('a')], edges: [] });

    expect(await readCanvas(ada, id)).toMatchObject({ status: 200, json: first.json });
    const byAda = await saveCanvas(ada, { projectId: id, nodes: [node('a'), node('b', 5)], edges: [], version: 1 });
    expect(byAda).toMatchObject({ status: 200, json: { id: first.json.id, version: 2 } });
    expect(await saveCanvas(ada, { projectId: id, nodes: [], edges: [], version: 1 })).toMatchObject({ status: 409, json: { version: 2 } });

    expect(await readCanvas(bob, id)).toMatchObject({ status: 200, json: byAda.json });
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c33' } }).png().toBuffer();
    const data = `data:image/png;base64,${png.toString('base64')}`;
    const files = await storedFiles();
    for (const body of [
      { projectId: id, nodes: [], edges: [] },
      { projectId: id, nodes: [], edges: [], version: 2 },
      { projectId: id, nodes: [], edges: [], version: 0 },
      { projectId: id, nodes: [{ ...node('x'), data: { type: 'upload', image: data } }], edges: [] },
    ]) {
      expect(await saveCanvas(bob, body), JSON.stringify(body).slice(0, 80)).toMatchObject(FORBIDDEN);
    }
    expect(await readCanvas(owner, id)).toMatchObject({ status: 200, json: byAda.json });
    expect(await storedFiles()).toEqual(files); // the viewer's inline image was not stored
    // The same save by the editor stores it (so the comparison above could have seen it).
    const withImage = await saveCanvas(ada, { projectId: id, nodes: [{ ...node('x'), data: { type: 'upload', image: data } }], edges: [] });
    expect(withImage).toMatchObject({ status: 200, json: { version: 3 } });
    expect((await storedFiles()).length).toBeGreaterThan(files.length);
  });

  it('someone without a role gets the same answer for this project as for one that does not exist', async () => {
    const id = await project(owner);
    await saveCanvas(owner, { projectId: id, nodes: [node('a')], edges: [] });
    await invite(owner, id, 'ada@example.com', 'editor');
    const missing = randomUUID();
    const calls: Array<[string, (p: string) => Promise<{ status: number; json: unknown }>]> = [
      ['read canvas', (p) => readCanvas(eve, p)],
      ['save canvas', (p) => saveCanvas(eve, { projectId: p, nodes: [], edges: [] })],
      ['save canvas with version', (p) => saveCanvas(eve, { projectId: p, nodes: [], edges: [], version: 1 })],
      ['list members', (p) => eve.client.get(members(p))],
      ['invite', (p) => invite(eve, p, 'eve2@example.com', 'editor')],
      ['remove member', (p) => remove(eve, p, 'ada@example.com')],
      ['leave', (p) => remove(eve, p, 'eve@example.com')],
      ['make link', (p) => makeLink(eve, p)],
      ['revoke link', (p) => revokeLink(eve, p)],
      ['rename', (p) => eve.client.request(`/api/user/project/${p}`, { method: 'PATCH', json: { name: 'Mine' } })],
      ['delete', (p) => eve.client.request(`/api/user/project/${p}`, { method: 'DELETE' })],
    ];
    for (const [name, call] of calls) {
      const [real, none] = [await call(id), await call(missing)];
      expect({ status: real.status, json: real.json }, name).toEqual({ status: none.status, json: none.json });
      expect(real, name).toMatchObject(NOT_FOUND);
    }
    expect((await rows('SELECT email FROM project_members WHERE project_id = $1', [id])).map((r) => r.email)).toEqual(['ada@example.com']);
    expect((await readCanvas(owner, id)).json.version).toBe(1);
  });

  it('owner-only routes refuse members with 403: invite, remove another member, links, rename, delete', async () => {
    const id = await project(owner, 'Kept');
    await invite(owner, id, 'ada@example.com', 'editor');
    await invite(owner, id, 'bob@example.com', 'viewer');
    for (const who of [ada, bob]) {
      expect(await invite(who, id, 'eve@example.com', 'viewer')).toMatchObject(FORBIDDEN);
      expect(await invite(who, id, who.email, 'editor')).toMatchObject(FORBIDDEN);
      expect(await remove(who, id, who === ada ? bob.email : ada.email)).toMatchObject(FORBIDDEN);
      expect(await makeLink(who, id)).toMatchObject(FORBIDDEN);
      expect(await revokeLink(who, id)).toMatchObject(FORBIDDEN);
      expect(await who.client.request(`/api/user/project/${id}`, { method: 'PATCH', json: { name: 'Taken' } })).toMatchObject(FORBIDDEN);
      expect(await who.client.request(`/api/user/project/${id}`, { method: 'DELETE' })).toMatchObject(FORBIDDEN);
    }
    expect(await rows('SELECT name FROM projects WHERE id = $1', [id])).toEqual([{ name: 'Kept' }]);
    expect(await rows('SELECT email, role FROM project_members WHERE project_id = $1 ORDER BY email', [id])).toEqual([
      { email: 'ada@example.com', role: 'editor' },
      { email: 'bob@example.com', role: 'viewer' },
    ]);
    expect(await rows('SELECT count(*)::int AS n FROM project_share_links WHERE project_id = $1', [id])).toEqual([{ n: 0 }]);
  });

  it('removing a member ends their access; a member may leave; removing a non-member is 404 Member not found', async () => {
    const id = await project(owner);
    await saveCanvas(owner, { projectId: id, nodes: [], edges: [] });
    await invite(owner, id, 'ada@example.com', 'editor');
    await invite(owner, id, 'bob@example.com', 'viewer');
    expect((await remove(owner, id, 'ADA@example.com')).status).toBe(204);
    expect(await readCanvas(ada, id)).toMatchObject(NOT_FOUND);
    expect(await saveCanvas(ada, { projectId: id, nodes: [], edges: [] })).toMatchObject(NOT_FOUND);
    expect(await ada.client.get(members(id))).toMatchObject(NOT_FOUND);
    expect((await shared(ada)).json.map((p: { id: string }) => p.id)).not.toContain(id);
    expect(await remove(owner, id, 'ada@example.com')).toMatchObject({ status: 404, json: { error: 'Member not found' } });
    expect(await remove(owner, id, 'owner@example.com')).toMatchObject({ status: 404, json: { error: 'Member not found' } });
    for (const odd of ['a\u0000b@example.com', 'x'.repeat(99), "' OR 1=1 --"]) expect(await remove(owner, id, odd), odd).toMatchObject({ status: 404, json: { error: 'Member not found' } });

    expect((await remove(bob, id, 'Bob@Example.com')).status).toBe(204); // leaving
    expect(await readCanvas(bob, id)).toMatchObject(NOT_FOUND);
    expect((await owner.client.get(members(id))).json.members).toEqual([]);
  });

  it('matches emails case-insensitively, refuses bad input with 400, the owner as a member, and more than PROJECT_MAX_MEMBERS', async () => {
    const id = await project(owner);
    expect((await invite(owner, id, '  BOB@EXAMPLE.COM ', 'viewer')).status).toBe(400); // spaces are not an email
    expect(await invite(owner, id, 'BOB@EXAMPLE.COM', 'viewer')).toMatchObject({ status: 201, json: { email: 'bob@example.com' } });
    expect((await readCanvas(bob, id)).status).toBe(200);
    expect(await invite(owner, id, 'Owner@Example.com', 'editor')).toMatchObject({ status: 400, json: { error: 'The owner cannot be invited' } });
    for (const email of ['', 'not-an-email', 'a@', `${'x'.repeat(250)}@example.com`, 42, null, 'a\u0000b@example.com']) {
      expect(await invite(owner, id, email as string, 'viewer'), String(email)).toMatchObject({ status: 400, json: { error: 'Invalid email' } });
    }
    for (const role of ['owner', 'admin', '', null, 1]) {
      expect(await invite(owner, id, 'carol@example.com', role as string), String(role)).toMatchObject({ status: 400, json: { error: 'Role must be editor or viewer' } });
    }
    expect((await owner.client.post(members(id), { email: 'carol@example.com' })).status).toBe(400);
    expect((await owner.client.post(members(id), [])).status).toBe(400);

    for (let i = 1; i < MAX_MEMBERS; i++) expect((await invite(owner, id, `m${i}@example.com`, 'viewer')).status).toBe(201);
    expect(await invite(owner, id, 'one-too-many@example.com', 'viewer')).toMatchObject({ status: 400, json: { error: `A project has at most ${MAX_MEMBERS} members` } });
    // A role change at the limit is no new member.
    expect(await invite(owner, id, 'm1@example.com', 'editor')).toMatchObject({ status: 200, json: { role: 'editor' } });
    expect((await owner.client.get(members(id))).json.members).toHaveLength(MAX_MEMBERS);

    // Ids that cannot exist are a missing project, never a 500.
    for (const p of ['not-a-uuid', 'shared', 'canvas', "1' OR '1'='1"]) {
      expect(await owner.client.get(members(encodeURIComponent(p))), p).toMatchObject(NOT_FOUND);
      expect(await makeLink(owner, encodeURIComponent(p)), p).toMatchObject(NOT_FOUND);
    }
  });

  it('needs a session (401) and refuses cross-site changes (403)', async () => {
    const id = await project(owner);
    const anon = t.client();
    for (const res of [await anon.get('/api/user/project/shared'), await anon.get(members(id)), await anon.post(members(id), { email: 'a@example.com', role: 'viewer' }), await anon.request(`/api/user/project/${id}/share-link`, { method: 'POST' })]) {
      expect(res).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    }
    const evil = { origin: 'https://evil.example' };
    expect(await owner.client.request(members(id), { method: 'POST', json: { email: 'ada@example.com', role: 'editor' }, headers: evil })).toMatchObject(FORBIDDEN);
    expect(await owner.client.request(`/api/user/project/${id}/share-link`, { method: 'POST', headers: evil })).toMatchObject(FORBIDDEN);
    expect((await owner.client.get(members(id))).json.members).toEqual([]);
  });
});

describe('the read-only link', () => {
  it('shows the canvas signed out; a new link replaces the old; revoking ends it; all unknown tokens are the same 404', async () => {
    const id = await project(owner, 'Linked');
    const saved = await saveCanvas(owner, { projectId: id, nodes: [node('a'), { ...node('b'), type: 'generation', data: { type: 'generation' } }], edges: [{ id: 'e', source: 'a', target: 'b' }] });
    const made = await makeLink(owner, id);
    expect(made).toMatchObject({ status: 201, json: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), url: `${t.baseUrl}/api/shared/${made.json.token}` } });
    // Only the token's SHA-256 is stored.
    const [stored] = await rows('SELECT token_hash FROM project_share_links WHERE project_id = $1', [id]);
    expect(stored.token_hash).not.toContain(made.json.token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const anon = t.client();
    const opened = await anon.get(new URL(made.json.url).pathname);
    expect(opened).toMatchObject({ status: 200, json: { project: { id, name: 'Linked' }, canvas: saved.json } });
    expect(opened.headers.get('cache-control')).toBe('no-store');
    // The owner's later changes show; the link gives no write access (no session: saves are 401).
    const later = await saveCanvas(owner, { projectId: id, nodes: [node('c')], edges: [] });
    expect((await anon.get(`/api/shared/${made.json.token}`)).json.canvas).toEqual(later.json);
    expect((await saveCanvas({ ...owner, client: anon }, { projectId: id, nodes: [], edges: [] })).status).toBe(401);

    const replaced = await makeLink(owner, id);
    expect(replaced.json.token).not.toBe(made.json.token);
    const unknown = { status: 404, json: { error: 'Not found' } };
    expect(await anon.get(`/api/shared/${made.json.token}`)).toMatchObject(unknown);
    expect((await anon.get(`/api/shared/${replaced.json.token}`)).status).toBe(200);

    expect((await revokeLink(owner, id)).status).toBe(204);
    expect((await revokeLink(owner, id)).status).toBe(204); // nothing left to revoke: still done
    const revoked = await anon.get(`/api/shared/${replaced.json.token}`);
    const never = await anon.get(`/api/shared/${'A'.repeat(43)}`);
    expect(revoked).toMatchObject(unknown);
    expect({ status: never.status, json: never.json }).toEqual({ status: revoked.status, json: revoked.json });
    for (const token of ['x', '..%2F..%2Fetc%2Fpasswd', 'A'.repeat(100), '%00']) expect(await anon.get(`/api/shared/${token}`), token).toMatchObject(unknown);
  });

  it('answers null for a project without a canvas', async () => {
    const id = await project(owner, 'Empty');
    const { token } = (await makeLink(owner, id)).json;
    expect(await t.client().get(`/api/shared/${token}`)).toMatchObject({ status: 200, json: { project: { id, name: 'Empty' }, canvas: null } });
  });
});

describe('deleting a shared project', () => {
  it('takes its members and its link with it', async () => {
    const id = await project(owner, 'Doomed');
    await saveCanvas(owner, { projectId: id, nodes: [], edges: [] });
    await invite(owner, id, 'ada@example.com', 'editor');
    const { token } = (await makeLink(owner, id)).json;
    expect((await owner.client.request(`/api/user/project/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await rows('SELECT count(*)::int AS n FROM project_members WHERE project_id = $1', [id])).toEqual([{ n: 0 }]);
    expect(await rows('SELECT count(*)::int AS n FROM project_share_links WHERE project_id = $1', [id])).toEqual([{ n: 0 }]);
    expect((await shared(ada)).json.map((p: { id: string }) => p.id)).not.toContain(id);
    expect(await readCanvas(ada, id)).toMatchObject(NOT_FOUND);
    expect(await t.client().get(`/api/shared/${token}`)).toMatchObject({ status: 404, json: { error: 'Not found' } });
  });
});

// Last: every test here reads links from the same address, and the limit counts them all.
describe('the read-only link, over its limit', () => {
  it('is rate-limited per address (RATE_LIMIT_SHARED_PER_MINUTE): 429 with Retry-After', async () => {
    const anon = t.client();
    const answers = [];
    for (let i = 0; i <= PER_MINUTE; i++) answers.push(await anon.get(`/api/shared/${'B'.repeat(43)}`));
    const last = answers[answers.length - 1];
    expect(last).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
