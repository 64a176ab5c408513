// Names people can read for the canvas's nodes and edges — "Image 2", "Generate 1", "Image 2 → Generate 1" —
// shown in the nodes' title bars and given to screen readers (the aria-label of xyflow's node and edge
// wrappers) instead of internal ids. A name, once given, stays with its node: a node added through the live
// session (LiveSession.add, the one way nodes are added) gets its number among its kind stored in its data
// (`data.number`, `numberNewNodes`): the highest number of its kind on the canvas plus one, so deleting a node
// renames no other, for anyone. A node without a stored number (a canvas from before, a REST save, a template)
// is numbered as before: in document order among the unnumbered nodes of its kind, skipping the numbers taken.
// Moving a node keeps its name.
import { useStore } from '@xyflow/react';
import { kindOf } from './kinds.js';
import type { CanvasEdge, NodeKind } from './model.js';

/** The kind's word, its label in the registry ("Image", "Generate", "Text"); "Node" for a type no kind has. */
export const kindName = (kind: NodeKind | undefined): string => kindOf(kind)?.label ?? 'Node';

/** The key of a node's `data` that holds its number among its kind ("Image 3": 3). */
export const NUMBER_KEY = 'number';

type Named = { id: string; type?: string | undefined; data?: Record<string, unknown> | undefined };

/** A node's stored number: a whole number ≥ 1, else undefined. */
const storedNumber = (node: Named): number | undefined => {
  const n = node.data?.[NUMBER_KEY];
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
};

/** Each node's number among the nodes of its kind's word (see the top of this file), by id. */
function numbersOf(nodes: readonly Named[]): Map<string, { word: string; n: number }> {
  const taken = new Map<string, Set<number>>();
  const out = new Map<string, { word: string; n: number }>();
  const takenOf = (word: string) => taken.get(word) ?? taken.set(word, new Set()).get(word)!;
  // Stored numbers first; of two nodes with one number (added at once by two people), the later is renumbered.
  for (const node of nodes) {
    const word = kindName(node.type);
    const n = storedNumber(node);
    if (n === undefined || takenOf(word).has(n)) continue;
    takenOf(word).add(n);
    out.set(node.id, { word, n });
  }
  const next = new Map<string, number>();
  for (const node of nodes) {
    if (out.has(node.id)) continue;
    const word = kindName(node.type);
    let n = next.get(word) ?? 1;
    while (takenOf(word).has(n)) n++;
    next.set(word, n + 1);
    out.set(node.id, { word, n });
  }
  return out;
}

/** Each node's name, by id: its kind's word and its number (stored, or as before for a node without one). */
export function nodeNames(nodes: readonly Named[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const [id, { word, n }] of numbersOf(nodes)) names.set(id, `${word} ${n}`);
  return names;
}

/**
 * New nodes, each with its number stored in its data: the highest number of its kind's word on the canvas
 * (`existing`, and the new nodes before it) plus one, never one a node has now. The one place names are given
 * (LiveSession.add): nodes added together are numbered in the order given (a drop: selection order).
 */
export function numberNewNodes<T extends Record<string, unknown>>(existing: readonly Record<string, unknown>[], added: readonly T[]): T[] {
  const highest = new Map<string, number>();
  const ids = new Set<unknown>();
  for (const [, { word, n }] of numbersOf(existing as Named[])) highest.set(word, Math.max(highest.get(word) ?? 0, n));
  for (const node of existing) ids.add(node.id);
  return added.map((node) => {
    if (ids.has(node.id)) return node; // already on the canvas: keeps what it has
    const word = kindName(node.type as string | undefined);
    const n = (highest.get(word) ?? 0) + 1;
    highest.set(word, n);
    const data = typeof node.data === 'object' && node.data !== null && !Array.isArray(node.data) ? (node.data as Record<string, unknown>) : {};
    return { ...node, data: { ...data, [NUMBER_KEY]: n } };
  });
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
