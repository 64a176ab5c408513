// Who may use a live document (docs/api.md "Live canvas"; DESIGN.md §9), as a hocuspocus extension:
//
// - On the upgrade (`signIn`, before hocuspocus sees the socket): a browser's Origin must be ours (403), the session
//   cookie must be valid (401). An upgrade without a session cookie is let in only to authenticate with a personal
//   API token (the provider's `token`, in each document's auth message): until a document authenticates,
//   hocuspocus answers it nothing, and `watch` closes it (4401) after COLLAB_AUTH_TIMEOUT_MS.
// - Per document (`onAuthenticate`): on a socket whose URL names a project (`/api/collab/<projectId>`), that project's
//   document only (any other is refused `document-not-in-url`); the caller's role (owner and editors write; a
//   viewer's connection is read-only, its changes never applied; anyone else gets `permission-denied`, whether or not
//   the project exists); with a token, also its scopes (`read` to connect, `write` to edit).
// - Afterwards: `revalidate` checks again the role of everyone connected to a document (after a member change made
//   here), and `connections` lists every person's connection for the access sweep (src/auth/access-sweep.ts),
//   which ends those whose session, token or role ended.
import type { IncomingMessage } from 'node:http';
import type { Document, Extension, onAuthenticatePayload } from '@hocuspocus/server';
import type { WebSocket } from 'ws';
import type { OpenConnection } from '../../auth/access-sweep.js';
import type { TokenVerifier } from '../../auth/api-tokens.js';
import { hasSessionCookie, type SessionUser, type SessionVerifier } from '../../auth/session.js';
import { permits, type ProjectAccess } from '../../auth/project-access.js';
import type { Gate } from '../socket-limits.js';
import { CLOSE, endedCode, LINK_TOKEN_PREFIX, refusal, statelessText, type AccessMessage } from '../protocol.js';
import { linkHashOf } from '../../auth/share-links.js';

/** What hocuspocus holds for a socket (copied per document connection). */
export interface SocketContext {
  /**
   * The upgrade's session user; for a socket signed in by token, its user once the document authenticated. It keeps
   * what let it in (the session's claims, or the token's id) for the access sweep (`connections`).
   */
  user: SessionUser | null;
  /** A socket without a session cookie: each document authenticates with an API token (`onAuthenticate`). */
  byToken?: boolean;
  /** Shared by the socket's documents (hocuspocus copies the context per document): set once one authenticated. */
  gate?: Gate;
  /** The project the socket's URL names (`/api/collab/<projectId>`): no other document is served on it. */
  project?: string;
  /** A document connection let in by a read-only link (the hash of its token): read-only, checked again by `revalidate`. */
  link?: string | null;
  /**
   * Closes the whole socket at once (set by ../sockets.ts), for a refusal its client meets by connecting again later
   * (./capacity.ts): a provider whose socket closes before anything was answered on it connects again with its backoff.
   */
  end?: (close: { code: number; reason: string }) => void;
}

/** Who changed what someone may do on a project (told to them in the AccessMessage before their socket closes). */
export interface AccessChange {
  /** Their name, else their email. */
  by: string;
  /** The project was deleted. */
  deleted?: boolean;
}

export interface AuthenticationDeps {
  /** The user's role on the project, null without one (or no such project). */
  /** What the user holds on the project (src/auth/project-access.ts): connect with `read`, write with `edit`. */
  accessOf: ProjectAccess['accessOf'];
  sessions: SessionVerifier;
  /** Personal API tokens, accepted as the provider's `token` on an upgrade without a session cookie; unset: refused (401). */
  tokens?: Pick<TokenVerifier, 'verify'>;
  /** The service's own origin: a browser connection from any other is refused. */
  origin: string;
  /** A socket let in without a session cookie is closed (4401) unless a document authenticated with a token within this. */
  authTimeoutMs: number;
}

export interface Authentication extends Extension<SocketContext> {
  /** The upgrade's verdict: the socket's context, or the HTTP status to refuse it with. */
  signIn(req: IncomingMessage): Promise<{ context: SocketContext } | { status: 401 | 403 }>;
  /** Closes a socket let in without a session cookie (4401) if none of its documents authenticated in time. */
  watch(ws: WebSocket, context: SocketContext): void;
  /**
   * Checks again the role of everyone connected to `document`: the socket of a connection without a role is closed
   * (its provider reconnects and is refused), and so is that of a viewer whose connection could write (it reconnects
   * read-only) and that of an editor whose connection could not (it reconnects read-write). Each is told first what
   * it may now do and who changed it (an AccessMessage).
   */
  revalidate(document: Document, change?: AccessChange): Promise<void>;
  /** Every person's document connection in `documents`, for the access sweep. */
  connections(documents: Iterable<Document>): OpenConnection[];
}

const userOf = (connection: { context?: unknown }) => (connection.context as SocketContext | undefined)?.user;

