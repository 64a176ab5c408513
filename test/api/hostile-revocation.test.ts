// Hostile cases for revocation that reaches open connections (docs/api.md "Signing out", "API tokens", "Live
// canvas", "Generation jobs"): two instances share one database, no Redis. Something is opened on instance B — a live
// socket or a job event stream, by session cookie or API token, as owner, editor or viewer — and something is revoked
// on instance A. Every case waits for what must end (the socket's close, the stream's last event), checks that a
// bystander opened beside it in the same sweep is still there, that reconnecting is refused with a status below 500
// (a JSON `{ error }` for HTTP), and that nothing the revoked client sends afterwards is stored. A second table holds
// clients that fight back: they hold the closing handshake up and keep writing; and streams over the per-user cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { openEventStream, type OpenStream } from '../helpers/event-stream.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, SESSION_COOKIE, upgradeStatus, type LiveClient } from '../helpers/live-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
type Role = 'owner' | 'editor' | 'viewer';
type Revocation = 'sign-out' | 'all-devices' | 'token-revoked' | 'token-expired' | 'removed' | 'demoted' | 'project-deleted';
type Opened = 'cookie-socket' | 'token-socket' | 'cookie-stream' | 'token-stream';

let database: { url: string; drop(): Promise<void> };
let a: TestApp;
let b: TestApp;
const cleanup: Array<{ close(): void }> = [];
const CAP = 2;
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const data = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>;
let serial = 0;

beforeAll(async () => {
  database = await createOwnDatabase();
  const env = { AUTH_SECRET: 'hostile-revocation-secret-0123456789abcdefgh', DATABASE_CONNECTION_STRING: database.url, SESSION_REVOCATION_POLL_MS: '100', EVENT_STREAMS_PER_USER: String(CAP) };
  a = await startTestApp(env, 'embedded');
  b = await startTestApp(env, 'embedded');
});
afterAll(async () => {
  for (const c of cleanup) c.close();
  await a?.close();
  await b?.close();
  await database?.drop();
});

/** What is open on B, one way or the other, and how it ended: `close:<code>:<reason>` or `closed:<reason>`. */
interface Open {
  ended(): Promise<string>;
  /** Whether it has ended so far. */
  over(): boolean;
  live?: LiveClient;
  stream?: OpenStream;
}
function fromLive(live: LiveClient): Open {
  cleanup.push(live);
  return { live, ended: () => live.event('close'), over: () => live.events.some((e) => e.startsWith('close')) };
}
function fromStream(stream: OpenStream): Open {
  cleanup.push(stream);
  return { stream, ended: async () => `closed:${await stream.ended}`, over: () => stream.done() };
}
async function socketOn(t: TestApp, projectId: string, as: { client: HttpClient } | { token: string }): Promise<Open> {
  const live = await connectLive({ baseUrl: t.baseUrl, as: 'client' in as ? as.client : null, projectId, maxAttempts: 1, ...('token' in as ? { token: as.token } : {}) });
  const opened = fromLive(live);
  expect(await live.event('authenticated')).toMatch(/^authenticated:/);
  await live.saved();
  return opened;
}
async function streamOn(t: TestApp, as: { client: HttpClient } | { token: string }): Promise<Open> {
  const stream = await openEventStream(t.baseUrl, as);
  expect(stream.status).toBe(200);
  return fromStream(stream);
}

interface Scene {
  owner: Who;
  subject: Who;
  projectId: string;
  token?: { token: string; id: string };
  /** The owner's read token: reads the canvas whatever happens to sessions (tokens outlive sign-outs). */
  audit: string;
}
/** A project of `owner`'s with a one-node canvas, shared with `member` when given. */
async function project(owner: Who, member: [Who, 'editor' | 'viewer'] | null): Promise<string> {
  const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: `Case ${serial}` })).json.id as string;
  expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);
  if (member) expect((await owner.client.post(`/api/user/project/${projectId}/members`, { email: member[0].email, role: member[1] })).status).toBe(201);
  return projectId;
}

/** Fresh people for each case: an owner and, unless the subject is the owner, a member with `role`. */
async function scene(role: Role, scopes?: string[]): Promise<Scene> {
  const n = ++serial;
  const owner: Who = await a.user(`owner-${n}@example.com`);
  const subject: Who = role === 'owner' ? owner : await a.user(`member-${n}@example.com`);
  const projectId = await project(owner, role === 'owner' ? null : [subject, role]);
  let token: Scene['token'];
  if (scopes) {
    const res = await subject.client.post('/api/user/tokens', { name: `case ${n}`, scopes });
    expect(res.status, res.text).toBe(201);
    token = { token: res.json.token, id: res.json.id };
  }
  const audit = await owner.client.post('/api/user/tokens', { name: `audit ${n}`, scopes: ['read'] });
  expect(audit.status, audit.text).toBe(201);
  return { owner, subject, projectId, token, audit: audit.json.token };
}

