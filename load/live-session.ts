// One editor's tab on the live document, as the web client has it: a WebSocket to /api/collab/<projectId> (the `ws` package,
// with the session cookie and our Origin on the upgrade, as a browser sends them), a HocuspocusProviderWebsocket
// over it, and a HocuspocusProvider attached to it for the project's Y.Doc. Several providers may share one
// socket (the memory measurement opens many documents on one). Around that, what the load client measures:
//
// - Acknowledgements. The provider counts an unsynced change per update it sends and drops one per SyncStatus
//   frame; the server sends SyncStatus only once the update is stored in PostgreSQL. Each session keeps its
//   edits in send order and takes the oldest off at every SyncStatus frame (read from the provider's `message`
//   event), so each edit knows when it was acknowledged. A connection that drops moves its unacknowledged edits
//   aside; they count as acknowledged once the provider, connected again, reports no unsynced changes.
// - Arrivals. Every edit writes a value no other edit writes; the room keeps, per value, when it was sent and
//   how many other editors still have to see it. Each session watches its document (observeDeep on `nodes`,
//   remote transactions only) and times the values it sees arrive — one process, one clock.
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { COLLAB_PATH, collabPath } from '../src/collab/protocol.js';
import { editedPrompt, movedPosition, positionKey, promptKey, readFrameHead, slotNodes, Track, type Field, MESSAGE_SYNC_STATUS } from './live-plan.js';

// ---------------------------------------------------------------------------------------------------------
// What a batch of edits records

export class Recorder {
  readonly latencies: number[] = [];
  /** When each timed edit was sent (same order as `latencies`): the timeline of a batch. */
  readonly sentAts: number[] = [];
  readonly acks: number[] = [];
  readonly lags: number[] = [];
  edits = 0;
  acked = 0;
  skipped = 0;
  errors = 0;
  readonly errorKinds: Record<string, number> = {};
  readonly firstErrors: string[] = [];
  updateBytes = 0;
  /** Peers' updates, after the first sync, that no editor of the room wrote: the service's own writes (a graph run's, LOAD_RUNS). */
  serviceUpdates = 0;
  private waiter: (() => void) | undefined;

  /** `count` errors of one kind (e.g. edits never acknowledged), described once. */
  fail(kind: string, message: string, count = 1): void {
    if (count <= 0) return;
    this.errors += count;
    this.errorKinds[kind] = (this.errorKinds[kind] ?? 0) + count;
    if (this.firstErrors.length < 8) this.firstErrors.push(`${kind}: ${message}`);
  }

  /** Something a waiter may be waiting for happened (an acknowledgement, an arrival, a state change). */
  notify(): void {
    this.waiter?.();
  }

  /** Resolves when `done()` holds (checked at each notification) or after `timeoutMs`; answers whether it held. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(ok);
      };
      const timer = setTimeout(() => finish(done()), timeoutMs);
      this.waiter = () => {
        if (done()) finish(true);
      };
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Rooms: one project, its nodes' fields and who writes them

interface NodeFields {
  id: string;
  base: { x: number; y: number };
  basePrompt: string | undefined;
  position: Track;
  prompt: Track | undefined;
}

interface InFlight {
  sentAt: number;
  /** Other editors of the room that have not seen it yet. */
  remaining: number;
}

export const regKey = (nodeId: string, field: Field, key: string) => `${nodeId}\u0000${field}\u0000${key}`;

export class LiveRoom {
  /** The room's nodes sorted by id, as first seen (undefined before the first sync). */
  nodes: NodeFields[] | undefined;
  nodeCount = 0;
  edgeCount = 0;
  readonly inFlight = new Map<string, InFlight>();
  /** The sessions of the current batch. */
  members: EditorSession[] = [];
  /**
   * The room's one document in this load client when its editors speak the wire protocol (live-wire.ts): every
   * editor of the room makes its edits here under its own Yjs client id, so the client holds one copy of the
   * canvas per room instead of one per editor.
   */
  private sharedDoc: Y.Doc | undefined;

