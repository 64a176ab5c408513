// Hostile clients on the live socket itself (issue 31; the documents' content is live-hostile.test.ts): every frame
// kind at a flood rate, frames hocuspocus would throw on or print, oversized presence, presence for someone else's
// client id, forged document names (new lines, JSON, 1 MB), sockets without a cookie flooding from one address,
// sync step 1 floods on a large document from a socket that never reads. Every case: the service stays up and
// answers others, nothing is stored, nothing reaches the console, and nothing the client chose reaches the log.
import { randomUUID } from 'node:crypto';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, SESSION_COOKIE, when } from '../helpers/live-client.js';
import { captureLogs } from '../helpers/log-capture.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const FRAMES_PER_SECOND = 20; // bursts of 40
const PRESENCE_BYTES = 1024;
const ANONYMOUS_FRAME_BYTES = 1024;
const ANONYMOUS_PER_ADDRESS = 3;
const MESSAGE_BYTES = 2 * 1024 * 1024;
const BUFFERED_BYTES = 2 * 1024 * 1024;

// Message types (hocuspocus) and sync steps (y-protocols).
const SYNC = 0;
const AWARENESS = 1;
const AUTH = 2;
const QUERY_AWARENESS = 3;
const STATELESS = 5;
const BROADCAST_STATELESS = 6;
const CLOSE = 7;
const SYNC_STATUS = 8;
const PING = 9;
const PONG = 10;

type Who = { client: HttpClient; id: string; email: string };

function frame(address: string, type: number, write: (e: encoding.Encoder) => void = () => {}): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, address);
  encoding.writeVarUint(e, type);
  write(e);
  return encoding.toUint8Array(e);
}
const auth = (address: string, token = '', kind = 0) =>
  frame(address, AUTH, (e) => {
    encoding.writeVarUint(e, kind);
    encoding.writeVarString(e, token);
  });
const step1 = (address: string) =>
  frame(address, SYNC, (e) => {
    encoding.writeVarUint(e, 0);
    encoding.writeVarUint8Array(e, Y.encodeStateVector(new Y.Doc()));
  });
const syncUpdate = (address: string, update: Uint8Array, step = 2) =>
  frame(address, SYNC, (e) => {
    encoding.writeVarUint(e, step);
    encoding.writeVarUint8Array(e, update);
  });
/** An awareness update as y-protocols encodes it: per client its id, clock and JSON state (null clears it). */
function presenceUpdate(entries: Array<{ client: number; clock: number; state: unknown }>): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, entries.length);
  for (const { client, clock, state } of entries) {
    encoding.writeVarUint(e, client);
    encoding.writeVarUint(e, clock);
    encoding.writeVarString(e, JSON.stringify(state));
  }
  return encoding.toUint8Array(e);
}
const presence = (address: string, entries: Array<{ client: number; clock: number; state: unknown }>) =>
  frame(address, AWARENESS, (e) => encoding.writeVarUint8Array(e, presenceUpdate(entries)));
const stateless = (address: string, payload = 'hi') => frame(address, STATELESS, (e) => encoding.writeVarString(e, payload));
/** An awareness frame whose one entry's state is `stateText` as written (JSON or not). */
const rawPresence = (address: string, stateText: string) =>
  frame(address, AWARENESS, (e) => {
    const u = encoding.createEncoder();
    encoding.writeVarUint(u, 1);
    encoding.writeVarUint(u, 5);
    encoding.writeVarUint(u, 1);
    encoding.writeVarString(u, stateText);
    encoding.writeVarUint8Array(e, encoding.toUint8Array(u));
  });
/** A sync step 1 whose state vector says 5 entries and holds half of one. */
const truncatedStateVector = (address: string) =>
  frame(address, SYNC, (e) => {
    encoding.writeVarUint(e, 0);
    encoding.writeVarUint8Array(e, new Uint8Array([5, 1]));
  });
/** `frame` cut to its first `n` bytes. */
const cut = (f: Uint8Array, n: number) => f.subarray(0, n);

