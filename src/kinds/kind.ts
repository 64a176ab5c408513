// What a node kind is (DESIGN.md §12, STYLE.md habit 16): its `type`, label, version, the rules of its `data`, its
// input and output ports and, for kinds that run, its task. One module per kind (./upload.ts, ./generation.ts,
// ./text.ts, …) declares one with `defineKind`; ./index.ts lists them. Pure TypeScript and zod, no I/O: the service
// and the web client import the same definitions.
import type { z } from 'zod';
import type { PlanSteps } from './image-steps.js';

/** What travels along an edge. A `mask` is a grayscale image (see `fits`). */
export type PortValue = 'image' | 'mask' | 'text' | 'video';
export const PORT_VALUES: readonly PortValue[] = ['image', 'mask', 'text', 'video'];

/**
 * An input or output of a node. An edge's `sourceHandle` names an output port of its source node, its
 * `targetHandle` an input port of its target; absent (or null) means the kind's default port on that side, so
 * SPEC's edges, which carry no handle, keep their meaning.
 */
export interface Port {
  /** The handle name edges use; unique among the kind's inputs (or outputs). */
  readonly name: string;
  readonly label?: string;
  readonly value: PortValue;
  /** Whether the port takes (or gives) a list of values rather than one. */
  readonly list: boolean;
  /** The port an edge without a handle means; at most one per side. */
  readonly default?: boolean;
}

/** The limits a kind's data rules take from the configuration (the REST canvas limits). */
export interface KindLimits {
  /** PROMPT_MAX_CHARS: a prompt, and anything that becomes part of one. */
  promptChars: number;
}

/** A field's rule and the reason a refusal names (`invalid-<field>`), as the live document's update check uses it. */
export interface FieldRule {
  /** Whether a present value may be stored (`undefined` counts as absent and is the `required` flag's business). */
  test: (value: unknown) => boolean;
  reason: string;
  /** Whether a node or edge must have the field (REST refuses one without it). */
  required?: boolean;
}
export type FieldRules = Readonly<Record<string, FieldRule>>;

/**
 * One key of a node's `data`: its zod schema (for REST, error messages and JSON Schema; `.optional()` unless
 * required) and the same rule as a plain predicate (for the save fast path and the live document, where zod costs
 * too much). test/unit/canvas-body.test.ts holds the two to the same verdicts.
 */
export interface DataField extends FieldRule {
  schema: z.ZodType;
}
export type DataFields = Readonly<Record<string, DataField>>;

/**
 * What a model does (the catalogue's `does`, src/models/catalogue.ts): makes an image from images and a prompt
 * (`generate`), fills the white of a mask (`inpaint`: the model takes a mask), makes an image larger (`upscale`), cuts
 * the subject out (`remove-background`).
 */
export type ModelRole = 'generate' | 'inpaint' | 'upscale' | 'remove-background';
export const MODEL_ROLES: readonly ModelRole[] = ['generate', 'inpaint', 'upscale', 'remove-background'];

/** The task of `generation` nodes, and of the kinds that run a model the same way (`upscale`, `remove-background`). */
export const GENERATION_TASK_KIND = 'generation';

/** A kind whose nodes run: the job's task kind (the job runner, src/jobs/, connects the rest). */
export interface KindTask {
  readonly kind: string;
  /**
   * For the `image-steps` task (./image-steps.ts): the image-worker steps that make the node's result from its data
   * and its input image's size, or the problem when the data does not fit that image.
   */
  readonly plan?: PlanSteps;
  /**
   * A kind that runs a model chosen by `data.model` (an id from GET /api/models): the role the model must have (the
   * editor offers only models that have it; a run refuses any other, naming it) and the model when `data.model` is
   * absent (absent too: the service's default model).
   */
  readonly models?: { readonly role: ModelRole; readonly default?: string };
}

