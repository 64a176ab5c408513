// Hostile clients on the live canvas socket (issue 16 "Bad input and faults"; the HTTP side is hostile.test.ts):
// garbage frames, text frames, oversized frames, malformed Yjs updates, update floods and node counts over the
// limit are refused or throttled. None of them crashes the process (an uncaught error would fail this file), none
// changes a document, and a legitimate editor connects and sees the same document afterwards.
import { randomBytes } from 'node:crypto';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, SESSION_COOKIE } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MAX_MESSAGE_BYTES = 4096;
const UPDATES_PER_SECOND = 5;
const MAX_NODES = 5;

let t: TestApp;
type Who = { client: HttpClient; id: string; email: string };
let ada: Who;
let eve: Who;
const open: Array<{ close(): void }> = [];
const node = (id: string, x = 0) => ({ id, type: 'generation', position: { x, y: 0 }, data: { type: 'generation', prompt: 'p' } });

beforeAll(async () => {
  t = await startTestApp({
    COLLAB_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES),
    COLLAB_UPDATES_PER_SECOND: String(UPDATES_PER_SECOND),
    CANVAS_MAX_NODES: String(MAX_NODES),
  });
  [ada, eve] = await Promise.all([t.user('ada@example.com'), t.user('eve@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

const live = async (as: Who, projectId: string, origin?: string | null) => {
  const c = await connectLive({ baseUrl: t.baseUrl, as: as.client, projectId, origin });
  open.push(c);
  return c;
};

/** A project of ada's with a saved canvas of two nodes. */
async function twoNodeProject(): Promise<string> {
  const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Hostile' })).json.id as string;
  expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b', 300)], edges: [], version: 0 })).status).toBe(200);
  return projectId;
}

interface Stored {
  /** The REST canvas (content and version). */
  canvas: string;
  /** The newest collab_updates row (compaction may delete rows; nothing may add one). */
  lastRow: number;
}
async function stored(projectId: string): Promise<Stored> {
  const canvas = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).text;
  const { rows } = await t.pool.query<{ last: string | null }>('SELECT max(id) AS last FROM collab_updates WHERE project_id = $1', [projectId]);
  return { canvas, lastRow: Number(rows[0].last ?? 0) };
}
const rowsAfter = async (projectId: string, id: number) =>
  Number((await t.pool.query('SELECT count(*) AS n FROM collab_updates WHERE project_id = $1 AND id > $2', [projectId, id])).rows[0].n);

/** Nothing was stored, REST reads the same, and a fresh editor connects read-write and loads that same document. */
async function expectUnchanged(projectId: string, before: Stored) {
  const fresh = await live(ada, projectId);
  expect(await fresh.event('authenticated')).toBe('authenticated:read-write');
  await fresh.saved();
  const after = await stored(projectId);
  expect(after.canvas).toBe(before.canvas);
  expect(await rowsAfter(projectId, before.lastRow)).toBe(0);
  const rest = JSON.parse(after.canvas) as { nodes: unknown[]; edges: unknown[] };
  expect(renderCanvas(fresh.doc)).toEqual({ nodes: rest.nodes, edges: rest.edges });
  fresh.close();
}

/** A frame as hocuspocus reads it: `varString(address) varUint(type) …rest`. */
function frame(address: string, type: number, write: (e: encoding.Encoder) => void = () => {}): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, address);
  encoding.writeVarUint(e, type);
  write(e);
  return encoding.toUint8Array(e);
}
const SYNC = 0;
const AUTH = 2;
const SYNC_UPDATE = 2;
const syncUpdate = (address: string, update: Uint8Array) =>
  frame(address, SYNC, (e) => {
    encoding.writeVarUint(e, SYNC_UPDATE);
    encoding.writeVarUint8Array(e, update);
  });
const auth = (address: string) =>
  frame(address, AUTH, (e) => {
    encoding.writeVarUint(e, 0); // Token
    encoding.writeVarString(e, '');
  });

/** A raw WebSocket to /api/collab, signed in as `who`, speaking bytes. */
interface RawSocket {
  ws: WebSocket;
  /** Resolves with the close code and reason. */
  closed: Promise<string>;
  /** Frames received so far. */
  received: Buffer[];
  /** Resolves when a frame is received (now or later) that `match` accepts, or with `closed:…` when the socket closes. */
  next(match: (f: Buffer) => boolean): Promise<string>;
}
async function rawSocket(who: Who): Promise<RawSocket> {
  const cookie = `${SESSION_COOKIE}=${await who.client.cookie(SESSION_COOKIE)}`;
  const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/api/collab`, { headers: { origin: t.baseUrl, cookie } });
  open.push({ close: () => ws.terminate() });
  const received: Buffer[] = [];
  const waiters = new Set<() => void>();
  let closedAs: string | null = null;
  const closed = new Promise<string>((resolve) =>
    ws.once('close', (code, reason) => {
      closedAs = `${code}:${reason.toString()}`;
      resolve(closedAs);
      for (const w of [...waiters]) w();
    }),
  );
  ws.on('message', (data: Buffer) => {
    received.push(data);
    for (const w of [...waiters]) w();
  });
  ws.on('error', () => undefined); // the close event says what happened
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return {
    ws,
    closed,
    received,
    next: (match) =>
      new Promise((resolve) => {
        const check = () => {
          const hit = received.find(match);
          if (hit) {
            waiters.delete(check);
            resolve('frame');
          } else if (closedAs !== null) {
            waiters.delete(check);
            resolve(`closed:${closedAs}`);
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
/** A frame for `address` of message type `type` (the server's answer to an Auth is an Auth frame). */
const isFrame = (address: string, type: number) => (f: Buffer) => {
  const head = frame(address, type);
  return f.length >= head.length && Buffer.from(head).equals(f.subarray(0, head.length));
};

/** Valid updates, one change each, on top of what `base` holds (as a second client of the same document would make). */
function updatesOn(base: Y.Doc, count: number, make: (doc: Y.Doc, i: number) => void): Uint8Array[] {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(base));
  const updates: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => updates.push(u));
  for (let i = 0; i < count; i++) doc.transact(() => make(doc, i));
  doc.destroy();
  return updates;
}
const setPrompt = (doc: Y.Doc, id: string, prompt: string) => ((canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('prompt', prompt);

describe('hostile clients on the live canvas socket', () => {
  it('a browser from another origin is refused before any document is touched', async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const evil = await live(ada, projectId, 'https://evil.example');
    evil.doc.getMap('nodes').set('x', 'vandal');
    expect(await evil.event('close')).toMatch(/^close:/);
    expect(evil.events.some((e) => e.startsWith('authenticated'))).toBe(false);
    await expectUnchanged(projectId, before);
  });

  it("a stranger's updates to someone else's project are never applied, with or without asking to join first", async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const ref = await live(ada, projectId);
    await ref.saved();
    const [vandal] = updatesOn(ref.doc, 1, (d) => setPrompt(d, 'a', 'vandal'));
    ref.close();
    // The provider way: refused on authentication; its change stays with it.
    const e = await live(eve, projectId);
    expect(await e.event('authentication')).toBe('authenticationFailed:permission-denied');
    // By hand: an update before the Auth frame (queued, then dropped with the refusal), and one after it.
    const raw = await rawSocket(eve);
    raw.ws.send(syncUpdate(projectId, vandal));
    raw.ws.send(auth(projectId));
    expect(await raw.next(isFrame(projectId, AUTH))).toBe('frame');
    raw.ws.send(syncUpdate(projectId, vandal));
    raw.ws.send(auth(projectId)); // a second Auth for the same address: answered or closed, after the update above
    await raw.next(() => raw.received.filter(isFrame(projectId, AUTH)).length >= 2);
    raw.ws.terminate();
    await expectUnchanged(projectId, before);
  });

  it('garbage binary frames (random bytes, and random bytes after a real document address) change nothing', async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    // On a socket that joined nothing.
    const raw = await rawSocket(ada);
    for (let i = 0; i < 50; i++) raw.ws.send(randomBytes(1 + (i % 200)));
    raw.ws.send(auth(projectId)); // handled after the garbage: its answer (or the socket closing) means all was read
    await raw.next(isFrame(projectId, AUTH));
    raw.ws.terminate();
    // On a socket whose document connection is established: the address is right, the rest is noise.
    const joined = await rawSocket(ada);
    joined.ws.send(auth(projectId));
    expect(await joined.next(isFrame(projectId, AUTH))).toBe('frame');
    const address = frame(projectId, SYNC).subarray(0, -1);
    for (let i = 0; i < 50; i++) joined.ws.send(Buffer.concat([address, randomBytes(1 + (i % 100))]));
    joined.ws.send(auth('00000000-0000-4000-8000-000000000001')); // answered after the noise (permission-denied)
    await joined.next(isFrame('00000000-0000-4000-8000-000000000001', AUTH));
    joined.ws.terminate();
    await expectUnchanged(projectId, before);
  });

  it('a text frame closes the socket with 1003', async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const raw = await rawSocket(ada);
    raw.ws.send(auth(projectId));
    await raw.next(isFrame(projectId, AUTH));
    raw.ws.send(JSON.stringify({ nodes: { x: 'vandal' } }));
    expect(await raw.closed).toBe('1003:binary frames only');
    await expectUnchanged(projectId, before);
  });

  it(`a frame above COLLAB_MAX_MESSAGE_BYTES (${MAX_MESSAGE_BYTES}) closes the socket with 1009; the update is not applied`, async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const a = await live(ada, projectId);
    await a.saved();
    const [huge] = updatesOn(a.doc, 1, (d) => setPrompt(d, 'a', 'x'.repeat(MAX_MESSAGE_BYTES * 2)));
    a.socket.webSocket!.send(syncUpdate(a.provider.effectiveName, huge));
    expect(await a.event('close:')).toBe('close:1009');
    a.close();
    await expectUnchanged(projectId, before);
  });

  it('a malformed Yjs update inside a valid sync frame is refused (malformed-update) and the document connection closed', async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const base = await live(ada, projectId);
    await base.saved();
    const [good] = updatesOn(base.doc, 1, (d) => setPrompt(d, 'a', 'half'));
    base.close();
    for (const bad of [good.subarray(0, Math.floor(good.length / 2)), new Uint8Array(10).fill(0xff), new Uint8Array([1, 1, 5, 0, 99, 99, 99]), new Uint8Array([3])]) {
      const a = await live(ada, projectId);
      await a.saved();
      a.socket.webSocket!.send(syncUpdate(a.provider.effectiveName, bad));
      expect(await a.event('provider-close:')).toBe('provider-close:malformed-update');
      a.close();
    }
    await expectUnchanged(projectId, before);
  });

  it(`an update flood above COLLAB_UPDATES_PER_SECOND (${UPDATES_PER_SECOND}) is cut off (rate-limited); only what got through is stored`, async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const a = await live(ada, projectId);
    await a.saved();
    const sent = 60;
    const flood = updatesOn(a.doc, sent, (d, i) => setPrompt(d, 'a', `flood-${i}`));
    for (const u of flood) a.socket.webSocket!.send(syncUpdate(a.provider.effectiveName, u));
    expect(await a.event('provider-close:')).toBe('provider-close:rate-limited');
    a.close();
    const fresh = await live(ada, projectId);
    expect(await fresh.event('authenticated')).toBe('authenticated:read-write');
    await fresh.saved();
    // Each stored change steps the version (rows may already be compacted into the snapshot: the editor left).
    const rest = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    const added = rest.version - (JSON.parse(before.canvas) as { version: number }).version;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(UPDATES_PER_SECOND * 2 + UPDATES_PER_SECOND); // the burst, and what refilled meanwhile
    expect(added).toBeLessThan(sent);
    // What got through is a prefix of the flood, in order, and exactly what is stored and read.
    const data = (canvasMaps(fresh.doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>;
    expect(data.get('prompt')).toBe(`flood-${added - 1}`);
    expect(rest.nodes[0].data.prompt).toBe(`flood-${added - 1}`);
    fresh.close();
  });

  it(`adding nodes beyond CANVAS_MAX_NODES (${MAX_NODES}) is refused (too-many-nodes); nothing stored`, async () => {
    const projectId = await twoNodeProject();
    const before = await stored(projectId);
    const a = await live(ada, projectId);
    await a.saved();
    const rest = JSON.parse(before.canvas) as { nodes: unknown[]; edges: unknown[] };
    applyCanvas(a.doc, { nodes: [...rest.nodes, node('c'), node('d'), node('e'), node('f')], edges: [] });
    expect(canvasMaps(a.doc).nodes.size).toBe(MAX_NODES + 1);
    expect(await a.event('provider-close:')).toBe('provider-close:too-many-nodes');
    a.close();
    await expectUnchanged(projectId, before);
    // Up to the limit is fine.
    const b = await live(ada, projectId);
    await b.saved();
    applyCanvas(b.doc, { nodes: [...rest.nodes, node('c'), node('d'), node('e')], edges: [] });
    await b.saved();
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes).toHaveLength(MAX_NODES);
    b.close();
  });
});
