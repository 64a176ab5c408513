// The fast path for the hottest body of the API: a canvas save (~80 KB, hundreds of nodes and edges, about
// once a second per open editor). It accepts exactly what `canvasSchemas(limits).CanvasBody` accepts and
// returns the same value (unknown fields dropped, keys in schema order); anything it does not accept goes to
// the zod schema, which stays the one definition of the rules and the source of every error message. A
// property test (test/unit/canvas-body.test.ts) holds the two to the same verdicts and outputs.
// Measured under `npm run load`: zod was ~20 % of the service thread per save; this is a few per cent. The field
// predicates are the canvas rules' own (src/collab/canvas-rules.ts), which the live document applies too.
import type { Config } from '../config.js';
import { HANDLE_MAX_CHARS, isFiniteNumber as isNumber, isId, isText as text } from '../collab/canvas-rules.js';
import { fits, kindData, portOf, type NodeType, type Port } from '../kinds/index.js';
import { isDataUrl } from '../net/data-url.js';

type Limits = Pick<Config['limits'], 'canvasNodes' | 'canvasEdges' | 'promptChars'>;

export interface CanvasBodyValue {
  id?: string;
  projectId: string;
  nodes: CanvasNodeValue[];
  edges: CanvasEdgeValue[];
  version?: number;
}

interface CanvasNodeValue {
  id: string;
  type: NodeType;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}

interface CanvasEdgeValue {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

const MAX_VERSION = 2_147_483_647;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The validated value, or undefined when the zod schema must decide (and word the error). */
export function createCanvasBodyCheck(limits: Limits): (body: unknown) => CanvasBodyValue | undefined {
  // Per kind, once: its data keys in schema order (`type` first) with their predicates, and its ports by name
  // (an absent or null handle: the default port), so that an edge is checked with two lookups (`edgeProblem`'s
  // verdict without its message).
  interface KindCheck {
    keys: string[];
    tests: Array<(v: unknown) => boolean>;
    required: boolean[];
    outputs: Map<string, Port>;
    inputs: Map<string, Port>;
    defaultOutput: Port | undefined;
    defaultInput: Port | undefined;
  }
  const checks = new Map<string, KindCheck>();
  for (const [type, { kind, fields }] of kindData(limits)) {
    const keys = Object.keys(fields);
    checks.set(type, {
      keys,
      tests: keys.map((k) => fields[k].test),
      required: keys.map((k) => fields[k].required === true),
      outputs: new Map(kind.outputs.map((p) => [p.name, p])),
      inputs: new Map(kind.inputs.map((p) => [p.name, p])),
      defaultOutput: portOf(kind.outputs, null),
      defaultInput: portOf(kind.inputs, null),
    });
  }

  /** The node's value, or undefined when it is refused. */
  function node(n: unknown, check: KindCheck | undefined): CanvasNodeValue | undefined {
    if (!check || !isRecord(n)) return undefined;
    const { id, type, position, data } = n;
    if (!isId(id) || !isRecord(position) || !isRecord(data)) return undefined;
    const { x, y } = position;
    if (!isNumber(x) || !isNumber(y)) return undefined;
    const { keys, tests, required } = check;
    const out: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) {
      // Read as zod reads it (no kind names a key of Object.prototype: src/kinds/kind.ts defineKind).
      const value = data[keys[k]];
      if (value === undefined) {
        if (required[k]) return undefined;
        continue;
      }
      if (!tests[k](value)) return undefined;
      out[keys[k]] = value;
    }
    return { id, type: type as NodeType, position: { x, y }, data: out };
  }

  /** Whether an edge's ports exist on its nodes' kinds and fit. */
  function portsFit(e: CanvasEdgeValue, source: KindCheck, target: KindCheck): boolean {
    const from = e.sourceHandle === undefined || e.sourceHandle === null ? source.defaultOutput : source.outputs.get(e.sourceHandle);
    const to = e.targetHandle === undefined || e.targetHandle === null ? target.defaultInput : target.inputs.get(e.targetHandle);
    return from !== undefined && to !== undefined && fits(from, to);
  }

  function edge(e: unknown): CanvasEdgeValue | undefined {
    if (!isRecord(e)) return undefined;
    const { id, source, target, sourceHandle, targetHandle } = e;
    if (!isId(id) || !isId(source) || !isId(target)) return undefined;
    const out: CanvasEdgeValue = { id, source, target };
    if (sourceHandle !== undefined) {
      if (sourceHandle !== null && !text(sourceHandle, HANDLE_MAX_CHARS)) return undefined;
      out.sourceHandle = sourceHandle;
    }
    if (targetHandle !== undefined) {
      if (targetHandle !== null && !text(targetHandle, HANDLE_MAX_CHARS)) return undefined;
      out.targetHandle = targetHandle;
    }
    return out;
  }

  return (body) => {
    if (!isRecord(body)) return undefined;
    const { id, projectId, version } = body;
    // Missing nodes or edges mean empty ones, as in the schema.
    const nodes = body.nodes === undefined ? [] : body.nodes;
    const edges = body.edges === undefined ? [] : body.edges;
    if (id !== undefined && !isId(id)) return undefined;
    if (typeof projectId !== 'string' || projectId.length === 0) return undefined;
    if (!Array.isArray(nodes) || nodes.length > limits.canvasNodes) return undefined;
    if (!Array.isArray(edges) || edges.length > limits.canvasEdges) return undefined;
    if (version !== undefined && !(Number.isInteger(version) && (version as number) >= 0 && (version as number) <= MAX_VERSION)) return undefined;

    const outNodes = new Array<CanvasNodeValue>(nodes.length);
    const kinds = new Map<string, KindCheck>();
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as unknown;
      const type = isRecord(n) ? n.type : undefined;
      const check = typeof type === 'string' ? checks.get(type) : undefined;
      const value = node(n, check);
      if (!value || kinds.has(value.id)) return undefined;
      kinds.set(value.id, check!);
      outNodes[i] = value;
    }
    const outEdges = new Array<CanvasEdgeValue>(edges.length);
    for (let i = 0; i < edges.length; i++) {
      const e = edge(edges[i]);
      if (!e) return undefined;
      const source = kinds.get(e.source);
      const target = kinds.get(e.target);
      if (!source || !target || !portsFit(e, source, target)) return undefined;
      outEdges[i] = e;
    }
    // Keys in schema order, as zod gives them: id, projectId, nodes, edges, version.
    const out: CanvasBodyValue = id === undefined ? { projectId, nodes: outNodes, edges: outEdges } : { id, projectId, nodes: outNodes, edges: outEdges };
    if (version !== undefined) out.version = version as number;
    return out;
  };
}

/**
 * How many characters of a request body are data: URLs in nodes' `data.image` (before validation: anything that
 * is not shaped like a canvas counts 0). The canvas route lets a body exceed CANVAS_MAX_BYTES by these only.
 */
export function inlineImageChars(body: unknown): number {
  if (!isRecord(body) || !Array.isArray(body.nodes)) return 0;
  let chars = 0;
  for (const node of body.nodes as unknown[]) {
    if (!isRecord(node) || !isRecord(node.data)) continue;
    const image = node.data.image;
    if (typeof image === 'string' && isDataUrl(image)) chars += image.length;
  }
  return chars;
}
