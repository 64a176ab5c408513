// Running a generation node: its inputs are the images of the nodes with edges into it, and the request names the
// node (`projectId`, `nodeId`), so the service shows the generation in the live document as a participant: the
// node's `isGenerating` while it runs, then its `image` or its `error` — every open editor sees it start and end,
// and a closed tab does not matter (DESIGN.md §9). This tab keeps only what it alone knows in the node's activity:
// when it started (the elapsed seconds), the service's full answer to a refusal, the model's note. A result is
// the service's change, not a step of this tab's undo history.
import { useCallback, type RefObject } from 'react';
import { api, errorDetails, errorMessage, NETWORK_ERROR } from '../api/client';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import type { LiveSession } from '../canvas/live-session';
import { inputImages } from '../canvas/model';
import type { FlowState } from './use-live-canvas';

export function useGeneration(session: LiveSession, latest: RefObject<FlowState>, activity: ActivityStore): (nodeId: string) => Promise<void> {
  return useCallback(
    async (nodeId: string) => {
      if (activity.isGenerating(nodeId)) return;
      const { nodes, edges } = latest.current;
      const node = nodes.find((n) => n.id === nodeId);
      if (!node) return;
      const { images } = inputImages(nodeId, nodes, edges);
      const prompt = node.data.prompt ?? '';
      const started = Date.now();

      activity.update(nodeId, { generatingSince: started, generationError: undefined, modelText: undefined });
      track('generation_started', { inputs: images.length });
      const seconds = () => Math.round((Date.now() - started) / 1000);
      try {
        const { data, error, response } = await api.POST('/api/image', { body: { images, prompt, projectId: session.projectId, nodeId } });
        activity.update(nodeId, { generatingSince: undefined });
        if (data) {
          // The service has written the result into the node; should its write have failed, the node still gets it.
          if (latest.current.nodes.find((n) => n.id === nodeId)?.data.image !== data.imageUrl) session.setData(nodeId, { image: data.imageUrl }, false);
          activity.update(nodeId, { modelText: data.text || undefined });
          track('generation_succeeded', { inputs: images.length, seconds: seconds() });
        } else {
          const modelText = (error as { text?: unknown } | undefined)?.text;
          activity.update(nodeId, {
            generationError: {
              error: errorMessage(error, `Generation failed (HTTP ${response.status})`),
              details: errorDetails(error) ?? (typeof modelText === 'string' && modelText ? modelText : undefined),
              status: response.status,
            },
          });
          track('generation_failed', { inputs: images.length, seconds: seconds(), status: response.status, reason: 'server' });
        }
      } catch {
        activity.update(nodeId, { generatingSince: undefined, generationError: { error: NETWORK_ERROR } });
        track('generation_failed', { inputs: images.length, seconds: seconds(), reason: 'network' });
      }
    },
    [activity, latest, session],
  );
}
