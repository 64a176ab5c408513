// The write path of live documents (DESIGN.md §9 "Durability"): every change applied to a document in memory is
// queued here and stored in PostgreSQL before anyone is told it is saved. Changes are group-committed — whatever
// queued while the previous statement ran goes into the next one — so the cost per edit falls as load rises.
//
// A statement that fails is retried, with growing pauses, until it succeeds: changes are never dropped while
// their project exists. Meanwhile documents keep changing in memory and peers keep seeing each other's edits; only
// the acknowledgements wait (./frames.ts `gatedSocket`). `onSaving` tells the server when saving stops and starts again,
// so it can tell the editors. Changes of a project that was deleted are dropped (their promises reject with
// ProjectGoneError). The queue holds at most `maxHeldBytes` of updates; `full()` lets the socket refuse more.
import type { CollabAppend } from '../db/repositories/index.js';

export class ProjectGoneError extends Error {
  constructor() {
    super('project deleted');
    this.name = 'ProjectGoneError';
  }
}

export interface UpdateQueueDeps {
  store: (changes: readonly CollabAppend[]) => Promise<Map<string, number>>;
  /** Called when saving fails (false) and when it works again (true). */
  onSaving: (ok: boolean) => void;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** At most this many update bytes waiting to be stored. */
  maxHeldBytes: number;
  /** Changes per statement, at most. */
  maxBatch?: number;
  /**
   * A statement starts at least this long (ms) after the previous one started, so that what comes in meanwhile goes
   * into one statement (0: as soon as the previous one ended). Each statement costs the service a round trip and a
   * commit whatever it holds: at thousands of edits a second, fewer, larger statements leave its thread (and
   * PostgreSQL) time for the edits themselves, for at most this much longer before an edit is acknowledged.
   */
  intervalMs?: number;
  /** Pauses between retries (the last one repeats). */
  retryMs?: readonly number[];
}

interface Entry extends CollabAppend {
  urgent: boolean;
  /** Stored (or dropped): never stored again. */
  done?: boolean;
  resolve(version: number): void;
  reject(err: Error): void;
}

interface ProjectState {
  /** Changes queued or being stored. */
  pending: number;
  /** Changes ever queued: a REST save checks that none came in while it read the version. */
  seq: number;
  /** Waiting for `pending` to reach 0. */
  settledWaiters: Array<() => void>;
}

export interface UpdateQueue {
  /**
   * Queues a change; resolves with the project's version once it is stored. `urgent`: someone waits for this change to be stored (the service's own changes: a REST save, a run's node),
   * so its statement does not wait out `intervalMs`; people's edits, whose acknowledgement alone waits, do.
   */
  append(projectId: string, update: Uint8Array | null, urgent?: boolean): Promise<number>;
  /** Resolves when everything queued for the project so far is stored (or dropped). */
  settled(projectId: string): Promise<void>;
  /** Changes of the project queued or being stored right now. */
  pending(projectId: string): number;
  /** How many changes of the project were ever queued here. */
  seq(projectId: string): number;
  /** Whether the queue holds its maximum of bytes (refuse more edits until it drains). */
  full(): boolean;
  /** Update bytes queued or being stored. */
  heldBytes(): number;
  /** Whether the last statement failed (and is being retried). */
  failing(): boolean;
  /** Stores what is queued, retrying until done or `stop` is called; resolves when the queue is empty. */
  drain(): Promise<void>;
  /** Stops retrying: what is still queued is rejected. */
  stop(): void;
}

const isForeignKeyViolation = (err: unknown) => (err as { code?: string }).code === '23503' || (err as { cause?: { code?: string } }).cause?.code === '23503';

