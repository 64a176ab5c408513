// The live canvas (DESIGN.md §9; docs/api.md "Live canvas"): one Yjs document per project, served by hocuspocus
// on the service's own port at /api/collab. This module composes the hocuspocus server from its extensions, each one
// thing (./extensions/):
//
// - authentication.ts: sign-in on the upgrade (session cookie, Origin, or an API token per document), roles (a
//   viewer's connection is read-only), revalidation and the access sweep's view of open connections;
// - capacity.ts: past LIVE_MAX_OPEN_DOCUMENTS open here, a person's connection to another document is refused
//   (`too-many-documents`) before anything of it is loaded;
// - limits.ts: malformed frames and the change rate of a connection (the socket's own limits are ./socket-limits.ts,
//   applied by ./sockets.ts before hocuspocus sees a frame);
// - presence.ts: presence is its sender's own, and names people as the service knows them;
// - persistence.ts: loading, every change stored in PostgreSQL before its acknowledgement leaves, `not-saving`, the
//   service's own connections (`open`);
// - validation.ts: a change's content against the canvas rules and limits (./update-check.ts);
// - compaction.ts: the log merged into a snapshot, with restore points, when hocuspocus stores a document;
//
// and, with COLLAB_REDIS_URL, hocuspocus's Redis extension, which relays changes and awareness between instances (the
// instance that received a change from its client stores it). Refusals are one line of our log, never hocuspocus's
// console (./refusals.ts); close codes and stateless messages are ./protocol.ts's. Whole-document work on stored bytes
// (merging a snapshot and its log, measuring and rendering a stored document) runs in the document workers
// (./document-workers.ts), which this module starts and, after the last compactions, ends.
import type { IncomingMessage, Server } from 'node:http';
import { Hocuspocus, type Extension } from '@hocuspocus/server';
import type { OpenConnection } from '../auth/access-sweep.js';
import type { TokenVerifier } from '../auth/api-tokens.js';
import type { SessionVerifier } from '../auth/session.js';
import type { ProjectAccess } from '../auth/project-access.js';
import type { CollabRepository } from '../db/repositories/index.js';
import type { LiveGauges, Metrics } from '../metrics.js';
import type { CanvasContent } from './canvas-doc.js';
import { createDocumentWorkers, type DocumentTaskStats } from './document-workers.js';
import { authentication, type AccessChange, type SocketContext } from './extensions/authentication.js';
import { capacity } from './extensions/capacity.js';
import { compaction } from './extensions/compaction.js';
import { limits as frameLimits } from './extensions/limits.js';
import { persistence, type OpenDocument } from './extensions/persistence.js';
import { presence } from './extensions/presence.js';
import { validation } from './extensions/validation.js';
import { statelessText, type StatelessMessage } from './protocol.js';
import { quietRefusals } from './refusals.js';
import { createSockets } from './sockets.js';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './socket-limits.js';

export { COLLAB_PATH, Refusal } from './protocol.js';
export type { OpenDocument } from './extensions/persistence.js';

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
  /**
   * A statement storing changes starts at least this long (ms) after the previous one started: fewer, larger
   * statements under load, each change acknowledged at most this much later (0: as soon as the previous one ended).
   */
  storeIntervalMs?: number;
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
  /**
   * COLLAB_WORKERS: worker threads for whole-document work on stored bytes (./document-workers.ts), at most; 0 runs it
   * on the service's thread (default 1).
   */
  workers?: number;
  /** A socket let in without a session cookie is closed (4401) unless a document authenticated with a token within this (default 10 s). */
  authTimeoutMs?: number;
  /** Documents held in memory before people's connections to another are refused (./extensions/capacity.ts); 0 or unset: no limit. */
  maxOpenDocuments?: number;
  /** What one socket may ask of the service: frame rate, send buffer, whole-document answers, presence, anonymous sockets (./socket-limits.ts). */
  socket?: Partial<SocketLimits>;
}

