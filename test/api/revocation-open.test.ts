// Revocation reaches what is open (docs/api.md "Signing out", "API tokens", "Live canvas", "Generation jobs"): two
// instances share one database (no Redis); what is revoked on one ends the live sockets and event streams open on the
// other within SESSION_REVOCATION_POLL_MS — a sign-out, "sign out of all devices", a revoked or expired token, a
// member removed or demoted, a project deleted — and nothing more of them is stored. Event streams are capped per user
// (EVENT_STREAMS_PER_USER): one more ends the oldest, with a last event saying why. Every wait is for the socket's
// close or the stream's end, never for a clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { openEventStream, type OpenStream } from '../helpers/event-stream.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, SESSION_COOKIE, upgradeStatus, type LiveClient } from '../helpers/live-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let database: { url: string; drop(): Promise<void> };
/** Where things are revoked (`a`) and where they are open (`b`). */
let a: TestApp;
let b: TestApp;
const open: Array<{ close(): void }> = [];
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const data = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>;
/** A change that is allowed: the node moves to x. */
const move = (doc: Y.Doc, x: number) => doc.transact(() => (canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).set('position', { x, y: 0 }));
const xOf = (doc: Y.Doc) => ((canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).get('position') as { x: number }).x;

beforeAll(async () => {
  database = await createOwnDatabase();
  const env = { AUTH_SECRET: 'revocation-open-test-secret-0123456789abcd', DATABASE_CONNECTION_STRING: database.url, SESSION_REVOCATION_POLL_MS: '100', EVENT_STREAMS_PER_USER: '2' };
  a = await startTestApp(env, 'embedded');
  b = await startTestApp(env, 'embedded');
});
afterAll(async () => {
  for (const c of open) c.close();
  await a?.close();
  await b?.close();
  await database?.drop();
});