async function revoke(kind: Revocation, s: Scene): Promise<void> {
  const { owner, subject, projectId } = s;
  const ok = (status: number) => expect(status).toBeLessThan(300);
  switch (kind) {
    case 'sign-out': {
      const csrf = (await subject.client.get('/api/auth/csrf')).json.csrfToken as string;
      expect((await subject.client.request('/api/auth/signout', { form: { csrfToken: csrf, callbackUrl: '/' }, follow: false })).status).toBe(302);
      return;
    }
    case 'all-devices':
      return ok((await subject.client.request('/api/user/sessions', { method: 'DELETE' })).status);
    case 'token-revoked':
      return ok((await subject.client.request(`/api/user/tokens/${s.token!.id}`, { method: 'DELETE' })).status);
    case 'token-expired':
      await a.pool.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [s.token!.id]);
      return;
    case 'removed':
      return ok((await owner.client.request(`/api/user/project/${projectId}/members/${subject.email}`, { method: 'DELETE' })).status);
    case 'demoted':
      return ok((await owner.client.post(`/api/user/project/${projectId}/members`, { email: subject.email, role: 'viewer' })).status);
    case 'project-deleted':
      return ok((await owner.client.request(`/api/user/project/${projectId}`, { method: 'DELETE' })).status);
  }
}

/**
 * The canvas as instance B answers it to its owner's read token: B holds the live document, and its REST read waits until every
 * change queued there is stored, so a change a revoked client slipped in would show (in `version` and the prompt).
 */
async function stored(s: Scene): Promise<string> {
  const res = await fetch(`${b.baseUrl}/api/user/project/canvas?projectId=${s.projectId}`, { headers: { authorization: `Bearer ${s.audit}` } });
  expect(res.status).toBe(200);
  const canvas = (await res.json()) as { version: number; nodes: Array<{ data: { prompt: string } }> };
  return JSON.stringify({ version: canvas.version, prompt: canvas.nodes[0].data.prompt });
}

interface Case {
  name: string;
  role: Role;
  opened: Opened;
  /** The token's scopes (token cases). */
  scopes?: string[];
  revocation: Revocation;
  /** How it ends; null: it must stay open (the bystander then is the witness that the sweep ran). */
  ends: string | null;
  /** What reconnecting the same way then gets. */
  again: 'http-401' | 'upgrade-401' | 'authenticationFailed:unauthorized' | 'authenticationFailed:permission-denied' | 'authenticated:readonly' | null;
}

