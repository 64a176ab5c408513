// A light editor for the live load test: one WebSocket to /api/collab/<projectId> (LOAD_COLLAB_URL) speaking the
// Hocuspocus protocol itself, frame by frame, instead of a HocuspocusProvider with a Y.Doc of its own.
//
// Why: a load client holds hundreds of editors. With a provider each, it holds hundreds of copies of a 200-node
// canvas (~1.5 MB each) and applies every peer's update to each copy. Its own full garbage collections then
// stalled the clock that times the arrivals by more than a second (session 11's note on issue 16). A browser tab
// holds one document; the measuring tool should not hold five of one room.
//
// What is the same on the wire as a provider's tab: the session cookie and our Origin on the upgrade; the
// Auth/Token message; SyncStep1 with the state vector, the server's SyncStep2 and SyncStep1 answered with
// SyncStep2; one Update frame per edit; the user's awareness state, renewed every 15 s as y-protocols does (the
// first renewal at a random point of the first 15 s, LOAD_AWARENESS_PHASE, as tabs that opened at any time); a
// SyncStatus per update sent. What differs, in the client only:
// - Every editor of a room makes its edits in the room's one shared Y.Doc (LiveRoom.doc), under a Yjs client id
//   of its own. The update that goes out is what that editor's own document would send: the room's editors
//   write different fields, so the shared document holds exactly what each of them would (its own writes,
//   the starting canvas), plus the others' writes, which the server sends it anyway. The service's own writes (a
//   graph run's state and results, LOAD_RUN_ROOMS) are not in it: they are peers' updates like any other, and they
//   touch only the run's nodes, which no editor writes.
// - A peer's update is not applied: its arrival is the frame, recognised by the Yjs ids it carries
//   (Y.parseUpdateMeta: per client, the clocks it covers). So the time measured is the service's (an edit
//   sent → the frame at the peer), without the peer's own work of applying it.
// - A dropped connection is not reopened: it is an error, and its unacknowledged edits are counted as such.
//
// What the editors' documents would show is checked after the step over REST (live-editors.ts, checkRest): the
// stored canvas holds every acknowledged edit, and every edit reached every peer (the arrivals).
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as random from 'lib0/random';
import { performance } from 'node:perf_hooks';
import { writeAuthentication, AuthMessageType } from '@hocuspocus/common';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import type WebSocket from 'ws';
import { browserLikeSocket, collabUrl, COLORS, EDIT, EditorSession, type EditorState, type LiveRoom, type Recorder } from './live-session.js';

/** Hocuspocus message types (packages/server/src/types.ts). */
const MessageType = { Sync: 0, Awareness: 1, Auth: 2, QueryAwareness: 3, Stateless: 5, CLOSE: 7, SyncStatus: 8 } as const;

/** As y-protocols' Awareness: a local state is renewed when older than half of the 30 s outdated timeout. */
const AWARENESS_RENEW_MS = 15_000;

/**
 * LOAD_AWARENESS_PHASE: when an editor's first renewal falls. `spread` (the default): at a random point of the
 * first 15 s, as in a service whose tabs opened at any moment (each tab renews 15 s after its own last change).
 * `connect`: 15 s after it connected, as a step whose editors all opened within the same few seconds, so that
 * every renewal of the step falls in the same window (sessions 11–12 measured that way).
 */
export function awarenessPhase(raw = process.env.LOAD_AWARENESS_PHASE): 'spread' | 'connect' {
  const value = (raw ?? '').trim() || 'spread';
  if (value !== 'spread' && value !== 'connect') throw new Error(`LOAD_AWARENESS_PHASE must be spread or connect, got "${raw}"`);
  return value;
}
const FIRST_RENEW_MS = () => (awarenessPhase() === 'spread' ? Math.random() * AWARENESS_RENEW_MS : AWARENESS_RENEW_MS);

const editKey = (client: number, clock: number) => `${client}:${clock}`;

