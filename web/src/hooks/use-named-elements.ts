// The nodes and edges xyflow draws, with the names people read (canvas/names.ts) as their wrappers'
// aria-label, instead of xyflow's "Edge from <id> to <id>" or nothing; the nodes' own components read their
// names back from xyflow (useNodeName). An element whose name did not change
// keeps its object, so xyflow redraws only what changed. Edges stay focusable by a click (select, then Delete)
// but are left out of the Tab order: a keyboard goes from node to node, and a generation node lists its
// inputs with a Disconnect button each.
import { useMemo } from 'react';
import { edgeName, nodeNames, NUMBER_KEY } from '../canvas/names';
import type { CanvasEdge, CanvasNode } from '../canvas/model';

const namedNodes = new WeakMap<CanvasNode, CanvasNode>();
const namedEdges = new WeakMap<CanvasEdge, CanvasEdge>();

function named<T extends CanvasNode | CanvasEdge>(cache: WeakMap<T, T>, element: T, name: string, extra: Partial<T>): T {
  const cached = cache.get(element);
  if (cached?.ariaLabel === name) return cached;
  const out = { ...element, ariaLabel: name, ...extra };
  cache.set(element, out);
  return out;
}

const NODE_EXTRA: Partial<CanvasNode> = { ariaRole: 'group' }; // also where xyflow gives an unfocusable node no role
const EDGE_EXTRA: Partial<CanvasEdge> = { domAttributes: { tabIndex: -1 } };

export function useNamedElements(nodes: CanvasNode[], edges: CanvasEdge[]) {
  // Names depend only on the nodes' ids, kinds, stored numbers and order: a move or an edit keeps the same map.
  const key = JSON.stringify(nodes.map((n) => [n.id, n.type, n.data[NUMBER_KEY]]));
  const names = useMemo(
    () => nodeNames((JSON.parse(key) as [string, CanvasNode['type'], unknown][]).map(([id, type, n]) => ({ id, type, data: { [NUMBER_KEY]: n } }))),
    [key],
  );
  const labelledNodes = useMemo(() => nodes.map((n) => named(namedNodes, n, names.get(n.id) ?? 'Node', NODE_EXTRA)), [nodes, names]);
  const labelledEdges = useMemo(() => edges.map((e) => named(namedEdges, e, edgeName(e, names), EDGE_EXTRA)), [edges, names]);
  return { nodes: labelledNodes, edges: labelledEdges };
}
