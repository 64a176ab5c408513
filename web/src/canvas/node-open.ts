// Asks a node to open its own editor (the mask node's full-size editor) from outside it: the canvas's context menu
// names the node, the node's component listens for its id. State of this tab only.
import { useEffect } from 'react';

const listeners = new Map<string, () => void>();

/** Opens the editor of node `nodeId` if its component is listening (it is drawn). */
export function openNodeEditor(nodeId: string): void {
  listeners.get(nodeId)?.();
}

/** Called by a node's component: `open` runs when its editor is asked for (while `enabled`). */
export function useOpenNodeEditor(nodeId: string, enabled: boolean, open: () => void): void {
  useEffect(() => {
    if (!enabled) return;
    listeners.set(nodeId, open);
    return () => {
      if (listeners.get(nodeId) === open) listeners.delete(nodeId);
    };
  }, [nodeId, enabled, open]);
}
