// Canvas nodes and edges as the editor holds them (xyflow objects), as the API stores them (docs/api.md) and as
// the live document renders them (./live-doc.ts). Only the stored fields ever leave the browser: xyflow's own
// (selected, measured, dragging, …) stay here. A node's `type` is its kind's (src/kinds/, through ./kinds.ts); a
// type this client does not know is kept as it is and drawn as an unknown node (web/src/kinds/), never guessed.
import type { Edge, Node, XYPosition } from '@xyflow/react';
import { kindOf, storedData } from './kinds.js';

/** A node's `type`: a kind's (src/kinds/ NodeType), or one this client does not know, kept as it is. */
export type NodeKind = string;
export type NodeData = Record<string, unknown> & {
  /** The node's kind as SPEC's `data.type` repeats it (SPEC lets upload and generation carry either). */
  type: string;
  image?: string;
  prompt?: string;
  isGenerating?: boolean;
  /** A `text` node's text. */
  text?: string;
  /** Why the last generation failed, when the service wrote it into the node (a participant, DESIGN §9). */
  error?: unknown;
  /** The node's unfinished generation job, written by the service (./job.ts reads it). */
  job?: unknown;
  /** A generation node's model, an id from GET /api/models; absent: the default (./model-choice.ts reads it). */
  model?: unknown;
};
export type CanvasNode = Node<NodeData, NodeKind>;
export type CanvasEdge = Edge;

/** A node as the API stores it (docs/api.md "Canvas"), of any kind. */
export type StoredNode = {
  id: string;
  type: string;
  position: XYPosition;
  data: Record<string, unknown>;
};

/** An edge as the API stores it: a handle names a port of its node's kind (none: the default port). */
export type SavedEdge = {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
};

export interface CanvasDoc {
  nodes: StoredNode[];
  edges: SavedEdge[];
}

/** The stored fields of a node: its kind's data fields (an empty prompt and a false `isGenerating` left out, as before). */
export function toSavedNode(node: CanvasNode): StoredNode {
  const type = node.type ?? node.data.type;
  const data = storedData(type, node.data);
  if (data.prompt === '') delete data.prompt;
  if (data.isGenerating !== true) delete data.isGenerating;
  return { id: node.id, type, position: { x: node.position.x, y: node.position.y }, data };
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

/** A canvas read over REST (a read-only link's page, a version's preview): shown without "generating" flags or jobs. */
export function fromSavedNode(node: StoredNode): CanvasNode {
  const data = { ...node.data } as NodeData;
  delete data.isGenerating;
  delete data.job;
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

const isXY = (p: unknown): p is XYPosition =>
  typeof p === 'object' && p !== null && Number.isFinite((p as XYPosition).x) && Number.isFinite((p as XYPosition).y);

/**
 * The type a node is drawn as: its own `type` when it is a text (a kind's, or one this client does not know, kept as
 * it is: web/src/kinds/ draws that as an unknown node); without one, its `data.type` when a kind has it; else
 * `unknown` (no kind has that type).
 */
export function nodeTypeOf(type: unknown, dataType: unknown): NodeKind {
  if (typeof type === 'string' && type !== '') return type;
  return kindOf(dataType) ? (dataType as string) : UNKNOWN_TYPE;
}
/** What a node without a usable type is drawn as: a type no kind may have (kind types are lower-case). */
export const UNKNOWN_TYPE = 'Unknown';

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
      const data = (typeof value.data === 'object' && value.data !== null && !Array.isArray(value.data) ? value.data : {}) as Partial<NodeData>;
      const kind = nodeTypeOf(value.type, data.type);
      const position = prev?.dragging ? prev.position : isXY(value.position) ? { x: value.position.x, y: value.position.y } : { x: 0, y: 0 };
      node = { ...prev, id, type: kind, position, data: { ...data, type: typeof data.type === 'string' ? data.type : kind } };
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

/** A new node of a kind at `position`, with `data` besides its type (a kind's required fields: a text's `text`). */
export function createNode(type: NodeKind, position: XYPosition, data: Record<string, unknown> = {}): CanvasNode {
  return { id: newId(type), type, position, data: { ...data, type } };
}

/** The images feeding a generation node: sources of edges into it, top to bottom, then left to right. */
export function inputImages(nodeId: string, nodes: CanvasNode[], edges: CanvasEdge[]): { sources: CanvasNode[]; images: string[] } {
  const ids = new Set(edges.filter((e) => e.target === nodeId).map((e) => e.source));
  const sources = nodes
    .filter((n) => ids.has(n.id))
    .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
  return { sources, images: sources.map((n) => n.data.image).filter((url): url is string => !!url) };
}
