// Hocuspocus frames as the live canvas reads them (src/collab/frames.ts): the update a client frame carries, and
// the gated socket that holds each acknowledgement (SyncStatus) until the change it acknowledges is stored.
// Frames are built as hocuspocus builds them: varString(address), varUint(message type), then y-protocols' sync
// message or the message's own payload.
import { MessageType } from '@hocuspocus/server';
import * as encoding from 'lib0/encoding';
import { describe, expect, it } from 'vitest';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { Refusal } from '../../src/collab/protocol.js';
import { documentOf, frameUpdate, gatedSocket, neuter, readClientFrame, readServerFrame } from '../../src/collab/frames.js';

function frame(address: string, type: MessageType, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, address);
  encoding.writeVarUint(e, type);
  write(e);
  return encoding.toUint8Array(e);
}

/** A Yjs update that sets one prompt. */
function someUpdate(prompt = 'p'): Uint8Array {
  const doc = new Y.Doc();
  const updates: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => updates.push(u));
  doc.getMap('nodes').set('a', prompt);
  doc.destroy();
  return updates[0];
}

const syncStep1 = (address: string, type = MessageType.Sync) => frame(address, type, (e) => syncProtocol.writeSyncStep1(e, new Y.Doc()));
const syncStep2 = (address: string, update: Uint8Array, type = MessageType.Sync) =>
  frame(address, type, (e) => {
    // writeSyncStep2 encodes the state of a document: make one whose state is exactly `update`.
    const doc = new Y.Doc();
    Y.applyUpdate(doc, update);
    syncProtocol.writeSyncStep2(e, doc);
  });
const syncUpdate = (address: string, update: Uint8Array, type = MessageType.Sync) => frame(address, type, (e) => syncProtocol.writeUpdate(e, update));
const syncStatus = (address: string, saved = true) => frame(address, MessageType.SyncStatus, (e) => encoding.writeVarUint(e, saved ? 1 : 0));
const awareness = (address: string) => frame(address, MessageType.Awareness, (e) => encoding.writeVarUint8Array(e, new Uint8Array([1, 2, 3])));

describe('frameUpdate', () => {
  it('extracts the update of a sync step 2 and of a sync update frame (Sync or SyncReply)', () => {
    const update = someUpdate();
    expect(frameUpdate(syncUpdate('doc', update))).toEqual(update);
    expect(frameUpdate(syncUpdate('doc', update, MessageType.SyncReply))).toEqual(update);
    const fromStep2 = frameUpdate(syncStep2('doc', update))!;
    const doc = new Y.Doc();
    Y.applyUpdate(doc, fromStep2);
    expect(doc.getMap('nodes').get('a')).toBe('p');
    doc.destroy();
  });

  it('is null for every other frame: sync step 1, awareness, acknowledgements, stateless, auth', () => {
    expect(frameUpdate(syncStep1('doc'))).toBeNull();
    expect(frameUpdate(awareness('doc'))).toBeNull();
    expect(frameUpdate(syncStatus('doc'))).toBeNull();
    expect(frameUpdate(frame('doc', MessageType.Stateless, (e) => encoding.writeVarString(e, '{}')))).toBeNull();
    expect(frameUpdate(frame('doc', MessageType.Auth, (e) => encoding.writeVarUint(e, 0)))).toBeNull();
  });

  it('throws on a truncated frame', () => {
    const whole = syncUpdate('doc', someUpdate());
    expect(() => frameUpdate(whole.subarray(0, whole.length - 3))).toThrow();
    expect(() => frameUpdate(new Uint8Array([]))).toThrow();
  });
});

