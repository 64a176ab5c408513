// The live socket's protocol beyond Yjs and hocuspocus (docs/api.md "Live canvas"): where it is served, every close
// code and reason the service sends, and every stateless message it sends or receives. One file, imported by the
// server (src/collab/) and the web client (web/src/canvas/), so both read a close or a message the same way.
// Pure: it imports nothing, Node or otherwise.
//
// A close is either a WebSocket close frame (the whole socket) or hocuspocus's Close message for one document's
// connection on the socket (whose reason the provider reports; it carries no code). Codes 4000–4999 are the
// application's: 44xx the client's fault (as HTTP 4xx), 45xx the service's; below 4000 the WebSocket standard's.

/** Where the live canvas is served, on the service's own port. */
export const COLLAB_PATH = '/api/collab';

/**
 * The live canvas of one project: `/api/collab/<projectId>`. With the project's id in the URL a load balancer can
 * keep every editor of a canvas on one instance (deploy/nginx.conf hashes on it); such a socket serves that project's
 * document only (`documentNotInUrl`). COLLAB_PATH alone still serves any document (older clients).
 */
export const collabPath = (projectId: string): string => `${COLLAB_PATH}/${encodeURIComponent(projectId)}`;

/**
 * What a request path (without its query) asks of the live canvas: `{ project }` for `/api/collab/<id>` (the id as
 * written, not checked), `{ project: null }` for COLLAB_PATH itself (with or without its trailing slash), null for
 * any other path.
 */
export function collabTarget(path: string): { project: string | null } | null {
  if (path === COLLAB_PATH || path === `${COLLAB_PATH}/`) return { project: null };
  if (!path.startsWith(`${COLLAB_PATH}/`)) return null;
  const segment = path.slice(COLLAB_PATH.length + 1);
  if (segment === '' || segment.includes('/')) return null;
  try {
    return { project: decodeURIComponent(segment) };
  } catch {
    return { project: segment }; // a malformed escape: not an id, which the caller refuses as such
  }
}

/**
 * The provider's `token` of a read-only link's holder: this prefix, then the link's token (GET /api/shared/:token).
 * The connection is read-only and follows the canvas live; a revoked or replaced link is refused `permission-denied`.
 */
export const LINK_TOKEN_PREFIX = 'link:';

export const CLOSE = {
  // The socket as a whole (WebSocket standard codes).
  /** A text frame: the socket speaks binary frames only. */
  binaryOnly: { code: 1003, reason: 'binary frames only' },
  /** A frame over COLLAB_MAX_MESSAGE_BYTES (ws closes the socket itself). */
  messageTooBig: { code: 1009, reason: 'message too big' },
  /** A change could not be stored: its acknowledgement is never sent, the provider sends the change again. */
  notSaved: { code: 1011, reason: 'not saved' },

  // Frames.
  /** A frame that is not a well-formed hocuspocus frame, or addresses something that is not a document. */
  malformedMessage: { code: 4400, reason: 'malformed-message' },
  /** A Yjs update that does not decode (or that Yjs itself could not place). */
  malformedUpdate: { code: 4400, reason: 'malformed-update' },
  /** A frame kind a client never sends (server-internal or server-to-client). */
  unexpectedMessage: { code: 4400, reason: 'unexpected-message' },
  /** A document other than the one the socket's URL names (`/api/collab/<projectId>`): refused, nothing of it served. */
  documentNotInUrl: { code: 4400, reason: 'document-not-in-url' },

  // Who may connect (sign-in, roles, revocation: src/auth/access-sweep.ts).
  /** No valid credential: a token that is not one, no token within COLLAB_AUTH_TIMEOUT_MS. */
  unauthorized: { code: 4401, reason: 'unauthorized' },
  /** The session signed out (its own sign-out, or "sign out of all devices"). */
  signedOut: { code: 4401, reason: 'signed-out' },
  tokenRevoked: { code: 4401, reason: 'token-revoked' },
  tokenExpired: { code: 4401, reason: 'token-expired' },
  /** A token without the `read` scope. */
  insufficientScope: { code: 4403, reason: 'insufficient-scope' },
  /** No role on the project (never shared, removed, or no such project). */
  permissionDenied: { code: 4403, reason: 'permission-denied' },
  /** A connection that could write whose role is now viewer: it reconnects read-only. */
  roleChanged: { code: 4403, reason: 'role-changed' },

  // Limits (./socket-limits.ts, ./extensions/limits.ts).
  /** The socket's send buffer passed COLLAB_MAX_BUFFERED_BYTES: the client does not read what it asked for. */
  sendBufferFull: { code: 4408, reason: 'send-buffer-full' },
  /** Before authenticating, a frame over COLLAB_MAX_ANONYMOUS_FRAME_BYTES or more than the socket may hold waiting. */
  tooMuchBeforeAuth: { code: 4413, reason: 'too-much-before-auth' },
  /** A presence (awareness) frame over COLLAB_MAX_PRESENCE_BYTES. */
  presenceTooLarge: { code: 4413, reason: 'presence-too-large' },
  /** Frames (of any kind) or changes faster than the connection's rate. */
  rateLimited: { code: 4429, reason: 'rate-limited' },

  // The service.
  /** Changes cannot be stored now (more than COLLAB_MAX_UNSAVED_BYTES waiting): this one is not applied. */
  notSaving: { code: 4503, reason: 'not-saving' },
  /** A frame the service failed to handle (not the client's fault). */
  failed: { code: 4500, reason: 'failed' },
  /**
   * A document not open on this instance while it holds LIVE_MAX_OPEN_DOCUMENTS (./extensions/capacity.ts): nothing of
   * it is loaded. On `/api/collab/<projectId>` the socket closes before any answer, so the provider connects again
   * with its backoff until there is room; on COLLAB_PATH the document alone is refused with this reason.
   */
  tooManyDocuments: { code: 4503, reason: 'too-many-documents' },
} as const;