/** A received frame's address, type and, for an Auth answer, its kind (1 permission denied, 2 authenticated). */
function read(f: Buffer): { address: string; type: number; kind?: number } {
  const d = decoding.createDecoder(new Uint8Array(f));
  const address = decoding.readVarString(d);
  const type = decoding.readVarUint(d);
  return { address, type, kind: type === AUTH ? decoding.readVarUint(d) : undefined };
}

interface RawSocket {
  ws: WebSocket;
  /** Resolves with `code:reason` when the socket closes. */
  closed: Promise<string>;
  received: Buffer[];
  /** Resolves when a frame `match` accepts has arrived (now or later), or with `closed:…`. */
  next(match: (f: Buffer) => boolean): Promise<string>;
  /** Bytes received so far. */
  bytes(): number;
}

let open: Array<{ close(): void }> = [];

/** A raw WebSocket to /api/collab: signed in as `who` (its session cookie), or without a cookie (`null`). */
async function rawSocket(t: TestApp, who: Who | null, headers: Record<string, string> = {}): Promise<RawSocket> {
  const cookie = who ? { cookie: `${SESSION_COOKIE}=${await who.client.cookie(SESSION_COOKIE)}` } : {};
  const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/api/collab`, { headers: { origin: t.baseUrl, ...cookie, ...headers }, maxPayload: 64 * 1024 * 1024 });
  open.push({ close: () => ws.terminate() });
  const received: Buffer[] = [];
  let bytes = 0;
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
    bytes += data.byteLength;
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
    bytes: () => bytes,
    next: (match) =>
      new Promise((resolve) => {
        const check = () => {
          if (received.some(match)) {
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
const isAuthAnswer = (address: string) => (f: Buffer) => {
  try {
    const r = read(f);
    return r.address === address && r.type === AUTH;
  } catch {
    return false;
  }
};

/** The HTTP status of an upgrade without a cookie from this (forwarded) client address. */
function upgrade(t: TestApp, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}/api/collab`, { headers: { origin: t.baseUrl, ...headers } });
    open.push({ close: () => ws.terminate() });
    ws.on('error', () => undefined);
    ws.once('open', () => resolve({ status: 101, ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

/** What every case checks afterwards: the service is up, nothing stored, a fresh editor loads the same document. */
async function expectUnharmed(t: TestApp, as: Who, projectId: string, before: { canvas: string; lastRow: number }) {
  expect((await as.client.get('/api/health')).status).toBe(200);
  const fresh = await connectLive({ baseUrl: t.baseUrl, as: as.client, projectId });
  open.push(fresh);
  expect(await fresh.event('authenticated')).toBe('authenticated:read-write');
  await fresh.saved();
  const after = await stored(t, as, projectId);
  expect(after.canvas).toBe(before.canvas);
  // Compaction may merge rows into the snapshot (and delete them); nothing may add one.
  const added = await t.pool.query('SELECT count(*) AS n FROM collab_updates WHERE project_id = $1 AND id > $2', [projectId, before.lastRow]);
  expect(Number(added.rows[0].n)).toBe(0);
  const rest = JSON.parse(after.canvas) as { nodes: unknown[]; edges: unknown[] };
  expect(renderCanvas(fresh.doc)).toEqual({ nodes: rest.nodes, edges: rest.edges });
  fresh.close();
}
async function stored(t: TestApp, as: Who, projectId: string) {
  const canvas = (await as.client.get(`/api/user/project/canvas?projectId=${projectId}`)).text;
  const { rows } = await t.pool.query<{ last: string | null }>('SELECT max(id) AS last FROM collab_updates WHERE project_id = $1', [projectId]);
  return { canvas, lastRow: Number(rows[0].last ?? 0) };
}

const node = (id: string, prompt = 'p') => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt } });

/** A project of `owner`'s with a canvas of `nodes` nodes whose prompts are `promptChars` long. */
async function projectWith(owner: Who, nodes: number, promptChars: number): Promise<string> {
  const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Hostile socket' })).json.id as string;
  const all = Array.from({ length: nodes }, (_, i) => node(`n${i}`, `${i}-`.padEnd(promptChars, 'x')));
  expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes: all, edges: [], version: 0 })).status).toBe(200);
  return projectId;
}

