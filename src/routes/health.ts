import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * A check of /api/ready: resolves when its service is reachable, throws when it is not (the instance is unavailable:
 * 503); a non-critical one resolves `degraded` when its service is impaired but the instance still serves (200).
 */
export type ReadyCheck = () => Promise<void | 'degraded'>;

export const healthRoutes: FastifyPluginAsyncZod<{ checks: Record<string, ReadyCheck> }> = async (app, { checks }) => {
  const Status = z.object({
    status: z.enum(['ok', 'degraded', 'unavailable']),
    checks: z.record(z.string(), z.enum(['ok', 'degraded', 'unavailable', 'full'])).optional(),
  });

  app.get('/api/health', { schema: { tags: ['health'], summary: 'The process is up', response: { 200: Status } } }, async () => ({ status: 'ok' as const }));

  app.get('/api/ready', {
    schema: {
      tags: ['health'],
      summary: 'Backing services reachable (503 when not; 200 with status degraded when only the link between instances is down)',
      response: { 200: Status, 503: Status },
    },
  }, async (_req, reply) => {
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]): Promise<[string, 'ok' | 'degraded' | 'unavailable' | 'full']> => {
          try {
            const result = await Promise.race([check(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000).unref())]);
            return [name, result === 'degraded' ? 'degraded' : 'ok'];
          } catch (err) {
            // A check may say more than `unavailable` (the store: `full`, src/storage/readiness.ts).
            return [name, (err as { readiness?: 'full' }).readiness ?? 'unavailable'];
          }
        }),
      ),
    );
    const states = Object.values(results);
    // `full` (the store) is as unavailable as `unavailable`: the instance cannot serve; `degraded` (live) still can.
    const status = states.some((s) => s === 'unavailable' || s === 'full') ? 'unavailable' : states.includes('degraded') ? 'degraded' : 'ok';
    return reply.code(status === 'unavailable' ? 503 : 200).send({ status, checks: results });
  });
};