export interface LiveDeps {
  collab: CollabRepository;
  /** What the user holds on the project (src/auth/project-access.ts): connect with `read`, write with `edit`. */
  accessOf: ProjectAccess['accessOf'];
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
  /**
   * The link between instances (./redis.ts RedisRelay), when there is one: while it is down, every editor here is
   * told (the `relay` message of ./protocol.ts) and documents catch up from the database as without Redis; when it is
   * back, they are told again and every open document catches up from the database.
   */
  relay?: LiveRelay;
  /** Where compactions, refused changes and documents, document tasks and whole-canvas measures are counted (metrics on). */
  metrics?: Pick<Metrics, 'compaction'> & Partial<Pick<Metrics, 'refusedChange' | 'refusedDocument' | 'documentTask' | 'canvasMeasured'>>;
  /** The client's address of an upgrade, as the HTTP side sees it (TRUSTED_PROXIES); default: the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
}

/** The link between instances, as the live documents see it. */
export interface LiveRelay {
  up(): boolean;
  onLink(listener: (up: boolean) => void): void;
}

export interface LiveDocuments {
  /** Opens the project's document as the service (loading it if needed); `close()` it when done. */
  open(projectId: string): Promise<OpenDocument>;
  /** The document's content: from memory when it is open here, otherwise from the database; null when it has none. */
  read(projectId: string): Promise<CanvasContent | null>;
  /** The canvas a stored state (a version's) renders to, rendered in the document workers. */
  renderState(state: Uint8Array): Promise<CanvasContent>;
  /**
   * The `nodes` and `edges` of stored states applied in order, as Yjs gives them (not rendered), read in the document
   * workers: a deleted project's object sweep.
   */
  documentJson(states: readonly Uint8Array[]): Promise<{ nodes: unknown; edges: unknown }>;
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
   * and is refused), and so is that of a viewer whose connection could write (it reconnects read-only) and that of an
   * editor whose connection could not (it reconnects read-write); each is told first, naming `change.by`.
   */
  revalidate: (projectId: string, change?: AccessChange) => Promise<void>;
  /**
   * Every person's document connection open here, with what let it in (`user.session` or `user.token`), its project
   * and whether it may write; ending one makes it read-only and closes its socket (4401 when its credential ended,
   * 4403 when its role did). For the access sweep (src/auth/access-sweep.ts), which runs every revocation poll.
   */
  connections(): OpenConnection[];
  /** Sends a stateless message (src/collab/protocol.ts) to every connection of the project's document open here. */
  tell(projectId: string, message: StatelessMessage): void;
  /** Serves /api/collab on this HTTP server. */
  mount(server: Server): void;
  /** Closes every socket (call before the HTTP server closes). */
  disconnectAll(): void;
  /** Stores what is queued and compacts open documents; after this the module does nothing more. */
  close(): Promise<void>;
  /** Open documents (tests, metrics). */
  openCount(): number;
  /** Whole-document tasks run so far, and where (tests). */
  documentTasks(): DocumentTaskStats;
  /** This instance's live canvas right now (metrics). */
  gauges(): LiveGauges;
}

/** Tells a connection that comes in while the link between instances is down. */
function relayNotice(relay: LiveRelay): Extension {
  return {
    extensionName: 'relay-notice',
    async connected({ connection }) {
      if (!relay.up()) connection.sendStateless(statelessText({ type: 'relay', ok: false }));
    },
  };
}

/** How long `close()` waits for queued changes to be stored before giving up on them (they were never acknowledged). */
const CLOSE_DRAIN_MS = 5_000;

