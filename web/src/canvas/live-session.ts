// One open live canvas (DESIGN.md §9): the project's Yjs document, kept in step with the service by a
// HocuspocusProvider on `/api/collab/<projectId>` (document name = project id, also in the URL so that a load balancer
// keeps the canvas on one instance; signed in by the session cookie the browser sends with the upgrade), and what
// the editor needs around it — the document mirrored as plain nodes and edges, undo/redo of this tab's own changes
// only, the connection's state for the header, and presence. No React here: the hooks read these stores with
// useSyncExternalStore.
import { HocuspocusProvider, WebSocketStatus } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { canvasMaps } from '../../../src/collab/canvas-doc';
import { CLOSE, collabPath, readStateless, type AccessMessage, type RestoredMessage } from '../../../src/collab/protocol';
import { api } from '../api/client';
import { loadClientConfig } from '../hooks/use-client-config';
import type { ConnectionState } from './connection';
import { DEFAULT_CANVAS_LIMITS, fitElements, limitPatch, refusalText, Throttle, type CanvasLimits } from './live-limits';
import { addElements, CanvasMirror, moveNodes, removeElements, setNodeData, type XY } from './live-doc';
import { numberNewNodes } from './names';
import { peersOf, selectionToSend, type Peer, type PresenceUser } from './presence';

/** A value that React reads with useSyncExternalStore: `get` returns the same object until it changes. */
export class Store<T> {
  private readonly listeners = new Set<() => void>();
  constructor(private value: T) {}
  get = (): T => this.value;
  set(value: T): void {
    if (value === this.value) return;
    this.value = value;
    for (const listener of this.listeners) listener();
  }
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

export interface CanvasSnapshot {
  nodes: Record<string, unknown>[];
  edges: Record<string, unknown>[];
}

/** Typing into one prompt, or nudging with the arrow keys, within this long is one undo step. */
const COALESCE_MS = 1500;
/** How often a dropped socket may make us ask whether the session itself has ended. */
const SESSION_CHECK_MS = 15_000;

export class LiveSession {
  readonly doc = new Y.Doc();
  readonly provider: HocuspocusProvider;
  /** The origin of this tab's undoable changes: the only one the undo manager tracks. */
  readonly origin = { source: 'editor' };
  /** The origin of this tab's changes that are not steps of its own (a new node's first image, a late generation result). */
  readonly quiet = { source: 'editor-quiet' };
  readonly undoManager: Y.UndoManager;
  readonly connection: Store<ConnectionState>;
  readonly canvas: Store<CanvasSnapshot>;
  readonly history = new Store({ canUndo: false, canRedo: false });
  readonly peers = new Store<Peer[]>([]);
  /**
   * Why the service refused a change of this tab's (docs/api.md, the rules table). The provider would keep the change
   * and resend it on every reconnect, so the page drops this session — its document and unsent changes — and opens
   * the document again (use-live-session.ts). Null when all is well.
   */
  readonly refused = new Store<string | null>(null);
  /** Why the session before this one was dropped (a refused change): said until dismissed. */
  readonly reloaded: Store<string | null>;
  /** A change this tab did not make because the canvas could not take it (too many nodes): said once, until dismissed. */
  readonly notice = new Store<string | null>(null);
  /**
   * What this person may now do, when someone changed it while they were here (removed them, changed their role,
   * deleted the project): the service's AccessMessage, or what its close alone said. Shown until dismissed.
   */
  readonly access = new Store<AccessMessage | null>(null);
  /** The last restore of a version someone made while we were here (the service's RestoredMessage): shown until dismissed. */
  readonly restored = new Store<RestoredMessage | null>(null);
  private readonly userId: string;
  /** The canvas limits of GET /api/client-config (the service's defaults until it answers). */
  limits: CanvasLimits = DEFAULT_CANVAS_LIMITS;

