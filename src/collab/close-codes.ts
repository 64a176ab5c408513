// The live socket's close codes and reasons (docs/api.md "Live canvas"): what the service says when it closes a
// socket (a WebSocket close frame) or one document's connection on it (hocuspocus's Close message, whose reason the
// provider reports). One place, so the server and anything reading a close agree; nothing here imports Node.
//
// Codes 4000–4999 are the application's: 44xx the client's fault (as HTTP 4xx), 45xx the service's.

export const CLOSE = {
  /** A frame that is not a well-formed hocuspocus frame, or addresses something that is not a document. */
  malformedMessage: { code: 4400, reason: 'malformed-message' },
  malformedUpdate: { code: 4400, reason: 'malformed-update' },
  /** A frame kind a client never sends (server-internal or server-to-client). */
  unexpectedMessage: { code: 4400, reason: 'unexpected-message' },
  unauthorized: { code: 4401, reason: 'unauthorized' },
  permissionDenied: { code: 4403, reason: 'permission-denied' },
  /** The socket's send buffer passed COLLAB_MAX_BUFFERED_BYTES: the client does not read what it asked for. */
  sendBufferFull: { code: 4408, reason: 'send-buffer-full' },
  /** Before authenticating, a frame over COLLAB_MAX_ANONYMOUS_FRAME_BYTES or more than the socket may hold waiting. */
  tooMuchBeforeAuth: { code: 4413, reason: 'too-much-before-auth' },
  /** A presence (awareness) frame over COLLAB_MAX_PRESENCE_BYTES. */
  presenceTooLarge: { code: 4413, reason: 'presence-too-large' },
  /** Frames (of any kind) or changes faster than the connection's rate. */
  rateLimited: { code: 4429, reason: 'rate-limited' },
  notSaving: { code: 4503, reason: 'not-saving' },
} as const;

export type CloseReason = (typeof CLOSE)[keyof typeof CLOSE];

/**
 * A refusal: hocuspocus answers an authentication with `permission-denied`, and a document connection whose message
 * was refused is closed with this code and reason. No `message`: hocuspocus prints the message of any hook error
 * (./refusals.ts keeps refused frames from reaching hocuspocus's own printing at all).
 */
export class Refusal extends Error {
  constructor(
    readonly reason: string,
    readonly code = 4400,
  ) {
    super('');
    this.name = 'Refusal';
  }
}