export class WireSession extends EditorSession {
  /** This editor's Yjs client id: a new tab (a new session) has a new one. */
  readonly clientId = random.uint32();
  private readonly socket: WebSocket;
  private authenticated = false;
  private synced = false;
  private grantedScope: string | undefined;
  private refusal: string | undefined;
  /** SyncStatus frames still due for the handshake's own SyncStep2 (they come before any edit's). */
  private handshakeStatuses = 0;
  private awarenessClock = 0;
  private renew: NodeJS.Timeout;
  private readonly waiters = new Set<() => void>();
  /** The update of the edit being made (captured from the shared document's 'update' event). */
  private sending = false;

  constructor(room: LiveRoom, editor: EditorState, recorder: () => Recorder, origin: string) {
    super(room, editor, recorder);
    const Socket = browserLikeSocket({ cookie: editor.cookie, origin }, (m) => this.problem('socket error', m));
    this.socket = new Socket(collabUrl(origin, room.projectId));
    this.socket.binaryType = 'nodebuffer';
    this.socket.on('open', () => this.open());
    this.socket.on('message', (data: Buffer) => this.onFrame(data));
    this.socket.on('close', (code: number, reason: Buffer) => {
      this.dropped('disconnected', `the socket closed (code ${code} ${reason.toString()})`);
      this.changed();
    });
    this.renew = setTimeout(() => {
      this.sendAwareness();
      this.renew = setInterval(() => this.sendAwareness(), AWARENESS_RENEW_MS);
    }, FIRST_RENEW_MS());
    this.doc.on('update', this.onLocalUpdate);
  }

  get doc(): Y.Doc {
    return this.room.doc;
  }

  get ready(): boolean {
    return this.authenticated && this.synced && this.handshakeStatuses === 0 && this.socket.readyState === this.socket.OPEN;
  }

  get scope(): string | undefined {
    return this.grantedScope;
  }

  get settled(): boolean {
    return this.unacknowledged === 0 && !this.broken;
  }