  private readonly mirror: CanvasMirror;
  private readonly cleanups: Array<() => void> = [];
  private lastStep = { key: '', at: 0, sameEvent: false };
  private pendingMoves = new Map<string, XY>();
  /** A drag's positions and our pointer are written at most ~30 times a second (live-limits.ts LIVE_WRITE_MS). */
  private readonly moveWrites = new Throttle(() => this.writeMoves());
  private pendingCursor: XY | null | undefined;
  private readonly cursorWrites = new Throttle(() => this.provider.awareness?.setLocalStateField('cursor', this.pendingCursor ?? null));
  private selection: string[] = [];
  private lastSessionCheck = 0;
  /** Our own restore, while Ctrl+Z undoes it (until our next step of our own). */
  private restoreToUndo: RestoredMessage | null = null;
  /** The version our undo of a restore restores: its broadcast says "undone", not "restored". */
  private undoing: string | null = null;

  constructor(
    readonly projectId: string,
    user: PresenceUser,
    /** The refusal that made the page drop the previous session of this project, if one did. */
    reloadedAfter: string | null = null,
  ) {
    this.reloaded = new Store(reloadedAfter);
    this.userId = user.id;
    const { nodes, edges } = canvasMaps(this.doc);
    this.mirror = new CanvasMirror(this.doc);
    this.canvas = new Store<CanvasSnapshot>({ nodes: this.mirror.nodes, edges: this.mirror.edges });
    const observe = (root: Y.Map<unknown>, collection: 'nodes' | 'edges') => {
      const observer = (events: Array<Y.YEvent<Y.AbstractType<unknown>>>) => {
        if (this.mirror.update(collection, events)) this.canvas.set({ nodes: this.mirror.nodes, edges: this.mirror.edges });
      };
      root.observeDeep(observer);
      this.cleanups.push(() => root.unobserveDeep(observer));
    };
    observe(nodes, 'nodes');
    observe(edges, 'edges');

    // Steps are delimited by `step()` (a new user action), never by time: a drag with pauses stays one step.
    this.undoManager = new Y.UndoManager([nodes, edges], { trackedOrigins: new Set([this.origin]), captureTimeout: Number.POSITIVE_INFINITY });
    for (const event of ['stack-item-added', 'stack-item-popped', 'stack-cleared'] as const) this.undoManager.on(event, this.refreshHistory);

    this.connection = new Store<ConnectionState>({
      socket: 'connecting',
      synced: false,
      loaded: false,
      unsynced: 0,
      saving: true,
      relayed: true,
      scope: null,
      denied: false,
      busy: false,
      online: navigator.onLine,
    });
    const url = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}${collabPath(projectId)}`;
    this.provider = new HocuspocusProvider({ url, name: projectId, document: this.doc });
    const patch = (change: Partial<ConnectionState>) => this.connection.set({ ...this.connection.get(), ...change });
    this.provider.on('status', ({ status }: { status: WebSocketStatus }) => {
      const socket = status === WebSocketStatus.Connected ? 'connected' : status === WebSocketStatus.Connecting ? 'connecting' : 'disconnected';
      // A closed socket forgets the service's "not saving" and "not relayed": the next connection starts afresh.
      patch(socket === 'connected' ? { socket } : { socket, synced: false, saving: true, relayed: true });
      if (socket === 'disconnected') this.checkSession();
    });
    this.provider.on('synced', () => patch({ synced: true, loaded: true }));
    this.provider.on('unsyncedChanges', ({ number }: { number: number }) => {
      patch({ unsynced: number });
      if (number === 0) this.refused.set(null); // everything of ours is stored: a refusal is behind us
    });
    // The service closing our document's connection: a refused change would be refused again on every reconnect.
    this.provider.on('close', ({ event }: { event?: { reason?: unknown } }) => {
      const text = refusalText(event?.reason);
      if (text) this.refused.set(text);
      // Ended by another instance's access sweep (no message came first): the close alone says what changed.
      if (this.access.get() === null && event?.reason === CLOSE.permissionDenied.reason) this.access.set({ type: 'access', access: 'none' });
      if (this.access.get() === null && event?.reason === CLOSE.roleChanged.reason && this.connection.get().scope === 'read-write') {
        this.access.set({ type: 'access', access: 'view' });
      }
      // No room on the service for one more canvas: not a refusal of ours, the provider tries again until let in.
      if (event?.reason === CLOSE.tooManyDocuments.reason) patch({ busy: true });
    });
    this.provider.on('authenticated', ({ scope }: { scope: 'read-write' | 'readonly' }) => patch({ scope, denied: false, busy: false }));
    this.provider.on('authenticationFailed', () => patch({ denied: true }));
    // The service's stateless messages (src/collab/protocol.ts); anything else is not ours and is ignored.
    this.provider.on('stateless', ({ payload }: { payload: string }) => {
      const message = readStateless(payload);
      if (message?.type === 'saving') patch({ saving: message.ok });
      if (message?.type === 'relay') patch({ relayed: message.ok });
      if (message?.type === 'access') this.access.set(message);
      if (message?.type === 'restored') this.onRestored(message);
    });

    // Browsers do not close a WebSocket when the network goes: do it ourselves, and come back when it returns.
    const socket = this.provider.configuration.websocketProvider;
    const offline = () => {
      patch({ online: false });
      socket.disconnect();
    };
    const online = () => {
      patch({ online: true });
      void socket.connect();
    };
    window.addEventListener('offline', offline);
    window.addEventListener('online', online);
    this.cleanups.push(() => {
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
    });

    // Presence: who we are; our pointer and selection follow.
    this.provider.awareness?.setLocalState({ user, cursor: null, selection: [] });
    const peers = () => {
      const awareness = this.provider.awareness;
      if (!awareness) return;
      const next = peersOf(awareness.getStates(), awareness.clientID);
      if (JSON.stringify(next) !== JSON.stringify(this.peers.get())) this.peers.set(next);
    };
    this.provider.awareness?.on('change', peers);

    void loadClientConfig().then((config) => {
      if (config?.canvas) this.limits = config.canvas;
    });
  }

  /**
   * Starts a new undo step, before a change of this tab's own. Several calls in one event (a node and its edges
   * deleted together) make one step, and calls with the same `key` less than `within` ms apart (typing a prompt,
   * nudging a node with the keyboard) coalesce into one, unless `fresh` starts a new one (typing after a focus change).
   */
  step(key = '', { within = COALESCE_MS, fresh = false }: { within?: number; fresh?: boolean } = {}): void {
    const now = Date.now();
    if (this.lastStep.sameEvent) return;
    if (key && !fresh && key === this.lastStep.key && now - this.lastStep.at < within) {
      this.lastStep.at = now;
      return;
    }
    this.undoManager.stopCapturing();
    if (this.restoreToUndo) {
      this.restoreToUndo = null; // a step of our own after our restore: Ctrl+Z undoes that step first
      this.refreshHistory();
    }
    this.lastStep = { key, at: now, sameEvent: true };
    queueMicrotask(() => {
      this.lastStep.sameEvent = false;
    });
  }

  /**
   * Undoes this tab's last change that can still be undone. A change someone else has since overwritten (a
   * prompt they typed over) is skipped, not reverted over their work: Y.UndoManager goes on to the one before.
   */
  undo = (): void => {
    if (this.restoreToUndo) {
      void this.undoRestore();
      return;
    }
    this.flushMoves();
    this.undoManager.undo();
    this.lastStep = { key: '', at: 0, sameEvent: false };
    this.refreshHistory(); // a pop that changed nothing emits no event
  };

  redo = (): void => {
    this.flushMoves();
    this.undoManager.redo();
    this.lastStep = { key: '', at: 0, sameEvent: false };
    this.refreshHistory();
  };

  private readonly refreshHistory = () => {
    const { canUndo, canRedo } = this.history.get();
    const undoable = this.undoManager.canUndo() || this.restoreToUndo !== null;
    if (canUndo !== undoable || canRedo !== this.undoManager.canRedo()) {
      this.history.set({ canUndo: undoable, canRedo: this.undoManager.canRedo() });
    }
  };

  /** Someone restored a version (the service's message): said to everyone; our own can be undone (Ctrl+Z, or Undo). */
  private onRestored(message: RestoredMessage): void {
    if (message.version === this.undoing) {
      this.undoing = null;
      this.restored.set(null);
      this.notice.set('Restore undone: the canvas is back as it was before it.');
      return;
    }
    this.restored.set(message);
    this.restoreToUndo = message.userId === this.userId ? message : null;
    this.refreshHistory();
  }

  /**
   * Undoes our last restore (its message's `before`: the canvas as it was just before, kept as a version), as a new
   * change everyone sees. A refusal (a viewer now, the history full) is said in `notice`.
   */
  undoRestore = async (message: RestoredMessage | null = this.restored.get()): Promise<void> => {
    if (!message || message.userId !== this.userId) return;
    this.restoreToUndo = null;
    this.refreshHistory();
    this.undoing = message.before;
    const params = { path: { projectId: this.projectId, versionId: message.before } };
    try {
      const { error } = await api.POST('/api/user/project/{projectId}/versions/{versionId}/restore', { params });
      if (error) throw new Error(error.error);
    } catch (err) {
      this.undoing = null;
      this.notice.set(`Could not undo the restore: ${(err as Error).message}`);
    }
  };

  /**
   * Adds nodes and edges, fitted to what the live canvas takes (live-limits.ts `fitElements`). Returns false, and
   * says why in `notice`, when the canvas would have more nodes or edges than the service allows: nothing is added.
   */
  add(elements: { nodes?: Record<string, unknown>[]; edges?: Record<string, unknown>[] }): boolean {
    const fitted = fitElements({ ...elements, nodes: numberNewNodes(this.mirror.nodes, elements.nodes ?? []) }, this.limits);
    const { nodes, edges } = canvasMaps(this.doc);
    const newOnes = (list: Record<string, unknown>[], root: Y.Map<unknown>) => list.filter((e) => !root.has(e.id as string)).length;
    if (nodes.size + newOnes(fitted.nodes, nodes) > this.limits.maxNodes) {
      this.notice.set(`Not added: a canvas holds at most ${this.limits.maxNodes.toLocaleString('en-US')} nodes.`);
      return false;
    }
    if (edges.size + newOnes(fitted.edges, edges) > this.limits.maxEdges) {
      this.notice.set(`Not added: a canvas holds at most ${this.limits.maxEdges.toLocaleString('en-US')} connections.`);
      return false;
    }
    addElements(this.doc, fitted, this.origin);
    return true;
  }

  remove(elements: { nodes?: string[]; edges?: string[] }): void {
    removeElements(this.doc, elements, this.origin);
  }

  /** Sets keys of a node's data: a step of this tab's (`tracked`, the default) or a change it never undoes (`quiet`). */
  setData(id: string, patch: Record<string, unknown>, tracked = true): boolean {
    const node = canvasMaps(this.doc).nodes.get(id);
    const type: unknown = node instanceof Y.Map ? node.get('type') : undefined;
    return setNodeData(this.doc, id, limitPatch(patch, this.limits, type), tracked ? this.origin : this.quiet);
  }

  /**
   * A node dragged to `position`: written at most every LIVE_WRITE_MS, whatever the display's frame rate (the drag
   * itself is drawn from xyflow's local state every frame); `flushMoves` writes at once.
   */
  queueMove(id: string, position: XY): void {
    this.pendingMoves.set(id, { x: position.x, y: position.y });
    this.moveWrites.request();
  }

  flushMoves(): void {
    this.moveWrites.flush();
    this.writeMoves();
  }

  private writeMoves(): void {
    if (this.pendingMoves.size === 0) return;
    const moves = this.pendingMoves;
    this.pendingMoves = new Map();
    moveNodes(this.doc, moves, this.origin);
  }

  /** Our pointer on the canvas (flow coordinates), or null when it left: sent at most every LIVE_WRITE_MS. */
  setCursor(cursor: XY | null): void {
    this.pendingCursor = cursor;
    this.cursorWrites.request();
  }

  setSelection(ids: string[]): void {
    if (ids.length === this.selection.length && ids.every((id, i) => id === this.selection[i])) return;
    this.selection = ids;
    this.provider.awareness?.setLocalStateField('selection', selectionToSend(ids));
  }

  /** A dropped socket may be a session that ended: ask (at most every 15 s), and a 401 signs the page out. */
  private checkSession(): void {
    const now = Date.now();
    if (!navigator.onLine || now - this.lastSessionCheck < SESSION_CHECK_MS) return;
    this.lastSessionCheck = now;
    // The API client reports a 401 to the session (onUnauthorized); anything else needs nothing here.
    void api.GET('/api/user/session').catch(() => undefined);
  }

  destroy(): void {
    this.flushMoves();
    this.cursorWrites.cancel();
    for (const cleanup of this.cleanups) cleanup();
    this.undoManager.destroy();
    this.provider.destroy();
    this.doc.destroy();
  }
}
