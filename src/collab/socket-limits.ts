// What one live socket may ask of the service (docs/api.md "Live canvas", Limits), decided in the socket's message
// path before hocuspocus sees a frame, and on what the service sends it:
//
// - Every frame counts against the socket's rate (COLLAB_FRAMES_PER_SECOND, bursts of twice that), whatever its kind
//   or document and whoever sends it (a viewer, a socket still authenticating).
// - Every frame is read whole (./frames.ts readClientFrame): a frame hocuspocus would throw on or print closes the
//   socket; one addressed to something that is not a project id never reaches hocuspocus (an Auth for it is answered
//   permission-denied, as hocuspocus answers a project that is not the caller's). So nothing a client chose reaches
//   hocuspocus's console lines, and each refusal is one line of ours (pino, which escapes what it prints).
// - A sync step 1 asks for the whole document (what the client lacks of it). A step 1 is refused (the socket closed,
//   rate-limited) while the answer to the previous one for its address has not left the socket's send buffer (the
//   client takes one copy at a time, at the pace it reads: a socket that does not read gets one), and while the bytes
//   of earlier answers for its document on this socket exceed what COLLAB_SYNC_BYTES_PER_SECOND has paid back since
//   (so a client that reads fast cannot make the service encode a large document over and over, nor by asking under
//   many session addresses of one document). A provider sends one step 1 per connection. Why not weigh step 1 in the
//   frame rate: the answer's size is known only once it is encoded, and one legitimate answer of a large document
//   would then leave a reading client in debt for its presence and edits.
// - A socket whose send buffer passes COLLAB_MAX_BUFFERED_BYTES is closed (send-buffer-full): a client that does not
//   read what it asked for (or what peers broadcast) holds at most that much of our memory (plus the frame that
//   passed it), for at most ws's close timeout.
// - Presence frames are at most COLLAB_MAX_PRESENCE_BYTES.
// - Frames for documents that have not authenticated yet wait inside hocuspocus; here they are held to less than
//   hocuspocus's own limits (whose console lines would name the document), and on a socket without a session cookie
//   to COLLAB_MAX_ANONYMOUS_FRAME_BYTES a frame and a few of them in all. Such sockets are also counted per client
//   address (COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS) until one of their documents authenticates.
import { MessageType, OutgoingMessage } from '@hocuspocus/server';
import type { WebSocket } from 'ws';
import { CLOSE, Refusal, type CloseReason } from './protocol.js';
import { documentOf, readClientFrame, readServerFrame } from './frames.js';

export interface SocketLimits {
  /** Frames of any kind a socket may send per second (bursts of twice as many). */
  framesPerSecond: number;
  /** A socket whose send buffer (`ws.bufferedAmount`) passes this is closed. */
  bufferedBytes: number;
  /** Whole-document answers (to sync step 1) per document on a socket: at most this many bytes per second, on average. */
  syncBytesPerSecond: number;
  /** Largest presence (awareness) update. */
  presenceBytes: number;
  /** Largest frame of a socket without a session cookie before one of its documents authenticated. */
  anonymousFrameBytes: number;
  /** Sockets without a session cookie that have not authenticated yet, per client address. */
  anonymousSocketsPerAddress: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  framesPerSecond: 300,
  bufferedBytes: 32 * 1024 * 1024,
  syncBytesPerSecond: 4 * 1024 * 1024,
  presenceBytes: 64 * 1024,
  anonymousFrameBytes: 16 * 1024,
  anonymousSocketsPerAddress: 20,
};

/**
 * Frames waiting for their document to authenticate, per socket: below hocuspocus's own limits (5 MiB, 1,000 frames,
 * 100 documents), which print a console line naming the document. Without a session cookie, far less: an API client
 * sends one Auth frame per document and waits for the answer.
 */
const WAITING = { bytes: 4 * 1024 * 1024, frames: 500, documents: 50 };
const WAITING_ANONYMOUS = { frames: 32, documents: 16, frameLimits: 4 };

export interface SocketLog {
  warn(o: object, m: string): void;
}

/** The gate of a socket let in without a session cookie (set once one of its documents authenticated). */
export interface Gate {
  authenticated: boolean;
}

export interface GuardedSocket {
  /** The socket as hocuspocus sends on it (wrap it in ./frames.ts gatedSocket). */
  socket: { send(data: Uint8Array): void; close(code?: number, reason?: string): void; readonly readyState: number };
  /** Whether to hand this client frame to hocuspocus; false: it is dropped (the socket is closing, one line logged). */
  admit(data: Buffer, isBinary: boolean): Uint8Array | null;
  /** A `ws` error on the socket (a frame over the size limit: ws closes it with 1009): logged once. */
  failed(err: Error & { code?: string }): void;
}

const OPEN = 1;

/** Per document on the socket: bytes sent in whole-document answers not yet paid back at syncBytesPerSecond. */
interface Debt {
  bytes: number;
  at: number;
}

