// Fractional order keys: strings that sort (by plain code-unit comparison) in the order of the items they
// belong to, such that a key strictly between any two distinct valid keys always exists. Used by the canvas
// document (./canvas-doc.ts) to keep the order of nodes and edges in `Y.Map`s, which have none. The keys are
// those of the `fractional-indexing` package (David Greenspan's scheme: an "integer" part whose first character
// gives its length, then a base-62 fraction without a trailing '0'): appending after the last key increments the
// integer, so n appends cost keys of O(log n) characters.
import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';

const BASE_62 = /^[0-9A-Za-z]+$/;

/**
 * Whether `key` is a well-formed order key (one keys can be generated next to). A document's keys come from
 * peers, so they are checked before use: the library validates the structure, the pattern the digits.
 */
export function isOrderKey(key: unknown): key is string {
  if (typeof key !== 'string' || !BASE_62.test(key)) return false;
  try {
    generateKeyBetween(key, null);
    return true;
  } catch {
    return false;
  }
}

/** A key strictly between `a` and `b`, in either order (null: the start or the end); throws when they are equal. */
export const keyBetween = (a: string | null, b: string | null): string => generateKeyBetween(a, b);

/** `n` keys in increasing order, strictly between `a` and `b` (null: the start or the end). */
export const keysBetween = (a: string | null, b: string | null, n: number): string[] => generateNKeysBetween(a, b, n);
