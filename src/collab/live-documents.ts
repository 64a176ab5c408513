// The live canvas (DESIGN.md §9; docs/api.md "Live canvas"): one Yjs document per project, served by hocuspocus
// on the service's own port at /api/collab. This module owns the hocuspocus instance and everything around it:
//
// - Sign-in on the upgrade: the session cookie, and a browser's Origin must be ours (401/403 with no body, no
//   WebSocket). An upgrade without a session cookie is let in only to authenticate with a personal API token (the
//   provider's `token`, in each document's auth message): until a document authenticates, hocuspocus answers it
//   nothing and closes it (4401) after COLLAB_AUTH_TIMEOUT_MS. Per document, the caller's role (owner and editors write; a viewer's
//   connection is read-only, its changes never applied; anyone else gets `permission-denied`, whether or not the
//   project exists); with a token, also its scopes (`read` to connect, `write` to edit).
// - Limits: binary frames only, COLLAB_MAX_MESSAGE_BYTES per frame, COLLAB_UPDATES_PER_SECOND per connection; the
//   REST canvas limits (root maps, node and edge counts, field rules, CANVAS_MAX_BYTES) on every update
//   (./update-check.ts), and malformed updates, refused before hocuspocus applies them. Per socket (./socket-limits.ts):
//   every frame read whole and counted, whole-document answers bounded, the send buffer capped, presence bounded,
//   sockets without a cookie bounded per address; presence is its sender's own (./presence.ts); refusals are one line
//   of our log, never hocuspocus's console (./refusals.ts).
// - Durability: every change applied in memory is appended to PostgreSQL (./update-queue.ts) and the sender's
//   acknowledgement waits for that (./frames.ts `gatedSocket`); documents are loaded from snapshot + log, compacted
//   when hocuspocus stores them (debounced while editing, then put off by a random spread so documents opened together
//   are not compacted together; at once when the last editor leaves), with restore points.
// - The service as a participant: `open(projectId)` gives a direct connection whose changes are stored before
//   `change()` resolves (REST saves, generation state, restores).
// - Several instances: with COLLAB_REDIS_URL, hocuspocus's Redis extension relays changes and awareness; the
//   instance that received a change from its client stores it.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Hocuspocus, type Extension, type Document } from '@hocuspocus/server';
import { WebSocketServer, type WebSocket } from 'ws';
import * as Y from 'yjs';
import type { OpenConnection } from '../auth/access-sweep.js';
import type { TokenVerifier } from '../auth/api-tokens.js';
import { hasSessionCookie, type SessionUser, type SessionVerifier } from '../auth/session.js';
import type { CollabRepository, ProjectRole } from '../db/repositories/index.js';
import type { LiveGauges, Metrics } from '../metrics.js';
import { isUuid } from '../ids.js';
import { applyCanvas, dropUnsafeImage, renderCanvas, type CanvasContent } from './canvas-doc.js';
import { frameUpdate, gatedSocket, type GatedSocket } from './frames.js';
import { ownPresence } from './presence.js';
import { CLOSE, COLLAB_PATH, endedCode, refusal, statelessText, type Refusal } from './protocol.js';
import { quietRefusals } from './refusals.js';
import { anonymousSockets, DEFAULT_SOCKET_LIMITS, guardSocket, type SocketLimits } from './socket-limits.js';
import { createUpdateCheck } from './update-check.js';
import { createUpdateQueue, type UpdateQueue } from './update-queue.js';

export { COLLAB_PATH } from './protocol.js';

