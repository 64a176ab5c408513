// The rules a canvas's nodes and edges are held to, defined once (STYLE.md habits 13 and 16): the REST schemas
// (src/http/schemas.ts) and the save fast path (src/http/canvas-body.ts) build on them, the live document's update
// check (./update-check.ts) applies them to every value a peer writes, and rendering (./canvas-doc.ts) leaves out an
// image no rule allows (one stored before the rule existed). Pure functions, no I/O: the web client may import it.
//
// A field rule takes the field's value as the document holds it (a plain JSON value) and says whether it may be
// stored. Keys the rules do not name (React Flow's `measured`, `style`; `data.error`, `data.example`, …) are kept by
// the live document and rendered, so they are held to `isExtraValue`: plain JSON of bounded size. When node kinds get
// a module each, a kind's `data` rules move there; the table shape (`FieldRules`) stays.
import { isDataUrl } from '../net/data-scheme.js';
import { isOrderKey } from './order-keys.js';

/** A node or edge id, an edge's `source`/`target`: 1–200 characters. */
export const ID_MAX_CHARS = 200;
/** A node's `data.image` that is not a data: URL (docs/api.md "Canvas"). */
export const IMAGE_URL_MAX_CHARS = 2048;
/** A generation node's `data.model`. */
export const MODEL_ID_MAX_CHARS = 100;
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

export const NODE_KINDS = ['upload', 'generation'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** URL schemes an image may have; a URL without one (a path, `//host/…`) is relative to the page. */
export const IMAGE_URL_SCHEMES: readonly string[] = ['http', 'https', 'data'];

/**
 * Text PostgreSQL can keep as sent: no NUL and no lone UTF-16 surrogate (a `text` column refuses NUL, a `json`
 * value lone surrogates, a `jsonb` value both; canvases stay convertible to jsonb).
 */
// eslint-disable-next-line no-control-regex -- NUL is matched on purpose: PostgreSQL cannot store it.
export const isStorableText = (value: string): boolean => !/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
/** Any NUL or surrogate at all: only then is the exact (slower) storable-text check needed. */
// eslint-disable-next-line no-control-regex -- NUL is matched on purpose.
const SUSPECT = /[\u0000\ud800-\udfff]/;
const storable = (s: string) => !SUSPECT.test(s) || isStorableText(s);

/** A string of at most `max` characters that PostgreSQL can store. */
export const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max && storable(v);
export const isId = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= ID_MAX_CHARS && storable(v);
export const isNodeKind = (v: unknown): v is NodeKind => v === 'upload' || v === 'generation';
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v) && Object.getPrototypeOf(v) === Object.prototype;

/** `{ x, y }`, finite numbers, nothing else. */
export const isPosition = (v: unknown): v is { x: number; y: number } =>
  isRecord(v) && isFiniteNumber(v.x) && isFiniteNumber(v.y) && Object.keys(v).length === 2;

/** The scheme a browser would see (it drops tabs and newlines anywhere, and leading spaces and controls), lower-cased; null for a relative URL. */
function schemeOf(url: string): string | null {
  // eslint-disable-next-line no-control-regex -- controls are what a browser strips before the scheme.
  const cleaned = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned);
  return match ? match[1].toLowerCase() : null;
}

/** An image URL whose scheme is one of IMAGE_URL_SCHEMES, or a relative one (no `javascript:`, `vbscript:`, `blob:`, …). */
export const hasImageScheme = (url: string): boolean => {
  const scheme = schemeOf(url);
  return scheme === null || IMAGE_URL_SCHEMES.includes(scheme);
};

/** A node's `data.image`: an image URL of at most IMAGE_URL_MAX_CHARS, or a data: URL of any length, with an allowed scheme. */
export const isImage = (v: unknown): v is string =>
  typeof v === 'string' && (v.length <= IMAGE_URL_MAX_CHARS || isDataUrl(v)) && hasImageScheme(v) && storable(v);

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

/** A field's rule and the reason a refusal names (`invalid-<field>`). */
export interface FieldRule {
  test: (value: unknown) => boolean;
  reason: string;
  /** Whether a node or edge must have the field (REST refuses one without it). */
  required?: boolean;
}
export type FieldRules = Readonly<Record<string, FieldRule>>;

export interface CanvasRules {
  /** A node's own fields (its `data` is a nested map, ruled by `data`). */
  node: FieldRules;
  /** A node's `data` keys. */
  data: FieldRules;
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
    data: {
      type: { test: isNodeKind, reason: 'invalid-data-type', required: true },
      image: { test: optional(isImage), reason: 'invalid-image' },
      prompt: { test: optional((v) => isText(v, limits.promptChars)), reason: 'invalid-prompt' },
      isGenerating: { test: optional((v) => typeof v === 'boolean'), reason: 'invalid-is-generating' },
      model: { test: optional((v) => isText(v, MODEL_ID_MAX_CHARS)), reason: 'invalid-model' },
    },
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
