// What the web client's pure canvas modules (model, clipboard, placement, names) ask of the node-kind registry
// (src/kinds/, shared with the service): a node's kind, its planned size, the data a copy keeps, and whether a
// connection between two ports fits — in words people read when it does not. No React and no DOM (the kinds' UI
// is web/src/kinds/); unit-tested in test/unit/web-kinds.test.ts.
import { dataRulesOf, fits, kindOf, portOf, type NodeKind, type Port } from '../../../src/kinds/index.js';

export { kindOf, NODE_KINDS, portOf, type NodeKind, type NodeType, type Port } from '../../../src/kinds/index.js';

export interface NodeSize {
  readonly width: number;
  readonly height: number;
}
/** The size a node of a type no kind has is planned with (an unknown node: its title and a note). */
export const NODE_SIZE: NodeSize = { width: 260, height: 160 };

/** The size a node of this type is planned with before it is drawn (its kind's `size`; NODE_SIZE for any other). */
export const sizeOf = (type: string | undefined): NodeSize => kindOf(type)?.size ?? NODE_SIZE;

/**
 * A node's `data` keys that are the state of a run, written by the service while it runs the node (SPEC's
 * `isGenerating`; the key its result was made for and a fanned node's results, src/kinds/graph.ts; `job`, `error`
 * and `run` are no kind's fields at all): a copy leaves them behind. Its seed and count are settings: a copy keeps them.
 */
const RUN_STATE: ReadonlySet<string> = new Set(['isGenerating', 'resultKey', 'results']);

/** Only the kinds' own length limits matter here: the live session cuts texts to the service's (live-limits.ts). */
const ANY_LENGTH = { promptChars: Number.MAX_SAFE_INTEGER };

/**
 * What a copy of a node of this type keeps of `data`: its kind's fields (`type` aside) that hold a value the kind
 * accepts, never a run's state; nothing for a type no kind has.
 */
export function keptData(type: string | undefined, data: Record<string, unknown>): Record<string, unknown> | undefined {
  const rules = dataRulesOf(type, ANY_LENGTH);
  if (!rules) return undefined;
  const kept: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(rules)) {
    if (key === 'type' || RUN_STATE.has(key) || !Object.hasOwn(data, key)) continue;
    const value = data[key];
    if (value !== undefined && rule.test(value)) kept[key] = value;
  }
  return kept;
}

/** The data a node of this kind is stored with: `type`, then each of its kind's fields that `data` holds (a run's state included). */
export function storedData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const rules = dataRulesOf(type, ANY_LENGTH);
  const out: Record<string, unknown> = { type: typeof data.type === 'string' ? data.type : type };
  if (!rules) return { ...data, ...out }; // a kind this client does not know: as it came
  for (const key of Object.keys(rules)) if (key !== 'type' && data[key] !== undefined) out[key] = data[key];
  return out;
}

/** An edge's handle for a port: none for the kind's default port (as SPEC's edges, which name none), else its name. */
export const handleOf = (ports: readonly Port[], name: string | null | undefined): string | undefined => {
  const port = portOf(ports, name);
  if (port) return port.default ? undefined : port.name;
  return name ?? undefined; // no such port: as it was named (the connection is refused anyway)
};

const a = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);
const portWord = (p: Port) => `${p.label ?? p.name} (${p.value}${p.list ? 's' : ''})`;

/** The end of a connection as the editor knows it: a node's type and the handle it starts or ends at. */
export interface ConnectionEnd {
  type: string | undefined;
  handle: string | null | undefined;
  /** The node's name ("Generate 1"), for the words. */
  name?: string;
}

/**
 * Why a connection from an output to an input may not be made, in words (undefined: it fits): a node of a kind
 * this client does not know, a port that is not there, values that do not fit (and which of the target's inputs
 * would), a node into itself.
 */
export function connectionProblem(from: ConnectionEnd, to: ConnectionEnd, sameNode = false): string | undefined {
  if (sameNode) return 'A node cannot feed itself.';
  const source = kindOf(from.type);
  const target = kindOf(to.type);
  const toName = to.name ?? (target ? a(target.label) : 'that node');
  if (!source || !target) return `${!source ? (from.name ?? 'That node') : toName} is of a kind this page does not know.`;
  const output = portOf(source.outputs, from.handle);
  if (!output) return `${from.name ?? a(source.label)} has no output${from.handle ? ` “${from.handle}”` : ''}.`;
  if (target.inputs.length === 0) return `${to.name ?? a(target.label)} takes no inputs.`;
  const input = portOf(target.inputs, to.handle);
  if (!input) return `${toName} has no input${to.handle ? ` “${to.handle}”` : ''}.`;
  if (fits(output, input)) return undefined;
  const fitting = target.inputs.filter((p) => fits(output, p));
  const hint = fitting.length > 0 ? ` Connect it to ${fitting.map((p) => `“${p.label ?? p.name}”`).join(' or ')} instead.` : '';
  return `The ${portWord(output)} output does not fit the ${portWord(input)} input of ${toName}.${hint}`;
}

/** The kinds with an input that an output of this value fits, as the words of a connect hint ("a generation node"). */
export function kindsFedBy(output: Pick<Port, 'value'>, kinds: readonly NodeKind[]): NodeKind[] {
  return kinds.filter((k) => k.inputs.some((p) => fits(output, p)));
}

/** One end of an edge to be made: a node's type and, when it matters, its port's handle (null: the default port). */
export interface LinkEnd {
  type: string | undefined;
  /** The port's handle; undefined: any port of that side that fits (the default first). */
  handle?: string | null;
}

/**
 * The handles of an edge from `source` to `target` through the first pair of ports that fit (default ports first),
 * as the edge stores them (none for a default port); null when no output of the one fits an input of the other.
 */
export function linkPorts(source: LinkEnd, target: LinkEnd): { sourceHandle?: string; targetHandle?: string } | null {
  const from = kindOf(source.type);
  const to = kindOf(target.type);
  if (!from || !to) return null;
  const candidates = (ports: readonly Port[], handle: string | null | undefined): Port[] => {
    if (handle !== undefined) {
      const port = portOf(ports, handle);
      return port ? [port] : [];
    }
    return [...ports.filter((p) => p.default), ...ports.filter((p) => !p.default)];
  };
  for (const output of candidates(from.outputs, source.handle)) {
    const input = candidates(to.inputs, target.handle).find((p) => fits(output, p));
    if (!input) continue;
    const sourceHandle = handleOf(from.outputs, output.name);
    const targetHandle = handleOf(to.inputs, input.name);
    return { ...(sourceHandle ? { sourceHandle } : {}), ...(targetHandle ? { targetHandle } : {}) };
  }
  return null;
}
