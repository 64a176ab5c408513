// Request guards: who is signed in (cheap, cached check) and refusal of cross-site state changes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SessionUser, SessionVerifier } from '../auth/session.js';
import { forbidden, unauthorized } from '../errors.js';

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

/** An onRequest hook: runs before the body is read or validated, so an anonymous caller gets 401 first. */
export function requireUser(verifier: SessionVerifier) {
  return async (req: FastifyRequest) => {
    req.user = await verifier.verify(req.headers.cookie);
    if (!req.user) throw unauthorized();
  };
}

/** An onRequest hook for a public route that tells a signed-in caller more: `req.user` is the session's user, or null. */
export function readUser(verifier: SessionVerifier) {
  return async (req: FastifyRequest) => {
    req.user = await verifier.verify(req.headers.cookie);
  };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * State-changing API requests made by another site are refused with 403 (CSRF). Browsers send
 * Sec-Fetch-Site and Origin; non-browser clients send neither and are let through (they carry no ambient
 * cookies of a victim). Auth.js routes have their own CSRF token; webhooks come from servers.
 */
export function registerCrossSiteGuard(app: FastifyInstance, baseUrl: string): void {
  const origin = new URL(baseUrl).origin;
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req) => {
    if (!UNSAFE.has(req.method) || !req.url.startsWith('/api/')) return;
    if (req.url.startsWith('/api/auth/') || req.url.startsWith('/api/webhook/')) return;
    const site = req.headers['sec-fetch-site'];
    if (site && site !== 'same-origin' && site !== 'none') throw forbidden();
    const from = req.headers.origin;
    if (from && from !== origin) throw forbidden();
  });
}
