// Copying nodes (issue 19, point 1): the selected nodes and the edges between them, as a JSON text with a marker
// on the system clipboard (as Excalidraw does), so that they paste into this canvas, another project's or another
// tab's. A node keeps what it is — its kind and its kind's data fields (src/kinds/: an image, a prompt, a model, a
// text, …) — never the state of a run (`isGenerating`, `job`, `error`): a pasted generation node is idle. A node of
// a kind this client does not know is not copied (the canvas would refuse it). Text that is not ours, or is
// malformed, is not a clip; from it only values the node's kind accepts are taken. Pasted nodes and edges get new
// ids. A clip also holds the edges into its nodes from nodes outside it, and the canvas it came from (issue 34
// point 7): pasted (or duplicated) on that canvas, a copy keeps its inputs — an edge from each outside node still
// there —, while a paste into another canvas keeps only the edges inside the copy. No React and no DOM:
// unit-tested in test/unit/clipboard.test.ts.
import { keptData, kindOf, type NodeType } from './kinds.js';
import { nodeRect, type PlacedNode, type Rect, type XY } from './placement.js';

type NodeKind = NodeType;

/** What copying needs of a canvas node and edge (xyflow's, canvas/model.ts). */
export interface CopiedNode extends PlacedNode {
  id: string;
  data: Record<string, unknown>;
}
export interface CopiedEdge {
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

/** The marker of a clip's JSON text. */
export const CLIP_TYPE = 'image-canvas/nodes';
const VERSION = 1;
/** Bounds on what a paste accepts (the clipboard may hold anyone's text). */
const MAX_TEXT = 1_000_000;
const MAX_NODES = 500;
const MAX_EDGES = 2_000;

export interface ClipNode {
  id: string;
  type: NodeKind;
  /** The node's rectangle where it was copied (its size as drawn then). */
  rect: Rect;
  /** Its kind's data fields, `type` and a run's state aside (./kinds.ts `keptData`). */
  data: Record<string, unknown>;
}

export interface ClipEdge {
  source: string;
  target: string;
  sourceHandle?: string;
  targetHandle?: string;
}

export interface Clip {
  nodes: ClipNode[];
  /** The edges between the clip's nodes. */
  edges: ClipEdge[];
  /** The edges into the clip's nodes from nodes outside it (their sources are ids on `canvas`). */
  inputs?: ClipEdge[];
  /** The canvas (project id) the nodes were copied from. */
  canvas?: string;
}

/** What a paste writes into the document: new nodes and edges (plain JSON, as `LiveSession.add` takes them). */
export interface Pasted {
  nodes: Array<{ id: string; type: NodeKind; position: XY; data: Record<string, unknown> }>;
  edges: Array<{ id: string; source: string; target: string; sourceHandle?: string; targetHandle?: string }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const clipEdge = (e: CopiedEdge): ClipEdge => ({
  source: e.source,
  target: e.target,
  ...(e.sourceHandle ? { sourceHandle: e.sourceHandle } : {}),
  ...(e.targetHandle ? { targetHandle: e.targetHandle } : {}),
});

/**
 * The nodes `ids` of the canvas `canvas`, the edges between them and the edges into them from other nodes; null when
 * none of them is on the canvas.
 */
export function copyNodes(nodes: CopiedNode[], edges: CopiedEdge[], ids: ReadonlySet<string>, canvas?: string): Clip | null {
  const chosen = nodes.filter((n) => ids.has(n.id) && kindOf(n.type));
  if (chosen.length === 0) return null;
  const kept = new Set(chosen.map((n) => n.id));
  return {
    nodes: chosen.map((n) => ({ id: n.id, type: n.type as NodeKind, rect: nodeRect(n), data: keptData(n.type, n.data) ?? {} })),
    edges: edges.filter((e) => kept.has(e.source) && kept.has(e.target)).map(clipEdge),
    ...(canvas ? { canvas, inputs: edges.filter((e) => !kept.has(e.source) && kept.has(e.target)).map(clipEdge) } : {}),
  };
}

export function clipToText(clip: Clip): string {
  const outside = clip.canvas ? { canvas: clip.canvas, inputs: clip.inputs ?? [] } : {};
  return JSON.stringify({ type: CLIP_TYPE, version: VERSION, nodes: clip.nodes, edges: clip.edges, ...outside });
}

/** A clip edge from parsed JSON, or null when it is not one; `source` and `target` must pass their checks. */
function edgeFrom(e: unknown, source: (id: string) => boolean, target: (id: string) => boolean): ClipEdge | null {
  if (!isRecord(e) || typeof e.source !== 'string' || typeof e.target !== 'string' || !source(e.source) || !target(e.target)) return null;
  return {
    source: e.source,
    target: e.target,
    ...(typeof e.sourceHandle === 'string' ? { sourceHandle: e.sourceHandle } : {}),
    ...(typeof e.targetHandle === 'string' ? { targetHandle: e.targetHandle } : {}),
  };
}

/** The clip in a clipboard text; null for any other text (an ordinary paste). */
export function clipFromText(text: string): Clip | null {
  if (text.length > MAX_TEXT || !text.includes(CLIP_TYPE)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.type !== CLIP_TYPE || value.version !== VERSION) return null;
  if (!Array.isArray(value.nodes) || !Array.isArray(value.edges) || value.nodes.length > MAX_NODES || value.edges.length > MAX_EDGES) return null;
  const nodes: ClipNode[] = [];
  const ids = new Set<string>();
  for (const n of value.nodes as unknown[]) {
    if (!isRecord(n) || typeof n.id !== 'string' || ids.has(n.id) || !kindOf(n.type) || !isRecord(n.rect) || !isRecord(n.data)) continue;
    const { x, y, width, height } = n.rect;
    if (!finite(x) || !finite(y) || !finite(width) || !finite(height) || width < 0 || height < 0) continue;
    const data = keptData(n.type as string, n.data) ?? {};
    ids.add(n.id);
    nodes.push({ id: n.id, type: n.type as NodeKind, rect: { x, y, width, height }, data });
  }
  if (nodes.length === 0) return null;
  const inClip = (id: string) => ids.has(id);
  const edges = (value.edges as unknown[]).flatMap((e) => edgeFrom(e, inClip, inClip) ?? []);
  // Inputs from outside the clip: kept only with the canvas they come from (older clips have neither).
  const canvas = typeof value.canvas === 'string' && value.canvas.length <= 200 ? value.canvas : undefined;
  const rawInputs = canvas && Array.isArray(value.inputs) && value.inputs.length <= MAX_EDGES ? (value.inputs as unknown[]) : [];
  const inputs = rawInputs.flatMap((e) => edgeFrom(e, (id) => !inClip(id) && id.length <= 200, inClip) ?? []);
  return { nodes, edges, ...(canvas ? { canvas, inputs } : {}) };
}

/** The rectangle around a clip's nodes, where they were copied. */
export function clipBounds(clip: Clip): Rect {
  const left = Math.min(...clip.nodes.map((n) => n.rect.x));
  const top = Math.min(...clip.nodes.map((n) => n.rect.y));
  const right = Math.max(...clip.nodes.map((n) => n.rect.x + n.rect.width));
  const bottom = Math.max(...clip.nodes.map((n) => n.rect.y + n.rect.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * The clip's inputs kept by a paste onto `canvas`, whose nodes `rectOf` gives: none on another canvas, and only
 * those whose source is still there.
 */
export function keptInputs(clip: Clip, canvas: string | undefined, rectOf: (id: string) => Rect | undefined): ClipEdge[] {
  if (!clip.canvas || clip.canvas !== canvas) return [];
  return (clip.inputs ?? []).filter((e) => rectOf(e.source) !== undefined);
}

/**
 * The least x the left edge of the clip's bounds may have so that each node with a kept input lies `gap` right of
 * that input (issue 34 point 2: a node right of its inputs); undefined when it keeps none.
 */
export function inputsMinX(clip: Clip, inputs: ClipEdge[], rectOf: (id: string) => Rect | undefined, gap: number): number | undefined {
  const bounds = clipBounds(clip);
  let min: number | undefined;
  for (const e of inputs) {
    const source = rectOf(e.source);
    const target = clip.nodes.find((n) => n.id === e.target);
    if (!source || !target) continue;
    const least = source.x + source.width + gap - (target.rect.x - bounds.x);
    min = min === undefined ? least : Math.max(min, least);
  }
  return min;
}

/**
 * The clip as new nodes and edges (new ids, from `newId(prefix)`) with the top-left corner of its bounds at
 * `topLeft`; `inputs` (keptInputs) become edges from their outside sources into the copies.
 */
export function pasteClip(clip: Clip, topLeft: XY, newId: (prefix: string) => string, inputs: ClipEdge[] = []): Pasted {
  const bounds = clipBounds(clip);
  const ids = new Map(clip.nodes.map((n) => [n.id, newId(n.type)]));
  return {
    nodes: clip.nodes.map((n) => ({
      id: ids.get(n.id)!,
      type: n.type,
      position: { x: topLeft.x + n.rect.x - bounds.x, y: topLeft.y + n.rect.y - bounds.y },
      data: { type: n.type, ...n.data },
    })),
    edges: [
      ...clip.edges.map((e) => ({ ...e, id: newId('edge'), source: ids.get(e.source)!, target: ids.get(e.target)! })),
      ...inputs.filter((e) => ids.has(e.target)).map((e) => ({ ...e, id: newId('edge'), target: ids.get(e.target)! })),
    ],
  };
}
