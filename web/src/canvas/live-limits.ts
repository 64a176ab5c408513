// What keeps this client's writes inside what the live canvas accepts (docs/api.md "Live canvas", "Limits"):
// the canvas limits of GET /api/client-config, a prompt cut to its limit, the pace at which a drag and the pointer
// are sent, and the words for a change the service refused anyway. No React and no DOM: unit-tested in
// test/unit/live-limits.test.ts.
import { canvasRules, isId, isPosition, KEY_MAX_CHARS, type FieldRules } from '../../../src/collab/canvas-rules.js';
import { CLOSE, REFUSED_CHANGE } from '../../../src/collab/protocol.js';
import { edgeProblem, kindOf, portOf } from '../../../src/kinds/index.js';

export interface CanvasLimits {
  promptMaxChars: number;
  maxNodes: number;
  maxEdges: number;
}

/** The service's defaults (PROMPT_MAX_CHARS, CANVAS_MAX_NODES, CANVAS_MAX_EDGES), until client-config answers. */
export const DEFAULT_CANVAS_LIMITS: CanvasLimits = { promptMaxChars: 10_000, maxNodes: 5_000, maxEdges: 10_000 };

/**
 * How often a drag's positions and the pointer are written to the live document: at most 30 times a second each,
 * whatever the display's refresh rate (a 144 Hz display would otherwise send 144 changes a second, past the
 * service's COLLAB_UPDATES_PER_SECOND of 60, bursts of 120, and the connection is closed `rate-limited`).
 */
export const LIVE_WRITE_MS = 33;

/** `text` cut to at most `max` UTF-16 units (what the service counts), never leaving half of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair would be cut off
  return text.slice(0, end);
}

type Json = Record<string, unknown>;

/** Text PostgreSQL can store: NUL and lone surrogates replaced by U+FFFD. */
// eslint-disable-next-line no-control-regex -- NUL is matched on purpose: PostgreSQL cannot store it.
const storableText = (s: string) => s.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/**
 * Fields as the live canvas's rules (src/collab/canvas-rules.ts; a node's data by its kind, src/kinds/) take them: a
 * text the rule refuses (a prompt, a text node's text) is cut to the prompt limit and made storable when that makes
 * it pass, and any other value a rule refuses is left out (`undefined`: not written, or deleted in a patch).
 */
function fitFields(fields: Json, table: FieldRules, extra: (v: unknown) => boolean, limits: CanvasLimits): Json {
  let out: Json | null = null;
  for (const [key, value] of Object.entries(fields)) {
    let fitted = value;
    const rule = Object.hasOwn(table, key) ? table[key].test : extra;
    if (typeof value === 'string' && Object.hasOwn(table, key) && !rule(value)) {
      const cut = storableText(cutText(value, limits.promptMaxChars));
      if (rule(cut)) fitted = cut;
    }
    if (value !== undefined && (key.length > KEY_MAX_CHARS || !rule(fitted))) fitted = undefined;
    if (fitted !== value) (out ??= { ...fields })[key] = fitted;
  }
  return out ?? fields;
}

let cached: { limits: CanvasLimits; rules: ReturnType<typeof canvasRules> } | null = null;
function rulesFor(limits: CanvasLimits) {
  if (cached?.limits !== limits) cached = { limits, rules: canvasRules({ promptChars: limits.promptMaxChars }) };
  return cached.rules;
}

/**
 * A node data patch the live canvas takes for a node of `type` (its kind's rules; SPEC's when the type is not
 * given or no kind's): a text cut to the limit, any other value it would refuse left out.
 */
export function limitPatch<T extends Json>(patch: T, limits: CanvasLimits, type?: unknown): T {
  const rules = rulesFor(limits);
  const fitted = fitFields(patch, rules.dataOf(type) ?? rules.data, rules.extra.test, limits);
  if (fitted === patch) return patch;
  // A value the rules refuse is not written (an undefined value in a patch would delete the key).
  return Object.fromEntries(Object.entries(fitted).filter(([key, value]) => value !== undefined || patch[key] === undefined)) as T;
}

/**
 * Nodes and edges the live canvas takes (an add, a paste of another tab's clipboard): fields fitted as above; a
 * node without a valid id or finite position, and an edge without valid ids, are left out.
 */