export function guardSocket(ws: WebSocket, { limits, log, gate, address }: { limits: SocketLimits; log: SocketLog; gate?: Gate; address: string }): GuardedSocket {
  const burst = limits.framesPerSecond * 2;
  let tokens = burst;
  let at = performance.now();
  let closing = false;
  /** Addresses whose document authenticated on this socket (from the service's answers). */
  const established = new Set<string>();
  /** Frames held by hocuspocus for addresses not authenticated yet. */
  const waiting = new Map<string, { frames: number; bytes: number }>();
  let waitingFrames = 0;
  let waitingBytes = 0;
  /**
   * Whole-document answers admitted and not yet out of the send buffer, per address; what they cost, per document (a
   * session-aware provider's addresses `document\0session` share their document's).
   */
  const outstanding = new Map<string, number>();
  const debts = new Map<string, Debt>();
  const debtOf = (document: string) => {
    let debt = debts.get(document);
    if (!debt) debts.set(document, (debt = { bytes: 0, at: performance.now() }));
    debt.bytes = Math.max(0, debt.bytes - ((performance.now() - debt.at) / 1000) * limits.syncBytesPerSecond);
    debt.at = performance.now();
    return debt;
  };
  const stopWaiting = (addr: string) => {
    const w = waiting.get(addr);
    if (!w) return;
    waitingFrames -= w.frames;
    waitingBytes -= w.bytes;
    waiting.delete(addr);
  };

  /** Closes the socket for `why`, logging one line (nothing the client chose, beyond numbers). */
  function refuse(why: CloseReason | { code: number; reason: string }, fields: object = {}): null {
    if (closing) return null;
    closing = true;
    log.warn({ ...fields, client: address, code: why.code, reason: why.reason }, 'live socket: closed');
    if (ws.readyState === OPEN) ws.close(why.code, why.reason);
    return null;
  }

  function withinRate(): boolean {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - at) / 1000) * limits.framesPerSecond);
    at = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }

  return {
    socket: {
      get readyState() {
        return ws.readyState;
      },
      close: (code, reason) => ws.close(code, reason),
      send(data) {
        if (ws.readyState !== OPEN) return;
        const sent = readServerFrame(data);
        if (sent.kind === 'document') {
          const document = documentOf(sent.address);
          if (document) debtOf(document).bytes += data.byteLength;
          ws.send(data, () => {
            const left = (outstanding.get(sent.address) ?? 1) - 1;
            if (left > 0) outstanding.set(sent.address, left);
            else outstanding.delete(sent.address);
          });
        } else {
          if (sent.kind === 'authenticated') {
            established.add(sent.address);
            stopWaiting(sent.address);
          } else if (sent.kind === 'ended') {
            established.delete(sent.address);
            stopWaiting(sent.address);
            outstanding.delete(sent.address); // a step 1 it held will not be answered
          }
          ws.send(data);
        }
        if (ws.bufferedAmount > limits.bufferedBytes) refuse(CLOSE.sendBufferFull, { bufferedBytes: ws.bufferedAmount });
      },
    },

    admit(data, isBinary) {
      if (closing || ws.readyState !== OPEN) return null;
      if (!withinRate()) return refuse(CLOSE.rateLimited);
      if (!isBinary) return refuse(CLOSE.binaryOnly);
      const frame = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const anonymous = gate !== undefined && !gate.authenticated;
      if (anonymous && frame.byteLength > limits.anonymousFrameBytes) return refuse(CLOSE.tooMuchBeforeAuth, { bytes: frame.byteLength });
      let read;
      try {
        read = readClientFrame(frame);
      } catch (err) {
        const refusal = err instanceof Refusal ? err : new Refusal(CLOSE.malformedMessage.reason, CLOSE.malformedMessage.code);
        return refuse(refusal, { bytes: frame.byteLength });
      }
      if (read.document === null) {
        // Not a project: refused as hocuspocus refuses a project that is not the caller's, without reaching it
        // (it would hold the frames and print the name when they pile up). Other frames for it are dropped.
        if (read.type === MessageType.Auth) ws.send(new OutgoingMessage(read.address).writePermissionDenied(CLOSE.permissionDenied.reason).toUint8Array());
        return null;
      }
      if (!established.has(read.address)) {
        const w = waiting.get(read.address) ?? { frames: 0, bytes: 0 };
        const most = anonymous
          ? { bytes: WAITING_ANONYMOUS.frameLimits * limits.anonymousFrameBytes, frames: WAITING_ANONYMOUS.frames, documents: WAITING_ANONYMOUS.documents }
          : WAITING;
        if (waitingFrames + 1 > most.frames || waitingBytes + frame.byteLength > most.bytes || (w.frames === 0 && waiting.size + 1 > most.documents)) {
          return refuse(CLOSE.tooMuchBeforeAuth, { frames: waitingFrames + 1, bytes: waitingBytes + frame.byteLength, documents: waiting.size });
        }
        w.frames += 1;
        w.bytes += frame.byteLength;
        waiting.set(read.address, w);
        waitingFrames += 1;
        waitingBytes += frame.byteLength;
      }
      if (read.presence && read.presence.bytes > limits.presenceBytes) return refuse(CLOSE.presenceTooLarge, { bytes: read.presence.bytes });
      if (read.syncType === 0) {
        const waitingAnswer = outstanding.has(read.address);
        const debt = debtOf(read.document).bytes;
        if (waitingAnswer || debt > 0) return refuse(CLOSE.rateLimited, { sync: waitingAnswer ? 'answer-not-read' : 'answers-unpaid', unpaidBytes: Math.round(debt) });
        outstanding.set(read.address, 1);
      }
      return frame;
    },

    failed(err) {
      refuse(CLOSE.messageTooBig, { error: typeof err.code === 'string' ? err.code : 'error' });
    },
  };
}

/**
 * Sockets let in without a session cookie that have not authenticated yet, per client address: `take` answers a
 * release (call it when the socket closes) or null when the address has COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS already.
 */
export function anonymousSockets(perAddress: number) {
  const byAddress = new Map<string, Set<Gate>>();
  return {
    take(address: string, gate: Gate): (() => void) | null {
      const gates = byAddress.get(address) ?? new Set<Gate>();
      for (const g of gates) if (g.authenticated) gates.delete(g); // no longer counted once it authenticated
      if (gates.size >= perAddress) return null;
      gates.add(gate);
      byAddress.set(address, gates);
      return () => {
        gates.delete(gate);
        if (gates.size === 0 && byAddress.get(address) === gates) byAddress.delete(address);
      };
    },
  };
}
