// Running a generation node as a job (docs/api.md "Generation jobs"): its inputs are the images of the nodes with
// edges into it, its model is the node's `data.model` (sent when set; none: the default), and POST /api/generations
// names the node (`projectId`, `nodeId`), so the service shows the job in the live document as a participant — the
// node's `data.job` (queued with its position, running since when) and `isGenerating` while it is unfinished, then
// its `image` or its `error` — and every open editor sees the same (DESIGN.md §9, §10). A closed tab does not
// matter: the job goes on.
//
// This tab keeps only what it alone knows, in the node's activity: the job it started (what the service answered,
// shown until the document shows the job), the service's full answer to a refusal or a failure (its status, so a
// quota shows its way out), and a refused cancel. It follows its job through the document: once the document says
// the job has ended (it showed the job or `isGenerating` and no longer does, or the node's image or error changed)
// it reads the job (GET /api/generations/:id) for how it ended; it also reads it once as soon as it is created, for a
// job that ended before this tab saw the document show it. A result is the service's change, not a step
// of this tab's undo history.
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import { api, errorDetails, errorMessage, NETWORK_ERROR, type GenerationJob } from '../api/client';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import { documentJob } from '../canvas/job';
import { jsonEqual } from '../canvas/live-doc';
import type { LiveSession } from '../canvas/live-session';
import { inputImages } from '../canvas/model';
import { chosenModel } from '../canvas/model-choice';
import { spendMayHaveChanged } from './use-spend';
import type { FlowState } from './use-live-canvas';

interface Follow {
  nodeId: string;
  jobId: string;
  /** The node's image and error when the job was asked for: a change of either means it has ended. */
  image: unknown;
  error: unknown;
  /** The document has shown the job (or the node generating) since. */
  seen: boolean;
  /** A read of the job is on its way. */
  reading: boolean;
  inputs: number;
  started: number;
}

export interface GenerationActions {
  generate: (nodeId: string) => Promise<void>;
  cancel: (nodeId: string, jobId: string) => Promise<void>;
}

const SETTLED: readonly string[] = ['succeeded', 'failed', 'canceled'];
/** How soon a job is read again when the service said it is unfinished but the document shows nothing running. */
const REREAD_MS = 1_000;

