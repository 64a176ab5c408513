// Compaction of stored live documents (DESIGN.md §9 "History"), as a hocuspocus extension: when hocuspocus stores a
// document (`onStoreDocument`: debounced while editing, at most `storeMaxDebounceMs` apart, and at once when the last
// connection leaves), its log of changes is merged into a snapshot, with a restore point at most every
// `restorePointMs` of editing (CollabRepository.compact). Changes themselves are stored as they come
// (./persistence.ts); a compaction only makes the document cheaper to load. The merge runs in the live documents'
// worker threads (../document-workers.ts), so a compaction holds the service's thread only to move bytes.
//
// - While people edit, a compaction runs only once the log holds `compactLogRatio` of the document's bytes, or a
//   restore point is due (`compactionDue`): it costs the whole document, so on a large canvas it would otherwise cost
//   far more than the edits it merges.
// - One that comes due while editing goes on is put off by a random part of `storeSpreadMs` (./compactLater), so
//   documents opened together are not compacted together.
// - A few run at once (`turns`): each holds a database connection for its transaction.
// - On shutdown every open document is compacted once (`finish`).
import type { Document, Extension, onStoreDocumentPayload } from '@hocuspocus/server';
import type { CollabRepository, MergeStored } from '../../db/repositories/index.js';
import type { Metrics } from '../../metrics.js';
import { arrivedHere } from './persistence.js';

/** The user whose connection a change came from (hocuspocus's transaction origin), or undefined (the service, Redis). */
const editorOf = (origin: unknown): string | undefined => {
  const o = origin as { source?: unknown; connection?: { context?: { user?: { id?: unknown } | null } } } | null;
  const id = o?.source === 'connection' ? o.connection?.context?.user?.id : undefined;
  return typeof id === 'string' ? id : undefined;
};

export interface CompactionDeps {
  collab: Pick<CollabRepository, 'compact'>;
  /** How a compaction merges what it read (../document-workers.ts). */
  merge: MergeStored;
  /** Resolves when every change of the document queued so far is stored (./persistence.ts). */
  settled: (documentName: string) => Promise<void>;
  /** At most one automatic restore point per this many milliseconds of editing. */
  restorePointMs: number;
  /** Compaction after this long without changes (hocuspocus's debounce): a change within it means people are editing. */
  storeDebounceMs: number;
  /** A compaction due while people are editing waits a random part of this first (0: at once). */
  storeSpreadMs: number;
  /** While people edit, a compaction runs once the log holds this fraction of the document's bytes (0: always). */
  compactLogRatio: number;
  metrics?: Pick<Metrics, 'compaction'>;
  log: { warn(o: object, m: string): void };
}

/**
 * An open document's bytes as stored (snapshot and log when loaded, plus every change stored from here since: an
 * upper bound, as compaction drops what was deleted), the log's bytes not yet merged, and when it was last compacted
 * (or loaded) here (performance.now()).
 */
export interface StoredSize {
  doc: number;
  log: number;
  compactedAt: number;
}

/**
 * Whether an open document being edited is worth compacting now: always without a size, or with `logRatio` 0; when a
 * restore point is due; or when its log holds at least `logRatio` of the rest of the document.
 */
export function compactionDue(size: StoredSize | undefined, now: number, { logRatio, restorePointMs }: { logRatio: number; restorePointMs: number }): boolean {
  if (!size || logRatio === 0) return true;
  if (now - size.compactedAt >= restorePointMs) return true;
  return size.log >= logRatio * Math.max(0, size.doc - size.log);
}