  constructor(
    readonly index: number,
    readonly projectId: string,
    readonly capacity: number,
    readonly ownerCookie: string,
    /** Nodes the service writes (a graph run's chain, LOAD_RUN_ROOMS): no editor edits them, no check reads their fields. */
    private readonly serviceNodes: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * Takes the nodes' starting values from a synced document; answers a problem, if any. The service's nodes count
   * in the canvas's shape but are not the editors' to write: its run writes their `data` while the editors edit.
   */
  init(doc: Y.Doc): string | undefined {
    if (this.nodes) return undefined;
    const nodes: NodeFields[] = [];
    let serviceNodes = 0;
    doc.getMap('nodes').forEach((value, id) => {
      if (!(value instanceof Y.Map)) return;
      if (this.serviceNodes.has(id)) {
        serviceNodes++;
        return;
      }
      const position = value.get('position') as { x: number; y: number } | undefined;
      const data = value.get('data');
      const prompt = data instanceof Y.Map ? (data.get('prompt') as unknown) : undefined;
      nodes.push({
        id,
        base: { x: Number(position?.x ?? 0), y: Number(position?.y ?? 0) },
        basePrompt: typeof prompt === 'string' ? prompt : undefined,
        position: new Track(positionKey(position)),
        prompt: typeof prompt === 'string' ? new Track(promptKey(prompt)) : undefined,
      });
    });
    nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.nodes = nodes;
    this.nodeCount = nodes.length + serviceNodes;
    this.edgeCount = doc.getMap('edges').size;
    if (nodes.length === 0) return `room ${this.index}: the document has no nodes after the first sync (was it seeded?)`;
    return serviceNodes === this.serviceNodes.size ? undefined : `room ${this.index}: ${serviceNodes} of the run's ${this.serviceNodes.size} nodes are in the document after the first sync`;
  }

  /** The fields an editor in `slot` writes: its nodes to move, and those of them with a prompt. */
  assignment(slot: number): { moves: NodeFields[]; prompts: NodeFields[] } {
    const moves = slotNodes(this.nodes ?? [], this.capacity, slot % this.capacity);
    return { moves, prompts: moves.filter((n) => n.prompt) };
  }

  get doc(): Y.Doc {
    return (this.sharedDoc ??= new Y.Doc());
  }

  /** Drops the shared document (a new step starts from a fresh sync). */
  forgetDoc(): void {
    this.sharedDoc?.destroy();
    this.sharedDoc = undefined;
  }

  /** An edit (`k`, as its sender registered it in `inFlight`) arrived at one of the editors: time it if it is still on its way. */
  arrived(k: string, now: number, recorder: Recorder): void {
    const f = this.inFlight.get(k);
    if (!f) return;
    recorder.latencies.push(now - f.sentAt);
    recorder.sentAts.push(f.sentAt);
    if (--f.remaining <= 0) {
      this.inFlight.delete(k);
      recorder.notify();
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// An editor (persistent across steps) and its session (one connection, one step)

export interface EditorState {
  /** Unique among the load client's editors; part of every edit id. */
  tag: string;
  userId: string;
  name: string;
  cookie: string;
  slot: number;
  /** Edits this editor ever made: the source of unique values, and of the move/prompt alternation. */
  seq: number;
}

interface Pending {
  track: Track;
  key: string;
  seq: number;
  sentAt: number;
}

export const EDIT = Symbol('load edit');
export const COLORS = ['#e11d48', '#2563eb', '#16a34a', '#d97706', '#7c3aed'];

/** Every socket the load client has open (to wait, bounded, for all of them to close). */
const openSockets = new Set<WebSocket>();
let socketClosed: (() => void) | undefined;

export const openSocketCount = () => openSockets.size;

/** Resolves when no socket is open any more, or after `timeoutMs`; answers how many are still open. */
export function socketsClosed(timeoutMs: number): Promise<number> {
  if (openSockets.size === 0) return Promise.resolve(0);
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      socketClosed = undefined;
      resolve(openSockets.size);
    };
    const timer = setTimeout(finish, timeoutMs);
    socketClosed = () => {
      if (openSockets.size === 0) finish();
    };
  });
}

/** A `ws` WebSocket that sends what a browser tab of ours sends on the upgrade: its cookie and our Origin. */
export function browserLikeSocket(headers: Record<string, string>, onError: (message: string) => void) {
  return class extends WebSocket {
    constructor(url: string) {
      super(url, { headers });
      openSockets.add(this);
      this.once('close', () => {
        openSockets.delete(this);
        socketClosed?.();
      });
      // Always listened to: an 'error' without a listener would end the process (e.g. a refused upgrade).
      this.on('error', (err: Error) => onError(err.message));
    }
  };
}

/**
 * LOAD_COLLAB_URL: `project` (default) — each editor's socket on /api/collab/<projectId>, as the web client, which a
 * load balancer can route by project (deploy/nginx.conf); `shared` — /api/collab, as older clients, for comparisons.
 * Read in the runner and in each load client (they inherit its environment).
 */
export function collabUrlSetting(raw = process.env.LOAD_COLLAB_URL): 'project' | 'shared' {
  const value = (raw ?? '').trim() || 'project';
  if (value !== 'project' && value !== 'shared') throw new Error(`LOAD_COLLAB_URL must be project or shared, got "${raw}"`);
  return value;
}
const collabUrlKind = collabUrlSetting();

/** The live socket's URL for the document of `projectId` (LOAD_COLLAB_URL); null: a socket for several documents (/api/collab). */
export function collabUrl(origin: string, projectId: string | null): string {
  const ws = origin.replace(/^http/, 'ws');
  return projectId === null || collabUrlKind === 'shared' ? `${ws}${COLLAB_PATH}` : `${ws}${collabPath(projectId)}`;
}

/** A socket for the documents of `projectId` only, or (null) for several (/api/collab). */
export function openSocket(origin: string, cookie: string, projectId: string | null, onError: (message: string) => void): HocuspocusProviderWebsocket {
  return new HocuspocusProviderWebsocket({
    url: collabUrl(origin, projectId),
    WebSocketPolyfill: browserLikeSocket({ cookie, origin }, onError),
  });
}

/**
 * What every kind of editor session shares: which fields it writes, what one edit writes (a move or a prompt,
 * made in `doc`), the edits waiting for their acknowledgement, and what counts as an error. A subclass
 * connects, and says how an edit leaves and how its arrival at a peer is recognised.
 */
export abstract class EditorSession {
  /** The document this session's edits are made in (its own, or its room's shared one). */
  abstract readonly doc: Y.Doc;
  /** The Yjs client id this editor's edits are written under. */
  abstract readonly clientId: number;
  /** Connected, signed in, synced, and nothing of the handshake unacknowledged. */
  abstract readonly ready: boolean;
  /** The scope the server granted ('read-write' for an editor), once signed in. */
  abstract readonly scope: string | undefined;
  /** Nothing sent that the server has not acknowledged, and the connection up. */
  abstract readonly settled: boolean;
  /** Resolves (bounded) once the session is ready; answers the problem when it is not. */
  abstract waitReady(timeoutMs: number): Promise<string | undefined>;
  abstract destroy(): void;
  /** Just before an edit's transaction (the wire editor takes its client id in the shared document). */
  protected abstract beginEdit(): void;
  /** The key under which the room waits for this edit at the peers (`inFlight`); `field`/`key` say what it wrote. */
  protected abstract arrivalKey(nodeId: string, field: Field, key: string): string;

