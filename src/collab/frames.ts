// Hocuspocus frames as this service needs to see them: what a client sent (to check it before hocuspocus applies
// it) and which outgoing frame is an acknowledgement (to hold it until the change it acknowledges is stored).
// A frame is `varString(address) varUint(messageType) …`; a sync frame then carries `varUint(syncType)` and, for
// step 2 and update, `varUint8Array(update)` (y-protocols/sync).
import { MessageType, type WebSocketLike } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import * as Y from 'yjs';
import { isUuid } from '../ids.js';
import { CLOSE, Refusal } from './protocol.js';

const SYNC_STEP_1 = 0;
const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;
/** Auth sub-message a client sends (@hocuspocus/common AuthMessageType.Token); the others are the server's answers. */
const AUTH_TOKEN = 0;
const AUTH_PERMISSION_DENIED = 1;
const AUTH_AUTHENTICATED = 2;

/** The Yjs update a client frame carries (sync step 2 or update), null for any other frame; throws on a truncated frame. */
export function frameUpdate(frame: Uint8Array): Uint8Array | null {
  const d = decoding.createDecoder(frame);
  decoding.readVarString(d);
  const type = decoding.readVarUint(d) as MessageType;
  if (type !== MessageType.Sync && type !== MessageType.SyncReply) return null;
  const syncType = decoding.readVarUint(d);
  if (syncType !== SYNC_STEP_2 && syncType !== SYNC_UPDATE) return null;
  return decoding.readVarUint8Array(d);
}

/**
 * Whether a client frame starts as every hocuspocus frame does (an address, then a known message type). Anything
 * else is refused before hocuspocus sees it: hocuspocus would print an error line for each such frame.
 */
export function wellFormed(frame: Uint8Array): boolean {
  try {
    const d = decoding.createDecoder(frame);
    decoding.readVarString(d);
    const type = decoding.readVarUint(d);
    return type >= (MessageType.Sync as number) && type <= (MessageType.Pong as number);
  } catch {
    return false;
  }
}

/** The address of an acknowledgement frame (`SyncStatus`), or null for any other frame. */
function ackAddress(frame: Uint8Array): string | null {
  const d = decoding.createDecoder(frame);
  const address = decoding.readVarString(d);
  return decoding.readVarUint(d) === (MessageType.SyncStatus as number) ? address : null;
}

/**
 * A client's socket as hocuspocus sees it, which holds each acknowledgement back until the change it
 * acknowledges is stored. Hocuspocus applies a client's update, which emits the document's `update` event
 * synchronously — our listener queues the store and calls `hold(address, stored)` — and only then sends
 * `SyncStatus` to the client. Every other frame (peers' edits, awareness) goes out at once. Acknowledgements leave
 * in the order they were made; one whose change could not be stored is never sent: the socket is closed and the
 * client, which still has its change, sends it again on reconnecting.
 */
export interface GatedSocket extends WebSocketLike {
  /**
   * Holds the acknowledgement of a change this socket sent until `stored` settles. `update`: the change as its
   * document emitted it, which hocuspocus is about to broadcast to every connection of the document, this one
   * included; the copy for this socket is not sent (./echoOf).
   */
  hold(address: string, stored: Promise<unknown>, update?: Uint8Array): void;
}

/**
 * Whether an outgoing frame is a sync update to one of `own`'s addresses carrying that entry's update (compared by
 * bytes; the entry is removed). Hocuspocus broadcasts a document's changes to all its connections, the sender's own included, and its
 * broadcast of a turn that changed the document once carries the very update the document emitted. The sender
 * already has it: applying it again changes nothing, so the frame is one socket write (a system call, and on the
 * client a frame to read and decode) for nothing — a sixth of what one edit costs the service in writes with five
 * people on a canvas. A broadcast merging several changes differs from each and goes out as before.
 */
