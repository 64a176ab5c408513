// Personal API tokens (DESIGN.md §10, docs/api.md "API tokens"): what a token looks like, how it is hashed, which
// scope each request needs, and the per-request check of `Authorization: Bearer ic_…`.
//
// A token is `ic_` + 32 random bytes in base64url. Only its SHA-256 is stored: the secret has 256 bits of entropy,
// so a plain hash is enough (no salt or slow hash needed), and the token is found by its hash through a unique
// index — what is compared is a digest of the secret, never the secret itself, so the lookup leaks nothing usable.
import { createHash, randomBytes } from 'node:crypto';
import type { ApiTokensRepository } from '../db/repositories/index.js';
import type { ApiTokenScope } from '../db/schema.js';
import type { SessionUser } from './session.js';

export type { ApiTokenScope };

export const API_TOKEN_SCOPES = ['read', 'write', 'generate', 'billing'] as const satisfies readonly ApiTokenScope[];

const PREFIX = 'ic_';
/** What a token we made looks like: the prefix and 32 bytes in base64url, no padding. */
const TOKEN = /^ic_[A-Za-z0-9_-]{43}$/;
/** The characters of a token shown in lists: the prefix and 6 of its 43 random characters (36 of 256 bits). */
const SHOWN_CHARS = PREFIX.length + 6;

export const isApiTokenFormat = (token: string): boolean => TOKEN.test(token);
export const hashApiToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A new token: the secret (shown once), its hash (stored) and its recognisable prefix (stored, listed). */
export function newApiToken(): { secret: string; hash: string; prefix: string } {
  const secret = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashApiToken(secret), prefix: secret.slice(0, SHOWN_CHARS) };
}

/**
 * The token of an `Authorization` header: `undefined` when the header is absent or of another scheme (then the
 * session cookie decides, as before: a proxy's Basic credentials change nothing), otherwise the Bearer credential
 * as sent (possibly empty or malformed: the caller then answers 401).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer(?:\s+(.*))?$/is.exec(header.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/** What a request needs: a scope, or a signed-in session (routes that a token may never use). */
export type Requirement = ApiTokenScope | 'session';

/**
 * Routes that need more than their method says, by `METHOD route-pattern` (Fastify's `routeOptions.url`). One line
 * per route: generation (and, later, the generation jobs) needs `generate`; starting a checkout or opening the
 * customer portal needs `billing` (each creates a session at the payment provider: `read` is not enough, whatever
 * the method); token management and signing out everywhere need a session, so a token can neither mint nor revoke
 * tokens.
 */
const ROUTE_REQUIREMENTS: Readonly<Record<string, Requirement>> = {
  'POST /api/image': 'generate',
  'POST /api/generations': 'generate',
  'POST /api/generations/:id/cancel': 'generate',
  // A run queues model calls as POST /api/generations does; its estimate only reads.
  'POST /api/projects/:id/runs': 'generate',
  'POST /api/projects/:id/runs/:runId/cancel': 'generate',
  'POST /api/projects/:id/runs/estimate': 'read',
  'GET /api/checkout': 'billing',
  'POST /api/checkout': 'billing',
  'GET /api/portal': 'billing',
  'POST /api/portal': 'billing',
  'GET /api/user/tokens': 'session',
  'POST /api/user/tokens': 'session',
  'DELETE /api/user/tokens/:id': 'session',
  'DELETE /api/user/sessions': 'session',
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a token needs for `method` on the route `route` (its pattern): the listed need (HEAD: GET's), else `read` for safe methods, `write` for the rest. */
export function requiredScope(method: string, route: string | undefined): Requirement {
  const path = (route ?? '').replace(/\/+$/, '') || '/';
  // HEAD runs the GET handler (Fastify): it needs what GET needs.
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const listed = ROUTE_REQUIREMENTS[`${verb} ${path}`];
  if (listed) return listed;
  return SAFE_METHODS.has(method.toUpperCase()) ? 'read' : 'write';
}

/** A request's user when it came with a token: the token's user, and which token (its id and scopes). */
export type TokenUser = SessionUser & { token: NonNullable<SessionUser['token']> };

export interface TokenVerifier {
  /** The token's user, or null for a token that is malformed, unknown, revoked, expired, or whose user is gone. */
  verify(token: string): Promise<TokenUser | null>;
}

/** How long a recorded last use stands before another use is written (so not every request writes). */
export const LAST_USE_RESOLUTION_MS = 60_000;

export function createTokenVerifier(opts: {
  tokens: Pick<ApiTokensRepository, 'findByHash' | 'touch'>;
  log: { warn(o: object, m: string): void };
  now?: () => number;
}): TokenVerifier {
  const now = opts.now ?? Date.now;
  return {
    async verify(token) {
      if (!isApiTokenFormat(token)) return null;
      const found = await opts.tokens.findByHash(hashApiToken(token));
      if (!found) return null;
      const t = now();
      if (found.token.expiresAt && found.token.expiresAt.getTime() <= t) return null;
      const last = found.token.lastUsedAt?.getTime();
      if (last === undefined || t - last >= LAST_USE_RESOLUTION_MS) {
        // At most about once a minute per token, on all instances together (the update is conditional). A failure
        // to record it does not refuse the request.
        await opts.tokens
          .touch(found.token.id, new Date(t), new Date(t - LAST_USE_RESOLUTION_MS))
          .catch((err: unknown) => opts.log.warn({ err, tokenId: found.token.id }, 'recording the last use of an API token failed'));
      }
      return { ...found.user, token: { id: found.token.id, scopes: found.token.scopes } };
    },
  };
}
