// Per-user rate limits (docs/api.md "Limits") with @fastify/rate-limit: counted after the session check,
// keyed by user id, answered 429 `Too many requests` with Retry-After. Counters are in memory per instance
// (RATE_LIMIT_STORE=memory, the default) or shared by every instance in PostgreSQL (=postgres).
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimitsRepository } from '../db/repositories/index.js';
import { tooManyRequests } from '../errors.js';
import { postgresRateLimitStore } from './rate-limit-store.js';

export interface RouteRateLimit {
  max: number;
  timeWindow: number;
  hook: 'preHandler' | 'preParsing';
  keyGenerator(req: FastifyRequest): string;
  errorResponseBuilder(req: FastifyRequest, context: { ttl: number }): Error;
}

export async function registerRateLimit(app: FastifyInstance, opts: { store: 'memory' | 'postgres'; counters: RateLimitsRepository }): Promise<void> {
  if (opts.store === 'memory') {
    await app.register(rateLimit, { global: false });
    return;
  }
  const shared = postgresRateLimitStore(opts.counters, (err) => app.log.warn({ err }, 'pruning rate-limit counters failed'));
  app.addHook('onClose', async () => shared.stop());
  // If the shared store cannot answer, let the request through rather than refusing everyone (the database
  // being down is reported by the routes that need it).
  await app.register(rateLimit, { global: false, store: shared.Store, skipOnError: true });
}

/**
 * Config for one route: `perMinute` requests per user per minute (or per `windowMs`); undefined (no limit) when 0.
 * Counted before the handler, or with `hook: 'preParsing'` before the body is read (a refused request's body is
 * never parsed).
 */
export function perUserPerMinute(name: string, perMinute: number, hook: RouteRateLimit['hook'] = 'preHandler', windowMs = 60_000): RouteRateLimit | undefined {
  if (perMinute <= 0) return undefined;
  return {
    max: perMinute,
    timeWindow: windowMs,
    hook,
    keyGenerator: (req) => `${name}:${req.user?.id ?? req.ip}`,
    errorResponseBuilder: (_req, context) => tooManyRequests(context.ttl / 1000),
  };
}

/**
 * Config for a public route: `perMinute` requests per minute per client address for anonymous callers, counted
 * before anything else; undefined (no limit) when 0. A route that reads the session first (an onRequest
 * `readUser`) counts a signed-in caller per user instead: a team behind one address (one NAT) is many people.
 */
export function perAddressPerMinute(name: string, perMinute: number) {
  if (perMinute <= 0) return undefined;
  return {
    max: perMinute,
    timeWindow: 60_000,
    hook: 'onRequest' as const,
    keyGenerator: (req: FastifyRequest) => (req.user ? `${name}:user:${req.user.id}` : `${name}:${req.ip}`),
    errorResponseBuilder: (_req: FastifyRequest, context: { ttl: number }) => tooManyRequests(context.ttl / 1000),
  };
}