export function useGeneration(session: LiveSession, latest: RefObject<FlowState>, activity: ActivityStore): GenerationActions {
  const follows = useRef(new Map<string, Follow>());

  const nodeData = useCallback(
    (nodeId: string): Record<string, unknown> | undefined => {
      const node = session.canvas.get().nodes.find((n) => n.id === nodeId);
      const data = node?.data;
      return node ? (typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {}) : undefined;
    },
    [session],
  );

  /** The job has ended (`job` as the service reads it): the node's activity says how, and we stop following it. */
  const finish = useCallback(
    (follow: Follow, job: Pick<GenerationJob, 'status' | 'error' | 'output'>) => {
      follows.current.delete(follow.nodeId);
      spendMayHaveChanged();
      const seconds = Math.round((Date.now() - follow.started) / 1000);
      const failed = job.status === 'failed' ? (job.error ?? { error: 'Failed to generate image', status: 500 }) : undefined;
      activity.update(follow.nodeId, {
        job: undefined,
        canceling: undefined,
        generationError: failed ? { error: failed.error, ...(failed.details ? { details: failed.details } : {}), status: failed.status } : undefined,
      });
      if (job.status === 'succeeded' && job.output) {
        // The service writes the result into the node; should its write have failed, the node still gets it.
        const data = nodeData(follow.nodeId);
        if (data && data.image === follow.image && data.image !== job.output.imageUrl) session.setData(follow.nodeId, { image: job.output.imageUrl }, false);
        track('generation_succeeded', { inputs: follow.inputs, seconds });
      } else if (job.status === 'failed') {
        track('generation_failed', { inputs: follow.inputs, seconds, status: failed?.status ?? 500, reason: 'server' });
      } else track('generation_canceled', { inputs: follow.inputs, seconds });
    },
    [activity, nodeData, session],
  );

  /** Reads the job once the document says it has ended; a job still unfinished is followed on. */
  const read = useCallback(
    async (follow: Follow) => {
      if (follow.reading) return;
      follow.reading = true;
      try {
        const { data } = await api.GET('/api/generations/{id}', { params: { path: { id: follow.jobId } } });
        if (follows.current.get(follow.nodeId) !== follow) return;
        if (!data) {
          // Not ours to read any more (a 404: signed in as someone else meanwhile): the document shows the rest.
          follows.current.delete(follow.nodeId);
          return;
        }
        if (SETTLED.includes(data.status)) return finish(follow, data);
        // Not ended when the service answered.
        const current = nodeData(follow.nodeId);
        if (documentJob(current?.job)?.id === follow.jobId || current?.isGenerating === true) {
          // The document shows it running (it showed someone else's run end): wait for the document again.
          follow.image = current?.image;
          follow.error = current?.error;
          follow.seen = true;
        } else {
          // The document shows nothing running: it has not shown this job yet, or it has shown its end since the
          // service answered. Either the document changes, or asking again shortly says how it ended.
          setTimeout(() => {
            if (follows.current.get(follow.nodeId) === follow) void read(follow);
          }, REREAD_MS);
        }
        activity.update(follow.nodeId, { job: { id: data.id, status: data.status as 'queued' | 'running', queuePosition: data.queuePosition, startedAt: data.startedAt } });
      } catch {
        // Offline: the next change of the document asks again.
      } finally {
        follow.reading = false;
      }
    },
    [activity, finish, nodeData],
  );

  /** Looks at the followed jobs' nodes in the document. */
  const check = useCallback(() => {
    for (const follow of [...follows.current.values()]) {
      const data = nodeData(follow.nodeId);
      if (!data) {
        follows.current.delete(follow.nodeId); // the node is gone (anyone's delete): nothing left to show
        activity.update(follow.nodeId, { job: undefined, canceling: undefined });
        continue;
      }
      if (documentJob(data.job)?.id === follow.jobId || data.isGenerating === true) {
        follow.seen = true;
        continue;
      }
      if (follow.seen || data.image !== follow.image || !jsonEqual(data.error, follow.error)) {
        // The document says it has ended: stop showing it as running while the service says how it ended.
        if (activity.get(follow.nodeId).job) activity.update(follow.nodeId, { job: undefined });
        void read(follow);
      }
    }
  }, [activity, nodeData, read]);

  useEffect(() => session.canvas.subscribe(check), [session, check]);

  const generate = useCallback(
    async (nodeId: string) => {
      if (activity.isGenerating(nodeId)) return;
      const { nodes, edges } = latest.current;
      const node = nodes.find((n) => n.id === nodeId);
      if (!node) return;
      const { images } = inputImages(nodeId, nodes, edges);
      const prompt = node.data.prompt ?? '';
      const model = chosenModel(node.data.model); // none: the service runs its default
      const before = nodeData(nodeId) ?? {};
      const started = Date.now();

      activity.update(nodeId, { starting: true, generationError: undefined, cancelError: undefined });
      track('generation_started', { inputs: images.length });
      try {
        const { data, error, response } = await api.POST('/api/generations', {
          body: { images, prompt, projectId: session.projectId, nodeId, ...(model !== undefined ? { model } : {}) },
        });
        if (!data) {
          // A 429 (too many requests, too many generations at once, the model busy) says when to try again.
          const retryAfter = Number(response.headers.get('retry-after'));
          const retryAt = response.status === 429 && Number.isFinite(retryAfter) && retryAfter > 0 ? Date.now() + retryAfter * 1000 : undefined;
          activity.update(nodeId, {
            starting: undefined,
            generationError: {
              error: errorMessage(error, `Generation failed (HTTP ${response.status})`),
              details: errorDetails(error),
              status: response.status,
              ...(retryAt !== undefined ? { retryAt } : {}),
            },
          });
          track('generation_failed', { inputs: images.length, seconds: Math.round((Date.now() - started) / 1000), status: response.status, reason: 'server' });
          return;
        }
        const follow: Follow = { nodeId, jobId: data.id, image: before.image, error: before.error, seen: false, reading: false, inputs: images.length, started };
        follows.current.set(nodeId, follow);
        if (SETTLED.includes(data.status)) {
          activity.update(nodeId, { starting: undefined });
          void read(follow);
          return;
        }
        const status = data.status as 'queued' | 'running';
        activity.update(nodeId, { starting: undefined, job: { id: data.id, status, queuePosition: data.queuePosition, startedAt: null } });
        check(); // the document may have shown it, or its end, before the answer came…
        // …or all of it, leaving the node as it was (a failure with the same error as before): ask the service.
        void read(follow);
      } catch {
        activity.update(nodeId, { starting: undefined, generationError: { error: NETWORK_ERROR } });
        track('generation_failed', { inputs: images.length, seconds: Math.round((Date.now() - started) / 1000), reason: 'network' });
      }
    },
    [activity, latest, session, nodeData, read, check],
  );

  const cancel = useCallback(
    async (nodeId: string, jobId: string) => {
      if (activity.get(nodeId).canceling) return;
      activity.update(nodeId, { canceling: true, cancelError: undefined });
      try {
        const { data, error, response } = await api.POST('/api/generations/{id}/cancel', { params: { path: { id: jobId } } });
        const follow = follows.current.get(nodeId);
        if (data) {
          if (follow?.jobId === jobId) finish(follow, data);
          else activity.update(nodeId, { canceling: undefined });
          return;
        }
        if (response.status === 409 && follow?.jobId === jobId) void read(follow); // it ended meanwhile: say how
        const message =
          response.status === 409
            ? 'It has already finished.'
            : response.status === 404
              ? 'Only the person who started this generation can cancel it.'
              : errorMessage(error, `Could not cancel (HTTP ${response.status})`);
        activity.update(nodeId, { canceling: undefined, cancelError: { jobId, message } });
      } catch {
        activity.update(nodeId, { canceling: undefined, cancelError: { jobId, message: NETWORK_ERROR } });
      }
    },
    [activity, finish, read],
  );

  return { generate, cancel };
}
