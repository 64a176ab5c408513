// A run's state in the live document (docs/api.md "Runs", DESIGN.md §12): written by the run's coordinator only
// (./coordinator.ts), in ONE document change per advance of the run, for the nodes whose jobs changed — `data.run`
// (the run, the node's status: the least finished of its jobs, done of total, why, cost), and once all its jobs
// succeeded its result: `data.image` (a fanned node's item 0), `data.results` (a fanned node's, in item order) and
// `data.resultKey` (the node's key when planned: a node edited since is marked stale by the marks). The queued or
// running job itself is the runner's to show (`data.job`, src/jobs/node-state.ts). Also the seeds a run draws for
// nodes that have none, written before the run is planned. Only existing nodes are written; a failure is logged,
// never a run's failure.
import * as Y from 'yjs';
import { canvasMaps, renderCanvas, type CanvasContent } from '../collab/canvas-doc.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { NodeRunState } from '../kinds/graph.js';

/** `data.run` of a node in a run (src/kinds/graph.ts: the editor reads the same shape). */
export type NodeRun = NodeRunState;

export interface NodeRunWrite {
  nodeId: string;
  run: NodeRun;
  /** Its result, once every job of it succeeded (or came from the cache) in this advance. */
  result?: { image: string; results?: string[]; resultKey: string };
}

export interface RunDocument {
  /** Writes the nodes' run state (and results) in one change. Never rejects. */
  write(projectId: string, nodes: NodeRunWrite[]): Promise<void>;
  /** Gives each of these nodes that has no `data.seed` one; the canvas as it is then (null: no document). */
  drawSeeds(projectId: string, seeds: ReadonlyMap<string, number>): Promise<CanvasContent | null>;
}

/** The longest an advance waits for its document change to be stored. */
const STORE_WAIT_MS = 5_000;

function dataOf(doc: Y.Doc, nodeId: string): Y.Map<unknown> | undefined {
  const node = canvasMaps(doc).nodes.get(nodeId);
  const data = node instanceof Y.Map ? (node as Y.Map<unknown>).get('data') : undefined;
  return data instanceof Y.Map ? (data as Y.Map<unknown>) : undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRunDocument({ live, log }: { live: Pick<LiveDocuments, 'open'>; log: { warn(o: object, m: string): void } }): RunDocument {
  return {
    async write(projectId, nodes) {
      if (nodes.length === 0) return;
      try {
        const document = await live.open(projectId);
        try {
          const stored = document.change((doc) => {
            for (const { nodeId, run, result } of nodes) {
              const data = dataOf(doc, nodeId);
              if (!data) continue;
              if (!same(data.get('run'), run)) data.set('run', run);
              if (!result) continue;
              if (data.get('image') !== result.image) data.set('image', result.image);
              if (data.get('resultKey') !== result.resultKey) data.set('resultKey', result.resultKey);
              if (result.results) {
                if (!same(data.get('results'), result.results)) data.set('results', result.results);
              } else if (data.has('results')) data.delete('results');
              if (data.has('error')) data.delete('error');
            }
          });
          stored.catch((err: unknown) => log.warn({ err, projectId }, "a run's state could not be stored in the live document"));
          await within(stored, STORE_WAIT_MS);
        } finally {
          await document.close().catch((err: unknown) => log.warn({ err, projectId }, 'a live document could not be closed'));
        }
      } catch (err) {
        log.warn({ err, projectId }, "a run's state could not be written into the live document");
      }
    },

    async drawSeeds(projectId, seeds) {
      const document = await live.open(projectId);
      try {
        const stored = document.change((doc) => {
          for (const [nodeId, seed] of seeds) {
            const data = dataOf(doc, nodeId);
            if (data && data.get('seed') === undefined) data.set('seed', seed);
          }
        });
        await within(stored, STORE_WAIT_MS);
        return renderCanvas(document.doc);
      } finally {
        await document.close().catch((err: unknown) => log.warn({ err, projectId }, 'a live document could not be closed'));
      }
    },
  };
}
