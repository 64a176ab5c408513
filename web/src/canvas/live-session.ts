// One open live canvas (DESIGN.md §9): the project's Yjs document, kept in step with the service by a
// HocuspocusProvider on `/api/collab` (document name = project id; signed in by the session cookie the browser
// sends with the upgrade), and what the editor needs around it — the document mirrored as plain nodes and edges,
// undo/redo of this tab's own changes only, the connection's state for the header, and presence. No React here:
// the hooks read these stores with useSyncExternalStore.
import { HocuspocusProvider, WebSocketStatus } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { canvasMaps } from '../../../src/collab/canvas-doc';
import { api } from '../api/client';
import type { ConnectionState } from './connection';
import { addElements, CanvasMirror, moveNodes, removeElements, setNodeData, type XY } from './live-doc';
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

  private readonly mirror: CanvasMirror;
  private readonly cleanups: Array<() => void> = [];
  private lastStep = { key: '', at: 0, sameEvent: false };
  private pendingMoves = new Map<string, XY>();
  private moveFrame = 0;
  private pendingCursor: XY | null | undefined;
  private cursorFrame = 0;
  private selection: string[] = [];
  private lastSessionCheck = 0;

  constructor(
    readonly projectId: string,
    user: PresenceUser,
  ) {
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
      scope: null,
      denied: false,
      online: navigator.onLine,
    });
    const url = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}/api/collab`;
    this.provider = new HocuspocusProvider({ url, name: projectId, document: this.doc });
    const patch = (change: Partial<ConnectionState>) => this.connection.set({ ...this.connection.get(), ...change });
    this.provider.on('status', ({ status }: { status: WebSocketStatus }) => {
      const socket = status === WebSocketStatus.Connected ? 'connected' : status === WebSocketStatus.Connecting ? 'connecting' : 'disconnected';
      // A closed socket forgets the service's "not saving": the next connection starts afresh.
      patch(socket === 'connected' ? { socket } : { socket, synced: false, saving: true });
      if (socket === 'disconnected') this.checkSession();
    });
    this.provider.on('synced', () => patch({ synced: true, loaded: true }));
    this.provider.on('unsyncedChanges', ({ number }: { number: number }) => patch({ unsynced: number }));
    this.provider.on('authenticated', ({ scope }: { scope: 'read-write' | 'readonly' }) => patch({ scope, denied: false }));
    this.provider.on('authenticationFailed', () => patch({ denied: true }));
    this.provider.on('stateless', ({ payload }: { payload: string }) => {
      try {
        const message = JSON.parse(payload) as { type?: unknown; ok?: unknown };
        if (message.type === 'saving' && typeof message.ok === 'boolean') patch({ saving: message.ok });
      } catch {
        // Not ours: ignored.
      }
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
    if (canUndo !== this.undoManager.canUndo() || canRedo !== this.undoManager.canRedo()) {
      this.history.set({ canUndo: this.undoManager.canUndo(), canRedo: this.undoManager.canRedo() });
    }
  };

  add(elements: { nodes?: Record<string, unknown>[]; edges?: Record<string, unknown>[] }): void {
    addElements(this.doc, elements, this.origin);
  }

  remove(elements: { nodes?: string[]; edges?: string[] }): void {
    removeElements(this.doc, elements, this.origin);
  }

  /** Sets keys of a node's data: a step of this tab's (`tracked`, the default) or a change it never undoes (`quiet`). */
  setData(id: string, patch: Record<string, unknown>, tracked = true): boolean {
    return setNodeData(this.doc, id, patch, tracked ? this.origin : this.quiet);
  }

  /** A node dragged to `position`: written at most once per animation frame (`flushMoves` writes at once). */
  queueMove(id: string, position: XY): void {
    this.pendingMoves.set(id, { x: position.x, y: position.y });
    if (!this.moveFrame) this.moveFrame = requestAnimationFrame(() => this.flushMoves());
  }

  flushMoves(): void {
    cancelAnimationFrame(this.moveFrame);
    this.moveFrame = 0;
    if (this.pendingMoves.size === 0) return;
    const moves = this.pendingMoves;
    this.pendingMoves = new Map();
    moveNodes(this.doc, moves, this.origin);
  }

  /** Our pointer on the canvas (flow coordinates), or null when it left: sent at most once per animation frame. */
  setCursor(cursor: XY | null): void {
    this.pendingCursor = cursor;
    if (this.cursorFrame) return;
    this.cursorFrame = requestAnimationFrame(() => {
      this.cursorFrame = 0;
      this.provider.awareness?.setLocalStateField('cursor', this.pendingCursor ?? null);
    });
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
    cancelAnimationFrame(this.cursorFrame);
    for (const cleanup of this.cleanups) cleanup();
    this.undoManager.destroy();
    this.provider.destroy();
    this.doc.destroy();
  }
}
