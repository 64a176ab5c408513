// What a document connection may send (docs/api.md "Live canvas", Limits), as a hocuspocus extension that runs
// first on every frame hocuspocus hands to a document: a frame that is not a well-formed hocuspocus frame, and
// changes faster than COLLAB_UPDATES_PER_SECOND per connection (bursts of twice as many; a viewer's count too), cut
// off the whole socket (after the document's own close reaches it): each refused frame would otherwise cost a log
// line. Its provider reconnects and sends its changes again. A viewer's change is answered "not applied" by
// hocuspocus, which reads it first: one that does not decode is refused here.
//
// The socket's own limits (every frame read whole and counted, send buffer, whole-document answers, presence,
// sockets waiting to authenticate) are decided before hocuspocus sees a frame (../socket-limits.ts); a change's
// content after this (./validation.ts), once ./persistence.ts knows it can be stored.
import type { beforeHandleMessagePayload, Connection, Extension } from '@hocuspocus/server';
import * as Y from 'yjs';
import { frameUpdate } from '../frames.js';
import { CLOSE, refusal, type Refusal } from '../protocol.js';

export interface LimitsDeps {
  /** Changes per second per document connection (a burst of twice as many is let through). */
  updatesPerSecond: number;
}

/** A client that sends garbage or floods loses its whole socket, once its document connection has closed. */
export function cutOff(connection: Connection, refused: Refusal): Refusal {
  setImmediate(() => connection.webSocket.close(refused.code, refused.reason));
  return refused;
}

export function limits({ updatesPerSecond }: LimitsDeps): Extension {
  const buckets = new WeakMap<object, { tokens: number; at: number }>();

  /** Token bucket per (socket, document) connection: `updatesPerSecond`, bursts of twice that. */
  function withinRate(connection: object): boolean {
    const now = performance.now();
    const burst = updatesPerSecond * 2;
    const bucket = buckets.get(connection) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * updatesPerSecond);
    bucket.at = now;
    buckets.set(connection, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  return {
    extensionName: 'limits',
    priority: 200,
    async beforeHandleMessage({ update: frame, connection }: beforeHandleMessagePayload) {
      let update: Uint8Array | null;
      try {
        update = frameUpdate(frame);
      } catch {
        throw cutOff(connection, refusal(CLOSE.malformedMessage));
      }
      if (!update) return;
      if (!withinRate(connection)) throw cutOff(connection, refusal(CLOSE.rateLimited));
      if (!connection.readOnly) return;
      try {
        Y.decodeUpdate(update);
      } catch {
        throw cutOff(connection, refusal(CLOSE.malformedUpdate));
      }
    },
  };
}
