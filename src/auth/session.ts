// The per-request session check. Decrypting an Auth.js session token with `jose` costs ~350 µs (measured),
// so verified tokens are cached by their exact cookie value (a different value is a different token, and a
// tampered one never matches). An entry lives no longer than the token itself, and a signed-out session is
// refused whether its token is cached or not (src/auth/revocations.ts).
import { decode, type JWT } from '@auth/core/jwt';
import { parseCookie as parseCookies } from 'cookie';
import { LRUCache } from 'lru-cache';
import type { ApiTokenScope } from '../db/schema.js';
import { isUuid } from '../ids.js';
import { SESSION_COOKIE } from './authjs.js';
import type { SessionClaims, SessionRevocations } from './revocations.js';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  /**
   * Set when the request came with a personal API token (src/auth/api-tokens.ts) instead of the session cookie:
   * which token, and what it may do. The user is the token's user, with the same ownership rules and limits.
   */
  token?: { id: string; scopes: readonly ApiTokenScope[] };
  /**
   * Set when the request came with the session cookie: the claims its revocation is looked up by. What stays open
   * (a live socket, an event stream) keeps them, and is ended when the session is (src/auth/access-sweep.ts).
   */
  session?: SessionClaims;
}

export interface SessionVerifier {
  /** The signed-in user for a Cookie header, or null. */
  verify(cookieHeader: string | undefined): Promise<SessionUser | null>;
}

interface Entry {
  user: SessionUser;
  expiresAt: number;
  claims: SessionClaims;
}

/** Auth.js splits a large token into `<name>.0`, `<name>.1`, …; join them back in order. */
function sessionToken(cookies: Record<string, string | undefined>): string | undefined {
  if (cookies[SESSION_COOKIE]) return cookies[SESSION_COOKIE];
  let token = '';
  for (let i = 0; cookies[`${SESSION_COOKIE}.${i}`]; i++) token += cookies[`${SESSION_COOKIE}.${i}`];
  return token || undefined;
}

/** Whether a Cookie header carries a session token (valid or not). */
export function hasSessionCookie(header: string | undefined): boolean {
  return header ? sessionToken(parseCookies(header)) !== undefined : false;
}

export function createSessionVerifier(opts: { secret: string; cacheSize: number; revocations?: Pick<SessionRevocations, 'isRevoked'>; now?: () => number }): SessionVerifier {
  const now = opts.now ?? Date.now;
  const cache = opts.cacheSize > 0 ? new LRUCache<string, Entry>({ max: opts.cacheSize }) : undefined;
  return {
    async verify(header) {
      if (!header) return null;
      const token = sessionToken(parseCookies(header));
      if (!token || token.length > 16_384) return null;
      const cached = cache?.get(token);
      if (cached) {
        if (cached.expiresAt > now() && !opts.revocations?.isRevoked(cached.claims)) return cached.user;
        cache?.delete(token);
        return null;
      }
      let payload: JWT | null;
      try {
        payload = await decode({ token, secret: opts.secret, salt: SESSION_COOKIE });
      } catch {
        return null;
      }
      // Our users' ids are UUIDs; any other `sub` names no user (and would fail the database's uuid columns).
      if (!payload?.sub || !isUuid(payload.sub) || typeof payload.exp !== 'number') return null;
      const expiresAt = payload.exp * 1000;
      if (expiresAt <= now()) return null;
      const claims: SessionClaims = { sub: payload.sub, sid: payload.sid, authAt: payload.authAt, iat: payload.iat };
      if (opts.revocations?.isRevoked(claims)) return null;
      const user: SessionUser = { id: payload.sub, email: String(payload.email ?? ''), name: String(payload.name ?? ''), session: claims };
      cache?.set(token, { user, expiresAt, claims });
      return user;
    },
  };
}