export function fitElements(elements: { nodes?: Json[]; edges?: Json[] }, limits: CanvasLimits): { nodes: Json[]; edges: Json[] } {
  const rules = rulesFor(limits);
  const nodes = (elements.nodes ?? []).flatMap((node) => {
    if (!isId(node.id) || !isPosition(node.position)) return [];
    const { id, data, ...rest } = node;
    const fields = fitFields(rest, { ...rules.node, data: { test: () => true, reason: '' } }, rules.extra.test, limits);
    const fitted = typeof data === 'object' && data !== null && !Array.isArray(data) ? fitFields(data as Json, rules.dataOf(node.type) ?? rules.data, rules.extra.test, limits) : data;
    return [{ id, ...fields, data: fitted }];
  });
  // An edge between nodes of this add must name ports their kinds have (else it means the default port) and join
  // ports that fit (else it is left out), as the service checks (src/collab/update-check.ts).
  const kept = new Set(nodes.map((n) => n.id));
  const kinds = new Map((elements.nodes ?? []).filter((n) => kept.has(n.id as string)).map((n) => [n.id as string, kindOf(n.type)]));
  const edges = (elements.edges ?? []).flatMap((edge) => {
    if (!isId(edge.id) || !isId(edge.source) || !isId(edge.target)) return [];
    const { id, ...rest } = edge;
    const fitted: Json = { id, ...fitFields(rest, rules.edge, rules.extra.test, limits) };
    const source = kinds.get(edge.source);
    const target = kinds.get(edge.target);
    if (source && typeof fitted.sourceHandle === 'string' && !portOf(source.outputs, fitted.sourceHandle)) delete fitted.sourceHandle;
    if (target && typeof fitted.targetHandle === 'string' && !portOf(target.inputs, fitted.targetHandle)) delete fitted.targetHandle;
    const ends = { source: edge.source, target: edge.target, sourceHandle: fitted.sourceHandle as string | null | undefined, targetHandle: fitted.targetHandle as string | null | undefined };
    if (source && target && edgeProblem(ends, source, target)) return [];
    return [fitted];
  });
  return { nodes, edges };
}

/**
 * Runs `write` at most once per `ms`: the first call at once, later ones within `ms` once at the end of the
 * interval (the latest state wins: `write` reads it). `flush` runs a pending write now.
 */
export class Throttle {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last = Number.NEGATIVE_INFINITY;
  private pending = false;

  constructor(
    private readonly write: () => void,
    private readonly ms = LIVE_WRITE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  request(): void {
    this.pending = true;
    if (this.timer !== undefined) return;
    const wait = this.last + this.ms - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    this.pending = false;
    this.last = this.now();
    this.write();
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
  }
}

/** Refusals of a change's content (docs/api.md, the rules table), in words; a reason not here is no content refusal. */
const REFUSALS: Record<string, string> = {
  'invalid-prompt': 'a prompt is too long or holds characters that cannot be stored',
  'invalid-text': 'a text is too long or holds characters that cannot be stored',
  'invalid-model': 'a model name is too long',
  'invalid-image': 'an image address is too long or not allowed',
  'invalid-position': 'a position is not a number',
  'invalid-id': 'an id is too long',
  'invalid-source': 'a connection names an invalid node',
  'invalid-target': 'a connection names an invalid node',
  'invalid-handle': 'a connection’s handle is too long',
  'invalid-key': 'a field name is too long',
  'invalid-value': 'a value is too large',
  [REFUSED_CHANGE.unknownNodeType.reason]: 'a node has an unknown kind',
  [REFUSED_CHANGE.invalidDataType.reason]: 'a node’s data is not of its kind',
  [REFUSED_CHANGE.dataOfAnotherKind.reason]: 'a node holds a field of another kind',
  [REFUSED_CHANGE.unknownPort.reason]: 'a connection names a port its node does not have',
  [REFUSED_CHANGE.portsDoNotFit.reason]: 'a connection joins ports that do not fit',
  'invalid-data': 'a node’s data is malformed',
  'invalid-is-generating': 'a node’s data is malformed',
  'invalid-order-key': 'the order of nodes is malformed',
  'invalid-shape': 'the canvas would be malformed',
  'unknown-root': 'the canvas would be malformed',
  'unknown-parent': 'the canvas would be malformed',
  [CLOSE.malformedUpdate.reason]: 'the change is malformed',
  [REFUSED_CHANGE.tooManyNodes.reason]: 'the canvas would have more nodes than allowed',
  [REFUSED_CHANGE.tooManyEdges.reason]: 'the canvas would have more connections than allowed',
  [REFUSED_CHANGE.canvasTooLarge.reason]: 'the canvas would be larger than allowed',
};

/**
 * The words for a document connection closed by the service, when the close is a refusal of a change's content
 * (the provider would resend it on every reconnect: the page drops its document and loads it again, see
 * use-live-session.ts); null for any other close.
 */
export function refusalText(reason: unknown): string | null {
  if (typeof reason !== 'string') return null;
  if (Object.hasOwn(REFUSALS, reason)) return REFUSALS[reason];
  return reason.startsWith('missing-') ? 'a node or connection would lack a required field' : null;
}
