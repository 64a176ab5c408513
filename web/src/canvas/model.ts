// Canvas nodes and edges as the editor holds them (xyflow objects), as the API stores them (docs/api.md) and as
// the live document renders them (./live-doc.ts). Only the stored fields ever leave the browser: xyflow's own
// (selected, measured, dragging, …) stay here.
import type { Edge, Node, XYPosition } from '@xyflow/react';
import type { ApiNode, SavedEdge, SavedNode } from '../api/client';

export type NodeKind = SavedNode['type'];
export type NodeData = SavedNode['data'] & {
  /** Why the last generation failed, when the service wrote it into the node (a participant, DESIGN §9). */
  error?: unknown;
  /** The node's unfinished generation job, written by the service (./job.ts reads it). */
  job?: unknown;
  /** A generation node's model, an id from GET /api/models; absent: the default (./model-choice.ts reads it). */
  model?: unknown;
};
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

/**
 * A canvas read over REST (a read-only link's page, a version's preview): shown without "generating" flags or jobs.
 * A node of a kind the editor does not draw yet keeps its type (xyflow draws it as a plain node).
 */
export function fromSavedNode(node: ApiNode): CanvasNode {
  const data = { ...node.data } as NodeData;
  delete data.isGenerating;
  delete data.job;
  return { id: node.id, type: node.type as NodeKind, position: node.position, data };
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

const KINDS: readonly string[] = ['upload', 'generation'] satisfies NodeKind[];
const isXY = (p: unknown): p is XYPosition =>
  typeof p === 'object' && p !== null && Number.isFinite((p as XYPosition).x) && Number.isFinite((p as XYPosition).y);

/** Which rendered value a flow node was made from: unchanged values give back the same flow node. */
const madeFrom = new WeakMap<object, object>();

/**
 * The live document's nodes (rendered JSON, in order) as xyflow nodes, keeping what this browser holds about
 * each (selected, measured, a drag in progress: while this browser drags a node its own position wins) and
 * reusing the previous object of every node whose rendering did not change. Only `id`, `type`, `position` and
 * `data` come from the document: anything else a client stored there (an old client's `selected`) is ignored.
 */
export function toFlowNodes(rendered: Record<string, unknown>[], previous: CanvasNode[]): CanvasNode[] {
  const before = new Map(previous.map((n) => [n.id, n]));
  let same = rendered.length === previous.length;
  const nodes = rendered.map((value, i) => {
    const id = value.id as string;
    const prev = before.get(id);
    let node: CanvasNode;
    if (prev && madeFrom.get(prev) === value) node = prev;
    else {
      const data = (typeof value.data === 'object' && value.data !== null ? value.data : {}) as NodeData;
      const kind = KINDS.includes(value.type as string) ? (value.type as NodeKind) : KINDS.includes(data.type) ? data.type : 'upload';
      const position = prev?.dragging ? prev.position : isXY(value.position) ? { x: value.position.x, y: value.position.y } : { x: 0, y: 0 };
      node = { ...prev, id, type: kind, position, data: { ...data, type: KINDS.includes(data.type) ? data.type : kind } };
      madeFrom.set(node, value);
    }
    if (node !== previous[i]) same = false;
    return node;
  });
  return same ? previous : nodes;
}

/** The live document's edges as xyflow edges (as `toFlowNodes`); edges whose ends are not both nodes are left out. */
export function toFlowEdges(rendered: Record<string, unknown>[], previous: CanvasEdge[], nodeIds: ReadonlySet<string>): CanvasEdge[] {
  const before = new Map(previous.map((e) => [e.id, e]));
  const edges: CanvasEdge[] = [];
  for (const value of rendered) {
    if (!nodeIds.has(value.source as string) || !nodeIds.has(value.target as string)) continue;
    const prev = before.get(value.id as string);
    if (prev && madeFrom.get(prev) === value) {
      edges.push(prev);
      continue;
    }
    const edge: CanvasEdge = {
      ...(prev ? { selected: prev.selected } : {}),
      id: value.id as string,
      source: value.source as string,
      target: value.target as string,
      ...(typeof value.sourceHandle === 'string' ? { sourceHandle: value.sourceHandle } : {}),
      ...(typeof value.targetHandle === 'string' ? { targetHandle: value.targetHandle } : {}),
    };
    madeFrom.set(edge, value);
    edges.push(edge);
  }
  return edges.length === previous.length && edges.every((e, i) => e === previous[i]) ? previous : edges;
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
