// Hocuspocus frames as this service needs to see them: what a client sent (to check it before hocuspocus applies
// it) and which outgoing frame is an acknowledgement (to hold it until the change it acknowledges is stored).
// A frame is `varString(address) varUint(messageType) …`; a sync frame then carries `varUint(syncType)` and, for
// step 2 and update, `varUint8Array(update)` (y-protocols/sync).
import { MessageType, type WebSocketLike } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';

const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;

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
  hold(address: string, stored: Promise<unknown>): void;
}

export function gatedSocket(ws: { send(data: Uint8Array): void; close(code?: number, reason?: string): void; readonly readyState: number }): GatedSocket {
  let last: Promise<unknown> = Promise.resolve();
  const held = new Map<string, Promise<unknown>>();
  return {
    get readyState() {
      return ws.readyState;
    },
    close: (code, reason) => ws.close(code, reason),
    hold(address, stored) {
      const before = held.get(address);
      held.set(address, before ? Promise.all([before, stored]) : stored);
    },
    send(data) {
      const frame = data as Uint8Array;
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
          if (ws.readyState === 1) ws.close(1011, 'not saved');
          return;
        }
        if (ws.readyState === 1) ws.send(frame);
      })();
    },
  };
}