export function createLiveDocuments({
  collab,
  accessOf,
  sessions,
  tokens,
  origin,
  limits,
  log,
  extensions = [],
  relayed = extensions.length > 0,
  relay,
  metrics,
  clientAddress = (req) => req.socket.remoteAddress ?? '',
}: LiveDeps): LiveDocuments {
  const signIn = authentication({ accessOf, sessions, tokens, origin, authTimeoutMs: limits.authTimeoutMs ?? 10_000 });
  const workers = createDocumentWorkers({ workers: limits.workers ?? 1, log, metrics });
  const compactions = compaction({
    collab,
    merge: async (stored) => (await workers.merge(stored, { measure: false })).state,
    settled: (projectId) => stored.settled(projectId),
    restorePointMs: limits.restorePointMs,
    storeDebounceMs: limits.storeDebounceMs,
    storeSpreadMs: limits.storeSpreadMs,
    compactLogRatio: limits.compactLogRatio ?? 0.1,
    metrics,
    log,
  });
  const checks = validation({ nodes: limits.nodes, edges: limits.edges, bytes: limits.canvasBytes, promptChars: limits.promptChars }, metrics);
  const stored = persistence({
    collab,
    workers,
    measured: checks.seed,
    heldBytes: limits.heldBytes,
    storeIntervalMs: limits.storeIntervalMs,
    relayed: () => relayed && (relay?.up() ?? true),
    log,
    onLoaded: (projectId, bytes) => compactions.loaded(projectId, bytes),
  });
  const quiet = quietRefusals(log);
  // In hocuspocus's order (by priority): Redis first; a document connection is let in, then counted against the open
  // documents; then a frame goes through its limits, presence, whether it can be stored, then its content.
  const hocuspocus = new Hocuspocus<SocketContext>({
    quiet: true,
    debounce: limits.storeDebounceMs,
    maxDebounce: limits.storeMaxDebounceMs,
    unloadImmediately: true,
    extensions: [
      ...extensions,
      quiet(signIn),
      capacity({ maxOpenDocuments: limits.maxOpenDocuments ?? 0, metrics, log }),
      quiet(frameLimits({ updatesPerSecond: limits.updatesPerSecond })),
      quiet(presence<SocketContext>()),
      quiet(stored),
      quiet(checks),
      compactions,
      ...(relay ? [relayNotice(relay)] : []),
    ],
  });
  relay?.onLink((up) => {
    const message = statelessText({ type: 'relay', ok: up });
    // To this instance's connections only (broadcastStateless would also publish it through Redis).
    for (const document of hocuspocus.documents.values()) for (const connection of document.getConnections()) connection.sendStateless(message);
    if (up) void catchUpAll();
  });
  /** The link is back: every open document applies what the database holds (changes stored elsewhere meanwhile). */
  async function catchUpAll() {
    for (const projectId of [...hocuspocus.documents.keys()]) {
      await stored.resync(projectId).catch((err: unknown) => log.warn({ err, projectId }, 'live document: could not catch up from the database'));
    }
  }
  const sockets = createSockets({
    hocuspocus,
    authentication: signIn,
    messageBytes: limits.messageBytes,
    limits: { ...DEFAULT_SOCKET_LIMITS, ...limits.socket },
    log,
    clientAddress,
  });

  return {
    open: (projectId) => stored.open(projectId),
    read: (projectId) => stored.read(projectId),
    renderState: (state) => workers.render({ snapshot: state, updates: [] }),
    documentJson: (states) => workers.json({ snapshot: null, updates: states }),
    catchUp: (projectId, version) => stored.catchUp(projectId, version),
    settled: (projectId) => stored.settled(projectId),
    seq: (projectId) => stored.seq(projectId),
    pending: (projectId) => stored.pending(projectId),
    async revalidate(projectId, change) {
      const document = hocuspocus.documents.get(projectId);
      if (document) await signIn.revalidate(document, change);
    },
    connections: () => signIn.connections(hocuspocus.documents.values()),
    tell(projectId, message) {
      hocuspocus.documents.get(projectId)?.broadcastStateless(statelessText(message));
    },
    mount: (server) => sockets.mount(server),
    disconnectAll() {
      compactions.closing();
      sockets.closeAll();
    },
    async close() {
      compactions.stop();
      sockets.closeAll();
      // What is queued was never acknowledged; store it if the database lets us, but do not hang on it.
      await stored.close(CLOSE_DRAIN_MS);
      // Compact what is open, once; the stores hocuspocus still has scheduled then do nothing (and unload).
      await compactions.finish(hocuspocus.documents.keys());
      hocuspocus.flushPendingStores();
      sockets.close();
      await workers.close();
    },
    openCount: () => hocuspocus.documents.size,
    documentTasks: () => workers.stats(),
    gauges: () => ({ openDocuments: hocuspocus.documents.size, connections: hocuspocus.getConnectionsCount(), unsavedBytes: stored.heldBytes(), saving: stored.saving() }),
  };
}
