// A node's run state in the live document (docs/api.md "Generation jobs", DESIGN.md §12): the one module that writes
// it, used by the job runner only (./runner.ts). A job tied to a canvas node (`projectId` and `nodeId`) shows there to
// every open editor while it is queued or running — `data.job` and `data.isGenerating: true` — and, when it ends, its
// result: `data.image` (and no `data.error`) once it succeeded, `data.error` its error text once it failed,
// `Canceled` once canceled, `The generation was interrupted` once its instance died. Only a node that exists is
// written, and only its `data`: nodes are never created, and a node deleted meanwhile stays deleted. Writing the
// document never fails a job: a failure is logged.
import * as Y from 'yjs';
import { canvasMaps } from '../collab/canvas-doc.js';
import type { LiveDocuments, OpenDocument } from '../collab/live-documents.js';
import type { GenerationNode } from '../db/repositories/index.js';

/** A job tied to a node, as its `data.job` shows it while the job is queued or running. */
export interface NodeJob {
  id: string;
  status: 'queued' | 'running';
  /** 1 = the next queued job to start; null once running. */
  queuePosition: number | null;
  queuedAt: string;
  startedAt: string | null;
  /** While running: what the task last said of its progress (as the job's `progress`). */
  progress?: { queuePosition?: number; step?: { done: number; total: number }; message?: string; preview?: string };
}

/** How a job ended, as its node shows it. */
export type RunOutcome = { image: string } | { error: string };

/** A job that has ended: `idle` when no other job runs into the node (then `isGenerating` ends and the outcome shows). */
export interface JobEnd {
  ended: string;
  idle: boolean;
  outcome?: RunOutcome;
}

export interface NodeRunState {
  /**
   * Shows a job in its node's `data.job` (and `isGenerating`), or — a JobEnd — takes it out and shows its outcome. Never
   * rejects. `handedBack`: the job was running here and is queued again (this instance stops), shown queued although
   * it was shown running.
   */
  show(node: GenerationNode, job: NodeJob | JobEnd, opts?: { handedBack?: boolean }): Promise<void>;
}

/** What a node shows after its job's instance died. */
export const INTERRUPTED = 'The generation was interrupted';
/** What a node shows once its job was canceled. */
export const CANCELED = 'Canceled';
/** The longest a job's end waits for its node's final state to be stored. */
const STORE_WAIT_MS = 5_000;

/** The node's `data` map, if the node exists as a map with one. */
function dataOf(doc: Y.Doc, nodeId: string): Y.Map<unknown> | undefined {
  const node = canvasMaps(doc).nodes.get(nodeId);
  const data = node instanceof Y.Map ? (node as Y.Map<unknown>).get('data') : undefined;
  return data instanceof Y.Map ? (data as Y.Map<unknown>) : undefined;
}

function setIfChanged(data: Y.Map<unknown>, key: string, value: unknown) {
  if (data.get(key) !== value) data.set(key, value);
}

/** Resolves with `promise`, or with undefined after `ms` (the promise goes on). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const RANK = { queued: 0, running: 1 } as const;

export function createNodeRunState({ live, log }: { live: Pick<LiveDocuments, 'open'>; log: { warn(o: object, m: string): void } }): NodeRunState {
  /** Opens the project's document, applies `write`, waits for the store (bounded), and closes it. */
  async function openAndWrite(node: GenerationNode, write: (doc: Y.Doc) => void) {
    let document: OpenDocument;
    try {
      document = await live.open(node.projectId);
    } catch (err) {
      log.warn({ err, ...node }, "the live document could not be opened to show a job's state");
      return;
    }
    try {
      const stored = document.change(write);
      stored.catch((err: unknown) => log.warn({ err, ...node }, 'job state could not be stored in the live document'));
      await within(stored, STORE_WAIT_MS);
    } catch (err) {
      log.warn({ err, ...node }, 'job state could not be written into the live document');
    } finally {
      await document.close().catch((err: unknown) => log.warn({ err, ...node }, 'a live document could not be closed'));
    }
  }

  return {
    show: (node, job, { handedBack = false } = {}) =>
      openAndWrite(node, (doc) => {
        const data = dataOf(doc, node.nodeId);
        if (!data) return;
        const shown = data.get('job') as Partial<NodeJob> | undefined;
        if ('ended' in job) {
          if (shown?.id === job.ended) data.delete('job');
          const outcome = job.outcome;
          // A result stays even while another job runs into the node; the rest shows once nothing runs.
          if (outcome && 'image' in outcome) setIfChanged(data, 'image', outcome.image);
          if (!job.idle) return;
          setIfChanged(data, 'isGenerating', false);
          if (outcome && 'image' in outcome) {
            if (data.has('error')) data.delete('error');
          } else if (outcome) setIfChanged(data, 'error', outcome.error);
          return;
        }
        // Writes of one job may arrive out of order: a running job is never shown as queued again.
        if (!handedBack && shown?.id === job.id && shown.status && RANK[shown.status] > RANK[job.status]) return;
        if (JSON.stringify(shown) !== JSON.stringify(job)) data.set('job', job);
        setIfChanged(data, 'isGenerating', true);
      }),
  };
}
