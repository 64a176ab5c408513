// Running a generation node: its inputs are the images of the nodes with edges into it; the result's
// permanent URL becomes the node's image (an undoable step). While the request runs the node is flagged
// `isGenerating` (saved with the canvas) and its activity holds the start time for the elapsed seconds.
import { useCallback } from 'react';
import { api, errorDetails, errorMessage, NETWORK_ERROR } from '../api/client';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import { inputImages } from '../canvas/model';
import type { useCanvasHistory } from './use-canvas-history';

type History = ReturnType<typeof useCanvasHistory>;

export function useGeneration(history: History, activity: ActivityStore): (nodeId: string) => Promise<void> {
  const { checkpoint, setNodes, latest } = history;

  return useCallback(
    async (nodeId: string) => {
      if (activity.isGenerating(nodeId)) return;
      const { nodes, edges } = latest.current;
      const node = nodes.find((n) => n.id === nodeId);
      if (!node) return;
      const { images } = inputImages(nodeId, nodes, edges);
      const prompt = node.data.prompt ?? '';
      const started = Date.now();
      const setGenerating = (isGenerating: boolean, image?: string) =>
        setNodes((all) =>
          all.map((n) => {
            if (n.id !== nodeId) return n;
            const data = { ...n.data, ...(image ? { image } : {}) };
            if (isGenerating) data.isGenerating = true;
            else delete data.isGenerating;
            return { ...n, data };
          }),
        );

      activity.update(nodeId, { generatingSince: started, generationError: undefined, modelText: undefined });
      setGenerating(true);
      track('generation_started', { inputs: images.length });
      const seconds = () => Math.round((Date.now() - started) / 1000);
      try {
        const { data, error, response } = await api.POST('/api/image', { body: { images, prompt } });
        activity.update(nodeId, { generatingSince: undefined });
        if (data) {
          if (latest.current.nodes.some((n) => n.id === nodeId)) {
            checkpoint();
            setGenerating(false, data.imageUrl);
          }
          activity.update(nodeId, { modelText: data.text || undefined });
          track('generation_succeeded', { inputs: images.length, seconds: seconds() });
        } else {
          setGenerating(false);
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
        setGenerating(false);
        track('generation_failed', { inputs: images.length, seconds: seconds(), reason: 'network' });
      }
    },
    [activity, checkpoint, latest, setNodes],
  );
}
