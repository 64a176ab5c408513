// Messages between the live mode's orchestrator (live-run.ts: the service and PostgreSQL) and its load clients
// (live-editors.ts, processes of their own; each holds every editor of its rooms, so that one clock times an
// edit from its sender to its arrival at the room's other editors). Plain data: it crosses the IPC channel.
import type { Stalls } from './stalls.js';

/** One simulated editor: a signed-in user (a browser tab of theirs) in one room. */
export interface LiveEditorSpec {
  index: number;
  room: number;
  slot: number;
  userId: string;
  name: string;
  /** The Cookie header a browser would send with the upgrade to /api/collab. */
  cookie: string;
}

/** A project edited live by up to `capacity` editors; its owner's cookie reads it back over REST. */
export interface LiveRoomSpec {
  index: number;
  projectId: string;
  capacity: number;
  ownerCookie: string;
  /** LOAD_RUN_ROOMS: the ids of the graph-run chain seeded beside the room's canvas, which the service writes and no editor does. */
  serviceNodes?: string[];
}

export interface LiveStepRequest {
  /** Editors 0..editors-1 take part (with their rooms). */
  editors: number;
  durationMs: number;
  /** Sockets opened at once while connecting, and the bound on connecting them all. */
  connectConcurrency: number;
  connectTimeoutMs: number;
  /** Pause between everyone connected and the first edit (the connection work settles). */
  settleMs: number;
  /** Bound on waiting, after the last edit, for every acknowledgement and every arrival at the peers. */
  drainMs: number;
  /** REST reads in flight at once in the check. */
  verifyConcurrency: number;
  /**
   * How an editor is simulated (LOAD_LIVE_EDITOR): 'wire' speaks the protocol on its socket and shares its room's
   * document in the load client (live-wire.ts); 'provider' is a HocuspocusProvider with a Y.Doc of its own, as
   * the web client has it (live-session.ts).
   */
  editor: 'wire' | 'provider';
}

/** What one batch of edits saw (a step's editing, or one round of the cost measurement). */
export interface EditStats {
  durationMs: number;
  /** Edits made (one per tick of a connected editor). */
  edits: number;
  /** …of which the server acknowledged (SyncStatus: stored in PostgreSQL). */
  acked: number;
  /** Ticks of an editor whose connection was down (no edit made). */
  skipped: number;
  /** Arrivals timed: one per edit and per other editor of its room. */
  arrivals: number;
  /** Edit sent → its arrival at another editor of the room (nearest rank over all arrivals). */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Edit sent → its acknowledgement at the sender. */
  ackP50Ms: number;
  ackP99Ms: number;
  /** How late the client's edit timers fired (a loaded client delays edits, not their latency). */
  timerLagP99Ms: number;
  timerLagMaxMs: number;
  errors: number;
  /** Errors by kind ("not acknowledged", "disconnected", "refused", "not delivered to a peer", …). */
  errorKinds: Record<string, number>;
  firstErrors: string[];
  /** Bytes of the Yjs update of one edit, on average. */
  updateBytes: number;
}

export interface LiveStepResult extends EditStats {
  editors: number;
  rooms: number;
  /** Connecting every editor (socket, sign-in on the upgrade, first sync) and the settle pause excluded. */
  connectMs: number;
  /** Fields (node × position/prompt) whose final value misses an acknowledged edit: in any view, in the editors' documents, over REST. */
  lost: number;
  lostLive: number;
  lostRest: number;
  /** Fields on which the editors of a room ended with different values. */
  diverged: number;
  restErrors: number;
  /** Rooms whose node or edge count changed. */
  shapeErrors: number;
  /** Updates the service wrote (no editor of the room did) that reached the step's editors, once per editor: a graph run's writes (LOAD_RUNS). */
  serviceUpdates: number;
  disconnectMs: number;
  verifyMs: number;
  clientCpu: number;
  clientElu: number;
  clientRssMiB: number;
  /** The load client's event-loop delay and GC pauses over the editing and drain. */
  clientStalls: Stalls;
  /** The raw figures behind the percentiles, so the orchestrator can merge the results of several load clients. */
  samples: { latencies: number[]; acks: number[]; lags: number[] };
}

/** The cost measurement's documents: a room of `editors` tabs of one user on each project. */
export interface CostDoc {
  projectId: string;
  editors: number;
}

export type ToLiveClient =
  | { type: 'add'; origin: string; editors: LiveEditorSpec[]; rooms: LiveRoomSpec[] }
  | { type: 'step'; step: LiveStepRequest }
  /** Every load client has connected its editors of the step: start editing (all clients at once). */
  | { type: 'go' }
  | { type: 'costOpen'; origin: string; cookie: string; userId: string; docs: CostDoc[]; timeoutMs: number }
  | { type: 'costEdits'; projectId: string; editsPerSecond: number; durationMs: number; drainMs: number }
  | { type: 'costClose' }
  | { type: 'memoryOpen'; origin: string; cookie: string; projectIds: string[]; timeoutMs: number }
  | { type: 'memoryClose' }
  | { type: 'close' };

export type FromLiveClient =
  | { type: 'ready' }
  | { type: 'added'; editors: number; rooms: number }
  /** This client's editors of the step are connected and settled; it waits for 'go'. */
  | { type: 'connected' }
  /** 'go' came: the edits start now. */
  | { type: 'editing' }
  /** The last edit is acknowledged and delivered, or the drain bound passed: the resource window ends. */
  | { type: 'loaded' }
  | { type: 'result'; result: LiveStepResult }
  | { type: 'costOpened'; ms: number; errors: string[] }
  | { type: 'costDone'; stats: EditStats }
  | { type: 'costClosed' }
  | { type: 'memoryOpened'; ms: number; opened: number; errors: string[] }
  | { type: 'memoryClosed' }
  | { type: 'progress'; line: string }
  | { type: 'failed'; error: string };

/** IPC carries JSON, where NaN (a percentile of nothing) becomes null: back to NaN, so arithmetic and formatting hold. */
export function numbers<T extends object>(x: T): T {
  const out = { ...x } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (v === null) out[k] = NaN;
  return out as T;
}