/** A project of `owner`'s (signed in on `a`) with a one-node canvas, shared with these members. */
async function project(owner: Who, members: Array<[Who, 'editor' | 'viewer']> = []): Promise<string> {
  const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Revoked' })).json.id as string;
  expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);
  for (const [who, role] of members) expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: who.email, role })).status).toBe(201);
  return projectId;
}
/** A live socket on instance `b`, with a session cookie or a token. */
async function liveOnB(projectId: string, as: Who | { token: string }, maxAttempts = 1): Promise<LiveClient> {
  const c = 'token' in as ? await connectLive({ baseUrl: b.baseUrl, as: null, projectId, token: as.token, maxAttempts }) : await connectLive({ baseUrl: b.baseUrl, as: as.client, projectId, maxAttempts });
  open.push(c);
  await c.event('authenticated');
  await c.saved();
  return c;
}
async function streamOnB(as: Who | { token: string }): Promise<OpenStream> {
  const s = await openEventStream(b.baseUrl, 'token' in as ? as : { client: as.client });
  open.push(s);
  expect(s.status).toBe(200);
  return s;
}
async function token(who: Who, scopes: string[]): Promise<{ token: string; id: string }> {
  const res = await who.client.post('/api/user/tokens', { name: 'open', scopes });
  expect(res.status, res.text).toBe(201);
  return { token: res.json.token, id: res.json.id };
}
const promptOn = async (t: TestApp, who: Who, projectId: string) => (await who.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.prompt;
async function signOut(client: HttpClient) {
  const csrf = (await client.get('/api/auth/csrf')).json.csrfToken as string;
  expect((await client.request('/api/auth/signout', { form: { csrfToken: csrf, callbackUrl: '/' }, follow: false })).status).toBe(302);
}

describe('revocation on one instance ends what is open on the other', () => {
  it("a sign-out closes that session's live socket (4401 signed-out) and event stream (closed: signed-out); nothing more is stored; the user's other session stays", async () => {
    const laptop: Who = await a.user('leaver@example.com');
    const phone: Who = await a.user('leaver@example.com');
    const projectId = await project(laptop);
    const [gone, kept, stream] = await Promise.all([liveOnB(projectId, laptop), liveOnB(projectId, phone), streamOnB(laptop)]);
    const cookie = (await laptop.client.cookie(SESSION_COOKIE))!;
    await signOut(laptop.client);
    expect(await gone.event('close')).toBe('close:4401:signed-out');
    expect(await stream.ended).toBe('signed-out');
    // Swept in the same pass: the other session's socket is still open and still writes.
    gone.doc.transact(() => data(gone.doc, 'a').set('prompt', 'after sign-out'));
    move(kept.doc, 7);
    await kept.saved();
    expect(kept.events.some((e) => e.startsWith('close'))).toBe(false);
    expect(await promptOn(b, phone, projectId)).toBe('p');
    expect(await upgradeStatus(b.baseUrl, { origin: b.baseUrl, cookie: `${SESSION_COOKIE}=${cookie}` })).toBe(401);
  });

  it('"sign out of all devices" closes every socket and stream of the user there, and no one else\'s', async () => {
    const laptop: Who = await a.user('everywhere@example.com');
    const phone: Who = await a.user('everywhere@example.com');
    const other: Who = await a.user('bystander@example.com');
    const projectId = await project(laptop, [[other, 'editor']]);
    const [l, p, o, ls, ps, os] = await Promise.all([liveOnB(projectId, laptop), liveOnB(projectId, phone), liveOnB(projectId, other), streamOnB(laptop), streamOnB(phone), streamOnB(other)]);
    expect((await laptop.client.request('/api/user/sessions', { method: 'DELETE' })).status).toBe(200);
    expect(await Promise.all([l.event('close'), p.event('close')])).toEqual(['close:4401:signed-out', 'close:4401:signed-out']);
    expect(await Promise.all([ls.ended, ps.ended])).toEqual(['signed-out', 'signed-out']);
    o.doc.transact(() => data(o.doc, 'a').set('prompt', 'still here'));
    await o.saved();
    expect(o.events.some((e) => e.startsWith('close'))).toBe(false);
    expect(os.done()).toBe(false);
  });

  it("a revoked token's socket and stream end (token-revoked); an expired token's too (token-expired)", async () => {
    const ada: Who = await a.user('scripter@example.com');
    const projectId = await project(ada);
    const [revoked, expiring] = await Promise.all([token(ada, ['read', 'write']), token(ada, ['read', 'write'])]);
    const [rl, rs, el, es] = await Promise.all([liveOnB(projectId, revoked), streamOnB(revoked), liveOnB(projectId, expiring), streamOnB(expiring)]);
    expect((await ada.client.request(`/api/user/tokens/${revoked.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await rl.event('close')).toBe('close:4401:token-revoked');
    expect(await rs.ended).toBe('token-revoked');
    // Its expiry comes (as if its days had passed).
    await a.pool.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [expiring.id]);
    expect(await el.event('close')).toBe('close:4401:token-expired');
    expect(await es.ended).toBe('token-expired');
    rl.doc.transact(() => data(rl.doc, 'a').set('prompt', 'after revocation'));
    el.doc.transact(() => data(el.doc, 'a').set('prompt', 'after expiry'));
    expect(await promptOn(b, ada, projectId)).toBe('p');
  });

  it('a member removed there is disconnected here; one demoted comes back read-only and cannot write; deleting the project disconnects its owner (no Redis)', async () => {
    const ada: Who = await a.user('owner@example.com');
    const bob: Who = await a.user('editor@example.com');
    const vic: Who = await a.user('removed@example.com');
    const projectId = await project(ada, [[bob, 'editor'], [vic, 'viewer']]);
    const [owner, editor, viewer] = await Promise.all([liveOnB(projectId, ada), liveOnB(projectId, bob, 0), liveOnB(projectId, vic)]);
    expect(editor.events).toContain('authenticated:read-write');
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'viewer' })).status).toBe(200);
    expect(await editor.event('close')).toBe('close:4403:role-changed');
    await editor.event('authenticated:readonly'); // its provider reconnected by itself
    expect((await ada.client.request(`/api/user/project/${projectId}/members/${vic.email}`, { method: 'DELETE' })).status).toBe(204);
    expect(await viewer.event('close')).toBe('close:4403:permission-denied');
    // The demoted editor's change is not applied: the owner's later change reaches it, the change never reaches REST.
    await editor.event('synced');
    editor.doc.transact(() => data(editor.doc, 'a').set('prompt', 'demoted'));
    move(owner.doc, 9);
    await owner.saved();
    await docWhere(editor.doc, (d) => xOf(d) === 9);
    expect(data(owner.doc, 'a').get('prompt')).toBe('p');
    expect(await promptOn(b, ada, projectId)).toBe('p');
    expect((await ada.client.request(`/api/user/project/${projectId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await owner.event('close')).toBe('close:4403:permission-denied');
  });
});

describe('event streams per user', () => {
  it('one more than EVENT_STREAMS_PER_USER ends the oldest (closed: too-many-streams); the others, and other users\', stay', async () => {
    const ada: Who = await a.user('streamer@example.com');
    const bob: Who = await a.user('neighbour@example.com');
    const first = await streamOnB(ada);
    const second = await streamOnB(ada);
    const bobs = await streamOnB(bob);
    const third = await streamOnB(ada);
    expect(await first.ended).toBe('too-many-streams');
    expect(first.events.at(-1)).toMatchObject({ event: 'closed', data: '{"reason":"too-many-streams"}' });
    const fourth = await openEventStream(b.baseUrl, { client: ada.client });
    open.push(fourth);
    expect(await second.ended).toBe('too-many-streams');
    expect([third.done(), fourth.done(), bobs.done()]).toEqual([false, false, false]);
    // Per instance: the other instance counts its own.
    const elsewhere = await openEventStream(a.baseUrl, { client: ada.client });
    open.push(elsewhere);
    expect(elsewhere.status).toBe(200);
  });
});