let consoleCalls: Array<MockInstance<(...args: unknown[]) => void>> = [];
function watchConsole() {
  consoleCalls = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'log')];
}
beforeEach(() => {
  for (const c of consoleCalls) c.mockClear(); // each case answers for its own
});
afterEach(() => {
  for (const c of open) c.close();
  open = [];
});

describe('hostile frames on the live socket', () => {
  let t: TestApp;
  let ada: Who; // the owner
  let bob: Who; // an editor
  let vic: Who; // a viewer
  let projectId: string;
  let bigProject: string;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await startTestApp(
      {
        LOG_LEVEL: 'info',
        TRUSTED_PROXIES: 'loopback', // so that each case without a cookie comes from an address of its own
        COLLAB_FRAMES_PER_SECOND: String(FRAMES_PER_SECOND),
        COLLAB_UPDATES_PER_SECOND: '5',
        COLLAB_MAX_MESSAGE_BYTES: String(MESSAGE_BYTES),
        COLLAB_MAX_PRESENCE_BYTES: String(PRESENCE_BYTES),
        COLLAB_MAX_ANONYMOUS_FRAME_BYTES: String(ANONYMOUS_FRAME_BYTES),
        COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS: String(ANONYMOUS_PER_ADDRESS),
        COLLAB_MAX_BUFFERED_BYTES: String(BUFFERED_BYTES),
        CANVAS_MAX_BYTES: String(BUFFERED_BYTES),
      },
      undefined,
      { logStream: logs.stream },
    );
    [ada, bob, vic] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com'), t.user('vic@example.com')]);
    projectId = await projectWith(ada, 2, 10);
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
    await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' });
    bigProject = await projectWith(ada, 1200, 500); // ~0.7 MB as a Yjs update
    watchConsole();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  let addressCount = 0;
  /** A client address of its own for a socket without a cookie (forwarded by "our proxy" on loopback). */
  const fresh = () => ({ 'x-forwarded-for': `198.51.100.${++addressCount}` });
  const whoOf = (as: 'editor' | 'viewer' | 'anonymous') => (as === 'editor' ? bob : as === 'viewer' ? vic : null);

  /** A socket as `as`, its document connection to the shared project established (unless anonymous). */
  async function joined(as: 'editor' | 'viewer' | 'anonymous'): Promise<RawSocket> {
    const who = whoOf(as);
    const raw = await rawSocket(t, who, who ? {} : fresh());
    if (who) {
      raw.ws.send(auth(projectId));
      expect(await raw.next(isAuthAnswer(projectId))).toBe('frame');
      expect(read(raw.received.find(isAuthAnswer(projectId))!).kind).toBe(2);
    }
    return raw;
  }

  /** The socket is still served: an Auth for a project it has no access to is answered, after everything sent before. */
  async function stillServed(raw: RawSocket) {
    const probe = randomUUID();
    raw.ws.send(auth(probe));
    expect(await raw.next(isAuthAnswer(probe))).toBe('frame');
  }

  const FORGED = `FORGED-${randomUUID()}`;
  const forgedJson = `x"}\n{"level":60,"msg":"${FORGED}"}\n`;
  const oneMegabyte = `${FORGED}\n`.padEnd(1024 * 1024, 'A');
  const n = (count: number, make: (i: number) => Uint8Array) => Array.from({ length: count }, (_, i) => make(i));
  const FLOOD = FRAMES_PER_SECOND * 2 + 60;
  const RATE = '4429:rate-limited';
  const MALFORMED = '4400:malformed-message';
  const UNEXPECTED = '4400:unexpected-message';
  const TOO_MUCH = '4413:too-much-before-auth';

  interface Case {
    name: string;
    as: 'editor' | 'viewer' | 'anonymous';
    frames: (address: string) => Array<Uint8Array | string>;
    /**
     * `closed:<code>:<reason>` (one of them, for a list), `served` (the socket still answers), or `denied:<address>`
     * (an Auth refused, the socket open).
     */
    outcome: string | string[] | ((address: string) => string);
    /** What must never reach the log. */
    marker?: string;
  }
  const cases: Case[] = [
    // Every frame kind counts against the socket's rate.
    { name: 'sync step 1 flood', as: 'editor', frames: (a) => n(FLOOD, () => step1(a)), outcome: `closed:${RATE}` },
    { name: 'presence flood (own client id)', as: 'editor', frames: (a) => n(FLOOD, (i) => presence(a, [{ client: 4242, clock: i + 1, state: { cursor: { x: i, y: 0 } } }])), outcome: `closed:${RATE}` },
    { name: 'query-awareness flood', as: 'editor', frames: (a) => n(FLOOD, () => frame(a, QUERY_AWARENESS)), outcome: `closed:${RATE}` },
    { name: 'stateless flood', as: 'editor', frames: (a) => n(FLOOD, () => stateless(a)), outcome: `closed:${RATE}` },
    { name: 'auth flood on an established document', as: 'editor', frames: (a) => n(FLOOD, () => auth(a)), outcome: `closed:${RATE}` },
    { name: 'auth flood for random projects', as: 'editor', frames: () => n(FLOOD, () => auth(randomUUID())), outcome: `closed:${RATE}` },
    { name: 'close-message flood', as: 'editor', frames: (a) => n(FLOOD, () => frame(a, CLOSE)), outcome: `closed:${RATE}` },
    { name: 'empty sync step 2 flood', as: 'editor', frames: (a) => n(FLOOD, () => syncUpdate(a, Y.encodeStateAsUpdate(new Y.Doc()), 1)), outcome: `closed:${RATE}` },
    { name: "a viewer's update flood", as: 'viewer', frames: (a) => n(FLOOD, () => syncUpdate(a, Y.encodeStateAsUpdate(new Y.Doc()))), outcome: `closed:${RATE}` },
    { name: "a viewer's presence flood", as: 'viewer', frames: (a) => n(FLOOD, (i) => presence(a, [{ client: 777, clock: i + 1, state: {} }])), outcome: `closed:${RATE}` },
    { name: "a viewer's sync step 1 flood", as: 'viewer', frames: (a) => n(FLOOD, () => step1(a)), outcome: `closed:${RATE}` },
    // (Without a cookie, frames waiting for an authentication may run out before the rate does.)
    { name: 'anonymous: bad-token auth flood', as: 'anonymous', frames: (a) => n(FLOOD, () => auth(a, 'ic_bad')), outcome: [`closed:${RATE}`, `closed:${TOO_MUCH}`] },
    { name: 'anonymous: flood for a name that is no project', as: 'anonymous', frames: () => n(FLOOD, () => auth('nope')), outcome: `closed:${RATE}` },
    // Frames hocuspocus would throw on (and print a stack for).
    { name: 'an empty frame', as: 'editor', frames: () => [new Uint8Array(0)], outcome: `closed:${MALFORMED}` },
    { name: 'an address and nothing else', as: 'editor', frames: (a) => [cut(frame(a, SYNC), a.length + 1)], outcome: `closed:${MALFORMED}` },
    { name: 'a sync frame without its step', as: 'editor', frames: (a) => [frame(a, SYNC)], outcome: `closed:${MALFORMED}` },
    { name: 'a sync step that does not exist', as: 'editor', frames: (a) => [syncUpdate(a, new Uint8Array([0, 0]), 7)], outcome: `closed:${MALFORMED}` },
    { name: 'a truncated state vector', as: 'editor', frames: (a) => [truncatedStateVector(a)], outcome: `closed:${MALFORMED}` },
    { name: 'a sync update longer than its frame', as: 'viewer', frames: (a) => [cut(syncUpdate(a, new Uint8Array(100)), a.length + 6)], outcome: `closed:${MALFORMED}` },
    { name: 'a truncated presence update', as: 'editor', frames: (a) => [frame(a, AWARENESS, (e) => encoding.writeVarUint8Array(e, new Uint8Array([3, 1])))], outcome: `closed:${MALFORMED}` },
    { name: 'a presence state that is not JSON', as: 'viewer', frames: (a) => [rawPresence(a, `{${FORGED}`)], outcome: `closed:${MALFORMED}`, marker: FORGED },
    { name: 'a truncated stateless payload', as: 'editor', frames: (a) => [cut(stateless(a, 'x'.repeat(50)), a.length + 5)], outcome: `closed:${MALFORMED}` },
    { name: "an auth answer (the server's) sent by a client", as: 'editor', frames: (a) => [auth(a, 'x', 1)], outcome: `closed:${UNEXPECTED}` },
    { name: 'server-internal broadcast-stateless', as: 'editor', frames: (a) => [frame(a, BROADCAST_STATELESS, (e) => encoding.writeVarString(e, FORGED))], outcome: `closed:${UNEXPECTED}`, marker: FORGED },
    { name: 'a sync-status frame', as: 'viewer', frames: (a) => [frame(a, SYNC_STATUS, (e) => encoding.writeVarUint(e, 1))], outcome: `closed:${UNEXPECTED}` },
    { name: 'a ping', as: 'editor', frames: (a) => [frame(a, PING)], outcome: `closed:${UNEXPECTED}` },
    { name: 'a pong', as: 'editor', frames: (a) => [frame(a, PONG)], outcome: `closed:${UNEXPECTED}` },
    { name: 'an unknown message type', as: 'anonymous', frames: (a) => [frame(a, 200)], outcome: `closed:${UNEXPECTED}` },
    { name: 'a text frame', as: 'viewer', frames: () => [`{"nodes":"${FORGED}"}`], outcome: 'closed:1003:binary frames only', marker: FORGED },
    { name: "a viewer's malformed update", as: 'viewer', frames: (a) => [syncUpdate(a, new Uint8Array(10).fill(0xff))], outcome: 'closed:4400:malformed-update' },
    // Oversized.
    { name: 'presence over COLLAB_MAX_PRESENCE_BYTES', as: 'editor', frames: (a) => [presence(a, [{ client: 99, clock: 1, state: { name: 'x'.repeat(PRESENCE_BYTES) } }])], outcome: 'closed:4413:presence-too-large' },
    { name: "a viewer's oversized presence", as: 'viewer', frames: (a) => [presence(a, [{ client: 98, clock: 1, state: { selection: new Array<string>(200).fill('generation-0000') } }])], outcome: 'closed:4413:presence-too-large' },
    { name: 'anonymous: a frame over COLLAB_MAX_ANONYMOUS_FRAME_BYTES', as: 'anonymous', frames: () => [auth(randomUUID(), 'x'.repeat(ANONYMOUS_FRAME_BYTES))], outcome: `closed:${TOO_MUCH}` },
    { name: 'anonymous: more frames waiting than allowed', as: 'anonymous', frames: (a) => n(33, () => frame(a, QUERY_AWARENESS)), outcome: `closed:${TOO_MUCH}` },
    { name: 'anonymous: frames waiting for too many documents', as: 'anonymous', frames: () => n(17, () => frame(randomUUID(), QUERY_AWARENESS)), outcome: `closed:${TOO_MUCH}` },
    { name: 'anonymous: a 1 MB forged document name', as: 'anonymous', frames: () => [auth(oneMegabyte)], outcome: `closed:${TOO_MUCH}`, marker: FORGED },
    // Forged document names: refused like any project that is not the caller's; never printed.
    { name: 'a name with new lines and JSON', as: 'editor', frames: () => [auth(forgedJson)], outcome: `denied:${forgedJson}`, marker: FORGED },
    { name: 'anonymous: a name with new lines and JSON', as: 'anonymous', frames: () => [auth(forgedJson, 'ic_x')], outcome: `denied:${forgedJson}`, marker: FORGED },
    { name: 'a 1 MB forged document name', as: 'editor', frames: () => [auth(oneMegabyte)], outcome: `denied:${oneMegabyte}`, marker: FORGED },
    { name: 'a project id and a forged session', as: 'viewer', frames: (a) => [auth(`${a}\0${FORGED}\n{}`)], outcome: (a) => `denied:${a}\0${FORGED}\n{}`, marker: FORGED },
    { name: 'an empty name', as: 'editor', frames: () => [auth('')], outcome: 'denied:' },
    { name: 'a project id with a new line after it', as: 'viewer', frames: (a) => [auth(`${a}\n${FORGED}`)], outcome: (a) => `denied:${a}\n${FORGED}`, marker: FORGED },
    { name: 'frames other than auth for a forged name are dropped', as: 'editor', frames: () => [step1(forgedJson), presence(forgedJson, [{ client: 1, clock: 1, state: {} }]), stateless(forgedJson, FORGED)], outcome: 'served', marker: FORGED },
    { name: 'stateless messages with JSON and new lines', as: 'viewer', frames: (a) => [stateless(a, forgedJson)], outcome: 'served', marker: FORGED },
  ];

  it.each(cases)('$name ($as)', async ({ as, frames, outcome, marker }) => {
    const before = await stored(t, ada, projectId);
    const mark = logs.lines.length;
    const raw = await joined(as);
    for (const f of frames(projectId)) raw.ws.send(f);
    const expected = typeof outcome === 'function' ? outcome(projectId) : Array.isArray(outcome) ? outcome[0] : outcome;
    if (expected.startsWith('closed:')) {
      const closedAs = `closed:${await raw.closed}`;
      expect(Array.isArray(outcome) ? outcome : [expected]).toContain(closedAs);
      // One line of ours says why (two at most, when frames already on their way hit a second limit), no stack.
      const said = logs.lines.slice(mark).filter((l) => l.msg === 'live socket: closed' || l.msg === 'live socket: a frame was refused');
      expect(said.length).toBeGreaterThanOrEqual(1);
      expect(said.length).toBeLessThanOrEqual(2);
      expect(`closed:${String(said[0].code)}:${String(said[0].reason)}`).toBe(closedAs);
      expect(said.filter((l) => 'err' in l)).toEqual([]);
    } else if (expected.startsWith('denied:')) {
      const address = expected.slice('denied:'.length);
      expect(await raw.next(isAuthAnswer(address))).toBe('frame');
      expect(read(raw.received.find(isAuthAnswer(address))!).kind).toBe(1);
      await stillServed(raw);
    } else {
      await stillServed(raw);
    }
    raw.ws.terminate();
    await expectUnharmed(t, ada, projectId, before);
    for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
    if (marker) expect(logs.lines.filter((l) => JSON.stringify(l).includes(marker))).toEqual([]);
  });

  it(`closes a socket that asks for a ${'large'} document again and again without reading (sync amplification)`, async () => {
    const before = await stored(t, ada, bigProject);
    const raw = await rawSocket(t, ada);
    raw.ws.send(auth(bigProject));
    expect(await raw.next(isAuthAnswer(bigProject))).toBe('frame');
    const atPause = raw.bytes();
    (raw.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const steps = 40;
    for (let i = 0; i < steps; i++) raw.ws.send(step1(bigProject));
    const line = await logs.line((l) => l.msg === 'live socket: closed' && l.sync !== undefined);
    expect(line).toMatchObject({ code: 4429, reason: 'rate-limited' });
    (raw.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await raw.closed).toBe(RATE);
    // At most one answer got out (the whole document), not forty.
    const reader = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId: bigProject });
    open.push(reader);
    await reader.saved();
    const documentBytes = Y.encodeStateAsUpdate(reader.doc).byteLength;
    expect(documentBytes).toBeGreaterThan(500_000);
    expect(raw.bytes() - atPause).toBeLessThan(2 * documentBytes);
    await expectUnharmed(t, ada, bigProject, before);
    for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
  });

  it(`lets at most ${ANONYMOUS_PER_ADDRESS} sockets without a cookie wait to authenticate per client address`, async () => {
    const before = await stored(t, ada, projectId);
    const address = '203.0.113.9';
    const waiting = await Promise.all(n(ANONYMOUS_PER_ADDRESS, () => new Uint8Array()).map(() => upgrade(t, { 'x-forwarded-for': address })));
    expect(waiting.map((w) => w.status)).toEqual(n(ANONYMOUS_PER_ADDRESS, () => new Uint8Array()).map(() => 101));
    expect((await upgrade(t, { 'x-forwarded-for': address })).status).toBe(429);
    // A forged left-most entry is not the client: our proxy appended the real address.
    expect((await upgrade(t, { 'x-forwarded-for': `198.18.0.1, ${address}` })).status).toBe(429);
    // Another address, and a signed-in socket from this one, are not affected.
    expect((await upgrade(t, { 'x-forwarded-for': '203.0.113.10' })).status).toBe(101);
    expect((await rawSocket(t, ada, { 'x-forwarded-for': address })).ws.readyState).toBe(WebSocket.OPEN);
    // Once one of them authenticates with a token, it no longer counts.
    const token = (await ada.client.post('/api/user/tokens', { name: 'live', scopes: ['read'] })).json.token as string;
    const first = waiting[0].ws!;
    const authenticated = new Promise<number | undefined>((resolve) => first.once('message', (data: Buffer) => resolve(read(data).kind)));
    first.send(auth(projectId, token));
    expect(await authenticated).toBe(2);
    expect((await upgrade(t, { 'x-forwarded-for': address })).status).toBe(101);
    expect((await upgrade(t, { 'x-forwarded-for': address })).status).toBe(429);
    expect(logs.lines.filter((l) => l.msg.startsWith('live socket: refused, too many sockets')).length).toBeGreaterThan(0);
    await expectUnharmed(t, ada, projectId, before);
    for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
  });

  it('a failure behind an authentication is one line of ours and a plain refusal, never printed by hocuspocus', async () => {
    const raw = await rawSocket(t, bob);
    const mark = logs.lines.length;
    await t.pool.query('ALTER TABLE project_members RENAME TO project_members_away');
    try {
      raw.ws.send(auth(projectId));
      expect(await raw.next(isAuthAnswer(projectId))).toBe('frame');
    } finally {
      await t.pool.query('ALTER TABLE project_members_away RENAME TO project_members');
    }
    expect(read(raw.received.find(isAuthAnswer(projectId))!).kind).toBe(1);
    expect(logs.lines.slice(mark).filter((l) => l.msg === 'live socket: an authentication failed')).toHaveLength(1);
    for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
    await stillServed(raw);
  });

  describe('presence belongs to its sender', () => {
    /** Ada's provider with a cursor, and an observer (the owner's second tab) that sees everyone's presence. */
    async function scene() {
      const a = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
      const observer = await connectLive({ baseUrl: t.baseUrl, as: bob.client, projectId });
      open.push(a, observer);
      await Promise.all([a.saved(), observer.saved()]);
      a.provider.awareness!.setLocalState({ cursor: { x: 1, y: 1 }, selection: [] });
      const adaId = a.doc.clientID;
      const seen = () => observer.provider.awareness!.getStates();
      const cursorOf = (id: number) => (seen().get(id) as { cursor?: { x: number } } | undefined)?.cursor?.x;
      const until = (check: () => boolean) =>
        when(check, (wake) => {
          observer.provider.awareness!.on('change', wake);
          observer.provider.awareness!.on('update', wake);
          return () => {
            observer.provider.awareness!.off('change', wake);
            observer.provider.awareness!.off('update', wake);
          };
        });
      await until(() => cursorOf(adaId) === 1);
      return { adaId, seen, cursorOf, until, observerId: observer.doc.clientID };
    }

    const forgers: Array<{ name: string; as: 'editor' | 'viewer' }> = [
      { name: "a viewer cannot overwrite someone else's presence", as: 'viewer' },
      { name: "an editor cannot overwrite someone else's presence", as: 'editor' },
    ];
    it.each(forgers)('$name', async ({ as }) => {
      const before = await stored(t, ada, projectId);
      const { adaId, seen, cursorOf, until, observerId } = await scene();
      const raw = await joined(as);
      const own = 1_000_000 + Math.floor(Math.random() * 1_000_000);
      // Ada's id first (as if it were the sender's own), then clearing it, then its own presence with a marker.
      raw.ws.send(presence(projectId, [{ client: adaId, clock: 1000, state: { cursor: { x: 666, y: 0 } } }]));
      raw.ws.send(presence(projectId, [{ client: adaId, clock: 1001, state: null }]));
      raw.ws.send(presence(projectId, [{ client: own, clock: 1, state: { cursor: { x: 7, y: 0 } } }, { client: adaId, clock: 1002, state: { cursor: { x: 667, y: 0 } } }]));
      await until(() => cursorOf(own) === 7);
      expect(cursorOf(adaId)).toBe(1);
      // Bound to its first id now: a second id of its own making is not taken either.
      raw.ws.send(presence(projectId, [{ client: own + 1, clock: 1, state: { cursor: { x: 8, y: 0 } } }]));
      raw.ws.send(presence(projectId, [{ client: own, clock: 2, state: { cursor: { x: 9, y: 0 } } }]));
      await until(() => cursorOf(own) === 9);
      expect(seen().has(own + 1)).toBe(false);
      // The service names the sender, whatever it claims; and no other client id speaks for the sender.
      const sender = (as === 'viewer' ? vic : bob).id;
      expect((seen().get(own) as { user?: { id: string } }).user?.id).toBe(sender);
      const others = [...seen()].filter(([id, s]) => id !== own && id !== observerId && (s as { user?: { id?: string } }).user?.id === sender);
      expect(others).toEqual([]);
      raw.ws.terminate();
      await expectUnharmed(t, ada, projectId, before);
      for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
    });

    it("a viewer's own presence reaches the others (viewers are not silenced)", async () => {
      const { until, cursorOf } = await scene();
      const v = await connectLive({ baseUrl: t.baseUrl, as: vic.client, projectId });
      open.push(v);
      await v.saved();
      v.provider.awareness!.setLocalState({ cursor: { x: 42, y: 0 }, selection: [] });
      await until(() => cursorOf(v.doc.clientID) === 42);
    });
  });
});

