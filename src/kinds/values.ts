// The values a node's data holds, each as a predicate and as a zod schema with the same verdict: text PostgreSQL
// can store, image URLs, booleans. Kinds build their data fields from these (./upload.ts, ./text.ts, …); the canvas
// rules (src/collab/canvas-rules.ts) re-export them. Pure functions, no I/O: the web client imports them too.
import { z } from 'zod';
import { isDataUrl } from '../net/data-scheme.js';
import type { DataField } from './kind.js';

/** A node's `data.image` that is not a data: URL (docs/api.md "Canvas"). */
export const IMAGE_URL_MAX_CHARS = 2048;
/** A generation node's `data.model`. */
export const MODEL_ID_MAX_CHARS = 100;
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
export const UNSTORABLE = 'contains a character that cannot be stored (NUL or a lone surrogate)';

/** A string of at most `max` characters that PostgreSQL can store. */
export const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max && storable(v);

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

const schemes = IMAGE_URL_SCHEMES.map((s) => `${s}:`).join(', ');

/**
 * An optional field unless `required`: the schema made `.optional()`. Exported for fields of a shape the helpers here
 * do not make (an object, a list of objects): give it the zod schema and the same rule as a plain predicate.
 */
export const field = (schema: z.ZodType, test: (v: unknown) => boolean, reason: string, required?: boolean, description?: string): DataField => {
  const wrapped = required ? schema : schema.optional();
  return { schema: description ? wrapped.describe(description) : wrapped, test, reason, ...(required ? { required } : {}) };
};

/** A text of at most `max` characters. */
export const textField = (max: number, reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(z.string().max(max).refine(isStorableText, UNSTORABLE), (v) => isText(v, max), reason, opts.required, opts.description);

/** An image: a URL (http:, https:, data: or a path). */
export const imageField = (reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(
    z
      .string()
      .refine((v) => v.length <= IMAGE_URL_MAX_CHARS || isDataUrl(v), `Too big: an image URL has at most ${IMAGE_URL_MAX_CHARS} characters (a data: URL is stored as a file)`)
      .refine(hasImageScheme, `Invalid image URL: only ${schemes} URLs or a path`)
      .refine(isStorableText, UNSTORABLE),
    isImage,
    reason,
    opts.required,
    opts.description ??
      `an image URL (${schemes} or a path; at most ${IMAGE_URL_MAX_CHARS} characters), or a data: URL of an image, which a save stores as a file and replaces by its URL`,
  );

export const booleanField = (reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(z.boolean(), (v) => typeof v === 'boolean', reason, opts.required, opts.description);

/** A number from `min` to `max` (whole when `integer`). */
export const numberField = (
  min: number,
  max: number,
  reason: string,
  opts: { integer?: boolean; required?: boolean; description?: string } = {},
): DataField => {
  const base = opts.integer ? z.number().int() : z.number();
  return field(
    base.min(min).max(max),
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!opts.integer || Number.isInteger(v)),
    reason,
    opts.required,
    opts.description,
  );
};

/** One of `values`. */
export const choiceField = (values: readonly [string, ...string[]], reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(z.enum(values), (v) => typeof v === 'string' && values.includes(v), reason, opts.required, opts.description);

/** A list of at most `maxItems` texts of at most `maxChars` characters each (a `list` node's items). */
export const textListField = (maxItems: number, maxChars: number, reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(
    z.array(z.string().max(maxChars).refine(isStorableText, UNSTORABLE)).max(maxItems),
    (v) => Array.isArray(v) && v.length <= maxItems && v.every((item) => isText(item, maxChars)),
    reason,
    opts.required,
    opts.description,
  );

/** An image URL in a list (a fanned node's results): as `isImage`, but never a data: URL longer than IMAGE_URL_MAX_CHARS (no save turns those into files). */
const isListedImage = (v: unknown): v is string => typeof v === 'string' && v.length <= IMAGE_URL_MAX_CHARS && hasImageScheme(v) && storable(v);

/** A list of at most `maxItems` image URLs of at most IMAGE_URL_MAX_CHARS each (a fanned node's results). */
export const imageListField = (maxItems: number, reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(
    z
      .array(
        z
          .string()
          .max(IMAGE_URL_MAX_CHARS)
          .refine(hasImageScheme, `Invalid image URL: only ${schemes} URLs or a path`)
          .refine(isStorableText, UNSTORABLE),
      )
      .max(maxItems),
    (v) => Array.isArray(v) && v.length <= maxItems && v.every(isListedImage),
    reason,
    opts.required,
    opts.description,
  );

/** The most characters a key (./graph.ts: SHA-256 in hex) has. */
export const KEY_MAX_CHARS = 64;
const KEY_PATTERN = /^[0-9a-f]{1,64}$/;

/** A key: lower-case hex of at most KEY_MAX_CHARS characters. */
export const keyField = (reason: string, opts: { required?: boolean; description?: string } = {}): DataField =>
  field(z.string().regex(KEY_PATTERN, `Invalid key: lower-case hex, at most ${KEY_MAX_CHARS} characters`), (v) => typeof v === 'string' && KEY_PATTERN.test(v), reason, opts.required, opts.description);