/** Runs at most `n` tasks at once, the others in order of arrival. */
export function turns(n: number) {
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

/** Compactions that may run at once. */
const COMPACTIONS_AT_ONCE = 2;

export interface Compaction extends Extension {
  /** A document was loaded with these bytes (./persistence.ts onLoaded). */
  loaded(documentName: string, stored: { snapshotBytes: number; logBytes: number }): void;
  /** The service is closing: every store compacts at once (nothing put off or skipped). */
  closing(): void;
  /** As `closing`, and compactions put off are dropped (`finish` compacts what is open). */
  stop(): void;
  /** Compacts the open documents once, after what is running; every later store does nothing. */
  finish(documentNames: Iterable<string>): Promise<void>;
}

export function compaction({ collab, merge, settled, restorePointMs, storeDebounceMs, storeSpreadMs, compactLogRatio, metrics, log }: CompactionDeps): Compaction {
  let closed = false;
  /** After finish: nothing touches the database any more. */
  let finished = false;
  const compactions = new Set<Promise<unknown>>();
  const compactionTurns = turns(COMPACTIONS_AT_ONCE);
  /** When each open document last changed here (performance.now()), to tell a compaction forced while editing. */
  const changedAt = new Map<string, number>();
  /** Compactions put off by their spread (./compactLater), by document. */
  const later = new Map<string, NodeJS.Timeout>();
  const sizes = new Map<string, StoredSize>();
  /** Who last changed each open document here (a person's connection): the author of its next restore point. */
  const lastEditor = new Map<string, string>();
  const compact = (documentName: string) => collab.compact(documentName, { merge, restorePointMs, author: lastEditor.get(documentName) });

  async function compactNow(documentName: string): Promise<void> {
    const size = sizes.get(documentName);
    const merging = size?.log ?? 0;
    const compaction = settled(documentName).then(() => compactionTurns.run(() => compact(documentName)));
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
   * store when the last connection leaves compacts at once and cancels it; `stop()` cancels it and `finish` compacts
   * whatever is open.
   */
  function compactLater(documentName: string) {
    if (later.has(documentName)) return;
    const timer = setTimeout(() => {
      later.delete(documentName);
      if (finished) return;
      compactNow(documentName).catch((err: unknown) => log.warn({ err, projectId: documentName }, 'live document: a compaction failed (the log stays; the next one merges it)'));
    }, Math.random() * storeSpreadMs);
    timer.unref();
    later.set(documentName, timer);
  }

  /** Counts what each change stored from here adds (../persistence.ts stores the same ones). */
  function measure(document: Document) {
    document.on('update', (update: Uint8Array, origin: unknown) => {
      if (!arrivedHere(origin)) return;
      changedAt.set(document.name, performance.now());
      const editor = editorOf(origin);
      if (editor) lastEditor.set(document.name, editor);
      const size = sizes.get(document.name);
      if (size) {
        size.doc += update.byteLength;
        size.log += update.byteLength;
      }
    });
  }

  return {
    extensionName: 'compaction',
    priority: 60,

    loaded(documentName, { snapshotBytes, logBytes }) {
      sizes.set(documentName, { doc: snapshotBytes + logBytes, log: logBytes, compactedAt: performance.now() });
    },

    async afterLoadDocument({ document }) {
      measure(document);
    },

    async onStoreDocument({ documentName, document }: onStoreDocumentPayload) {
      if (finished) return;
      // While people are here, a log small against the document waits (compactLogRatio): it stays in the log, which
      // loads as well as a snapshot; the next store looks again.
      if (!closed && document.getConnectionsCount() > 0 && !compactionDue(sizes.get(documentName), performance.now(), { logRatio: compactLogRatio, restorePointMs })) {
        return metrics?.compaction('skipped', 0);
      }
      // Due while editing goes on (hocuspocus's maxDebounce, run from within a change): put off (./compactLater).
      const editing = performance.now() - (changedAt.get(documentName) ?? -Infinity) < storeDebounceMs;
      if (editing && !closed && storeSpreadMs >= 1 && document.getConnectionsCount() > 0) return compactLater(documentName);
      clearTimeout(later.get(documentName));
      later.delete(documentName);
      // A failure (counted) is logged, not thrown: hocuspocus would print it and keep the document in memory, where
      // nobody connected would ever store it again, though every change of it is stored already.
      await compactNow(documentName).catch((err: unknown) => log.warn({ err, projectId: documentName }, 'live document: a compaction failed (the log stays; the next one merges it)'));
    },

    async afterUnloadDocument({ documentName }) {
      changedAt.delete(documentName);
      sizes.delete(documentName);
      lastEditor.delete(documentName);
    },

    closing() {
      closed = true;
    },

    stop() {
      closed = true;
      for (const timer of later.values()) clearTimeout(timer);
      later.clear();
    },

    async finish(documentNames) {
      finished = true;
      await Promise.allSettled([...compactions, ...[...documentNames].map((name) => compact(name))]);
    },
  };
}
