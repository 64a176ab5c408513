// What node components may ask the editor to do, and where they read their activity from.
import { createContext, useContext } from 'react';
import type { ActivityStore, NodeActivity } from './activity';
import { useActivity } from './activity';
import type { MarkStore } from './marks';

export type UploadSource = 'file-picker' | 'drop' | 'paste';

export interface EditorActions {
  activity: ActivityStore;
  /** The project of a live canvas (its generations are listed under generation nodes); absent on a read-only link's page. */
  projectId?: string;
  /** A canvas shown read-only (a viewer, a read-only link): nodes offer no edits, only downloads. */
  readOnly?: boolean;
  /**
   * Uploads files: into the node `nodeId` (its first file), or as a column of new nodes with its top-left at `at` (flow
   * coordinates), each connected into the generation node `feeds` when given.
   */
  uploadFiles: (files: File[], target: { nodeId?: string; at?: { x: number; y: number }; feeds?: string; source: UploadSource }) => void;
  /** Sets a generation node's prompt; typing coalesces into one undo step until a pause, or `newRun` (focus came back, a chip). */
  setPrompt: (nodeId: string, prompt: string, newRun?: boolean) => void;
  /**
   * Sets keys of a node's data (any kind's fields: a text's `text`, …; an empty text is kept). One undo step; or,
   * with `typing`, typing into those keys coalesces into one step until a pause or `typing.newRun`, as `setPrompt`.
   */
  setFields: (nodeId: string, fields: Record<string, unknown>, typing?: { newRun?: boolean }) => void;
  /** Sets a generation node's model (`data.model`); undefined: none, the default runs. */
  setModel: (nodeId: string, model: string | undefined) => void;
  generate: (nodeId: string) => void;
  /** Cancels the node's generation job (the refusal shows in the node's activity). */
  cancelGeneration: (nodeId: string, jobId: string) => void;
  /** Makes an earlier result the node's current image. */
  setImage: (nodeId: string, image: string) => void;
  /** A new image node holding `image` (a result's address) beside the node `beside`; absent when read-only. */
  newImageNode?: (image: string, beside: string) => void;
  removeNode: (nodeId: string) => void;
  removeEdge: (edgeId: string) => void;
  /**
   * Puts the edges `edgeIds`, in that order, after every other edge, and sets keys of node `nodeId`'s data, as one
   * undo step: how a compose node reorders its layers (layer i is its i-th image edge, src/kinds/compose.ts).
   */
  reorderEdges?: (edgeIds: string[], nodeId: string, fields: Record<string, unknown>) => void;
  /** The canvas's stale marks (hooks/use-graph-marks.ts); absent: none shown. */
  marks?: MarkStore;
}

export const EditorContext = createContext<EditorActions | null>(null);

export function useEditor(): EditorActions {
  const actions = useContext(EditorContext);
  if (!actions) throw new Error('useEditor outside the canvas editor');
  return actions;
}

export function useNodeActivity(nodeId: string): NodeActivity {
  return useActivity(useEditor().activity, nodeId);
}
