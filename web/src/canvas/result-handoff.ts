// What the gallery hands to the canvas it opens (issue 34 point 10): "Show on canvas" is a link,
// `/projects/:id?node=<nodeId>` (the editor selects the node and centres the view on it); "Reuse prompt" leaves the
// prompt, the model and the node it came from in this tab's sessionStorage and opens `/projects/:id?reuse=1` (the
// editor adds a generation node with them, fed by the same images as that node). The prompt travels outside the
// URL so that no link can make someone's editor add a node: only this tab's own click can.
// A result dragged out of a node carries its image's address as RESULT_DRAG_TYPE.

export const RESULT_DRAG_TYPE = 'application/x-image-canvas-result';

export interface ReusedPrompt {
  prompt: string;
  model?: string;
  /** The generation node it was made by (its inputs feed the new node, and it lands beside it). */
  nodeId?: string | null;
}

const keyOf = (projectId: string) => `image-canvas:reuse:${projectId}`;

export const showOnCanvasPath = (projectId: string, nodeId: string) => `/projects/${encodeURIComponent(projectId)}?node=${encodeURIComponent(nodeId)}`;
export const reusePromptPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}?reuse=1`;

export function handOffPrompt(projectId: string, reused: ReusedPrompt): void {
  sessionStorage.setItem(keyOf(projectId), JSON.stringify(reused));
}

/** The prompt handed to this project's canvas, once (taken out of storage); null when none, or unreadable. */
export function takeHandedPrompt(projectId: string): ReusedPrompt | null {
  const raw = sessionStorage.getItem(keyOf(projectId));
  sessionStorage.removeItem(keyOf(projectId));
  try {
    const value = JSON.parse(raw ?? 'null') as Partial<ReusedPrompt> | null;
    if (!value || typeof value.prompt !== 'string') return null;
    return {
      prompt: value.prompt,
      model: typeof value.model === 'string' ? value.model : undefined,
      nodeId: typeof value.nodeId === 'string' ? value.nodeId : undefined,
    };
  } catch {
    return null;
  }
}
