// Uploading files into the canvas: into an existing upload node, or as new upload nodes. Progress and
// errors go to the node's activity; the node's `image` becomes the permanent URL the service returns, written
// into the live document. Adding nodes is an undo step; a new node's first image is part of that step (undoing
// removes the node), while replacing the image of a node that had one is a step of its own.
import { useCallback, type RefObject } from 'react';
import { uploadImage } from '../api/upload';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import type { EditorActions, UploadSource } from '../canvas/editor-context';
import type { LiveSession } from '../canvas/live-session';
import { createNode, toSavedNode } from '../canvas/model';
import type { FlowState } from './use-live-canvas';

/** Vertical distance between images added together. */
const STACK_GAP = 300;

export function useUploads(session: LiveSession, latest: RefObject<FlowState>, activity: ActivityStore): EditorActions['uploadFiles'] {
  const upload = useCallback(
    async (nodeId: string, file: File, source: UploadSource, replacing: boolean) => {
      activity.update(nodeId, { uploadProgress: 0, uploadError: undefined });
      try {
        const { url } = await uploadImage(file, (fraction) => activity.update(nodeId, { uploadProgress: fraction }));
        activity.update(nodeId, { uploadProgress: undefined });
        if (replacing) session.step();
        if (!session.setData(nodeId, { image: url }, replacing)) return; // removed meanwhile (by anyone)
        track('image_uploaded', { source, bytes: file.size });
      } catch (err) {
        activity.update(nodeId, { uploadProgress: undefined, uploadError: (err as Error).message });
      }
    },
    [activity, session],
  );

  return useCallback(
    (files, target) => {
      if (files.length === 0) return;
      if (target.nodeId) {
        const node = latest.current.nodes.find((n) => n.id === target.nodeId);
        if (node) void upload(node.id, files[0], target.source, !!node.data.image);
        return;
      }
      // Files added together form a column, its top-left at `at` (the editor placed it in view, clear of other nodes).
      const column = target.at ?? { x: 0, y: 0 };
      const created = files.map((_, i) => createNode('upload', { x: column.x, y: column.y + i * STACK_GAP }));
      session.step();
      session.add({ nodes: created.map(toSavedNode) });
      created.forEach((node, i) => void upload(node.id, files[i], target.source, false));
    },
    [latest, session, upload],
  );
}