  protected outstanding: Pending[] = [];
  protected unconfirmed: Pending[] = [];
  /** The connection dropped (or the server closed the document): no edits until it is synced again. */
  broken = false;
  protected closing = false;
  private moves: NodeFields[] = [];
  private prompts: NodeFields[] = [];

  constructor(
    readonly room: LiveRoom,
    readonly editor: EditorState,
    protected readonly recorder: () => Recorder,
  ) {}

  get writable(): boolean {
    return this.scope === 'read-write';
  }

  /** Edits sent and not acknowledged yet (waiting for a reconnection included). */
  get unacknowledged(): number {
    return this.outstanding.length + this.unconfirmed.length;
  }

  /** Not ready when the edits start: the session waits, as after a dropped connection, until it is. */
  holdUntilReady(): void {
    if (!this.ready) this.broken = true;
  }

  /** Picks the nodes this editor writes (after the room knows its nodes). */
  assign(): void {
    ({ moves: this.moves, prompts: this.prompts } = this.room.assignment(this.editor.slot));
  }

  /** One small edit: a move (set `position` on the node's map) or a prompt (set `prompt` in its `data` map), alternately. */
  edit(peers: number): void {
    const recorder = this.recorder();
    if (this.broken || this.moves.length === 0) {
      recorder.skipped++;
      return;
    }
    const seq = ++this.editor.seq;
    const editId = `${this.editor.tag}.${seq}`;
    const usePrompt = seq % 2 === 0 && this.prompts.length > 0;
    const list = usePrompt ? this.prompts : this.moves;
    const node = list[Math.floor(seq / 2) % list.length];
    const map = this.doc.getMap('nodes').get(node.id);
    if (!(map instanceof Y.Map)) {
      this.problem('node missing', `${this.room.projectId}: node ${node.id} is not in the document`);
      return;
    }
    const sentAt = performance.now();
    let track: Track;
    let key: string;
    let apply: () => void;
    if (usePrompt) {
      const data = map.get('data');
      if (!(data instanceof Y.Map)) {
        this.problem('node missing', `${this.room.projectId}: node ${node.id} has no data map`);
        return;
      }
      const value = editedPrompt(node.basePrompt ?? '', editId, sentAt);
      track = node.prompt!;
      key = promptKey(value);
      apply = () => data.set('prompt', value);
    } else {
      const value = movedPosition(node.base, seq);
      track = node.position;
      key = positionKey(value);
      apply = () => map.set('position', value);
    }
    this.beginEdit();
    if (peers > 0) this.room.inFlight.set(this.arrivalKey(node.id, usePrompt ? 'prompt' : 'position', key), { sentAt, remaining: peers });
    track.send(key, seq);
    this.outstanding.push({ track, key, seq, sentAt });
    recorder.edits++;
    // The update leaves from inside the transaction's 'update' event (the provider's handler, or the wire
    // editor's): this is the moment it is sent.
    this.doc.transact(apply, EDIT);
  }

