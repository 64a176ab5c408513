// Running a generation node as a job (docs/api.md "Generation jobs"): its inputs are the images of the nodes with
// edges into it, its model is the node's `data.model` (sent when set; none: the default), and POST /api/generations
// names the node (`projectId`, `nodeId`), so the service shows the job in the live document — the node's `data.job`
// (queued with its position, running since when) and `isGenerating` while it is unfinished, then its `image` or its
// `error` — and every open editor sees the same (DESIGN.md §9, §10). A closed tab does not matter: the job goes on.
//
// This tab never writes a node's run state: it reads the document for what everyone sees, and follows the jobs it
// started through the user's job events (the tab's one stream, api/job-events.ts) for what only it knows — the
// service's full answer to a refusal or a failure (its status, so a quota shows its way out), a cancel (the node
// then says *Canceled*, not an earlier run's error), a refused cancel. No timers and no reads of a job: the events
// say how a job ended; when they may have been missed (the stream stopped), the document does. A node whose job is
// queued or running is not started again: its job is shown instead, and a start the service refuses because the
// node has a job (409 naming it) follows that job.
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import { api, errorDetails, errorMessage, jobEvents, NETWORK_ERROR, type GenerationJob } from '../api/client';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import { documentCanceled, documentError, documentJob, runningJobOf } from '../canvas/job';
import { jsonEqual } from '../canvas/live-doc';
import type { LiveSession } from '../canvas/live-session';
import { kindOf } from '../canvas/kinds';
import { inputImages } from '../canvas/model';
import { IMAGE_STEPS_TASK } from '../../../src/kinds/image-steps.js';
import { chosenModel } from '../canvas/model-choice';
import { spendMayHaveChanged } from './use-spend';
import type { FlowState } from './use-live-canvas';

interface Follow {
  nodeId: string;
  /** Unknown until POST /api/generations answers. */
  jobId: string | undefined;
  /** Every job id the document has shown in the node since the start was asked for. */
  shown: Set<string>;
  /** The node's image and error when the start was asked for: a change of either means a run has ended. */
  image: unknown;
  error: unknown;
  /** Its events will say how it ends (this tab started it with the stream open); else the document does. */
  byEvents: boolean;
  /** Not this tab's job: the node's job a refused start named (its end is not this tab's to count). */
  joined: boolean;
  inputs: number;
  started: number;
  /** Lets the job-event stream close once nothing follows a job. */
  release: () => void;
}

/** A cancel this tab saw, shown until the node runs again or its result changes. */
interface CanceledMark {
  jobId: string;
  /** The node's image and error once the document showed it idle after the cancel. */
  idle?: { image: unknown; error: unknown };
}

type Ended = Pick<GenerationJob, 'id' | 'status' | 'error'>;

export interface GenerationActions {
  generate: (nodeId: string) => Promise<void>;
  cancel: (nodeId: string, jobId: string) => Promise<void>;
}

const FINISHED: readonly string[] = ['succeeded', 'failed', 'canceled'];