const RW = ['read', 'write'];
const cases: Case[] = [
  { name: 'sign-out × cookie socket', role: 'owner', opened: 'cookie-socket', revocation: 'sign-out', ends: 'close:4401:signed-out', again: 'upgrade-401' },
  { name: 'sign-out × cookie stream', role: 'owner', opened: 'cookie-stream', revocation: 'sign-out', ends: 'closed:signed-out', again: 'http-401' },
  { name: "sign-out × a member's cookie socket", role: 'editor', opened: 'cookie-socket', revocation: 'sign-out', ends: 'close:4401:signed-out', again: 'upgrade-401' },
  { name: 'all devices × cookie socket', role: 'editor', opened: 'cookie-socket', revocation: 'all-devices', ends: 'close:4401:signed-out', again: 'upgrade-401' },
  { name: 'all devices × cookie stream', role: 'owner', opened: 'cookie-stream', revocation: 'all-devices', ends: 'closed:signed-out', again: 'http-401' },
  { name: 'all devices × token socket (tokens outlive sessions)', role: 'owner', opened: 'token-socket', scopes: RW, revocation: 'all-devices', ends: null, again: null },
  { name: 'all devices × token stream (tokens outlive sessions)', role: 'owner', opened: 'token-stream', scopes: ['read'], revocation: 'all-devices', ends: null, again: null },
  { name: 'token revoked × read+write token socket', role: 'owner', opened: 'token-socket', scopes: RW, revocation: 'token-revoked', ends: 'close:4401:token-revoked', again: 'authenticationFailed:unauthorized' },
  { name: 'token revoked × read-only token socket', role: 'owner', opened: 'token-socket', scopes: ['read'], revocation: 'token-revoked', ends: 'close:4401:token-revoked', again: 'authenticationFailed:unauthorized' },
  { name: "token revoked × an editor's token socket", role: 'editor', opened: 'token-socket', scopes: [...RW, 'generate'], revocation: 'token-revoked', ends: 'close:4401:token-revoked', again: 'authenticationFailed:unauthorized' },
  { name: 'token revoked × token stream', role: 'owner', opened: 'token-stream', scopes: ['read'], revocation: 'token-revoked', ends: 'closed:token-revoked', again: 'http-401' },
  { name: 'token expired × token socket', role: 'owner', opened: 'token-socket', scopes: RW, revocation: 'token-expired', ends: 'close:4401:token-expired', again: 'authenticationFailed:unauthorized' },
  { name: 'token expired × token stream', role: 'owner', opened: 'token-stream', scopes: ['read', 'generate'], revocation: 'token-expired', ends: 'closed:token-expired', again: 'http-401' },
  { name: 'sign-out × token socket (the session ends, not the token)', role: 'owner', opened: 'token-socket', scopes: RW, revocation: 'sign-out', ends: null, again: null },
  { name: 'removed × editor cookie socket', role: 'editor', opened: 'cookie-socket', revocation: 'removed', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
  { name: 'removed × viewer cookie socket', role: 'viewer', opened: 'cookie-socket', revocation: 'removed', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
  { name: "removed × an editor's token socket", role: 'editor', opened: 'token-socket', scopes: RW, revocation: 'removed', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
  { name: "removed × the member's stream (their own jobs: it stays)", role: 'editor', opened: 'cookie-stream', revocation: 'removed', ends: null, again: null },
  { name: 'demoted × editor cookie socket', role: 'editor', opened: 'cookie-socket', revocation: 'demoted', ends: 'close:4403:role-changed', again: 'authenticated:readonly' },
  { name: "demoted × an editor's write token socket", role: 'editor', opened: 'token-socket', scopes: RW, revocation: 'demoted', ends: 'close:4403:role-changed', again: 'authenticated:readonly' },
  { name: "demoted × an editor's read-only token socket (read-only already: it stays)", role: 'editor', opened: 'token-socket', scopes: ['read'], revocation: 'demoted', ends: null, again: null },
  { name: 'project deleted × owner cookie socket', role: 'owner', opened: 'cookie-socket', revocation: 'project-deleted', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
  { name: 'project deleted × viewer cookie socket', role: 'viewer', opened: 'cookie-socket', revocation: 'project-deleted', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
  { name: 'project deleted × owner token socket', role: 'owner', opened: 'token-socket', scopes: RW, revocation: 'project-deleted', ends: 'close:4403:permission-denied', again: 'authenticationFailed:permission-denied' },
];

/**
 * What must end in the same sweep, beside the subject: a cookie socket of the same kind of authority when the
 * subject must stay open (proving the sweep ran), so the test never waits on a clock. Null when the case's own end is
 * the proof.
 */
async function witness(c: Case, s: Scene): Promise<Open | null> {
  if (c.ends !== null) return null;
  switch (c.revocation) {
    case 'all-devices':
    case 'sign-out':
      return socketOn(b, s.projectId, s.subject);
    case 'removed':
    case 'demoted':
      return socketOn(b, s.projectId, s.subject);
    default:
      throw new Error(`no witness for ${c.revocation}`);
  }
}
const witnessEnds: Record<Revocation, string> = {
  'sign-out': 'close:4401:signed-out',
  'all-devices': 'close:4401:signed-out',
  removed: 'close:4403:permission-denied',
  demoted: 'close:4403:role-changed',
  'token-revoked': '',
  'token-expired': '',
  'project-deleted': '',
};

describe('revocation on instance A × what is open on instance B', () => {
  it.each(cases)('$name', async (c) => {
    const s = await scene(c.role, c.scopes);
    const as: { client: HttpClient } | { token: string } = c.opened.startsWith('token') ? { token: s.token!.token } : { client: s.subject.client };
    const subject = c.opened.endsWith('socket') ? await socketOn(b, s.projectId, as) : await streamOn(b, as);
    const w = await witness(c, s);
    // A bystander in the same sweep: the owner's own socket (or, when the owner is the subject, another person's stream).
    const bystander = c.role !== 'owner' && c.revocation !== 'project-deleted' ? await socketOn(b, s.projectId, s.owner) : await streamOn(b, { client: (await a.user(`bystander-${serial}@example.com`)).client });
    const before = await stored(s);
    const cookie = await s.subject.client.cookie(SESSION_COOKIE); // as it was: signing out clears the client's jar
    await revoke(c.revocation, s);

    if (c.ends !== null) expect(await subject.ended()).toBe(c.ends);
    else expect(await w!.ended()).toBe(witnessEnds[c.revocation]);
    expect(bystander.over()).toBe(false);
    if (c.ends === null) expect(subject.over()).toBe(false);

    // What the revoked client sends now is not stored.
    if (subject.live && c.ends !== null) subject.live.doc.transact(() => data(subject.live!.doc, 'a').set('prompt', 'after revocation'));
    if (c.revocation !== 'project-deleted') expect(await stored(s)).toBe(before);

    // Reconnecting the same way: refused below 500, or let in read-only.
    if (c.again === 'http-401') {
      const res = await fetch(`${b.baseUrl}/api/generations/events`, { headers: 'token' in as ? { authorization: `Bearer ${as.token}` } : { cookie: `${SESSION_COOKIE}=${cookie}` } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Unauthorized' });
    } else if (c.again === 'upgrade-401') {
      expect(await upgradeStatus(b.baseUrl, { origin: b.baseUrl, cookie: `${SESSION_COOKIE}=${cookie}` })).toBe(401);
    } else if (c.again) {
      const again = fromLive(await connectLive({ baseUrl: b.baseUrl, as: 'client' in as ? as.client : null, projectId: s.projectId, maxAttempts: 1, ...('token' in as ? { token: as.token } : {}) }));
      expect(await again.live!.event('authentica')).toBe(c.again);
    }
  });
});

describe('clients that fight back', () => {
  /** A raw look at the provider's WebSocket: its TCP socket can stop being read (the close frame is never seen). */
  const tcp = (live: LiveClient) => (live.socket.webSocket as unknown as WebSocket & { _socket: { pause(): void; resume(): void } })._socket;

  it.each([
    { name: 'a demoted editor that never reads the close keeps writing: nothing is stored', revocation: 'demoted' as const, ends: 'close:4403:role-changed' },
    { name: 'a signed-out session that never reads the close keeps writing: nothing is stored', revocation: 'sign-out' as const, ends: 'close:4401:signed-out' },
    { name: 'a removed member that never reads the close keeps writing: nothing is stored', revocation: 'removed' as const, ends: 'close:4403:permission-denied' },
  ])('$name', async ({ revocation, ends }) => {
    const s = await scene('editor');
    // Two sockets of the same session: one stops reading (it never learns it was closed), the other is the witness.
    // The witness is on a second project, revoked the same way after the first: were it on the same document, its
    // leaving would be broadcast to the hostile connection, which hocuspocus then drops by itself.
    const second: Scene = { ...s, projectId: await project(s.owner, [s.subject, 'editor']) };
    const hostile = await socketOn(b, s.projectId, s.subject);
    const w = await socketOn(b, second.projectId, s.subject);
    const before = await stored(s);
    tcp(hostile.live!).pause();
    await revoke(revocation, s);
    if (revocation !== 'sign-out') await revoke(revocation, second);
    expect(await w.ended()).toBe(ends);
    // The sweep has run: the hostile socket was closed at the same moment, but it goes on sending changes.
    for (let i = 0; i < 5; i++) hostile.live!.doc.transact(() => data(hostile.live!.doc, 'a').set('prompt', `held-${i}`));
    tcp(hostile.live!).resume(); // it now reads the close frame, answers it, and the service ends the connection
    expect(await hostile.ended()).toBe(ends);
    expect(await stored(s)).toBe(before);
    expect(JSON.parse(before).prompt).toBe('p');
  });

  it.each([
    { name: 'cookie streams over the cap: the oldest ends (too-many-streams), the newest stay', by: ['cookie', 'cookie', 'cookie'], ended: [0] },
    { name: 'token streams over the cap: the oldest ends', by: ['token', 'token', 'token'], ended: [0] },
    { name: 'cookie and token streams of one user count together', by: ['token', 'cookie', 'token'], ended: [0] },
    { name: 'two over the cap: the two oldest end, in order', by: ['cookie', 'cookie', 'cookie', 'cookie'], ended: [0, 1] },
  ])('$name', async ({ by, ended }) => {
    const s = await scene('owner', ['read']);
    const other = await streamOn(b, { client: (await a.user(`neighbour-${serial}@example.com`)).client });
    const streams: Open[] = [];
    for (const kind of by) streams.push(await streamOn(b, kind === 'token' ? { token: s.token!.token } : { client: s.subject.client }));
    for (const i of ended) expect(await streams[i].ended()).toBe('closed:too-many-streams');
    // The stream that made one too many ended the oldest while it was added; the rest and others' stayed.
    expect(streams.map((st) => st.over())).toEqual(by.map((_, i) => ended.includes(i)));
    expect(other.over()).toBe(false);
  });
});
