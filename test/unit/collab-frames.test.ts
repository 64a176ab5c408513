// Hocuspocus frames as the live canvas reads them (src/collab/frames.ts): the update a client frame carries, and
// the gated socket that holds each acknowledgement (SyncStatus) until the change it acknowledges is stored.
// Frames are built as hocuspocus builds them: varString(address), varUint(message type), then y-protocols' sync
// message or the message's own payload.
import { MessageType } from '@hocuspocus/server';
import * as encoding from 'lib0/encoding';
import { describe, expect, it } from 'vitest';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { frameUpdate, gatedSocket } from '../../src/collab/frames.js';

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