export interface LiveLimits {
  /** A frame larger than this closes the socket (1009). */
  messageBytes: number;
  /** Updates per second per connection (a burst of twice as many is let through). */
  updatesPerSecond: number;
  nodes: number;
  edges: number;
  /** CANVAS_MAX_BYTES: the canvas's rendered JSON at most (./update-check.ts). */
  canvasBytes: number;
  /** PROMPT_MAX_CHARS: a node's `data.prompt` at most. */
  promptChars: number;
  /** Update bytes waiting to be stored, at most (while PostgreSQL is slow or down); beyond it edits are refused. */
  heldBytes: number;
  /** At most one automatic restore point per this many milliseconds of editing. */
  restorePointMs: number;
  /** Compaction after this long without changes, and at least this often while editing. */
  storeDebounceMs: number;
  storeMaxDebounceMs: number;
  /**
   * A compaction that comes due while people are still editing (after `storeMaxDebounceMs`) waits a random part of
   * this first, so documents opened together are not all compacted together (0: at once).
   */
  storeSpreadMs: number;
  /**
   * While people edit an open document, a compaction that comes due runs only once its log holds at least this
   * fraction of the document's bytes, or a restore point is due (`restorePointMs` since the last compaction here): a
   * compaction costs the whole document, so on a large canvas it would otherwise cost far more than the edits it
   * merges. The last person leaving and shutdown always compact. 0: every due compaction runs (default 0.1).
   */
  compactLogRatio?: number;
  /** A socket let in without a session cookie is closed (4401) unless a document authenticated with a token within this (default 10 s). */
  authTimeoutMs?: number;
  /** What one socket may ask of the service: frame rate, send buffer, whole-document answers, presence, anonymous sockets (./socket-limits.ts). */
  socket?: Partial<SocketLimits>;
}

export interface LiveDeps {
  collab: CollabRepository;
  /** The user's role on the project, null without one (or no such project). */
  roleOf: (userId: string, projectId: string) => Promise<ProjectRole | null>;
  sessions: SessionVerifier;
  /** Personal API tokens, accepted as the provider's `token` on an upgrade without a session cookie; unset: refused (401). */
  tokens?: Pick<TokenVerifier, 'verify'>;
  /** The service's own origin: a browser connection from any other is refused. */
  origin: string;
  limits: LiveLimits;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** Extensions to add (the Redis extension when instances share documents). */
  extensions?: Extension[];
  /** Whether instances relay changes to each other (Redis): then a document never needs to catch up from the database. */
  relayed?: boolean;
  /** Where compactions and refused changes are counted (metrics on). */
  metrics?: Pick<Metrics, 'compaction'> & Partial<Pick<Metrics, 'refusedChange'>>;
  /** The client's address of an upgrade, as the HTTP side sees it (TRUSTED_PROXIES); default: the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
}

/** The service's own connection to a document: changes are stored before `change` resolves. */
export interface OpenDocument {
  readonly doc: Y.Doc;
  /**
   * Applies `fn` in one transaction and queues what it changed (synchronously); resolves with the project's version
   * once stored, or null if nothing changed. With `step`, a change that changes nothing still steps the version.
   */
  change(fn: (doc: Y.Doc) => void, options?: { step?: boolean }): Promise<number | null>;
  close(): Promise<void>;
}

export interface LiveDocuments {
  /** Opens the project's document as the service (loading it if needed); `close()` it when done. */
  open(projectId: string): Promise<OpenDocument>;
  /** The document's content: from memory when it is open here, otherwise from the database; null when it has none. */
  read(projectId: string): Promise<CanvasContent | null>;
  /**
   * Brings the project's document, if it is open here, up to `version` (the canvas version just read from the
   * database) when changes made elsewhere are missing from it: another instance that shares no Redis with this one
   * wrote them. True when it did (read the version again). Call when nothing of the project is being stored here.
   */
  catchUp: (projectId: string, version: number) => Promise<boolean>;
  /** Resolves when every change of the project queued here so far is stored. */
  settled(projectId: string): Promise<void>;
  /** Changes of the project queued here so far (to notice one arriving). */
  seq(projectId: string): number;
  pending(projectId: string): number;
  /**
   * Checks again the role of everyone connected to the project's document here (after a member was removed or
   * changed, or the project deleted): the socket of a connection without a role is closed (its provider reconnects
   * and is refused), and so is that of a viewer whose connection could write (it reconnects read-only).
   */
  revalidate: (projectId: string) => Promise<void>;
  /**
   * Every person's document connection open here, with what let it in (`user.session` or `user.token`), its project
   * and whether it may write; ending one makes it read-only and closes its socket (4401 when its credential ended,
   * 4403 when its role did). For the access sweep (src/auth/access-sweep.ts), which runs every revocation poll.
   */
  connections(): OpenConnection[];
  /** Serves /api/collab on this HTTP server. */
  mount(server: Server): void;
  /** Closes every socket (call before the HTTP server closes). */
  disconnectAll(): void;
  /** Stores what is queued and compacts open documents; after this the module does nothing more. */
  close(): Promise<void>;
  /** Open documents (tests, metrics). */
  openCount(): number;
  /** This instance's live canvas right now (metrics). */
  gauges(): LiveGauges;
}

interface SocketContext {
  /**
   * The upgrade's session user; for a socket signed in by token, its user once the document authenticated. It keeps
   * what let it in (the session's claims, or the token's id) for the access sweep (`connections`).
   */
  user: SessionUser | null;
  /** A socket without a session cookie: each document authenticates with an API token (`onAuthenticate`). */
  byToken?: boolean;
  /** Shared by the socket's documents (hocuspocus copies the context per document): set once one authenticated. */
  gate?: { authenticated: boolean };
}

/** Compactions that may run at once (./onStoreDocument). */
const COMPACTIONS_AT_ONCE = 2;

/** Runs at most `n` tasks at once, the others in order of arrival. */
function turns(n: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
  };
}