export function createUpdateQueue({ store, onSaving, log, maxHeldBytes, maxBatch = 1000, intervalMs = 0, retryMs = [50, 200, 1000, 3000] }: UpdateQueueDeps): UpdateQueue {
  let queue: Entry[] = [];
  let heldBytes = 0;
  let running = false;
  let failures = 0;
  let stopped = false;
  let drainWaiters: Array<() => void> = [];
  let retryTimer: NodeJS.Timeout | undefined;
  /** When the last statement started (performance.now()). */
  let startedAt = -Infinity;
  /** The next statement waiting out `intervalMs`. */
  let waitTimer: NodeJS.Timeout | undefined;
  /** An urgent change is queued: the next statement starts as soon as it can. */
  let urgentQueued = false;
  const projects = new Map<string, ProjectState>();

  const project = (id: string) => {
    let state = projects.get(id);
    if (!state) projects.set(id, (state = { pending: 0, seq: 0, settledWaiters: [] }));
    return state;
  };

  function finish(entry: Entry) {
    heldBytes -= entry.update?.byteLength ?? 0;
    const state = project(entry.projectId);
    if (--state.pending === 0) {
      const waiters = state.settledWaiters;
      // The seq must survive while someone may compare it; an idle project keeps a tiny record (a few per document).
      state.settledWaiters = [];
      for (const w of waiters) w();
    }
  }

  function settle(entry: Entry, how: () => void) {
    entry.done = true;
    how();
    finish(entry);
  }

  function schedule() {
    if (stopped || queue.length === 0 || retryTimer) return;
    if (waitTimer && urgentQueued) {
      // Waiting out the interval, and someone waits for a change: now.
      clearTimeout(waitTimer);
      waitTimer = undefined;
      running = false;
    }
    if (running) return;
    running = true;
    const wait = urgentQueued ? 0 : startedAt + intervalMs - performance.now();
    if (wait >= 1) {
      waitTimer = setTimeout(() => {
        waitTimer = undefined;
        void flush();
      }, wait);
    } else setImmediate(() => void flush());
  }

  /** Stores `batch`; a deleted project's changes fail the whole statement, so then each project is tried alone. */
  async function storeBatch(batch: Entry[]): Promise<void> {
    try {
      const versions = await store(batch);
      for (const e of batch) settle(e, () => e.resolve(versions.get(e.projectId) ?? 0));
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      const byProject = new Map<string, Entry[]>();
      for (const e of batch) byProject.set(e.projectId, [...(byProject.get(e.projectId) ?? []), e]);
      if (byProject.size === 1) {
        for (const e of batch) settle(e, () => e.reject(new ProjectGoneError()));
        return;
      }
      for (const entries of byProject.values()) await storeBatch(entries);
    }
  }

  async function flush() {
    startedAt = performance.now();
    if (stopped || queue.length === 0) {
      running = false; // stopped while this statement waited for its turn
      return;
    }
    const batch = queue.splice(0, maxBatch);
    urgentQueued = queue.some((e) => e.urgent);
    try {
      await storeBatch(batch);
      if (failures > 0) {
        failures = 0;
        log.warn({ queued: queue.length }, 'live documents: saving works again');
        onSaving(true);
      }
    } catch (err) {
      const left = batch.filter((e) => !e.done);
      if (stopped) for (const e of left) settle(e, () => e.reject(new Error('live documents are closed')));
      else {
        queue.unshift(...left);
        if (left.some((e) => e.urgent)) urgentQueued = true;
      }
      if (failures++ === 0) {
        log.error({ err, queued: queue.length }, 'live documents: saving failed; edits are kept in memory and retried');
        onSaving(false);
      }
      if (!stopped) {
        const pause = retryMs[Math.min(failures - 1, retryMs.length - 1)] ?? 1000;
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          running = false;
          schedule();
        }, pause);
        retryTimer.unref();
        return;
      }
    }
    running = false;
    if (queue.length === 0) {
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const w of waiters) w();
    }
    schedule();
  }

  return {
    append(projectId, update, urgent = false) {
      if (stopped) return Promise.reject(new Error('live documents are closed'));
      const state = project(projectId);
      state.pending++;
      state.seq++;
      heldBytes += update?.byteLength ?? 0;
      const promise = new Promise<number>((resolve, reject) => queue.push({ projectId, update, urgent, resolve, reject }));
      if (urgent) urgentQueued = true;
      schedule();
      return promise;
    },
    settled(projectId) {
      const state = projects.get(projectId);
      if (!state || state.pending === 0) return Promise.resolve();
      return new Promise((resolve) => state.settledWaiters.push(resolve));
    },
    pending: (projectId) => projects.get(projectId)?.pending ?? 0,
    seq: (projectId) => projects.get(projectId)?.seq ?? 0,
    full: () => heldBytes >= maxHeldBytes,
    heldBytes: () => heldBytes,
    failing: () => failures > 0,
    drain() {
      if (queue.length === 0 && !running) return Promise.resolve();
      return new Promise((resolve) => drainWaiters.push(resolve));
    },
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearTimeout(waitTimer);
      const left = queue;
      queue = [];
      for (const e of left) settle(e, () => e.reject(new Error('live documents are closed')));
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const w of waiters) w();
    },
  };
}
