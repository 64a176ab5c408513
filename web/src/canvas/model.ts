// Canvas nodes and edges as the editor holds them (xyflow objects) and as the API stores them (docs/api.md).
// Only the stored fields ever leave the browser: xyflow's own (selected, measured, dragging, …) stay here.
import type { Edge, Node, XYPosition } from '@xyflow/react';
import type { SavedEdge, SavedNode } from '../api/client';

export type NodeKind = SavedNode['type'];
export type NodeData = SavedNode['data'];
export type CanvasNode = Node<NodeData, NodeKind>;
export type CanvasEdge = Edge;

export interface CanvasDoc {
  nodes: SavedNode[];
  edges: SavedEdge[];
}

export function toSavedNode(node: CanvasNode): SavedNode {
  const { type, image, prompt, isGenerating } = node.data;
  const data: NodeData = { type };
  if (image) data.image = image;
  if (prompt !== undefined && prompt !== '') data.prompt = prompt;
  if (isGenerating) data.isGenerating = true;
  return { id: node.id, type: node.type ?? type, position: { x: node.position.x, y: node.position.y }, data };
}

export function toSavedEdge(edge: CanvasEdge): SavedEdge {
  const saved: SavedEdge = { id: edge.id, source: edge.source, target: edge.target };
  if (edge.sourceHandle) saved.sourceHandle = edge.sourceHandle;
  if (edge.targetHandle) saved.targetHandle = edge.targetHandle;
  return saved;
}

export function toDoc(nodes: CanvasNode[], edges: CanvasEdge[]): CanvasDoc {
  return { nodes: nodes.map(toSavedNode), edges: edges.map(toSavedEdge) };
}

/** Loaded nodes: nothing is generating after a reload (the request that was running is gone). */
export function fromSavedNode(node: SavedNode): CanvasNode {
  const data: NodeData = { ...node.data };
  delete data.isGenerating;
  return { id: node.id, type: node.type, position: node.position, data };
}

export function fromSavedEdge(edge: SavedEdge): CanvasEdge {
  return {
    id: edge.id,
    source: edge.source,
    target: edge.target,
    ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle } : {}),
    ...(edge.targetHandle ? { targetHandle: edge.targetHandle } : {}),
  };
}

export const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;

export function createNode(type: NodeKind, position: XYPosition): CanvasNode {
  return { id: newId(type), type, position, data: { type } };
}

/** The images feeding a generation node: sources of edges into it, top to bottom, then left to right. */
export function inputImages(nodeId: string, nodes: CanvasNode[], edges: CanvasEdge[]): { sources: CanvasNode[]; images: string[] } {
  const ids = new Set(edges.filter((e) => e.target === nodeId).map((e) => e.source));
  const sources = nodes
    .filter((n) => ids.has(n.id))
    .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
  return { sources, images: sources.map((n) => n.data.image).filter((url): url is string => !!url) };
}

/** The size a node is drawn at (measured once shown; a typical size before that). */
const sizeOf = (node: CanvasNode) => ({ width: node.measured?.width ?? 260, height: node.measured?.height ?? 300 });

/** The first spot at or to the right of `at` where a node of `size` overlaps no other node (with a margin). */
export function freeSpot(at: XYPosition, nodes: CanvasNode[], size = { width: 260, height: 300 }): XYPosition {
  const margin = 40;
  const overlaps = (spot: XYPosition) =>
    nodes.some((n) => {
      const { width, height } = sizeOf(n);
      return (
        spot.x < n.position.x + width + margin &&
        n.position.x < spot.x + size.width + margin &&
        spot.y < n.position.y + height + margin &&
        n.position.y < spot.y + size.height + margin
      );
    });
  let spot = { ...at };
  for (let i = 0; i < 200 && overlaps(spot); i++) spot = { x: spot.x + 60, y: spot.y };
  return spot;
}
