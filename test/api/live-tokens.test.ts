// Personal API tokens on the live canvas socket (docs/api.md "API tokens"): without a session cookie, the provider's
// `token` authenticates each document. `write` edits as the token's user would, `read` alone is read-only, no `read`
// is refused, and so are a revoked token, no token at all and a foreign Origin. A socket that never authenticates
// gets nothing, and is closed after COLLAB_AUTH_TIMEOUT_MS. Cookie sessions keep their behaviour (test/api/live-canvas.test.ts).
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, SESSION_COOKIE, upgradeStatus, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
type Who = { client: HttpClient; id: string; email: string };
let ada: Who;
let bob: Who;
let eve: Who;
const open: Array<{ close(): void }> = [];
const node = (id: string, prompt = 'p') => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt } });

beforeAll(async () => {
  // Sockets without a cookie must authenticate within 3 s here (default 10 s): long enough for every token test on a
  // busy machine, short enough to watch one that never does be closed.
  t = await startTestApp({ COLLAB_AUTH_TIMEOUT_MS: '3000' });
  [ada, bob, eve] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob'), t.user('eve@example.com', 'Eve')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

async function token(who: Who, scopes: string[]): Promise<{ secret: string; id: string }> {
  const res = await who.client.post('/api/user/tokens', { name: 'live', scopes });
  expect(res.status, res.text).toBe(201);
  return { secret: res.json.token, id: res.json.id };
}
/** A project of ada's with a one-node canvas (bob an editor when asked). */
async function project(opts: { bobAs?: 'editor' | 'viewer' } = {}): Promise<string> {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Live by token' })).json.id as string;
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);
  if (opts.bobAs) expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: opts.bobAs })).status).toBe(201);
  return projectId;
}
/** A provider with only this token (no cookie), as a script would connect. */
async function byToken(projectId: string, secret: string | undefined): Promise<LiveClient> {
  const c = await connectLive({ baseUrl: t.baseUrl, as: null, projectId, token: secret, maxAttempts: 1 });
  open.push(c);
  return c;
}
const nodeData = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;
const restPrompt = async (projectId: string) => (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes[0].data.prompt;

describe('a token on the live socket', () => {
  it('with write edits as its user: read-write, stored, seen by REST; presence shows its user', async () => {
    const projectId = await project();
    const writer = await token(ada, ['read', 'write']);
    const live = await byToken(projectId, writer.secret);
    expect(await live.event('authenticated')).toBe('authenticated:read-write');
    await live.saved();
    expect(nodeData(live.doc, 'a')?.get('prompt')).toBe('p');
    live.doc.transact(() => nodeData(live.doc, 'a')!.set('prompt', 'by script'));
    await live.saved();
    expect(await restPrompt(projectId)).toBe('by script');
    // The service names the token's user in presence, whatever the client claims.
    const watcher = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    open.push(watcher);
    await watcher.saved();
    live.provider.setAwarenessField('user', { id: 'someone-else', name: 'Mallory', color: '#f00' });
    await new Promise<void>((resolve) => {
      const seen = () => [...watcher.provider.awareness!.getStates().values()].some((s) => JSON.stringify(s.user) === JSON.stringify({ id: ada.id, name: 'Ada', color: '#f00' }));
      if (seen()) return resolve();
      const on = () => {
        if (!seen()) return;
        watcher.provider.awareness!.off('change', on);
        resolve();
      };
      watcher.provider.awareness!.on('change', on);
    });
  });

  it("as a member: an editor's write token edits; a viewer's is read-only; a stranger's is refused", async () => {
    const projectId = await project({ bobAs: 'editor' });
    const bobs = await token(bob, ['read', 'write']);
    const asEditor = await byToken(projectId, bobs.secret);
    expect(await asEditor.event('authenticated')).toBe('authenticated:read-write');
    const viewed = await project({ bobAs: 'viewer' });
    expect(await (await byToken(viewed, bobs.secret)).event('authenticated')).toBe('authenticated:readonly');
    const eves = await token(eve, ['read', 'write']);
    expect(await (await byToken(projectId, eves.secret)).event('authentication')).toBe('authenticationFailed:permission-denied');
    expect(await (await byToken('00000000-0000-4000-8000-000000000000', eves.secret)).event('authentication')).toBe('authenticationFailed:permission-denied');
  });

  it('with read alone is read-only: its change is never applied or stored', async () => {
    const projectId = await project();
    const reader = await token(ada, ['read']);
    const ro = await byToken(projectId, reader.secret);
    expect(await ro.event('authenticated')).toBe('authenticated:readonly');
    await ro.event('synced');
    const editor = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    open.push(editor);
    await editor.saved();
    ro.doc.transact(() => nodeData(ro.doc, 'a')!.set('prompt', 'vandal'));
    // The editor's next change reaches the reader: anything the reader's change did would have arrived before it.
    editor.doc.transact(() => (canvasMaps(editor.doc).nodes.get('a') as Y.Map<unknown>).set('position', { x: 5, y: 5 }));
    await editor.saved();
    await docWhere(ro.doc, (d) => ((canvasMaps(d).nodes.get('a') as Y.Map<unknown>).get('position') as { x: number }).x === 5);
    expect(nodeData(editor.doc, 'a')?.get('prompt')).toBe('p');
    expect(ro.provider.hasUnsyncedChanges).toBe(true);
    expect(await restPrompt(projectId)).toBe('p');
  });

  it('without read, revoked, unknown or missing: refused', async () => {
    const projectId = await project();
    const writeOnly = await token(ada, ['write', 'generate']);
    expect(await (await byToken(projectId, writeOnly.secret)).event('authentication')).toBe('authenticationFailed:insufficient-scope');
    const revoked = await token(ada, ['read', 'write']);
    expect((await ada.client.request(`/api/user/tokens/${revoked.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await byToken(projectId, revoked.secret)).event('authentication')).toBe('authenticationFailed:unauthorized');
    expect(await (await byToken(projectId, `ic_${'A'.repeat(43)}`)).event('authentication')).toBe('authenticationFailed:unauthorized');
    expect(await (await byToken(projectId, 'not a token')).event('authentication')).toBe('authenticationFailed:unauthorized');
    // No token and no cookie.
    expect(await (await byToken(projectId, undefined)).event('authentication')).toBe('authenticationFailed:unauthorized');
    expect(await restPrompt(projectId)).toBe('p');
  });

  it('the upgrade: without a cookie it is let in (only to authenticate); an invalid cookie stays 401; a foreign Origin stays 403', async () => {
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl })).toBe(101);
    expect(await upgradeStatus(t.baseUrl, {})).toBe(101);
    expect(await upgradeStatus(t.baseUrl, { origin: t.baseUrl, cookie: `${SESSION_COOKIE}=forged` })).toBe(401);
    expect(await upgradeStatus(t.baseUrl, { origin: 'https://evil.example' })).toBe(403);
    // With a valid token from a foreign origin: the upgrade is refused before any token is looked at.
    const projectId = await project();
    const writer = await token(ada, ['read', 'write']);
    const evil = await connectLive({ baseUrl: t.baseUrl, as: null, projectId, token: writer.secret, origin: 'https://evil.example', maxAttempts: 1 });
    open.push(evil);
    expect(await evil.event('close')).toMatch(/^close:/);
    expect(evil.events.some((e) => e.startsWith('authenticated'))).toBe(false);
  });
});

describe('a socket that never authenticates', () => {
  // Frames as hocuspocus reads them: `varString(address) varUint(type) …`.
  const SYNC = 0;
  const AUTH = 2;
  const frame = (address: string, type: number, write: (e: encoding.Encoder) => void) => {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, address);
    encoding.writeVarUint(e, type);
    write(e);
    return encoding.toUint8Array(e);
  };
  const syncStep1 = (address: string) =>
    frame(address, SYNC, (e) => {
      encoding.writeVarUint(e, 0); // sync step 1: "send me what I lack"
      encoding.writeVarUint8Array(e, Y.encodeStateVector(new Y.Doc()));
    });
  const auth = (address: string, secret: string) =>
    frame(address, AUTH, (e) => {
      encoding.writeVarUint(e, 0); // token
      encoding.writeVarString(e, secret);
    });
  /** A received frame: its address, type and (for an Auth frame) its kind — 1 permission denied, 2 authenticated. */
  const read = (f: Buffer) => {
    const d = decoding.createDecoder(new Uint8Array(f));
    const address = decoding.readVarString(d);
    const type = decoding.readVarUint(d);
    return { address, type, kind: type === AUTH ? decoding.readVarUint(d) : undefined };
  };

  it('gets nothing of a document it asked for: its messages wait for an authentication that never succeeds', async () => {
    const projectId = await project();
    const other = await project();
    const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/api/collab`, { headers: { origin: t.baseUrl } });
    open.push({ close: () => ws.terminate() });
    const received: Buffer[] = [];
    const waiters = new Set<() => void>();
    ws.on('message', (data: Buffer) => {
      received.push(data);
      for (const w of [...waiters]) w();
    });
    ws.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const frames = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.length < n) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });

    // Asks for the document without authenticating, then authenticates another one with a bad token: that answer
    // comes after anything the first request could have brought, and it is the only frame.
    ws.send(syncStep1(projectId));
    ws.send(auth(other, `ic_${'B'.repeat(43)}`));
    await frames(1);
    expect(received.map(read)).toEqual([{ address: other, type: AUTH, kind: 1 }]);
    // Its own authentication with a bad token is refused, and the request it queued is dropped, unanswered.
    ws.send(auth(projectId, 'garbage'));
    await frames(2);
    ws.send(auth(other, '')); // one more answer, after anything the dropped request could have brought
    await frames(3);
    expect(received.map(read)).toEqual([
      { address: other, type: AUTH, kind: 1 },
      { address: projectId, type: AUTH, kind: 1 },
      { address: other, type: AUTH, kind: 1 },
    ]);
    ws.terminate();
  });

  it('is closed (4401 unauthorized) when no document authenticates within COLLAB_AUTH_TIMEOUT_MS', async () => {
    const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/api/collab`, { headers: { origin: t.baseUrl } });
    open.push({ close: () => ws.terminate() });
    ws.on('error', () => undefined);
    const closed = new Promise<string>((resolve) => ws.once('close', (code, reason) => resolve(`${code}:${reason.toString()}`)));
    await new Promise<void>((resolve) => ws.once('open', () => resolve()));
    ws.send(auth(await project(), `ic_${'C'.repeat(43)}`)); // a token that is not one: refused, and the socket stays unauthenticated
    expect(await closed).toBe('4401:unauthorized');
  });
});