export interface NodeKind<T extends string = string> {
  /** The node's `type` (and its `data.type`). */
  readonly type: T;
  /** What people call it (menus, the node's frame). */
  readonly label: string;
  /** Bumped when what the kind does with the same data changes (cache keys, DESIGN §12). */
  readonly version: number;
  /**
   * The `data.type` values a node of this kind may carry; its own `type` unless said. SPEC lets an `upload` or a
   * `generation` node carry either of the two, and a SPEC client gets back what it stored.
   */
  readonly dataTypes?: readonly string[];
  /** The keys of its `data` besides `type`, in the order a node renders them. Keys not named here are dropped by REST saves. */
  readonly data: (limits: KindLimits) => DataFields;
  readonly inputs: readonly Port[];
  readonly outputs: readonly Port[];
  /** About the size the editor draws a node of this kind at: used where the document holds no measured size (thumbnails). */
  readonly size: { readonly width: number; readonly height: number };
  readonly task?: KindTask;
  /**
   * Input ports besides the default one that must be connected for the node to run with this data (an `edit` in
   * inpaint mode needs its `mask`): a node without them is blocked, naming the port (./graph.ts).
   */
  readonly requires?: (data: Readonly<Record<string, unknown>>) => readonly string[];
  /**
   * A kind that runs with a seed (its model is not deterministic): its jobs carry `data.seed` plus the count index,
   * and its `data.count` (1–8) runs it that many times (./graph.ts). Absent: no seed, one job per input.
   */
  readonly seeded?: boolean;
  /**
   * A kind that does not run but gives values (a source: an upload, a text, a list): what each output port gives,
   * from the node's data: the values in order, or `{ from }`, everything that reaches that input port passed on
   * (a list's images). An output that gives nothing makes the nodes it feeds wait (./graph.ts).
   */
  readonly gives?: (data: Readonly<Record<string, unknown>>) => Readonly<Record<string, readonly SourceValue[] | { readonly from: string }>>;
}

/** A value a source gives: a text (a text node's, a list item) or an image (an upload's URL). */
export type SourceValue = { readonly text: string } | { readonly image: string };

/** A kind, checked once when its module loads: port names unique per side, at most one default per side. */
export function defineKind<const T extends string>(kind: NodeKind<T>): NodeKind<T> {
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(kind.type)) throw new Error(`node kind ${kind.type}: a type is 1–40 lower-case letters, digits and dashes`);
  if (!Number.isInteger(kind.version) || kind.version < 1) throw new Error(`node kind ${kind.type}: version must be a positive integer`);
  for (const key of Object.keys(kind.data({ promptChars: 1 }))) {
    // Readers index `data` by these keys directly (the save fast path, as zod does): never a key every object has.
    if (key in Object.prototype || key === 'type') throw new Error(`node kind ${kind.type}: a data key may not be named ${key}`);
  }
  for (const [side, ports] of [['inputs', kind.inputs], ['outputs', kind.outputs]] as const) {
    const names = new Set(ports.map((p) => p.name));
    if (names.size !== ports.length) throw new Error(`node kind ${kind.type}: two ${side} share a name`);
    if (ports.filter((p) => p.default).length > 1) throw new Error(`node kind ${kind.type}: more than one default among its ${side}`);
    for (const p of ports) if (!PORT_VALUES.includes(p.value)) throw new Error(`node kind ${kind.type}: port ${p.name} has an unknown value type`);
  }
  return kind;
}

/**
 * Whether an output port may feed an input port. Values must be of the same type, except that a mask is an image
 * (a grayscale one) and so fits an image input; an image does not fit a mask input (a mask comes from a mask). A
 * single value fits a list input (it is collected with the others), and a list fits a single input (the node then
 * runs once per item, DESIGN §12 "Lists and counts").
 */
export function fits(from: Pick<Port, 'value'>, to: Pick<Port, 'value'>): boolean {
  return from.value === to.value || (from.value === 'mask' && to.value === 'image');
}