  /** A SyncStatus frame for the oldest edit outstanding: `applied` is the server's answer. */
  protected acknowledge(applied: boolean): void {
    const edit = this.outstanding.shift();
    if (!edit) return;
    const recorder = this.recorder();
    if (applied) {
      edit.track.ack(edit.key, edit.seq);
      recorder.acked++;
      recorder.acks.push(performance.now() - edit.sentAt);
    } else this.problem('refused', `${this.room.projectId}: the server did not apply edit ${this.editor.tag}.${edit.seq}`);
    recorder.notify();
  }

  /** The connection is back and everything is stored: the edits moved aside are acknowledged. */
  protected settle(): void {
    const recorder = this.recorder();
    if (this.broken && !this.closing && this.ready) {
      const now = performance.now();
      for (const edit of this.unconfirmed) {
        edit.track.ack(edit.key, edit.seq);
        recorder.acked++;
        recorder.acks.push(now - edit.sentAt);
      }
      this.unconfirmed = [];
      this.broken = false;
    }
    recorder.notify();
  }

  protected dropped(kind: string, message: string): void {
    if (this.closing) return;
    if (!this.broken) this.problem(kind, `${this.room.projectId} (editor ${this.editor.tag}): ${message}`);
    this.broken = true;
    this.unconfirmed.push(...this.outstanding);
    this.outstanding = [];
    this.recorder().notify();
  }

  protected problem(kind: string, message: string): void {
    if (this.closing) return;
    this.recorder().fail(kind, message);
    this.recorder().notify();
  }

  /**
   * A peer's update (after the first sync) that carries no edit of the room's editors was written by the service: a
   * graph run's state and results (LOAD_RUNS), or a REST save. Counted, so a step shows that they reached the editors.
   */
  protected peerUpdate(writers: Iterable<number>): void {
    for (const client of writers) if (this.room.members.some((m) => m.clientId === client)) return;
    this.recorder().serviceUpdates++;
  }

  /** A Stateless frame: the server says so when it cannot save. */
  protected stateless(payload: string): void {
    if (/"saving"/.test(payload) && /"ok"\s*:\s*false/.test(payload)) this.problem('server not saving', payload);
  }

  /** Edits never acknowledged: each is an error. */
  abandon(): number {
    const n = this.unacknowledged;
    this.recorder().fail('not acknowledged', `${this.room.projectId} (editor ${this.editor.tag}): ${n} edit(s) not acknowledged in time`, n);
    this.outstanding = [];
    this.unconfirmed = [];
    return n;
  }
}

/**
 * A browser tab's editor: its own Y.Doc, with the HocuspocusProvider the web client uses. Each peer's update is
 * applied to this document, and its arrival is seen when the changed value shows in it (observeDeep).
 */
export class Session extends EditorSession {
  readonly doc = new Y.Doc();
  readonly provider: HocuspocusProvider;
  private readonly socket: HocuspocusProviderWebsocket;
  private readonly ownSocket: boolean;