  waitReady(timeoutMs: number): Promise<string | undefined> {
    if (this.ready) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const check = () => {
        if (this.ready) finish(undefined);
        else if (this.refusal) finish(`refused (${this.refusal})`);
        else if (this.socket.readyState === this.socket.CLOSED) finish('the socket closed before the sync');
      };
      const finish = (problem: string | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(problem);
      };
      const timer = setTimeout(() => finish(`not connected, signed in and synced within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      this.waiters.add(check);
    });
  }

  private changed(): void {
    for (const w of [...this.waiters]) w();
    this.recorder().notify();
  }

  protected beginEdit(): void {
    // The shared document writes this edit under this editor's client id.
    this.doc.clientID = this.clientId;
    this.sending = true;
  }

  protected arrivalKey(): string {
    return editKey(this.clientId, Y.getState(this.doc.store, this.clientId));
  }

  /** The shared document's update of this editor's edit: it leaves now, on this editor's socket. */
  private readonly onLocalUpdate = (update: Uint8Array, origin: unknown): void => {
    if (!this.sending || origin !== EDIT) return;
    this.sending = false;
    this.recorder().updateBytes += update.byteLength;
    this.send(MessageType.Sync, (e) => syncProtocol.writeUpdate(e, update));
  };

  private send(type: number, write: (e: encoding.Encoder) => void): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const e = encoding.createEncoder();
    encoding.writeVarString(e, this.room.projectId);
    encoding.writeVarUint(e, type);
    write(e);
    this.socket.send(encoding.toUint8Array(e));
  }

  /** As a provider's tab on open: the token (the cookie signs in; the token is empty), the sync, its awareness. */
  private open(): void {
    this.send(MessageType.Auth, (e) => writeAuthentication(e, ''));
    this.send(MessageType.Sync, (e) => syncProtocol.writeSyncStep1(e, this.doc));
    this.sendAwareness();
  }

  /** This editor's awareness state (one entry: its client id, a clock that grows, the user field as JSON). */
  private sendAwareness(state: unknown = { user: { id: this.editor.userId, name: this.editor.name, color: COLORS[this.editor.slot % COLORS.length] } }): void {
    const update = encoding.createEncoder();
    encoding.writeVarUint(update, 1);
    encoding.writeVarUint(update, this.clientId);
    encoding.writeVarUint(update, ++this.awarenessClock);
    encoding.writeVarString(update, JSON.stringify(state));
    this.send(MessageType.Awareness, (e) => encoding.writeVarUint8Array(e, encoding.toUint8Array(update)));
  }

  private onFrame(frame: Buffer): void {
    const now = performance.now();
    let d: decoding.Decoder;
    let type: number;
    try {
      d = decoding.createDecoder(frame);
      decoding.readVarString(d); // the document's name: one document per socket here
      type = decoding.readVarUint(d);
    } catch {
      this.problem('bad frame', `${this.room.projectId}: a frame of ${frame.byteLength} bytes could not be read`);
      return;
    }
    switch (type) {
      case MessageType.Sync:
        this.onSync(d, now);
        break;
      case MessageType.SyncStatus:
        // The server writes a varUint (0 or 1); the provider reads a varInt: the same byte for both values.
        this.onStatus(decoding.readVarUint(d) === 1);
        break;
      case MessageType.Auth:
        this.onAuth(d);
        break;
      case MessageType.QueryAwareness:
        this.sendAwareness();
        break;
      case MessageType.Stateless:
        this.stateless(decoding.readVarString(d));
        break;
      case MessageType.CLOSE:
        this.dropped('closed by the server', decoding.hasContent(d) ? decoding.readVarString(d) : '');
        this.changed();
        break;
      // Awareness of the room's other editors: a tab would draw their cursors; nothing to time here.
    }
  }

  private onSync(d: decoding.Decoder, now: number): void {
    switch (decoding.readVarUint(d)) {
      case syncProtocol.messageYjsSyncStep1: {
        // The server asks for what it lacks: answered as a provider does (each answer gets a SyncStatus).
        const stateVector = decoding.readVarUint8Array(d);
        this.handshakeStatuses++;
        this.send(MessageType.Sync, (e) => syncProtocol.writeSyncStep2(e, this.doc, stateVector));
        break;
      }
      case syncProtocol.messageYjsSyncStep2:
        // The canvas as the server has it (the first editor of the room brings it into the shared document).
        Y.applyUpdate(this.doc, decoding.readVarUint8Array(d), this);
        this.synced = true;
        this.changed();
        break;
      case syncProtocol.messageYjsUpdate:
        this.onPeerUpdate(decoding.readVarUint8Array(d), now);
        break;
    }
  }

  /** A peer's update: every edit it carries (by client id and clock) has arrived here. */
  private onPeerUpdate(update: Uint8Array, now: number): void {
    const { from, to } = Y.parseUpdateMeta(update);
    // An update of nothing the room's document lacks (the canvas it synced, sent again) is no one's new write.
    if ([...to].some(([client, end]) => end > Y.getState(this.doc.store, client))) this.peerUpdate(from.keys());
    for (const [client, start] of from) {
      const end = to.get(client) ?? start;
      for (let clock = start; clock < end; clock++) this.room.arrived(editKey(client, clock), now, this.recorder());
    }
  }

  private onStatus(applied: boolean): void {
    if (this.handshakeStatuses > 0) {
      this.handshakeStatuses--;
      if (!applied) this.problem('refused', `${this.room.projectId}: the server refused the sync step of editor ${this.editor.tag}`);
      this.changed();
      return;
    }
    this.acknowledge(applied);
  }

  private onAuth(d: decoding.Decoder): void {
    switch (decoding.readVarUint(d) as AuthMessageType) {
      case AuthMessageType.Authenticated:
        this.grantedScope = decoding.readVarString(d);
        this.authenticated = true;
        break;
      case AuthMessageType.PermissionDenied:
        this.refusal = decoding.readVarString(d);
        this.problem('refused', `${this.room.projectId}: ${this.refusal}`);
        break;
      case AuthMessageType.Token:
        this.send(MessageType.Auth, (e) => writeAuthentication(e, ''));
        break;
    }
    this.changed();
  }

  /** As a tab that closes: its awareness state removed (null), then the socket closed. */
  destroy(): void {
    this.closing = true;
    clearTimeout(this.renew);
    clearInterval(this.renew);
    this.doc.off('update', this.onLocalUpdate);
    this.sendAwareness(null);
    this.socket.close();
  }
}
