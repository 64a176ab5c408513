// Per-user rate limits (DESIGN.md §5) with @fastify/rate-limit: counted after the session check, keyed by
// user id, answered 429 `Too many requests` with Retry-After. Counters are in memory per instance.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tooManyRequests } from '../errors.js';

export interface RouteRateLimit {
  max: number;
  timeWindow: number;
  hook: 'preHandler';
  keyGenerator(req: FastifyRequest): string;
  errorResponseBuilder(req: FastifyRequest, context: { ttl: number }): Error;
}

export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, { global: false });
}

/** Config for one route: `perMinute` requests per user per minute; undefined (no limit) when 0. */
export function perUserPerMinute(name: string, perMinute: number): RouteRateLimit | undefined {
  if (perMinute <= 0) return undefined;
  return {
    max: perMinute,
    timeWindow: 60_000,
    hook: 'preHandler',
    keyGenerator: (req) => `${name}:${req.user?.id ?? req.ip}`,
    errorResponseBuilder: (_req, context) => tooManyRequests('Too many requests', context.ttl / 1000),
  };
}