export type CloseReason = (typeof CLOSE)[keyof typeof CLOSE];

/** Close code of a change refused by a rule of the canvas (its reason names the rule). */
export const RULE_REFUSED = 4400;
/** Close code of a change refused by a limit of the canvas (nodes, edges, bytes). */
export const LIMIT_REFUSED = 4413;

/**
 * Closes of a document connection whose change's content was refused (./update-check.ts, ./canvas-rules.ts): not
 * applied, stored or broadcast. The reason names the rule — `invalid-<field>` (the field rules of ./canvas-rules.ts),
 * `missing-<field>`, `invalid-shape`, `unknown-root`, `unknown-parent` (code RULE_REFUSED) — or the limit (below).
 * The provider would keep the change and send it again on every reconnect: the web client drops its document and
 * loads it again instead, and says why (web/src/canvas/live-limits.ts `refusalText`).
 */
export const REFUSED_CHANGE = {
  tooManyNodes: { code: LIMIT_REFUSED, reason: 'too-many-nodes' },
  tooManyEdges: { code: LIMIT_REFUSED, reason: 'too-many-edges' },
  canvasTooLarge: { code: LIMIT_REFUSED, reason: 'canvas-too-large' },

  // By node kind (src/kinds/): a node's `data` is held to the rules of its kind, each field's refusal named
  // `invalid-<field>` (`invalid-text`, `invalid-prompt`, …) and a required one's absence `missing-data-<field>`.
  /** A node `type` no kind has. */
  unknownNodeType: { code: RULE_REFUSED, reason: 'invalid-node-type' },
  /** A `data.type` its node's kind does not allow. */
  invalidDataType: { code: RULE_REFUSED, reason: 'invalid-data-type' },
  /** A `data` key that another kind has and the node's own does not (an `image` on a `text` node). */
  dataOfAnotherKind: { code: RULE_REFUSED, reason: 'data-of-another-kind' },
  /** An edge's `sourceHandle`/`targetHandle` names no port of its node's kind (absent: the kind has no default port). */
  unknownPort: { code: RULE_REFUSED, reason: 'unknown-port' },
  /** An edge from an output whose value does not fit its input (text into an image input; src/kinds/ `fits`). */
  portsDoNotFit: { code: RULE_REFUSED, reason: 'ports-do-not-fit' },
} as const;