describe('a socket that does not read', () => {
  let t: TestApp;
  let ada: Who;
  let projectId: string;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await startTestApp(
      {
        LOG_LEVEL: 'info',
        COLLAB_MAX_BUFFERED_BYTES: String(BUFFERED_BYTES),
        CANVAS_MAX_BYTES: String(BUFFERED_BYTES),
        // Whole-document answers are not paid for here: only the send buffer stops them.
        COLLAB_SYNC_BYTES_PER_SECOND: String(1e12),
        COLLAB_FRAMES_PER_SECOND: '1000',
      },
      undefined,
      { logStream: logs.stream },
    );
    ada = await t.user('ada@example.com');
    projectId = await projectWith(ada, 1200, 500);
    watchConsole();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  it(`is closed (send-buffer-full) once more than COLLAB_MAX_BUFFERED_BYTES (${BUFFERED_BYTES}) waits for it`, async () => {
    const before = await stored(t, ada, projectId);
    const raw = await rawSocket(t, ada);
    // One document under many session addresses (as session-aware providers multiplex): each asks for it once.
    const addresses = Array.from({ length: 24 }, (_, i) => `${projectId}\0s${i}`);
    for (const a of addresses) raw.ws.send(auth(a));
    await raw.next(() => addresses.every((a) => raw.received.some(isAuthAnswer(a))));
    const atPause = raw.bytes();
    (raw.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    for (const a of addresses) raw.ws.send(step1(a));
    const line = await logs.line((l) => l.msg === 'live socket: closed' && l.reason === 'send-buffer-full');
    expect(line.code).toBe(4408);
    expect(Number(line.bufferedBytes)).toBeGreaterThan(BUFFERED_BYTES);
    (raw.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await raw.closed).toBe('4408:send-buffer-full');
    const answer = raw.received.reduce((most, f) => Math.max(most, f.byteLength), 0);
    // What it was sent: what the kernel held for it (a few MB on loopback) and the buffer up to the cap, not 24 answers.
    expect(raw.bytes() - atPause).toBeLessThan(addresses.length * answer * 0.75);
    await expectUnharmed(t, ada, projectId, before);
    for (const c of consoleCalls) expect(c.mock.calls).toEqual([]);
  });
});
