// Deleting a deleted project's objects (docs/deploy.md "Object storage"). Objects are shared freely: a URL copied
// to another canvas, a template published from a canvas, a generation's input, the same pasted image stored once
// per user under its content's name (./uploads.ts) — so an object belongs to no project, and deleting a project
// cannot delete its objects there and then. Instead:
// 1. Before a project is deleted, every object name its data holds (live document and its stored updates, restore
//    points and named versions, pre-live canvas JSON, its generations' and jobs' inputs and outputs) is queued with
//    a due time OBJECT_DELETE_GRACE_HOURS later (the object-deletions repository's `queue`).
// 2. A pass (every OBJECT_SWEEP_INTERVAL_MINUTES on each instance; one at a time over all instances, by an advisory
//    lock; at most OBJECT_SWEEP_BATCH names) takes the due names, searches the whole database for each
//    (`referenced`: every text, JSON and bytea column, the documents' Yjs states included), deletes from the store
//    those found nowhere, and takes every name it looked at off the queue. An object still referenced anywhere is
//    never deleted; one referenced again later is safe too, since only queued names are ever deleted.
// The one window left: a URL pasted from somewhere outside the database (a browser's clipboard, a tab still open)
// between a pass's search and its delete, after the grace period has passed: the grace period is there for that.
// Objects that were never on a deleted project's canvas (an upload never placed) are never deleted.
import type { LiveDocuments } from '../collab/live-documents.js';
import type { ObjectDeletionsRepository } from '../db/repositories/object-deletions.js';
import { storeFailure, type ObjectStore } from '../storage/index.js';

export interface SweepPass {
  /** False when another pass (on any instance) held the lock: nothing was done. */
  ran: boolean;
  deleted: string[];
  /** Due names found still referenced: taken off the queue, never deleted. */
  kept: string[];
}

export interface ObjectSweep {
  /** Queues the objects project `projectId` references; call just before deleting it. */
  projectDeleting(projectId: string): Promise<void>;
  /** One pass over the due names. */
  pass(): Promise<SweepPass>;
  /** Runs a pass every `intervalMinutes` (0: never) until `stop()`. */
  start(intervalMinutes: number): void;
  stop(): void;
}

export interface ObjectSweepDeps {
  deletions: ObjectDeletionsRepository;
  store: Pick<ObjectStore, 'nameFromUrl' | 'delete'>;
  /** Reads a document's states (src/collab/live-documents.ts, in its worker threads). */
  live: Pick<LiveDocuments, 'documentJson'>;
  graceHours: number;
  batch: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  now?: () => number;
}

const URL_LIKE = /https?:\/\/[^\s"'<>\\]+/g;

/** Every string inside a JSON value. */
function* stringsOf(value: unknown, depth = 0): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (depth < 64 && typeof value === 'object' && value !== null) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) yield* stringsOf(v, depth + 1);
  }
}

export function createObjectSweep(deps: ObjectSweepDeps): ObjectSweep {
  const { deletions, store, live, log } = deps;
  const now = deps.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;

  const namesIn = (strings: Iterable<string>, into: Set<string>) => {
    for (const s of strings) {
      const name = store.nameFromUrl(s);
      if (name) into.add(name);
    }
  };

  return {
    async projectDeleting(projectId) {
      const held = await deletions.holdings(projectId);
      const names = new Set<string>();
      // Each document's whole content as JSON (every root type the canvas uses, nested types included), read off the
      // service's thread: a project may hold many restore points of a large canvas.
      namesIn(stringsOf(await live.documentJson(held.documentStates)), names);
      for (const state of held.versionStates) namesIn(stringsOf(await live.documentJson([state])), names);
      for (const text of held.texts) namesIn(text.match(URL_LIKE) ?? [], names);
      await deletions.queue([...names], new Date(now() + deps.graceHours * 3_600_000), projectId);
      if (names.size > 0) log.info({ projectId, objects: names.size, graceHours: deps.graceHours }, 'object sweep: a deleted project\'s objects are queued');
    },

    async pass() {
      const result = await deletions.withDue(deps.batch, async (due, tx) => {
        const referenced = await deletions.referenced(due, tx);
        const deleted: string[] = [];
        const kept = due.filter((name) => referenced.has(name));
        try {
          for (const name of due) {
            if (referenced.has(name)) continue;
            await store.delete(name);
            deleted.push(name);
          }
        } catch (err) {
          // The store down: what was deleted comes off the queue, the rest waits for the next pass.
          if (!storeFailure(err)) throw err;
          log.warn({ err, deleted: deleted.length }, 'object sweep: the object store is unavailable; the pass stops');
          await deletions.remove([...deleted, ...kept], tx);
          return { ran: true, deleted, kept };
        }
        await deletions.remove(due, tx);
        return { ran: true, deleted, kept };
      });
      if (!result) return { ran: false, deleted: [], kept: [] };
      if (result.deleted.length > 0 || result.kept.length > 0) {
        log.info({ deleted: result.deleted, kept: result.kept.length }, 'object sweep: deleted the objects of deleted projects that nothing references');
      }
      return result;
    },

    start(intervalMinutes) {
      if (intervalMinutes <= 0 || timer) return;
      timer = setInterval(() => {
        this.pass().catch((err: unknown) => log.error({ err }, 'object sweep: a pass failed'));
      }, intervalMinutes * 60_000);
      timer.unref();
    },

    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