/** Why the access sweep ends a connection (src/auth/access-sweep.ts EndReason): its credential or its role ended. */
export type EndedReason = 'signed-out' | 'token-revoked' | 'token-expired' | 'permission-denied' | 'role-changed';

/** The close code of a live socket ended for `reason`: 4401 when its credential ended, 4403 when its role did. */
export function endedCode(reason: EndedReason): number {
  return reason === 'permission-denied' || reason === 'role-changed' ? CLOSE.permissionDenied.code : CLOSE.unauthorized.code;
}

/**
 * A refusal, thrown by a hook of the live server: hocuspocus answers an authentication with its reason, and a
 * document connection whose frame was refused is closed with this code and reason (./refusals.ts). No `message`:
 * hocuspocus prints the message of any hook error.
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

/** A Refusal for one of CLOSE's closes. */
export const refusal = (close: { code: number; reason: string }) => new Refusal(close.reason, close.code);

// Stateless messages: JSON strings in hocuspocus's Stateless frames (the provider's `stateless` event), each with a
// `type`. The service sends them to every connection of a document; a client sends none (one it sends is ignored).

/**
 * Whether the service can store changes right now. Sent to every open document when it changes, and to a connection
 * as it connects while it cannot (`ok: false`). Changes still reach everyone while it cannot, and are kept.
 */
export interface SavingMessage {
  type: 'saving';
  ok: boolean;
}

/**
 * Whether changes reach editors connected to other instances of the service (its link to Redis, docs/deploy.md
 * "Redis"). Sent by one instance to every connection it holds when its link goes down (`ok: false`) and when it is
 * back (`ok: true`), and to a connection as it connects while it is down. Changes are still stored and reach the
 * editors on the same instance meanwhile; once it is back, documents catch up and converge.
 */
export interface RelayMessage {
  type: 'relay';
  ok: boolean;
}

/**
 * What a person may now do on the document, after someone changed it (a member removed or their role changed, the
 * project deleted): sent to that person's connection just before the service closes its socket (4403
 * `permission-denied` for `none`; `role-changed` for `view` and `edit`, and the provider reconnects read-only or
 * read-write). `by` names who made the change (their name, else their email); `deleted` when the project went.
 * A connection closed by the access sweep of another instance gets no message: the close alone says it.
 */
export interface AccessMessage {
  type: 'access';
  access: 'none' | 'view' | 'edit';
  by?: string;
  deleted?: boolean;
}

/**
 * Who restored a version of the canvas, sent to every connection of its document once the restore is applied:
 * `by` (the person's name, else email) and `userId` (so the person who restored can offer to undo it), the restored
 * version (`version`, its id; `name` when it has one; `createdAt`, ISO), and `before` — the id of the version kept
 * just before, which restoring undoes the restore.
 */
export interface RestoredMessage {
  type: 'restored';
  by: string;
  userId: string;
  version: string;
  name?: string;
  createdAt: string;
  before: string;
}

/** Every stateless message the service sends (a change refused by node kind gets its message here). */
export type StatelessMessage = SavingMessage | RelayMessage | AccessMessage | RestoredMessage;

export function statelessText(message: StatelessMessage): string {
  return JSON.stringify(message);
}

/** The message a stateless payload carries, or null when it is none of ours (not JSON, an unknown type, a wrong shape). */
export function readStateless(payload: string): StatelessMessage | null {
  let message: unknown;
  try {
    message = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof message !== 'object' || message === null) return null;
  const { type, ok, access, by, deleted, userId, version, name, createdAt, before } = message as Record<string, unknown>;
  if ((type === 'saving' || type === 'relay') && typeof ok === 'boolean') return { type, ok };
  if (type === 'access' && (access === 'none' || access === 'view' || access === 'edit')) {
    return { type, access, ...(typeof by === 'string' && by !== '' ? { by } : {}), ...(deleted === true ? { deleted } : {}) };
  }
  if (type === 'restored' && [by, userId, version, createdAt, before].every((v) => typeof v === 'string') && (name === undefined || typeof name === 'string')) {
    const [b, u, v, c, f] = [by, userId, version, createdAt, before] as string[];
    return { type, by: b, userId: u, version: v, ...(name !== undefined ? { name: name } : {}), createdAt: c, before: f };
  }
  return null;
}
