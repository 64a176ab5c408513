// Request guards: who is signed in (the session cookie: a cheap, cached check; or a personal API token sent as
// `Authorization: Bearer`, docs/api.md "API tokens") and refusal of cross-site state changes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, requiredScope, type TokenVerifier } from '../auth/api-tokens.js';
import type { SessionUser, SessionVerifier } from '../auth/session.js';
import { forbidden, insufficientScope, sessionRequired, unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    user: SessionUser | null;
  }
}

/** The signed-in user of a route guarded by `requireUser`. */
export function sessionUser(req: FastifyRequest): SessionUser {
  if (!req.user) throw unauthorized();
  return req.user;
}

/**
 * The request's user. A Bearer `Authorization` header is then the only credential considered (a cookie beside it is
 * ignored): its token's user, or null for a token that is not valid (or when no token verifier is given). Without
 * one, the session cookie's user.
 */
async function authenticate(req: FastifyRequest, sessions: SessionVerifier, tokens: TokenVerifier | undefined): Promise<{ user: SessionUser | null; bearer: boolean }> {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer === undefined) return { user: await sessions.verify(req.headers.cookie), bearer: false };
  return { user: tokens ? await tokens.verify(bearer) : null, bearer: true };
}

/** A token's user may use the route only within the token's scopes; some routes only a session may use. */
function checkScope(req: FastifyRequest, user: SessionUser): void {
  if (!user.token) return;
  const needs = requiredScope(req.method, req.routeOptions.url);
  if (needs === 'session') throw sessionRequired();
  if (!user.token.scopes.includes(needs)) throw insufficientScope(needs);
}

/**
 * An onRequest hook: runs before the body is read or validated, so an anonymous caller gets 401 first. A request
 * with an API token gets 401 when the token is not valid, 403 when it lacks the route's scope.
 */
export function requireUser(sessions: SessionVerifier, tokens?: TokenVerifier) {
  return async (req: FastifyRequest) => {
    req.user = (await authenticate(req, sessions, tokens)).user;
    if (!req.user) throw unauthorized();
    checkScope(req, req.user);
  };
}

/**
 * An onRequest hook for a public route that tells a signed-in caller more: `req.user` is the session's user, or
 * null. A Bearer token that is not valid is refused (401), as on every route: a script learns its token is bad.
 */
export function readUser(sessions: SessionVerifier, tokens?: TokenVerifier) {
  return async (req: FastifyRequest) => {
    const { user, bearer } = await authenticate(req, sessions, tokens);
    if (bearer && tokens && !user) throw unauthorized();
    req.user = user;
    if (user) checkScope(req, user);
  };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * State-changing API requests made by another site are refused with 403 (CSRF). Browsers send
 * Sec-Fetch-Site and Origin; non-browser clients send neither and are let through (they carry no ambient
 * cookies of a victim). Auth.js routes have their own CSRF token; webhooks come from servers. A request with a
 * Bearer token is not checked: its credential is the header, which a browser never adds by itself (another site
 * cannot send it without a CORS preflight, which the service never grants), so it cannot be forged by a page; a
 * cookie beside it is ignored (`authenticate`), and a token that is not valid is 401 on every route that takes one.
 */
export function registerCrossSiteGuard(app: FastifyInstance, baseUrl: string): void {
  const origin = new URL(baseUrl).origin;
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req) => {
    if (!UNSAFE.has(req.method) || !req.url.startsWith('/api/')) return;
    if (req.url.startsWith('/api/auth/') || req.url.startsWith('/api/webhook/')) return;
    if (bearerToken(req.headers.authorization)) return;
    const site = req.headers['sec-fetch-site'];
    if (site && site !== 'same-origin' && site !== 'none') throw forbidden();
    const from = req.headers.origin;
    if (from && from !== origin) throw forbidden();
  });
}
