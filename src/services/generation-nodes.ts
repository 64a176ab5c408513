// Generation state in the live document (docs/api.md "Image generation"; DESIGN.md §9): a generation asked for a
// canvas node (`projectId` and `nodeId`) is shown to every open editor by the service, as a participant. When it
// starts, the node's `data.isGenerating` becomes true; when it ends, false, with `data.image` (the result's URL,
// and no `data.error`) or `data.error` (the error text the route answers). Only a node that exists is written:
// nodes are never created, and a node deleted meanwhile stays deleted. One document connection serves the whole
// generation. Writing the document never fails a generation: a failure is logged.
//
// A generation whose instance died leaves its node generating; its lease in `running_generations` names the node,
// and once that lease has lapsed an instance claims the row (`sweep`, every `sweepMs`) and settles the node:
// `isGenerating` false and `data.error` saying it was interrupted, unless another generation into that node runs.
import * as Y from 'yjs';
import { canvasMaps } from '../collab/canvas-doc.js';
import type { LiveDocuments, OpenDocument } from '../collab/live-documents.js';
import type { ProjectAccess } from '../auth/project-access.js';
import type { GenerationNode, RunningGenerationsRepository } from '../db/repositories/index.js';

/** How a generation ended, as its node shows it (a canceled one leaves the node as it was). */
export type GenerationOutcome = { image: string } | { error: string } | { canceled: true };

/** A generation job tied to a node, as its `data.job` shows it while the job is queued or running. */
export interface NodeJob {
  id: string;
  status: 'queued' | 'running';
  /** 1 = the next queued job to start; null once running. */
  queuePosition: number | null;
  queuedAt: string;
  startedAt: string | null;
  /** While running: what the model last said of its progress (as the job's `progress`). */
  progress?: { queuePosition?: number; step?: { done: number; total: number }; message?: string; preview?: string };
}

/** A job that has ended, as its node is told: see GenerationNodes.showJob. */
export interface JobEnd {
  ended: string;
  idle: boolean;
  error?: string;
}

export interface NodeTracker {
  /** Writes the outcome into the node and closes the document; never rejects. */
  end(outcome: GenerationOutcome): Promise<void>;
}

export interface GenerationNodes {
  /** 404 when the user has no role on the project (or there is none), 403 for a viewer (`generate`): as the canvas routes. */
  authorize(userId: string, node: GenerationNode): Promise<void>;
  /** Opens the project's document and marks the node generating (in the background); `end()` once it ends. */
  track(node: GenerationNode): NodeTracker;
  /**
   * Shows a job in its node's `data.job` (and `isGenerating`), or — with `{ ended, idle, error? }` — removes job
   * `ended` from it once it has ended (`idle`: nothing runs into the node any more, so `isGenerating` becomes false,
   * and the node shows `error`, the failed job's, when given). Never rejects.
   */
  showJob(node: GenerationNode, job: NodeJob | JobEnd): Promise<void>;
  /** Settles the nodes of lapsed leases (their instance died); resolves with how many leases were claimed. */
  sweep(): Promise<number>;
  /** Stops sweeping, waiting for a sweep in progress. */
  stop(): Promise<void>;
}

export interface GenerationNodesDeps {
  live: Pick<LiveDocuments, 'open'>;
  access: Pick<ProjectAccess, 'require'>;
  runningGenerations: Pick<RunningGenerationsRepository, 'claimLapsedNodes'>;
  log: { warn(o: object, m: string): void };
  /** How often lapsed leases are looked for; 0: never by itself (call `sweep`). */
  sweepMs: number;
}

/** What a node shows after its generation's instance died. */
export const INTERRUPTED = 'The generation was interrupted';
/** The longest a generation's answer waits for its node's final state to be stored. */
const STORE_WAIT_MS = 5_000;
/** Lapsed leases claimed per sweep query. */
const CLAIM_BATCH = 100;

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

