// Live-canvas clients for tests: the real @hocuspocus/provider over a real WebSocket (`ws`, which lets a test send
// the session cookie and an Origin as a browser would), and event-driven waits on what a provider or document does.
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { COLLAB_PATH, collabPath } from '../../src/collab/protocol.js';
import type { HttpClient } from './http-client.js';

export const SESSION_COOKIE = 'authlib.session-token';

/**
 * A WebSocket class that sends these headers with its upgrade (what a browser adds by itself). Its 'error'
 * always has a listener: closing a socket that is still connecting (a test ends while the provider reconnects)
 * makes `ws` emit one after the provider has removed its own handlers, and an error nobody listens to is an
 * uncaught exception that fails the whole run (seen in CI). A browser's WebSocket never throws there either.
 */
function withHeaders(headers: Record<string, string>) {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
      this.on('error', () => {});
    }
  };
}

export interface LiveClient {
  provider: HocuspocusProvider;
  socket: HocuspocusProviderWebsocket;
  doc: Y.Doc;
  /** Events seen, e.g. `authenticated:read-write`, `authenticationFailed:permission-denied`, `stateless:{…}`, `close:1009`,
   *  `provider-close:<reason>`. */
  events: string[];
  /** Resolves when the provider has synced and holds no unacknowledged change. */
  saved(): Promise<void>;
  /** Resolves when the first event starting with `prefix` has been seen (now or later). */
  event(prefix: string): Promise<string>;
  close(): void;
}

export interface LiveOptions {
  /** The service's base URL (http://127.0.0.1:port). */
  baseUrl: string;
  /** The signed-in client whose session cookie to send; null: none. */
  as: HttpClient | null;
  projectId: string;
  /** The Origin header (default: the service's own); null: none. */
  origin?: string | null;
  doc?: Y.Doc;
  /** Reconnect attempts of the socket (default 0: without limit, as in a browser). */
  maxAttempts?: number;
  /** The provider's `token` (sent in each document's auth message): a personal API token. */
  token?: string;
  /**
   * The socket's URL: `project` (default) /api/collab/<projectId>, as the web client; `shared` /api/collab, as older
   * clients; or a project id of its own (/api/collab/<that>), whose socket then asks for `projectId`'s document.
   */
  url?: 'project' | 'shared' | { project: string };
}

/** Waits for a condition that events make true: checks it now and after each `on` callback. */
export function when(check: () => boolean, subscribe: (wake: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const stop = subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
}

/** Resolves when `doc` satisfies `check` (after any update). */
export function docWhere(doc: Y.Doc, check: (doc: Y.Doc) => boolean): Promise<void> {
  return when(
    () => check(doc),
    (wake) => {
      doc.on('update', wake);
      return () => doc.off('update', wake);
    },
  );
}

export async function connectLive({ baseUrl, as, projectId, origin, doc = new Y.Doc(), maxAttempts = 0, token: apiToken, url = 'project' }: LiveOptions): Promise<LiveClient> {
  const headers: Record<string, string> = {};
  const sent = origin === undefined ? new URL(baseUrl).origin : origin;
  if (sent !== null) headers.origin = sent;
  const token = as ? await as.cookie(SESSION_COOKIE) : undefined;
  if (token) headers.cookie = `${SESSION_COOKIE}=${token}`;
  const events: string[] = [];
  const listeners = new Set<() => void>();
  const note = (e: string) => {
    events.push(e);
    for (const l of [...listeners]) l();
  };
  const socket = new HocuspocusProviderWebsocket({
    url: `${baseUrl.replace(/^http/, 'ws')}${url === 'shared' ? COLLAB_PATH : collabPath(url === 'project' ? projectId : url.project)}`,
    WebSocketPolyfill: withHeaders(headers),
    maxAttempts,
    quiet: true,
  } as ConstructorParameters<typeof HocuspocusProviderWebsocket>[0]);
  socket.on('close', ({ event }: { event: { code: number; reason: string } }) => note(`close:${event.code}${event.reason ? `:${event.reason}` : ''}`));
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name: projectId,
    document: doc,
    ...(apiToken !== undefined ? { token: apiToken } : {}),
    onAuthenticated: ({ scope }: { scope: string }) => note(`authenticated:${scope}`),
    onAuthenticationFailed: ({ reason }: { reason: string }) => note(`authenticationFailed:${reason}`),
    onStateless: ({ payload }: { payload: string }) => note(`stateless:${payload}`),
    onSynced: () => note('synced'),
    onUnsyncedChanges: () => note('unsynced'),
    // A document connection the server closed (a refused message: `provider-close:rate-limited`), or the socket's close.
    onClose: ({ event }: { event?: { reason?: string } }) => note(`provider-close${event?.reason ? `:${event.reason}` : ''}`),
  });
  provider.attach();
  const event = (prefix: string) =>
    new Promise<string>((resolve) => {
      const found = () => events.find((e) => e.startsWith(prefix));
      const hit = found();
      if (hit) return resolve(hit);
      const l = () => {
        const h = found();
        if (!h) return;
        listeners.delete(l);
        resolve(h);
      };
      listeners.add(l);
    });
  return {
    provider,
    socket,
    doc,
    events,
    event,
    saved: () =>
      when(
        () => provider.isSynced && !provider.hasUnsyncedChanges,
        (wake) => {
          listeners.add(wake);
          return () => listeners.delete(wake);
        },
      ),
    close() {
      provider.destroy();
      socket.destroy();
    },
  };
}

/** A raw WebSocket to /api/collab with these headers: resolves with the HTTP status of a refused upgrade, or 101. */
export function upgradeStatus(baseUrl: string, headers: Record<string, string>, path = '/api/collab'): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
  });
}
