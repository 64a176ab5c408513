// Names people can read for the canvas's nodes and edges — "Image 2", "Generate 1", "Image 2 → Generate 1" —
// shown in the nodes' title bars and given to screen readers (the aria-label of xyflow's node and edge
// wrappers) instead of internal ids. Nodes are numbered per kind in the document's order, which is the order
// they were added in (canvas-doc appends): the same names for everyone on the canvas, and stable while the
// canvas keeps its nodes; deleting a node renumbers the later ones of its kind. Moving a node keeps its name.
import { useStore } from '@xyflow/react';
import { kindOf } from './kinds.js';
import type { CanvasEdge, CanvasNode, NodeKind } from './model.js';

/** The kind's word, its label in the registry ("Image", "Generate", "Text"); "Node" for a type no kind has. */
export const kindName = (kind: NodeKind | undefined): string => kindOf(kind)?.label ?? 'Node';

/** Each node's name, by id: its kind's word and its number among the nodes of that kind, in document order. */
export function nodeNames(nodes: readonly Pick<CanvasNode, 'id' | 'type'>[]): Map<string, string> {
  const counts = new Map<string, number>();
  const names = new Map<string, string>();
  for (const node of nodes) {
    const word = kindName(node.type);
    const n = (counts.get(word) ?? 0) + 1;
    counts.set(word, n);
    names.set(node.id, `${word} ${n}`);
  }
  return names;
}

/** An edge's name: "Image 2 → Generate 1". */
export const edgeName = (edge: Pick<CanvasEdge, 'source' | 'target'>, names: ReadonlyMap<string, string>): string =>
  `${names.get(edge.source) ?? 'Node'} → ${names.get(edge.target) ?? 'Node'}`;

/** A node's name as xyflow holds it (its aria-label, hooks/use-named-elements.ts), or undefined. Inside xyflow. */
export function useNodeName(nodeId: string | undefined): string | undefined {
  return useStore((s) => (nodeId ? s.nodeLookup.get(nodeId)?.ariaLabel : undefined));
}

/** The names of several nodes, in the order of `ids` (unnamed: undefined). Inside xyflow. */
export function useNodeNameList(ids: readonly string[]): (string | undefined)[] {
  const joined = useStore((s) => ids.map((id) => s.nodeLookup.get(id)?.ariaLabel ?? '').join('\n'));
  return joined.split('\n').map((name) => name || undefined);
}