function echoOf(frame: Uint8Array, own: Array<{ address: string; update: Uint8Array }>): boolean {
  try {
    const d = decoding.createDecoder(frame);
    const address = decoding.readVarString(d);
    const type = decoding.readVarUint(d) as MessageType;
    if (type !== MessageType.Sync || decoding.readVarUint(d) !== SYNC_UPDATE) return false;
    const length = decoding.readVarUint(d);
    if (length !== frame.byteLength - d.pos) return false;
    // The same address only: another provider sharing this socket (a session address of the same document) lacks it.
    const at = own.findIndex((o) => o.address === address && o.update.byteLength === length && o.update.every((b, i) => b === frame[d.pos + i]));
    if (at === -1) return false;
    own.splice(at, 1);
    return true;
  } catch {
    return false;
  }
}

export function gatedSocket(ws: { send(data: Uint8Array): void; close(code?: number, reason?: string): void; readonly readyState: number }): GatedSocket {
  let last: Promise<unknown> = Promise.resolve();
  const held = new Map<string, Promise<unknown>>();
  /** This socket's changes whose broadcast (in the turn after they were applied) it need not get back. */
  let own: Array<{ address: string; update: Uint8Array }> = [];
  return {
    get readyState() {
      return ws.readyState;
    },
    close: (code, reason) => ws.close(code, reason),
    hold(address, stored, update) {
      const before = held.get(address);
      held.set(address, before ? Promise.all([before, stored]) : stored);
      if (update) {
        // Hocuspocus broadcasts in an immediate it scheduled before this (its update listener comes first), so this
        // one runs after it: an update not seen going out by then was merged with others, and is forgotten.
        if (own.length === 0) setImmediate(() => (own = []));
        own.push({ address, update });
      }
    },
    send(data) {
      const frame = data as Uint8Array;
      if (own.length > 0 && echoOf(frame, own)) return;
      const address = ackAddress(frame);
      if (address === null) return ws.send(frame);
      const stored = held.get(address);
      held.delete(address);
      const previous = last;
      last = (async () => {
        await previous;
        try {
          await stored;
        } catch {
          if (ws.readyState === 1) ws.close(CLOSE.notSaved.code, CLOSE.notSaved.reason);
          return;
        }
        if (ws.readyState === 1) ws.send(frame);
      })();
    },
  };
}

/** A session-aware provider's address: `documentName\0sessionId` (its session id is a short random word). */
const SESSION = /^[0-9A-Za-z_-]{1,64}$/;

/** The document a frame's address names, or null when it names no document we could serve (not a project id). */
export function documentOf(address: string): string | null {
  const cut = address.indexOf('\0');
  const name = cut === -1 ? address : address.slice(0, cut);
  if (!isUuid(name)) return null;
  if (cut !== -1 && !SESSION.test(address.slice(cut + 1))) return null;
  return name;
}

/** What a client frame is, read whole (./socket-limits.ts decides from it before hocuspocus sees the frame). */
export interface ClientFrame {
  address: string;
  /** The document the address names, null when it names none we could serve (./documentOf). */
  document: string | null;
  type: MessageType;
  /** A sync frame's step: 0 step 1 (asks for the document), 1 step 2, 2 update. */
  syncType?: number;
  /** An awareness frame: its update's bytes and the client ids it sets (a state) or clears (null). */
  presence?: { bytes: number; clients: number[] };
}

const malformed = () => new Refusal(CLOSE.malformedMessage.reason, CLOSE.malformedMessage.code);

/**
 * Reads a client frame whole, as hocuspocus and y-protocols would, and throws a Refusal for anything hocuspocus
 * would throw on or print a line for: a truncated frame, a frame kind a client never sends (server-internal
 * BroadcastStateless, SyncStatus, Ping, Pong, an unknown type, an auth answer), a sync step that does not exist, a
 * state vector or a presence update that does not decode, a presence state that is not JSON. A Yjs update is left to
 * `beforeHandleMessage`, which decodes it anyway. An address that names no document (`document` null: a forged name
 * with new lines or JSON in it) is for the caller to answer: it is never handed on to hocuspocus, which prints names.
 */
