// The rules a canvas's nodes and edges are held to, defined once (STYLE.md habits 13 and 16): the REST schemas
// (src/http/schemas.ts) and the save fast path (src/http/canvas-body.ts) build on them, the live document's update
// check (./update-check.ts) applies them to every value a peer writes, and rendering (./canvas-doc.ts) leaves out an
// image no rule allows (one stored before the rule existed). Pure functions, no I/O: the web client may import it.
//
// A field rule takes the field's value as the document holds it (a plain JSON value) and says whether it may be
// stored. Keys the rules do not name (React Flow's `measured`, `style`; `data.error`, `data.example`, …) are kept by
// the live document and rendered, so they are held to `isExtraValue`: plain JSON of bounded size. A node's `data`
// rules are its kind's (src/kinds/: one module per kind, with the value predicates this module re-exports).
import { dataRulesOf, isNodeType, NODE_TYPES, type FieldRule, type FieldRules } from '../kinds/index.js';
import { isText } from '../kinds/values.js';
import { isOrderKey } from './order-keys.js';

export type { FieldRule, FieldRules } from '../kinds/index.js';
export {
  IMAGE_URL_MAX_CHARS,
  IMAGE_URL_SCHEMES,
  MODEL_ID_MAX_CHARS,
  hasImageScheme,
  isImage,
  isStorableText,
  isText,
} from '../kinds/values.js';

/** A node or edge id, an edge's `source`/`target`: 1–200 characters. */
export const ID_MAX_CHARS = 200;
/** An edge's `sourceHandle` / `targetHandle`. */
export const HANDLE_MAX_CHARS = 200;
/** A key of a node, an edge or a node's `data` in the live document. */
export const KEY_MAX_CHARS = 200;
/** A value under a key no rule names, as JSON text. */
export const EXTRA_VALUE_MAX_CHARS = 16_384;
/** How deep a value under a key no rule names may nest (arrays and objects). */
export const EXTRA_VALUE_MAX_DEPTH = 16;
/** An order key (./order-keys.ts: about one character per six insertions into one gap). */
export const ORDER_KEY_MAX_CHARS = 1024;

/** A node `type` some kind has (the registry, src/kinds/). */
export const isNodeKind = isNodeType;

export const isId = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && isText(v, ID_MAX_CHARS);
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v) && Object.getPrototypeOf(v) === Object.prototype;

/** `{ x, y }`, finite numbers, nothing else. */
export const isPosition = (v: unknown): v is { x: number; y: number } =>
  isRecord(v) && isFiniteNumber(v.x) && isFiniteNumber(v.y) && Object.keys(v).length === 2;

/**
 * Plain JSON (null, booleans, finite numbers, strings, arrays and plain objects) of at most EXTRA_VALUE_MAX_CHARS
 * characters of JSON text and EXTRA_VALUE_MAX_DEPTH levels: what the live document keeps under a key no rule names.
 * `undefined` (a key set to nothing, which renders as absent) is allowed.
 */
export function isExtraValue(v: unknown): boolean {
  if (v === undefined) return true;
  let chars = 0;
  const walk = (value: unknown, depth: number): boolean => {
    if (depth > EXTRA_VALUE_MAX_DEPTH || chars > EXTRA_VALUE_MAX_CHARS) return false;
    if (value === null || typeof value === 'boolean') return (chars += 5) <= EXTRA_VALUE_MAX_CHARS;
    if (typeof value === 'number') return Number.isFinite(value) && (chars += 24) <= EXTRA_VALUE_MAX_CHARS;
    if (typeof value === 'string') return (chars += value.length + 2) <= EXTRA_VALUE_MAX_CHARS;
    if (Array.isArray(value)) {
      chars += 2;
      for (const item of value) if (!walk(item, depth + 1)) return false;
      return chars <= EXTRA_VALUE_MAX_CHARS;
    }
    if (!isRecord(value)) return false; // bigint, a byte array, undefined inside: not JSON
    chars += 2;
    for (const key of Object.keys(value)) {
      chars += key.length + 3;
      if (!walk(value[key], depth + 1)) return false;
    }
    return chars <= EXTRA_VALUE_MAX_CHARS;
  };
  return walk(v, 0);
}

/** The limits the rules take from the configuration (REST's own settings). */
export interface CanvasRuleLimits {
  promptChars: number;
}

export interface CanvasRules {
  /** A node's own fields (its `data` is a nested map, ruled by `data`). */
  node: FieldRules;
  /**
   * A node's `data` keys whatever its kind: `type` any kind's, the other keys as SPEC's kinds (`upload`,
   * `generation`) hold them. The rules of one kind are `dataOf(type)`'s.
   */
  data: FieldRules;
  /** The `data` rules of a node of this `type` (its kind's, src/kinds/), `type` included; undefined for a type no kind has. */
  dataOf: (type: unknown) => FieldRules | undefined;
  /**
   * Every `data` key some kind names. On a node whose kind does not name it, such a key is refused
   * (`data-of-another-kind`: an `image` on a `text` node) where any other key is an extra value.
   */
  kindKeys: ReadonlySet<string>;
  edge: FieldRules;
  /** The order key every node and edge carries (canvas-doc's `#`). */
  order: FieldRule;
  /** Any other key: `isExtraValue`. */
  extra: FieldRule;
}

const optional = (test: (v: unknown) => boolean) => (v: unknown) => v === undefined || test(v);
const handle = (v: unknown) => v === null || isText(v, HANDLE_MAX_CHARS);

/** The field rules for these limits (REST's prompt limit). */
export function canvasRules(limits: CanvasRuleLimits): CanvasRules {
  return {
    node: {
      type: { test: isNodeKind, reason: 'invalid-node-type', required: true },
      position: { test: isPosition, reason: 'invalid-position', required: true },
      // The live document holds `data` as a nested map (checked key by key); as a plain value it is refused.
      data: { test: () => false, reason: 'invalid-data', required: true },
    },
    data: { ...dataRulesOf('generation', limits), type: { test: isNodeKind, reason: 'invalid-data-type', required: true } },
    dataOf: (type) => dataRulesOf(type, limits),
    kindKeys: new Set(NODE_TYPES.flatMap((type) => Object.keys(dataRulesOf(type, limits) ?? {}))),
    edge: {
      source: { test: isId, reason: 'invalid-source', required: true },
      target: { test: isId, reason: 'invalid-target', required: true },
      sourceHandle: { test: optional(handle), reason: 'invalid-handle' },
      targetHandle: { test: optional(handle), reason: 'invalid-handle' },
    },
    order: { test: (v) => v === undefined || (typeof v === 'string' && v.length <= ORDER_KEY_MAX_CHARS && isOrderKey(v)), reason: 'invalid-order-key' },
    extra: { test: isExtraValue, reason: 'invalid-value' },
  };
}