/** How long `close()` waits for queued changes to be stored before giving up on them (they were never acknowledged). */
const CLOSE_DRAIN_MS = 5_000;

export { Refusal } from './protocol.js';

function rejectUpgrade(socket: Duplex, status: 401 | 403 | 404 | 429 | 503) {
  const text = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status];
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export function createLiveDocuments({
  collab,
  roleOf,
  sessions,
  tokens,
  origin,
  limits,
  log,
  extensions = [],
  relayed = extensions.length > 0,
  metrics,
  clientAddress = (req) => req.socket.remoteAddress ?? '',
}: LiveDeps): LiveDocuments {
  let closed = false;
  /** After close: nothing touches the database any more. */
  let finished = false;
  const compactions = new Set<Promise<unknown>>();
  let saving = true;
  const queue: UpdateQueue = createUpdateQueue({
    store: (changes) => collab.append(changes),
    maxHeldBytes: limits.heldBytes,
    log,
    onSaving(ok) {
      saving = ok;
      const message = statelessText({ type: 'saving', ok });
      for (const document of hocuspocus.documents.values()) document.broadcastStateless(message);
    },
  });
  /**
   * The canvas version each open document holds: the version it was loaded at plus every change of it stored from
   * here. When the database has a higher one, other instances changed it (./catchUp).
   */
  const held = new Map<string, number>();
  /** The origin of changes read back from the database: already stored, never stored again. */
  const FROM_DATABASE = { source: 'database' };
  /** Queues a change and counts it in the document's version once stored. */
  const append = (projectId: string, update: Uint8Array | null) => {
    const size = sizes.get(projectId);
    if (size && update) {
      size.doc += update.byteLength;
      size.log += update.byteLength;
    }
    return queue.append(projectId, update).then((version) => {
      const now = held.get(projectId);
      if (now !== undefined) held.set(projectId, now + 1);
      return version;
    });
  };
  /**
   * Compactions run a few at a time: each holds a database connection for its transaction, and documents opened
   * together come due together (a storm would take the whole pool from requests and appends).
   */
  const compactionTurns = turns(COMPACTIONS_AT_ONCE);
  /** When each open document last changed here (performance.now()), to tell a compaction forced while editing. */
  const changedAt = new Map<string, number>();
  /** Compactions put off by their spread (./compactLater), by document. */
  const later = new Map<string, NodeJS.Timeout>();
  /**
   * Per open document, for ./compactionDue: its bytes as stored (snapshot and log when loaded, plus every change
   * stored from here since: an upper bound, as compaction drops what was deleted), the log's bytes not yet merged,
   * and when it was last compacted (or loaded) here.
   */
  const sizes = new Map<string, { doc: number; log: number; compactedAt: number }>();
  const logRatio = limits.compactLogRatio ?? 0.1;

  /** Whether an open document being edited is worth compacting now (LiveLimits.compactLogRatio). */
  function compactionDue(documentName: string): boolean {
    const size = sizes.get(documentName);
    if (!size || logRatio === 0) return true;
    if (performance.now() - size.compactedAt >= limits.restorePointMs) return true;
    return size.log >= logRatio * Math.max(0, size.doc - size.log);
  }

  async function compactNow(documentName: string): Promise<void> {
    const size = sizes.get(documentName);
    const merging = size?.log ?? 0;
    const compaction = queue.settled(documentName).then(() => compactionTurns.run(() => collab.compact(documentName, limits.restorePointMs)));
    compactions.add(compaction);
    const started = performance.now();
    try {
      await compaction.catch((err: unknown) => {
        metrics?.compaction('failed', (performance.now() - started) / 1000);
        throw err;
      });
      metrics?.compaction('merged', (performance.now() - started) / 1000);
      // What was queued before the compaction is merged; what came while it ran may not be (counted still).
      if (size) {
        size.log = Math.max(0, size.log - merging);
        size.compactedAt = performance.now();
      }
    } finally {
      compactions.delete(compaction);
    }
  }

  /**
   * Puts off a compaction that came due while its document is being edited by a random part of `storeSpreadMs`: every
   * document opened at one moment would otherwise reach hocuspocus's maxDebounce at one moment (200 documents
   * compacted in one burst held the event loop up for ~0.3 s at a time). It runs outside hocuspocus's store, which
   * returns at once: nothing (the service's own connections closing, the last editor leaving) waits for it. The
   * store when the last connection leaves compacts at once and cancels it; `close()` cancels it and compacts
   * whatever is open.
   */
  function compactLater(documentName: string) {
    if (later.has(documentName)) return;
    const timer = setTimeout(() => {
      later.delete(documentName);
      if (finished) return;
      compactNow(documentName).catch((err: unknown) => log.warn({ err, projectId: documentName }, 'live document: a compaction failed (the log stays; the next one merges it)'));
    }, Math.random() * limits.storeSpreadMs);
    timer.unref();
    later.set(documentName, timer);
  }

  /** While the service changes a document: the stores of that change. */
  let capture: Promise<number>[] | null = null;
  const buckets = new WeakMap<object, { tokens: number; at: number }>();

  async function loadInto(projectId: string, document: Y.Doc, attempt = 0): Promise<void> {
    // Changes still being stored here belong in what is loaded.
    await queue.settled(projectId);
    const stored = await collab.load(projectId);
    if (stored.legacy && !stored.snapshot && stored.updates.length === 0) {
      // A canvas saved before live documents: it becomes the document's first state, once, by one instance.
      const fresh = new Y.Doc();
      fresh.transact(() => applyCanvas(fresh, stored.legacy!));
      const state = Y.encodeStateAsUpdate(fresh);
      fresh.destroy();
      if (await collab.migrateLegacy(projectId, state)) {
        Y.applyUpdate(document, state, FROM_DATABASE);
        held.set(projectId, stored.version);
        sizes.set(projectId, { doc: state.byteLength, log: 0, compactedAt: performance.now() });
        return;
      }
      if (attempt < 3) return loadInto(projectId, document, attempt + 1);
      throw new Error('live document: the legacy canvas could not be moved');
    }
    const parts = [...(stored.snapshot ? [stored.snapshot] : []), ...stored.updates];
    if (parts.length > 0) Y.applyUpdate(document, Y.mergeUpdates(parts), FROM_DATABASE);
    held.set(projectId, stored.version);
    const log = stored.updates.reduce((n, u) => n + u.byteLength, 0);
    sizes.set(projectId, { doc: (stored.snapshot?.byteLength ?? 0) + log, log, compactedAt: performance.now() });
  }

  /** Stores every change applied to `document` that arrived here (not those relayed from another instance). */
  function storeChanges(document: Document) {
    document.on('update', (update: Uint8Array, origin: unknown) => {
      const from = origin as { source?: string; connection?: { webSocket: unknown; messageAddress?: string } } | null;
      if (from?.source === 'redis' || from === FROM_DATABASE) return;
      changedAt.set(document.name, performance.now());
      const stored = append(document.name, update);
      if (from?.source === 'connection' && from.connection) {
        const socket = from.connection.webSocket as Partial<GatedSocket>;
        socket.hold?.(from.connection.messageAddress ?? document.name, stored);
        stored.catch(() => {}); // the gate handles a failure
      } else if (capture) {
        capture.push(stored);
      } else {
        stored.catch((err: unknown) => log.error({ err, projectId: document.name }, 'live document: a change could not be stored'));
      }
    });
  }

  /** The REST canvas limits on every update (./update-check.ts). */
  const updateCheck = createUpdateCheck({ nodes: limits.nodes, edges: limits.edges, bytes: limits.canvasBytes, promptChars: limits.promptChars });

  /** Throws `refused()` unless `update` is a Yjs update that decodes. */
  function mustDecode(update: Uint8Array, refused: () => Refusal): void {
    try {
      Y.decodeUpdate(update);
    } catch {
      throw refused();
    }
  }

  /** Token bucket per (socket, document) connection: `updatesPerSecond`, bursts of twice that. */
  function withinRate(connection: object): boolean {
    const now = performance.now();
    const burst = limits.updatesPerSecond * 2;
    const bucket = buckets.get(connection) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * limits.updatesPerSecond);
    bucket.at = now;
    buckets.set(connection, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  // Refusals are logged here, never printed by hocuspocus (./refusals.ts); presence is its sender's own (./presence.ts).
  const hocuspocus = new Hocuspocus<SocketContext>(
    quietRefusals<SocketContext>(log, ownPresence<SocketContext>({
    quiet: true,
    debounce: limits.storeDebounceMs,
    maxDebounce: limits.storeMaxDebounceMs,
    unloadImmediately: true,
    extensions,
    async onAuthenticate({ documentName, context, connectionConfig, token }) {
      let user = context.user;
      if (!user && !context.byToken) return; // the service's own connection
      if (!user) {
        // A socket without a session cookie: the document's auth message must carry a valid token with `read`.
        const found = token && tokens ? await tokens.verify(token) : null;
        if (!found) throw refusal(CLOSE.unauthorized);
        if (!found.token?.scopes.includes('read')) throw refusal(CLOSE.insufficientScope);
        user = found;
      }
      const role = isUuid(documentName) ? await roleOf(user.id, documentName) : null;
      if (!role) throw refusal(CLOSE.permissionDenied);
      // A token without `write` reads only, whatever its user's role.
      if (role === 'viewer' || (user.token && !user.token.scopes.includes('write'))) connectionConfig.readOnly = true;
      // The token's user becomes this document connection's user (presence, revalidate).
      if (!context.user) {
        if (context.gate) context.gate.authenticated = true;
        return { user };
      }
    },
    async connected({ connection }) {
      if (!saving) connection.sendStateless(statelessText({ type: 'saving', ok: false }));
    },
    async onLoadDocument({ documentName, document }) {
      await loadInto(documentName, document);
    },
    async afterLoadDocument({ document }) {
      storeChanges(document);
    },
    async beforeHandleMessage({ update: frame, connection, document }) {
      // A client that sends garbage or floods loses its whole socket (after the document's own close reaches it):
      // each refused frame would otherwise cost a log line. Its provider reconnects and sends its changes again.
      const cutOff = (refusal: Refusal) => {
        setImmediate(() => connection.webSocket.close(refusal.code, refusal.reason));
        return refusal;
      };
      let update: Uint8Array | null;
      try {
        update = frameUpdate(frame);
      } catch {
        throw cutOff(refusal(CLOSE.malformedMessage));
      }
      if (!update) return;
      if (!withinRate(connection)) throw cutOff(refusal(CLOSE.rateLimited)); // a viewer's updates count too
      // A viewer's update is answered "not applied" by hocuspocus, which reads it first: one that does not decode is refused here.
      if (connection.readOnly) return mustDecode(update, () => cutOff(refusal(CLOSE.malformedUpdate)));
      if (queue.full()) throw refusal(CLOSE.notSaving);
      let decoded: ReturnType<typeof Y.decodeUpdate>;
      try {
        decoded = Y.decodeUpdate(update);
      } catch {
        throw cutOff(refusal(CLOSE.malformedUpdate));
      }
      const refused = updateCheck.check(decoded, document);
      if (refused) {
        metrics?.refusedChange?.(refused.reason);
        throw refusal(refused);
      }
    },
    async beforeHandleAwareness({ context, states }) {
      // Presence shows who people are as the service knows them, not as their client says.
      const user = context?.user;
      if (!user) return;
      for (const state of states.values()) {
        const claimed = (typeof state.user === 'object' && state.user !== null ? state.user : {}) as Record<string, unknown>;
        state.user = { ...claimed, id: user.id, name: user.name };
      }
    },
    async afterUnloadDocument({ documentName }) {
      held.delete(documentName);
      changedAt.delete(documentName);
      sizes.delete(documentName);
    },
    async onStoreDocument({ documentName, document }) {
      if (finished) return;
      // While people are here, a log small against the document waits (LiveLimits.compactLogRatio): it stays in the
      // log, which loads as well as a snapshot; the next store looks again.
      if (!closed && document.getConnectionsCount() > 0 && !compactionDue(documentName)) return metrics?.compaction('skipped', 0);
      // Due while editing goes on (hocuspocus's maxDebounce, run from within a change): put off (./compactLater).
      const editing = performance.now() - (changedAt.get(documentName) ?? -Infinity) < limits.storeDebounceMs;
      if (editing && !closed && limits.storeSpreadMs >= 1 && document.getConnectionsCount() > 0) return compactLater(documentName);
      clearTimeout(later.get(documentName));
      later.delete(documentName);
      await compactNow(documentName);
    },
  })));

  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.messageBytes });
  const socketLimits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...limits.socket };
  const anonymous = anonymousSockets(socketLimits.anonymousSocketsPerAddress);

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const from = req.headers.origin;
    if (from !== undefined && from !== origin) return rejectUpgrade(socket, 403);
    const user = await sessions.verify(req.headers.cookie);
    // A session cookie that is not valid stays a 401; without one, a token may authenticate each document.
    if (!user && (!tokens || hasSessionCookie(req.headers.cookie))) return rejectUpgrade(socket, 401);
    if (closed || socket.destroyed) return rejectUpgrade(socket, 503);
    // Sockets waiting to authenticate with a token are counted per client address (./socket-limits.ts).
    const address = clientAddress(req);
    const gate = user ? undefined : { authenticated: false };
    if (gate) {
      const release = anonymous.take(address, gate);
      if (!release) {
        log.warn({ client: address }, 'live socket: refused, too many sockets from this address waiting to authenticate');
        return rejectUpgrade(socket, 429);
      }
      socket.once('close', release);
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const request = new Request(`http://localhost${COLLAB_PATH}`, { headers: from ? { origin: from } : {} });
      const context: SocketContext = user ? { user } : { user: null, byToken: true, gate };
      if (context.gate) {
        // Let in only to authenticate: a socket that does not within the deadline holds nothing of ours any longer.
        const gate = context.gate;
        const deadline = setTimeout(() => {
          if (!gate.authenticated) ws.close(CLOSE.unauthorized.code, CLOSE.unauthorized.reason);
        }, limits.authTimeoutMs ?? 10_000);
        deadline.unref();
        ws.once('close', () => clearTimeout(deadline));
      }
      // Rate, frame checks, send buffer and whole-document answers of this socket (./socket-limits.ts).
      const guard = guardSocket(ws, { limits: socketLimits, log, gate, address });
      const client = hocuspocus.handleConnection(gatedSocket(guard.socket), request, context);
      ws.on('message', (data: Buffer, isBinary) => {
        const frame = guard.admit(data, isBinary);
        if (frame) client.handleMessage(frame);
      });
      ws.on('close', (code, reason) => client.handleClose({ code, reason: reason.toString() }));
      ws.on('error', (err) => {
        guard.failed(err); // e.g. a frame over maxPayload: ws has closed it with 1009
        ws.terminate();
      });
    });
  }

  async function open(projectId: string): Promise<OpenDocument> {
    const connection = await hocuspocus.openDirectConnection(projectId, { user: null });
    const document = connection.document!;
    return {
      doc: document,
      // Synchronous up to the queueing of its stores (no await before them), so a caller that checked the version
      // just before knows no other change came in between.
      change(fn, { step = false } = {}) {
        const stores: Promise<number>[] = [];
        capture = stores;
        try {
          // What DirectConnection.transact does, without its async wrapper: the origin marks a change of the service.
          document.transact(() => fn(document), { source: 'local', context: connection.context });
        } finally {
          capture = null;
        }
        if (stores.length === 0 && step) stores.push(append(projectId, null));
        if (stores.length === 0) return Promise.resolve(null);
        return Promise.all(stores).then((versions) => Math.max(...versions));
      },
      // The document stays in memory until its debounced store (compaction), like one a person left.
      close: () => connection.disconnect({ unloadImmediately: false }),
    };
  }

  return {
    open,
    async read(projectId) {
      const loaded = hocuspocus.documents.get(projectId);
      if (loaded && !loaded.isLoading) return renderCanvas(loaded);
      const stored = await collab.load(projectId);
      if (stored.legacy && !stored.snapshot && stored.updates.length === 0) {
        stored.legacy.nodes.forEach(dropUnsafeImage); // saved before the image rules (canvas-doc renders the same way)
        return { nodes: stored.legacy.nodes, edges: stored.legacy.edges };
      }
      if (!stored.snapshot && stored.updates.length === 0) return null;
      const doc = new Y.Doc();
      try {
        Y.applyUpdate(doc, Y.mergeUpdates([...(stored.snapshot ? [stored.snapshot] : []), ...stored.updates]));
        return renderCanvas(doc);
      } finally {
        doc.destroy();
      }
    },
    async catchUp(projectId, version) {
      const document = hocuspocus.documents.get(projectId);
      const holds = held.get(projectId);
      if (relayed || !document || document.isLoading || holds === undefined || version <= holds) return false;
      const stored = await collab.load(projectId);
      const parts = [...(stored.snapshot ? [stored.snapshot] : []), ...stored.updates];
      // Only what the document lacks is applied (and broadcast to its editors here); it is already stored.
      if (parts.length > 0) Y.applyUpdate(document, Y.mergeUpdates(parts), FROM_DATABASE);
      held.set(projectId, Math.max(stored.version, held.get(projectId) ?? 0));
      return true;
    },
    settled: (projectId) => queue.settled(projectId),
    seq: (projectId) => queue.seq(projectId),
    pending: (projectId) => queue.pending(projectId),
    async revalidate(projectId) {
      const document = hocuspocus.documents.get(projectId);
      if (!document) return;
      await Promise.all(
        document.getConnections().map(async (connection) => {
          const user = (connection.context as SocketContext | undefined)?.user;
          if (!user) return;
          const role = await roleOf(user.id, projectId);
          // The whole socket: the provider reconnects it by itself and is then refused, or let in read-only.
          if (!role) connection.webSocket.close(CLOSE.permissionDenied.code, CLOSE.permissionDenied.reason);
          else if (role === 'viewer' && !connection.readOnly) connection.webSocket.close(CLOSE.roleChanged.code, CLOSE.roleChanged.reason);
          // Nothing it sends while its socket closes is applied (a client may hold the closing handshake up).
          if (!role || role === 'viewer') connection.readOnly = true;
        }),
      );
    },
    connections() {
      const open: OpenConnection[] = [];
      for (const document of hocuspocus.documents.values()) {
        for (const connection of document.getConnections()) {
          const user = (connection.context as SocketContext | undefined)?.user;
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
    mount(server) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = (req.url ?? '').split('?')[0];
        if (path !== COLLAB_PATH && path !== `${COLLAB_PATH}/`) {
          if (server.listenerCount('upgrade') === 1) rejectUpgrade(socket, 404);
          return;
        }
        socket.on('error', () => socket.destroy());
        accept(req, socket, head).catch((err: unknown) => {
          log.error({ err }, 'live documents: an upgrade failed');
          rejectUpgrade(socket, 503);
        });
      });
    },
    disconnectAll() {
      closed = true;
      hocuspocus.closeConnections();
      for (const ws of wss.clients) ws.terminate();
    },
    async close() {
      closed = true;
      for (const timer of later.values()) clearTimeout(timer);
      later.clear();
      hocuspocus.closeConnections();
      for (const ws of wss.clients) ws.terminate();
      // What is queued was never acknowledged; store it if the database lets us, but do not hang on it.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([queue.drain(), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_DRAIN_MS)))]);
      clearTimeout(timer);
      queue.stop();
      // Compact what is open, once; the stores hocuspocus still has scheduled then do nothing (and unload).
      finished = true;
      await Promise.allSettled([...compactions, ...[...hocuspocus.documents.keys()].map((name) => collab.compact(name, limits.restorePointMs))]);
      hocuspocus.flushPendingStores();
      wss.close();
    },
    openCount: () => hocuspocus.documents.size,
    gauges: () => ({ openDocuments: hocuspocus.documents.size, connections: hocuspocus.getConnectionsCount(), unsavedBytes: queue.heldBytes(), saving }),
  };
}