export function useGeneration(session: LiveSession, latest: RefObject<FlowState>, activity: ActivityStore): GenerationActions {
  const follows = useRef(new Map<string, Follow>());
  const canceled = useRef(new Map<string, CanceledMark>());
  /** The latest event of jobs that came before POST /api/generations answered which job it made. */
  const early = useRef(new Map<string, GenerationJob>());

  const nodeData = useCallback(
    (nodeId: string): Record<string, unknown> | undefined => {
      const node = session.canvas.get().nodes.find((n) => n.id === nodeId);
      const data = node?.data;
      return node ? (typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {}) : undefined;
    },
    [session],
  );

  const unfollow = useCallback((follow: Follow) => {
    if (follows.current.get(follow.nodeId) === follow) follows.current.delete(follow.nodeId);
    follow.release();
  }, []);

  /**
   * The job has ended: its event (or the answer to our cancel) says how, or — `job` undefined — only the document
   * does. The node's activity says what only this tab knows, and we stop following it.
   */
  const finish = useCallback(
    (follow: Follow, job: Ended | undefined) => {
      unfollow(follow);
      spendMayHaveChanged();
      const seconds = Math.round((Date.now() - follow.started) / 1000);
      const data = nodeData(follow.nodeId) ?? {};
      const status = job?.status ?? (data.image !== follow.image ? 'succeeded' : documentCanceled(data) ? 'canceled' : documentError(data.error) ? 'failed' : undefined);
      // Only the event has the full answer; a failure the document alone tells is its error, shown from there.
      const failed = job?.status === 'failed' ? (job.error ?? { error: 'Failed to generate image', status: 500 }) : undefined;
      activity.update(follow.nodeId, {
        job: undefined,
        canceling: undefined,
        generationError: failed ? { error: failed.error, ...(failed.details ? { details: failed.details } : {}), status: failed.status } : undefined,
        canceled: status === 'canceled' && follow.jobId ? { jobId: follow.jobId } : undefined,
      });
      if (status === 'canceled' && follow.jobId) canceled.current.set(follow.nodeId, { jobId: follow.jobId });
      if (follow.joined) return;
      if (status === 'succeeded') track('generation_succeeded', { inputs: follow.inputs, seconds });
      else if (status === 'failed') track('generation_failed', { inputs: follow.inputs, seconds, status: failed?.status ?? 500, reason: 'server' });
      else if (status === 'canceled') track('generation_canceled', { inputs: follow.inputs, seconds });
    },
    [activity, nodeData, unfollow],
  );

  /** A change of one of the user's jobs: how a job we follow is doing, or how it ended. */
  const onJob = useCallback(
    (job: GenerationJob) => {
      const follow = [...follows.current.values()].find((f) => f.jobId === job.id);
      if (!follow) {
        // Perhaps the job a start of ours made, before its answer came: kept until then.
        const pending = [...follows.current.values()].some((f) => f.jobId === undefined && f.nodeId === job.nodeId);
        if (pending && job.projectId === session.projectId) early.current.set(job.id, job);
        return;
      }
      if (FINISHED.includes(job.status)) return finish(follow, job);
      activity.update(follow.nodeId, { job: { id: job.id, status: job.status as 'queued' | 'running', queuePosition: job.queuePosition, startedAt: job.startedAt } });
    },
    [activity, finish, session],
  );

  /** Looks at the followed jobs' nodes, and the nodes marked canceled, in the document. */
  const check = useCallback(() => {
    for (const follow of [...follows.current.values()]) {
      const data = nodeData(follow.nodeId);
      if (!data) {
        unfollow(follow); // the node is gone (anyone's delete): nothing left to show
        activity.update(follow.nodeId, { starting: undefined, job: undefined, canceling: undefined });
        continue;
      }
      const shown = documentJob(data.job)?.id;
      if (shown) follow.shown.add(shown);
      if (!follow.jobId || shown === follow.jobId) continue;
      // The document showed our job and no longer does, or — had it never shown it — the node's result changed.
      const ended = follow.shown.has(follow.jobId) || data.image !== follow.image || !jsonEqual(data.error, follow.error);
      if (!ended) continue;
      if (!follow.byEvents) finish(follow, undefined);
      else if (activity.get(follow.nodeId).job) activity.update(follow.nodeId, { job: undefined }); // its event says how
    }
    for (const [nodeId, mark] of [...canceled.current]) {
      const data = nodeData(nodeId);
      const job = documentJob(data?.job);
      if (job?.id === mark.jobId) continue; // the document has not shown the cancel yet
      const running = job !== undefined || data?.isGenerating === true;
      if (!data || (running && (job !== undefined || mark.idle))) {
        canceled.current.delete(nodeId);
        activity.update(nodeId, { canceled: undefined });
      } else if (!running) {
        mark.idle ??= { image: data.image, error: data.error };
        if (mark.idle.image !== data.image || !jsonEqual(mark.idle.error, data.error)) {
          canceled.current.delete(nodeId);
          activity.update(nodeId, { canceled: undefined });
        }
      }
    }
  }, [activity, finish, nodeData, unfollow]);

  useEffect(() => session.canvas.subscribe(check), [session, check]);

  useEffect(() => {
    const unsubscribe = jobEvents.subscribe({
      onJob,
      onGap: () => {
        // Events may have been missed: the document says how the jobs we follow end.
        for (const follow of follows.current.values()) follow.byEvents = false;
        check();
      },
    });
    const all = follows.current;
    return () => {
      unsubscribe();
      for (const follow of [...all.values()]) unfollow(follow);
    };
  }, [onJob, check, unfollow]);

  /** The service answered which job the start made (or which job the node has): follow it. */
  const following = useCallback(
    (follow: Follow, jobId: string) => {
      follow.jobId = jobId;
      const before = early.current.get(jobId);
      if (![...follows.current.values()].some((f) => f.jobId === undefined)) early.current.clear();
      if (before) onJob(before);
      if (follows.current.get(follow.nodeId) === follow) check(); // the document may have shown it, or its end, meanwhile
    },
    [onJob, check],
  );

  const generate = useCallback(
    async (nodeId: string) => {
      if (follows.current.has(nodeId) || activity.isGenerating(nodeId)) return;
      const current = nodeData(nodeId);
      // The node's job (anyone's) is queued or running: it is shown, not started again.
      if (!current || documentJob(current.job) || current.isGenerating === true) return;
      const { nodes, edges } = latest.current;
      const node = nodes.find((n) => n.id === nodeId);
      if (!node) return;
      const { images } = inputImages(nodeId, nodes, edges);
      const prompt = node.data.prompt ?? '';
      const model = chosenModel(node.data.model); // none: the service runs its default
      const started = Date.now();
      const follow: Follow = {
        nodeId,
        jobId: undefined,
        shown: new Set(),
        image: current.image,
        error: current.error,
        byEvents: false,
        joined: false,
        inputs: images.length,
        started,
        release: jobEvents.hold(),
      };
      follows.current.set(nodeId, follow);
      canceled.current.delete(nodeId);
      activity.update(nodeId, { starting: true, generationError: undefined, cancelError: undefined, canceled: undefined });
      track('generation_started', { inputs: images.length });
      try {
        // The stream is open before the job exists, so none of its events can be missed.
        follow.byEvents = await jobEvents.ready();
        // A node that edits an image (crop, resize, adjust: src/kinds/image-steps.ts) is started by its id alone: the
        // service reads its input and settings from the canvas.
        const body = kindOf(node.type)?.task?.kind === IMAGE_STEPS_TASK ? { projectId: session.projectId, nodeId } : { images, prompt, projectId: session.projectId, nodeId, ...(model !== undefined ? { model } : {}) };
        const { data, error, response } = await api.POST('/api/generations', { body });
        if (follows.current.get(nodeId) !== follow) return; // the node was deleted meanwhile
        if (!data) {
          const running = response.status === 409 ? runningJobOf(error) : undefined;
          if (running) {
            // Someone started the node first: follow their job (the document shows it; its events, if it is ours).
            follow.byEvents = false;
            follow.joined = true;
            activity.update(nodeId, { starting: undefined, job: { id: running.id, status: running.status, queuePosition: running.queuePosition, startedAt: null } });
            following(follow, running.id);
            track('generation_failed', { inputs: images.length, seconds: Math.round((Date.now() - started) / 1000), status: response.status, reason: 'server' });
            return;
          }
          unfollow(follow);
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
        const status = FINISHED.includes(data.status) ? null : (data.status as 'queued' | 'running');
        activity.update(nodeId, { starting: undefined, job: { id: data.id, status, queuePosition: data.queuePosition, startedAt: null } });
        following(follow, data.id);
      } catch {
        unfollow(follow);
        activity.update(nodeId, { starting: undefined, generationError: { error: NETWORK_ERROR } });
        track('generation_failed', { inputs: images.length, seconds: Math.round((Date.now() - started) / 1000), reason: 'network' });
      }
    },
    [activity, latest, session, nodeData, following, unfollow],
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
          else {
            canceled.current.set(nodeId, { jobId });
            activity.update(nodeId, { canceling: undefined, canceled: { jobId } });
          }
          return;
        }
        // A 409: it ended meanwhile (its event, or the document, says how).
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
    [activity, finish],
  );

  return { generate, cancel };
}