export function authentication({ accessOf, sessions, tokens, origin, authTimeoutMs }: AuthenticationDeps): Authentication {
  return {
    extensionName: 'authentication',

    async signIn(req) {
      const from = req.headers.origin;
      if (from !== undefined && from !== origin) return { status: 403 };
      const user = await sessions.verify(req.headers.cookie);
      // A session cookie that is not valid stays a 401; without one, a token may authenticate each document.
      if (!user && (!tokens || hasSessionCookie(req.headers.cookie))) return { status: 401 };
      return { context: user ? { user } : { user: null, byToken: true, gate: { authenticated: false } } };
    },

    watch(ws, { gate }) {
      // Let in only to authenticate: a socket that does not within the deadline holds nothing of ours any longer.
      if (!gate) return;
      const deadline = setTimeout(() => {
        if (!gate.authenticated) ws.close(CLOSE.unauthorized.code, CLOSE.unauthorized.reason);
      }, authTimeoutMs);
      deadline.unref();
      ws.once('close', () => clearTimeout(deadline));
    },

    async onAuthenticate({ documentName, context, connectionConfig, token }: onAuthenticatePayload<SocketContext>) {
      // A socket whose URL names a project serves that project's document only (a load balancer routed it by the URL).
      if (context.project !== undefined && documentName !== context.project) throw refusal(CLOSE.documentNotInUrl);
      // A read-only link's holder (signed in or not): follows the canvas read-only, as the link's page shows it.
      if (token?.startsWith(LINK_TOKEN_PREFIX)) {
        const linkHash = linkHashOf(token.slice(LINK_TOKEN_PREFIX.length));
        const access = linkHash ? await accessOf({ linkHash }, documentName) : 'none';
        if (!permits(access, 'view')) throw refusal(CLOSE.permissionDenied);
        connectionConfig.readOnly = true;
        if (context.gate) context.gate.authenticated = true;
        return { user: null, link: linkHash };
      }
      let user = context.user;
      if (!user && !context.byToken) return; // the service's own connection
      if (!user) {
        // A socket without a session cookie: the document's auth message must carry a valid token with `read`.
        const found = token && tokens ? await tokens.verify(token) : null;
        if (!found) throw refusal(CLOSE.unauthorized);
        if (!found.token?.scopes.includes('read')) throw refusal(CLOSE.insufficientScope);
        user = found;
      }
      const access = await accessOf({ userId: user.id }, documentName);
      if (!permits(access, 'read')) throw refusal(CLOSE.permissionDenied);
      // A token without `write` reads only, whatever its user's role.
      if (!permits(access, 'edit') || (user.token && !user.token.scopes.includes('write'))) connectionConfig.readOnly = true;
      // The token's user becomes this document connection's user (presence, revalidate).
      if (!context.user) {
        if (context.gate) context.gate.authenticated = true;
        return { user };
      }
    },

    async revalidate(document, change) {
      await Promise.all(
        document.getConnections().map(async (connection) => {
          const link = (connection.context as SocketContext | undefined)?.link;
          if (link) {
            // A read-only link revoked or replaced: its holder's page says the link is no longer valid.
            if (!permits(await accessOf({ linkHash: link }, document.name), 'view')) {
              connection.sendStateless(statelessText({ type: 'access', access: 'none' }));
              connection.webSocket.close(CLOSE.permissionDenied.code, CLOSE.permissionDenied.reason);
            }
            return;
          }
          const user = userOf(connection);
          if (!user) return;
          const access = await accessOf({ userId: user.id }, document.name);
          const tell = (now: AccessMessage['access']) =>
            connection.sendStateless(statelessText({ type: 'access', access: now, ...(change?.by ? { by: change.by } : {}), ...(change?.deleted ? { deleted: true } : {}) }));
          // The whole socket: the provider reconnects it by itself and is then refused, or let in read-only.
          if (!permits(access, 'read')) {
            tell('none');
            connection.webSocket.close(CLOSE.permissionDenied.code, CLOSE.permissionDenied.reason);
          } else if (!permits(access, 'edit') && !connection.readOnly) {
            tell('view');
            connection.webSocket.close(CLOSE.roleChanged.code, CLOSE.roleChanged.reason);
          } else if (permits(access, 'edit') && connection.readOnly && !(user.token && !user.token.scopes.includes('write'))) {
            // A viewer made an editor: it reconnects, and is let in read-write.
            tell('edit');
            connection.webSocket.close(CLOSE.roleChanged.code, CLOSE.roleChanged.reason);
          }
          // Nothing it sends while its socket closes is applied (a client may hold the closing handshake up).
          if (!permits(access, 'edit')) connection.readOnly = true;
        }),
      );
    },

    connections(documents) {
      const open: OpenConnection[] = [];
      for (const document of documents) {
        for (const connection of document.getConnections()) {
          const user = userOf(connection);
          if (!user) continue; // the service's own
          open.push({
            user,
            project: { id: document.name, writes: !connection.readOnly },
            end(reason) {
              connection.readOnly = true;
              connection.webSocket.close(endedCode(reason), reason);
            },
          });
        }
      }
      return open;
    },
  };
}