export function readClientFrame(frame: Uint8Array): ClientFrame {
  const d = decoding.createDecoder(frame);
  try {
    const address = decoding.readVarString(d);
    const document = documentOf(address);
    const type = decoding.readVarUint(d) as MessageType;
    switch (type) {
      case MessageType.Sync:
      case MessageType.SyncReply: {
        const syncType = decoding.readVarUint(d);
        const payload = decoding.readVarUint8Array(d);
        if (syncType === SYNC_STEP_1) Y.decodeStateVector(payload);
        else if (syncType !== SYNC_STEP_2 && syncType !== SYNC_UPDATE) throw malformed();
        return { address, document, type, syncType };
      }
      case MessageType.Awareness: {
        const update = decoding.readVarUint8Array(d);
        const clients = presenceEntries(update, true).map((e) => e.client);
        return { address, document, type, presence: { bytes: update.byteLength, clients } };
      }
      case MessageType.Auth: {
        if (decoding.readVarUint(d) !== AUTH_TOKEN) throw new Refusal(CLOSE.unexpectedMessage.reason, CLOSE.unexpectedMessage.code);
        decoding.readVarString(d); // token
        if (decoding.hasContent(d)) decoding.readVarString(d); // provider version
        return { address, document, type };
      }
      case MessageType.Stateless:
        decoding.readVarString(d);
        return { address, document, type };
      case MessageType.QueryAwareness:
      case MessageType.CLOSE:
        return { address, document, type };
      default:
        throw new Refusal(CLOSE.unexpectedMessage.reason, CLOSE.unexpectedMessage.code);
    }
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw malformed();
  }
}

/**
 * The entries of a y-protocols awareness update: `varUint(n)`, then per client `varUint(clientId) varUint(clock)
 * varString(JSON state)`, the state `null` when the client clears its presence. `parse`: each state is parsed as
 * y-protocols will (throws when one is not JSON).
 */
export function presenceEntries(update: Uint8Array, parse = false): Array<{ client: number; cleared: boolean }> {
  const u = decoding.createDecoder(update);
  const entries: Array<{ client: number; cleared: boolean }> = [];
  for (let n = decoding.readVarUint(u); n > 0; n--) {
    const client = decoding.readVarUint(u);
    decoding.readVarUint(u); // clock
    const state = decoding.readVarString(u);
    if (parse) JSON.parse(state);
    entries.push({ client, cleared: state === 'null' });
  }
  return entries;
}

/** The awareness update an awareness frame carries, null for any other frame (or one that does not decode). */
export function framePresence(frame: Uint8Array): Uint8Array | null {
  try {
    const d = decoding.createDecoder(frame);
    decoding.readVarString(d);
    if (decoding.readVarUint(d) !== (MessageType.Awareness as number)) return null;
    return decoding.readVarUint8Array(d);
  } catch {
    return null;
  }
}

/**
 * Makes a client frame that hocuspocus has already started to read harmless: its message type becomes Close, which
 * hocuspocus reads as "close this document connection" — a no-op once the connection is closed (./refusals.ts).
 */
export function neuter(frame: Uint8Array): void {
  const d = decoding.createDecoder(frame);
  decoding.readVarString(d);
  frame[d.pos] = MessageType.CLOSE;
}

/** What the service sends, as ./socket-limits.ts needs to see it. */
export type ServerFrame =
  | { kind: 'document'; address: string } // a sync step 2: the document (or what the client lacks of it), answering a step 1
  | { kind: 'authenticated'; address: string }
  | { kind: 'ended'; address: string } // permission denied, or the document connection closed
  | { kind: 'other' };

export function readServerFrame(frame: Uint8Array): ServerFrame {
  try {
    const d = decoding.createDecoder(frame);
    const address = decoding.readVarString(d);
    const type = decoding.readVarUint(d) as MessageType;
    if ((type === MessageType.Sync || type === MessageType.SyncReply) && decoding.readVarUint(d) === SYNC_STEP_2) return { kind: 'document', address };
    if (type === MessageType.CLOSE) return { kind: 'ended', address };
    if (type === MessageType.Auth) {
      const answer = decoding.readVarUint(d);
      if (answer === AUTH_AUTHENTICATED) return { kind: 'authenticated', address };
      if (answer === AUTH_PERMISSION_DENIED) return { kind: 'ended', address };
    }
  } catch {
    // not one of ours to look at
  }
  return { kind: 'other' };
}
