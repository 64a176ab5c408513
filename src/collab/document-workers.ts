// The live documents' worker threads (tinypool, worker_threads): whole-document Yjs work on stored bytes — merging a
// snapshot and its log for a compaction or a load, measuring what was loaded, rendering a document that is not open
// or a version, reading a deleted project's documents for its objects (./stored-document.ts) — runs here rather than on the thread that serves every socket. At 2,000 editors such work
// (compactions coming due together, 1,000 documents loaded and first checked in one second) held that thread for
// 100–600 ms at a time (issue 37).
//
// Threads and not processes (as the image workers, src/imaging/pool.ts): a task is pure computation on bytes (no
// libuv pool, no native memory worth isolating), and its bytes move between threads without a copy. At most
// COLLAB_WORKERS threads run; the first starts on the first task and stays, the others end after a minute idle. More
// tasks wait their turn in order. COLLAB_WORKERS=0 runs every task on the service's thread (as before the workers).
//
// A task that throws (a corrupt row) or whose thread dies (out of memory) fails alone: tinypool starts another
// thread for the next one. Callers decide what a failure means (a compaction is retried at the next store; a load
// refuses its connection, whose provider tries again).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import type { DocumentTask, Metrics } from '../metrics.js';
import { workerExecArgv } from '../worker-argv.js';
import type { CanvasContent } from './canvas-doc.js';
import type { MergeTask, PartsTask } from './document-worker.js';
import { jsonOfParts, mergeParts, packParts, partsOf, renderParts, type MergedState, type StoredParts } from './stored-document.js';

/** Tasks run, by where they ran, and tasks failed. */
export type DocumentTaskStats = Record<DocumentTask, { worker: number; thread: number; failed: number }>;

export interface DocumentWorkers {
  /**
   * The stored document merged into one state (a fresh, garbage-collected document: deleted content dropped), and
   * with `measure` its canvas's REST bytes (update-check's `measure`).
   */
  merge(stored: StoredParts, options: { measure: boolean }): Promise<MergedState>;
  /** The canvas the stored document renders to. */
  render(stored: StoredParts): Promise<CanvasContent>;
  /** The stored document's `nodes` and `edges` as Yjs gives them, not rendered (./stored-document.ts jsonOfParts). */
  json(stored: StoredParts): Promise<{ nodes: unknown; edges: unknown }>;
  stats(): DocumentTaskStats;
  /** Ends the threads; a later task fails. */
  close(): Promise<void>;
}

export interface DocumentWorkersOptions {
  /** COLLAB_WORKERS: threads at most; 0 runs every task on the calling thread. */
  workers: number;
  log: { warn(o: object, m: string): void };
  metrics?: Partial<Pick<Metrics, 'documentTask'>>;
  /** How long a thread beyond the first stays after its last task (ms). */
  idleMs?: number;
}

const WORKER = new URL(`./document-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export function createDocumentWorkers({ workers, log, metrics, idleMs = 60_000 }: DocumentWorkersOptions): DocumentWorkers {
  let pool: Tinypool | undefined;
  let closed = false;
  const none = () => ({ worker: 0, thread: 0, failed: 0 });
  const stats: DocumentTaskStats = { merge: none(), render: none(), json: none() };
  const where = workers > 0 ? 'worker' : 'thread';

  const started = (): Tinypool => {
    if (closed) throw new Error('the document workers are closed');
    if (pool) return pool;
    pool = new Tinypool({
      filename: WORKER.href,
      runtime: 'worker_threads',
      minThreads: 1,
      maxThreads: workers,
      idleTimeout: idleMs,
      execArgv: workerExecArgv(WORKER),
    });
    // A thread that dies between tasks is replaced; the pool reports it here rather than as an unhandled 'error'
    // event, which would end the service.
    pool.on('error', (err: unknown) => log.warn({ err }, 'a live document worker thread ended unexpectedly'));
    return pool;
  };

  /** Runs `task` in a worker with the parts moved there, or `here` on this thread; counts it either way. */
  async function run<T>(task: DocumentTask, parts: Uint8Array[], here: (parts: Uint8Array[]) => T, fields: Partial<Omit<MergeTask, 'parts'>> = {}): Promise<T> {
    const begun = performance.now();
    try {
      let result: T;
      if (where === 'thread') {
        if (closed) throw new Error('the document workers are closed');
        result = here(parts);
      } else {
        const packed = packParts(parts);
        const message: MergeTask | PartsTask = { ...fields, parts: packed };
        result = (await started().run(message, { name: task, transferList: [packed.buffer] })) as T;
      }
      stats[task][where]++;
      metrics?.documentTask?.(task, where, 'ok', (performance.now() - begun) / 1000);
      return result;
    } catch (err) {
      stats[task].failed++;
      metrics?.documentTask?.(task, where, 'failed', (performance.now() - begun) / 1000);
      throw err;
    }
  }

  return {
    merge: (stored, { measure }) => run('merge', partsOf(stored), (parts) => mergeParts(parts, { measure }), { measure }),
    render: (stored) => run('render', partsOf(stored), renderParts),
    json: (stored) => run('json', partsOf(stored), jsonOfParts),
    stats: () => structuredClone(stats),
    async close() {
      closed = true;
      await pool?.destroy();
    },
  };
}
