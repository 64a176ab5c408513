// Object names are produced by callers already safe; drivers still check them (defence in depth).
import { InvalidObjectNameError } from './errors.js';

// A leading dot is refused too: it rules out `.`/`..` and keeps the local driver's internal files
// (`.meta/`, `.tmp-*`) out of the object namespace.
const OBJECT_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function isValidObjectName(name: unknown): name is string {
  return typeof name === 'string' && OBJECT_NAME.test(name);
}

export function assertValidObjectName(name: string): void {
  if (!isValidObjectName(name)) {
    throw new InvalidObjectNameError(name);
  }
}

/**
 * The object name in `url` when it is exactly `<base>/<name>`, else null. The URL must already be in
 * canonical form, so anything a URL parser would rewrite (`..` segments, backslashes, odd casing) is refused,
 * as are credentials, queries, fragments and percent-encoding in the name.
 */
export function nameUnderBase(url: string, base: string): string | null {
  let parsed: URL;
  let baseUrl: URL;
  try {
    parsed = new URL(url);
    baseUrl = new URL(base.endsWith('/') ? base : `${base}/`);
  } catch {
    return null;
  }
  if (parsed.href !== url || parsed.origin !== baseUrl.origin) return null;
  if (parsed.username || parsed.password || parsed.search || parsed.hash) return null;
  if (!parsed.pathname.startsWith(baseUrl.pathname)) return null;
  const name = parsed.pathname.slice(baseUrl.pathname.length);
  return isValidObjectName(name) ? name : null;
}

/** `base` without query, fragment or trailing slash (a SAS token in a blob URL must never become public). */
export function publicBase(base: string): string {
  const parsed = new URL(base);
  parsed.search = '';
  parsed.hash = '';
  return parsed.href.replace(/\/+$/, '');
}