  constructor(room: LiveRoom, editor: EditorState, recorder: () => Recorder, origin: string, options: { socket?: HocuspocusProviderWebsocket; awareness?: boolean } = {}) {
    super(room, editor, recorder);
    this.ownSocket = !options.socket;
    this.socket = options.socket ?? openSocket(origin, editor.cookie, room.projectId, (m) => this.problem('socket error', m));
    this.provider = new HocuspocusProvider({ websocketProvider: this.socket, name: room.projectId, document: this.doc });
    this.provider.attach(); // a provider given a socket does not attach itself
    if (options.awareness !== false) {
      this.provider.setAwarenessField('user', { id: editor.userId, name: editor.name, color: COLORS[editor.slot % COLORS.length] });
    }
    this.provider.on('message', ({ event }: { event: MessageEvent }) => this.onFrame(event.data));
    this.provider.on('unsyncedChanges', () => this.settle());
    this.provider.on('synced', () => this.settle());
    this.provider.on('authenticated', () => this.recorder().notify());
    this.provider.on('authenticationFailed', ({ reason }: { reason: string }) => this.problem('refused', `${room.projectId}: ${reason}`));
    this.provider.on('disconnect', () => this.dropped('disconnected', 'the socket closed'));
    this.provider.on('close', ({ event }: { event?: { code?: number; reason?: string } }) => this.dropped('closed by the server', `code ${event?.code ?? '?'} ${event?.reason ?? ''}`));
    this.provider.on('stateless', ({ payload }: { payload: string }) => this.stateless(payload));
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === EDIT) this.recorder().updateBytes += update.byteLength;
      // The first sync is applied before the provider counts as synced: only later updates are peers' writes.
      else if (origin === this.provider && this.ready) this.peerUpdate(Y.parseUpdateMeta(update).from.keys());
    });
    this.doc.getMap('nodes').observeDeep((events, transaction) => {
      if (transaction.local) return;
      const now = performance.now();
      for (const ev of events) {
        if (!(ev instanceof Y.YMapEvent)) continue;
        const path = ev.path;
        if (path.length === 1 && ev.keysChanged.has('position')) {
          this.room.arrived(regKey(String(path[0]), 'position', positionKey((ev.target as Y.Map<unknown>).get('position'))), now, this.recorder());
        } else if (path.length === 2 && path[1] === 'data' && ev.keysChanged.has('prompt')) {
          this.room.arrived(regKey(String(path[0]), 'prompt', promptKey((ev.target as Y.Map<unknown>).get('prompt'))), now, this.recorder());
        }
      }
    });
  }

  get ready(): boolean {
    return this.provider.isAuthenticated && this.provider.isSynced && this.provider.unsyncedChanges === 0;
  }

  get clientId(): number {
    return this.doc.clientID;
  }

  get scope(): string | undefined {
    return this.provider.authorizedScope;
  }

  get settled(): boolean {
    return this.unacknowledged === 0 && this.provider.unsyncedChanges === 0 && !this.broken;
  }

  waitReady(timeoutMs: number): Promise<string | undefined> {
    if (this.ready) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const events = ['synced', 'unsyncedChanges', 'authenticated'];
      const check = () => {
        if (this.ready) finish(undefined);
      };
      const refused = ({ reason }: { reason: string }) => finish(`refused (${reason})`);
      const finish = (problem: string | undefined) => {
        clearTimeout(timer);
        for (const e of events) this.provider.off(e, check);
        this.provider.off('authenticationFailed', refused);
        resolve(problem);
      };
      const timer = setTimeout(() => finish(`not connected, signed in and synced within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      for (const e of events) this.provider.on(e, check);
      this.provider.on('authenticationFailed', refused);
    });
  }

  protected beginEdit(): void {}

  protected arrivalKey(nodeId: string, field: Field, key: string): string {
    return regKey(nodeId, field, key);
  }

  private onFrame(data: unknown): void {
    if (!(data instanceof ArrayBuffer)) return;
    const head = readFrameHead(new Uint8Array(data));
    // A SyncStatus with no edit outstanding answers the sync step (the provider counts that one too).
    if (head?.type === MESSAGE_SYNC_STATUS) this.acknowledge(head.status === 1);
  }

  destroy(): void {
    this.closing = true;
    this.provider.destroy();
    if (this.ownSocket) this.socket.destroy();
    this.doc.destroy();
  }
}
