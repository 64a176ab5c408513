// The node-kind registry (DESIGN.md §12, STYLE.md habit 16): every kind the canvas knows, one line each, and the
// lookups the service and the web client use instead of switching on `type`. Adding a kind is a module beside
// this one (./kind.ts says what it declares) and a line in NODE_KINDS.
import { z } from 'zod';
import { adjust } from './adjust.js';
import { compose } from './compose.js';
import { edit } from './edit.js';
import { crop } from './crop.js';
import { generation } from './generation.js';
import type { DataField, DataFields, FieldRule, FieldRules, KindLimits, NodeKind, Port } from './kind.js';
import { fits } from './kind.js';
import { list } from './list.js';
import { mask } from './mask.js';
import { removeBackground } from './remove-background.js';
import { resize } from './resize.js';
import { text } from './text.js';
import { upload } from './upload.js';
import { upscale } from './upscale.js';

export type { DataField, DataFields, FieldRule, FieldRules, KindLimits, KindTask, ModelRole, NodeKind, Port, PortValue, SourceValue } from './kind.js';
export { GENERATION_TASK_KIND, MODEL_ROLES, PORT_VALUES, defineKind, fits } from './kind.js';

/** Every node kind, in menu order. */
export const NODE_KINDS = [
  upload,
  generation,
  text,
  list,
  crop,
  resize,
  adjust,
  mask,
  edit,
  compose,
  upscale,
  removeBackground,
] as const satisfies readonly NodeKind[];

/** A node `type` some kind has. */
export type NodeType = (typeof NODE_KINDS)[number]['type'];
export const NODE_TYPES: readonly NodeType[] = NODE_KINDS.map((k) => k.type);

const byType = new Map<string, NodeKind>(NODE_KINDS.map((k) => [k.type, k]));
/** The kind of a node `type`; undefined for a type no kind has. */
export const kindOf = (type: unknown): NodeKind | undefined => (typeof type === 'string' ? byType.get(type) : undefined);
export const isNodeType = (v: unknown): v is NodeType => typeof v === 'string' && byType.has(v);

// ---------------------------------------------------------------------------------------------------------
// Data

/** A kind's `data` under some limits: its fields (`type` first) and their zod object schema. */
export interface KindData {
  readonly kind: NodeKind;
  /** `type`, then the kind's own fields in its order: the keys a REST save keeps. */
  readonly fields: DataFields;
  /** `fields` as a zod object (unknown keys dropped, as zod objects do). */
  readonly schema: z.ZodObject;
  /** `dataRulesOf`'s table, made when first asked. */
  rules?: FieldRules;
}

/** `data.type`: one of the kind's `dataTypes` (its own type unless it says otherwise). */
function dataTypeField(kind: NodeKind): DataField {
  const types = kind.dataTypes ?? [kind.type];
  const schema = types.length === 1 ? z.literal(types[0]) : z.enum(types as [string, ...string[]]);
  return { schema, test: (v) => typeof v === 'string' && types.includes(v), reason: 'invalid-data-type', required: true };
}

function makeKindData(limits: KindLimits): ReadonlyMap<string, KindData> {
  const out = new Map<string, KindData>();
  for (const kind of NODE_KINDS as readonly NodeKind[]) {
    const fields: DataFields = { type: dataTypeField(kind), ...kind.data(limits) };
    const shape = Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.schema]));
    out.set(kind.type, { kind, fields, schema: z.object(shape) });
  }
  return out;
}
const kindDataByPromptChars = new Map<number, ReadonlyMap<string, KindData>>();

/** Every kind's data rules under these limits, made once per limits. */
export function kindData(limits: KindLimits): ReadonlyMap<string, KindData> {
  let made = kindDataByPromptChars.get(limits.promptChars);
  if (!made) kindDataByPromptChars.set(limits.promptChars, (made = makeKindData(limits)));
  return made;
}

/**
 * A kind's data field rules (`type` first), as the live document's update check takes them: a rule's test also
 * accepts `undefined` (absent) for a field that is not required. Undefined for a type no kind has.
 */
export function dataRulesOf(type: unknown, limits: KindLimits): FieldRules | undefined {
  if (typeof type !== 'string') return undefined;
  const made = kindData(limits).get(type);
  if (!made) return undefined;
  let rules = made.rules;
  if (!rules) {
    const table: Record<string, FieldRule> = {};
    for (const [key, f] of Object.entries(made.fields)) {
      const test = f.test;
      table[key] = { test: f.required ? test : (v) => v === undefined || test(v), reason: f.reason, ...(f.required ? { required: true } : {}) };
    }
    rules = made.rules = table;
  }
  return rules;
}

// ---------------------------------------------------------------------------------------------------------
// Ports and edges

/** The port a handle names on one side of a kind: absent or null means the default one. */
export function portOf(ports: readonly Port[], handle: string | null | undefined): Port | undefined {
  return handle === undefined || handle === null ? ports.find((p) => p.default) : ports.find((p) => p.name === handle);
}

/** What is wrong with an edge's ports: the field, and why (naming the nodes and ports, not the edge). */
export interface EdgeProblem {
  field: 'sourceHandle' | 'targetHandle';
  message: string;
}

interface EdgeEnds {
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

const q = (s: string) => JSON.stringify(s);
const names = (ports: readonly Port[]) => ports.map((p) => q(p.name)).join(', ');

function missingPort(edge: EdgeEnds, kind: NodeKind, side: 'source' | 'target'): EdgeProblem {
  const field = side === 'source' ? 'sourceHandle' : 'targetHandle';
  const ports = side === 'source' ? kind.outputs : kind.inputs;
  const what = side === 'source' ? 'output' : 'input';
  const node = `node ${q(edge[side])} (${kind.type})`;
  const handle = edge[field];
  const message =
    ports.length === 0
      ? `${node} has no ${what}s`
      : handle === undefined || handle === null
        ? `${node} has no default ${what}; name one in ${field}: ${names(ports)}`
        : `${node} has no ${what} ${q(handle)}; its ${what}s: ${names(ports)}`;
  return { field, message };
}

/** Whether an edge's ports exist on its nodes' kinds and fit (see `fits`). */
export function edgeProblem(edge: EdgeEnds, source: NodeKind, target: NodeKind): EdgeProblem | undefined {
  const from = portOf(source.outputs, edge.sourceHandle);
  if (!from) return missingPort(edge, source, 'source');
  const to = portOf(target.inputs, edge.targetHandle);
  if (!to) return missingPort(edge, target, 'target');
  if (fits(from, to)) return undefined;
  const fitting = target.inputs.filter((p) => fits(from, p));
  const hint = fitting.length > 0 ? `; ${fitting.length === 1 ? 'this input fits' : 'these inputs fit'}: ${names(fitting)}` : '';
  return {
    field: 'targetHandle',
    message:
      `output ${q(from.name)} (${from.value}) of node ${q(edge.source)} (${source.type}) does not fit ` +
      `input ${q(to.name)} (${to.value}) of node ${q(edge.target)} (${target.type})${hint}`,
  };
}
