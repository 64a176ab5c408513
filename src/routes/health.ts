import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

export const healthRoutes: FastifyPluginAsyncZod<{ checks: Record<string, () => Promise<void>> }> = async (app, { checks }) => {
  const Status = z.object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.enum(['ok', 'unavailable', 'full'])).optional() });

  app.get('/api/health', { schema: { tags: ['health'], summary: 'The process is up', response: { 200: Status } } }, async () => ({ status: 'ok' as const }));

  app.get('/api/ready', {
    schema: { tags: ['health'], summary: 'Backing services reachable (503 when not)', response: { 200: Status, 503: Status } },
  }, async (_req, reply) => {
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]): Promise<[string, 'ok' | 'unavailable' | 'full']> => {
          try {
            await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000).unref())]);
            return [name, 'ok'];
          } catch (err) {
            // A check may say more than `unavailable` (the store: `full`, src/storage/readiness.ts).
            return [name, (err as { readiness?: 'full' }).readiness ?? 'unavailable'];
          }
        }),
      ),
    );
    const ok = Object.values(results).every((r) => r === 'ok');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks: results });
  });
};