export function createGenerationNodes({ live, access, runningGenerations, log, sweepMs }: GenerationNodesDeps): GenerationNodes {
  const warn = (err: unknown, node: GenerationNode, message: string) => log.warn({ err, projectId: node.projectId, nodeId: node.nodeId }, message);

  /** Applies `write` to the document, waits for the store (bounded), and closes the document. */
  async function writeAndClose(document: OpenDocument, context: object, write: (doc: Y.Doc) => void) {
    try {
      const stored = document.change(write);
      stored.catch((err: unknown) => log.warn({ err, ...context }, 'generation state could not be stored in the live document'));
      await within(stored, STORE_WAIT_MS);
    } catch (err) {
      log.warn({ err, ...context }, 'generation state could not be written into the live document');
    } finally {
      await document.close().catch((err: unknown) => log.warn({ err, ...context }, 'a live document could not be closed'));
    }
  }

  /** Writes a generation's end into its node, if the node is there. */
  const ending = (node: GenerationNode, outcome: GenerationOutcome) => (doc: Y.Doc) => {
    const data = dataOf(doc, node.nodeId);
    if (!data) return;
    setIfChanged(data, 'isGenerating', false);
    if ('canceled' in outcome) return;
    if ('image' in outcome) {
      setIfChanged(data, 'image', outcome.image);
      if (data.has('error')) data.delete('error');
    } else setIfChanged(data, 'error', outcome.error);
  };

  const RANK = { queued: 0, running: 1 } as const;

  /** Opens the project's document and writes into it (writeAndClose); a document that cannot be opened is logged (`why`). */
  async function openAndWrite(projectId: string, context: object, why: string, write: (doc: Y.Doc) => void) {
    let document: OpenDocument;
    try {
      document = await live.open(projectId);
    } catch (err) {
      log.warn({ err, ...context }, `the live document could not be opened ${why}`);
      return;
    }
    await writeAndClose(document, context, write);
  }

  async function showJob(node: GenerationNode, job: NodeJob | JobEnd): Promise<void> {
    await openAndWrite(node.projectId, node, 'to show a generation job', (doc) => {
      const data = dataOf(doc, node.nodeId);
      if (!data) return;
      const shown = data.get('job') as Partial<NodeJob> | undefined;
      if ('ended' in job) {
        if (shown?.id === job.ended) data.delete('job');
        if (job.idle) {
          setIfChanged(data, 'isGenerating', false);
          if (job.error !== undefined) setIfChanged(data, 'error', job.error);
        }
        return;
      }
      // Writes of one job may arrive out of order: a running job is never shown as queued again.
      if (shown?.id === job.id && shown.status && RANK[shown.status] > RANK[job.status]) return;
      if (JSON.stringify(shown) !== JSON.stringify(job)) data.set('job', job);
      setIfChanged(data, 'isGenerating', true);
    });
  }

  function track(node: GenerationNode): NodeTracker {
    const opening = live.open(node.projectId).then(
      (document) => {
        try {
          document.change((doc) => {
            const data = dataOf(doc, node.nodeId);
            if (data) setIfChanged(data, 'isGenerating', true);
          }).catch((err: unknown) => warn(err, node, 'generation state could not be stored in the live document'));
        } catch (err) {
          warn(err, node, 'generation state could not be written into the live document');
        }
        return document;
      },
      (err: unknown) => {
        warn(err, node, 'the live document could not be opened for a generation');
        return null;
      },
    );
    return {
      async end(outcome) {
        const document = await within(opening, STORE_WAIT_MS);
        if (document === undefined) {
          // Still opening: write when it opens, without holding up the answer.
          void opening.then((late) => late && writeAndClose(late, node, ending(node, outcome)));
          return;
        }
        if (document) await writeAndClose(document, node, ending(node, outcome));
      },
    };
  }

  async function sweep(): Promise<number> {
    const lapsed = await runningGenerations.claimLapsedNodes(CLAIM_BATCH);
    const byProject = new Map<string, Set<string>>();
    for (const { projectId, nodeId, stillRunning } of lapsed) {
      if (!stillRunning) byProject.set(projectId, (byProject.get(projectId) ?? new Set<string>()).add(nodeId));
    }
    for (const [projectId, nodeIds] of byProject) {
      await openAndWrite(projectId, { projectId }, 'to settle lapsed generations', (doc) => {
        for (const nodeId of nodeIds) {
          const data = dataOf(doc, nodeId);
          if (data?.get('isGenerating') !== true) continue; // settled already (or gone)
          data.set('isGenerating', false);
          setIfChanged(data, 'error', INTERRUPTED);
        }
      });
    }
    return lapsed.length;
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = sweepMs > 0 ? setInterval(() => {
    sweeping = sweeping.then(() => (stopped ? 0 : sweep())).catch((err: unknown) => log.warn({ err }, 'lapsed generations could not be settled'));
  }, sweepMs) : undefined;
  timer?.unref();

  return {
    async authorize(userId, { projectId }) {
      await access.require({ userId }, projectId, 'generate');
    },
    track,
    showJob,
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sweeping;
    },
  };
}