/** A WebSocket as the gate sees it, recording what was sent and how it was closed. */
function fakeSocket() {
  const ws = {
    sent: [] as Uint8Array[],
    closed: null as { code?: number; reason?: string } | null,
    readyState: 1,
    send(data: Uint8Array) {
      ws.sent.push(data);
    },
    close(code?: number, reason?: string) {
      ws.closed = { code, reason };
      ws.readyState = 3;
    },
  };
  return ws;
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every promise callback that can run, run (one turn of the event loop; no timer). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('gatedSocket', () => {
  it('holds an acknowledgement until its change is stored, and lets every other frame through at once', async () => {
    const ws = fakeSocket();
    const gate = gatedSocket(ws);
    const stored = deferred();
    gate.hold('doc', stored.promise);
    const ack = syncStatus('doc');
    gate.send(ack);
    const others = [awareness('doc'), syncUpdate('doc', someUpdate()), syncStep1('doc')];
    for (const f of others) gate.send(f);
    expect(ws.sent).toEqual(others);
    await turn();
    expect(ws.sent).toEqual(others);
    stored.resolve();
    await turn();
    expect(ws.sent).toEqual([...others, ack]);
    expect(ws.closed).toBeNull();
  });

  it("does not send a socket its own change back: only the broadcast of that very update, to that address, in that turn", async () => {
    const ws = fakeSocket();
    const gate = gatedSocket(ws);
    const mine = someUpdate('mine');
    const theirs = someUpdate('theirs');
    gate.hold('doc', Promise.resolve(), mine);
    const echo = syncUpdate('doc', mine);
    const otherAddress = syncUpdate('doc\0s2', mine); // another provider sharing the socket: it lacks the change
    const peer = syncUpdate('doc', theirs);
    const merged = syncUpdate('doc', Y.mergeUpdates([mine, theirs]));
    gate.send(peer);
    gate.send(otherAddress);
    gate.send(merged);
    gate.send(echo);
    expect(ws.sent).toEqual([peer, otherAddress, merged]);
    gate.send(echo); // once only: a second copy is not the echo of this change
    expect(ws.sent).toEqual([peer, otherAddress, merged, echo]);
    // A change whose broadcast did not come in the turn it was made in (merged with others) is forgotten.
    gate.hold('doc', Promise.resolve(), mine);
    await turn();
    gate.send(echo);
    expect(ws.sent).toEqual([peer, otherAddress, merged, echo, echo]);
  });

  it('sends acknowledgements in the order they were made, even when a later change is stored first', async () => {
    const ws = fakeSocket();
    const gate = gatedSocket(ws);
    const [first, second] = [deferred(), deferred()];
    const [ackA, ackB] = [syncStatus('a'), syncStatus('b')];
    gate.hold('a', first.promise);
    gate.send(ackA);
    gate.hold('b', second.promise);
    gate.send(ackB);
    second.resolve();
    await turn();
    expect(ws.sent).toEqual([]);
    first.resolve();
    await turn();
    expect(ws.sent).toEqual([ackA, ackB]);
  });

  it('waits for every change held under one address before its acknowledgement', async () => {
    const ws = fakeSocket();
    const gate = gatedSocket(ws);
    const [one, two] = [deferred(), deferred()];
    gate.hold('doc', one.promise);
    gate.hold('doc', two.promise);
    gate.send(syncStatus('doc'));
    one.resolve();
    await turn();
    expect(ws.sent).toEqual([]);
    two.resolve();
    await turn();
    expect(ws.sent).toHaveLength(1);
  });

  it('closes the socket with 1011 when a change could not be stored, and never sends its acknowledgement nor later ones', async () => {
    const ws = fakeSocket();
    const gate = gatedSocket(ws);
    const [failing, later] = [deferred(), deferred()];
    gate.hold('doc', failing.promise);
    gate.send(syncStatus('doc'));
    gate.hold('doc', later.promise);
    gate.send(syncStatus('doc'));
    failing.reject(new Error('not stored'));
    later.resolve();
    await turn();
    expect(ws.closed).toEqual({ code: 1011, reason: 'not saved' });
    expect(ws.sent).toEqual([]);
    expect(gate.readyState).toBe(3);
  });
});

describe('readClientFrame', () => {
  const doc = '0b9f7c1e-3c2a-4f1e-9d3e-2a1b0c9d8e7f';
  const presence = (entries: Array<[number, string]>) =>
    frame(doc, MessageType.Awareness, (e) => {
      const u = encoding.createEncoder();
      encoding.writeVarUint(u, entries.length);
      for (const [client, state] of entries) {
        encoding.writeVarUint(u, client);
        encoding.writeVarUint(u, 1);
        encoding.writeVarString(u, state);
      }
      encoding.writeVarUint8Array(e, encoding.toUint8Array(u));
    });
  const refusal = (f: Uint8Array) => {
    try {
      readClientFrame(f);
      return 'read';
    } catch (err) {
      return err instanceof Refusal ? err.reason : 'thrown';
    }
  };

  it('reads what a provider sends: its address, kind, sync step, and the client ids of a presence update', () => {
    expect(readClientFrame(syncStep1(doc))).toEqual({ address: doc, document: doc, type: MessageType.Sync, syncType: 0 });
    expect(readClientFrame(syncStep2(doc, someUpdate(), MessageType.SyncReply))).toMatchObject({ type: MessageType.SyncReply, syncType: 1 });
    expect(readClientFrame(syncUpdate(doc, someUpdate()))).toMatchObject({ syncType: 2 });
    expect(readClientFrame(presence([[7, '{"cursor":null}'], [9, 'null']]))).toMatchObject({ presence: { clients: [7, 9] } });
    expect(readClientFrame(frame(doc, MessageType.Auth, (e) => (encoding.writeVarUint(e, 0), encoding.writeVarString(e, 'tok'))))).toMatchObject({ type: MessageType.Auth });
    expect(readClientFrame(frame(`${doc}\0abc123`, MessageType.QueryAwareness, () => {}))).toMatchObject({ document: doc });
  });

  it('tells apart an address that names no project (never handed on), and refuses what hocuspocus would throw on or print', () => {
    expect(readClientFrame(syncStep1('x"}\n{"level":60}')).document).toBeNull();
    expect(documentOf(`${doc}\0bad session\n`)).toBeNull();
    expect(documentOf(doc.toUpperCase())).toBe(doc.toUpperCase());
    expect(refusal(new Uint8Array(0))).toBe('malformed-message');
    expect(refusal(syncStep1(doc).subarray(0, 38))).toBe('malformed-message');
    expect(refusal(frame(doc, MessageType.Sync, (e) => encoding.writeVarUint(e, 9)))).toBe('malformed-message');
    expect(refusal(presence([[1, '{not json']]))).toBe('malformed-message');
    for (const type of [MessageType.BroadcastStateless, MessageType.SyncStatus, MessageType.Ping, MessageType.Pong, 99]) {
      expect(refusal(frame(doc, type, (e) => encoding.writeVarString(e, 'x'))), String(type)).toBe('unexpected-message');
    }
    expect(refusal(frame(doc, MessageType.Auth, (e) => (encoding.writeVarUint(e, 2), encoding.writeVarString(e, 'x'))))).toBe('unexpected-message');
  });
});

describe('readServerFrame and neuter', () => {
  it('tells whole-document answers, authentications and ends apart from the rest', () => {
    expect(readServerFrame(syncStep2('d', someUpdate()))).toEqual({ kind: 'document', address: 'd' });
    expect(readServerFrame(syncUpdate('d', someUpdate()))).toEqual({ kind: 'other' });
    expect(readServerFrame(frame('d', MessageType.Auth, (e) => (encoding.writeVarUint(e, 2), encoding.writeVarString(e, 'read-write'))))).toEqual({ kind: 'authenticated', address: 'd' });
    expect(readServerFrame(frame('d', MessageType.Auth, (e) => (encoding.writeVarUint(e, 1), encoding.writeVarString(e, 'permission-denied'))))).toEqual({ kind: 'ended', address: 'd' });
    expect(readServerFrame(frame('d', MessageType.CLOSE, (e) => encoding.writeVarString(e, 'bye')))).toEqual({ kind: 'ended', address: 'd' });
    expect(readServerFrame(new Uint8Array([200]))).toEqual({ kind: 'other' });
  });

  it('turns a frame into a Close of its document connection', () => {
    const f = syncUpdate('doc', someUpdate());
    neuter(f);
    expect(readServerFrame(f)).toEqual({ kind: 'ended', address: 'doc' });
  });
});
