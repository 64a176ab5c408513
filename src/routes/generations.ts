// Generation jobs: POST/GET /api/generations, GET /api/generations/:id, POST /api/generations/:id/cancel
// (docs/api.md "Generation jobs"). The work is src/jobs/generation-jobs.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { GenerationJobView } from '../db/repositories/index.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody } from '../http/schemas.js';
import type { GenerationJobs } from '../jobs/generation-jobs.js';
import { generationBodyLimit, generationFields, nodeFieldsTogether } from './image.js';

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;

const GenerationJob = z
  .object({
    id: z.string(),
    status: z.enum(STATUSES),
    queuePosition: z.number().int().nullable().describe('1 = the next queued job to start (all users); null unless queued'),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    error: z
      .object({ status: z.number().int().describe('the status POST /api/image would have answered'), error: z.string(), details: z.string().optional() })
      .nullable(),
    output: z.object({ imageUrl: z.string() }).nullable(),
    projectId: z.string().nullable(),
    nodeId: z.string().nullable(),
    model: z.string().nullable(),
    attempts: z.number().int().describe('runs started: 2 when the instance running it died and it was retried'),
  })
  .meta({ id: 'GenerationJob' });

const present = (j: GenerationJobView): z.infer<typeof GenerationJob> => ({
  id: j.id,
  status: j.status,
  queuePosition: j.queuePosition,
  createdAt: j.createdAt.toISOString(),
  startedAt: j.startedAt?.toISOString() ?? null,
  finishedAt: j.finishedAt?.toISOString() ?? null,
  error: j.status === 'failed' ? { status: j.errorStatus ?? 500, error: j.error ?? 'Failed to generate image', ...(j.errorDetails ? { details: j.errorDetails } : {}) } : null,
  output: j.status === 'succeeded' && j.outputUrl ? { imageUrl: j.outputUrl } : null,
  projectId: j.projectId,
  nodeId: j.nodeId,
  model: j.model,
  attempts: j.attempts,
});

export const generationRoutes: FastifyPluginAsyncZod<{ jobs: GenerationJobs; limits: Config['limits']; model: string; rateLimit?: RouteRateLimit }> = async (app, { jobs, limits, model, rateLimit }) => {
  const body = nodeFieldsTogether(
    z.object({
      ...generationFields(limits),
      model: z.string().optional().refine((m) => m === undefined || m === model, says(`Unknown model: this service generates with ${model}`)).describe(`The model to use: only the configured one (${model}) is accepted`),
    }),
  );
  const params = z.object({ id: z.string().max(100) });
  const notFound = ErrorBody.describe('Job not found: no job of yours has that id');

  app.post('/api/generations', {
    bodyLimit: generationBodyLimit(limits),
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['generation'],
      summary: 'Queue a generation job (answered at once; follow it with GET /api/generations/{id})',
      body,
      response: {
        202: z.object({ id: z.string(), status: z.enum(STATUSES), queuePosition: z.number().int().nullable() }),
        400: ErrorBody,
        401: ErrorBody,
        403: ErrorBody.describe('Forbidden: a viewer of projectId, or a token without the generate scope'),
        404: ErrorBody.describe('Project not found: projectId names no project the user may see'),
        413: ErrorBody,
        429: ErrorBody.describe('Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE, shared with POST /api/image)'),
        503: ErrorBody.describe('Service unavailable: the database cannot be reached; nothing was queued'),
      },
    },
  }, async (req, reply) => {
    const job = await jobs.create(sessionUser(req).id, req.body);
    return reply.code(202).send({ id: job.id, status: job.status, queuePosition: job.queuePosition });
  });

  app.get('/api/generations', {
    schema: {
      tags: ['generation'],
      summary: 'Your generation jobs, newest first',
      querystring: z.object({
        status: z.enum(STATUSES).optional(),
        projectId: z.string().max(100).optional(),
        cursor: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(20),
      }),
      response: { 200: z.object({ items: z.array(GenerationJob), nextCursor: z.string().nullable() }), 400: ErrorBody, 401: ErrorBody },
    },
  }, async (req) => {
    const page = await jobs.list(sessionUser(req).id, req.query);
    return { items: page.items.map(present), nextCursor: page.nextCursor };
  });

  app.get('/api/generations/:id', {
    schema: { tags: ['generation'], summary: 'One of your generation jobs', params, response: { 200: GenerationJob, 401: ErrorBody, 404: notFound } },
  }, async (req) => present(await jobs.get(sessionUser(req).id, req.params.id)));

  app.post('/api/generations/:id/cancel', {
    schema: {
      tags: ['generation'],
      summary: 'Cancel a queued or running generation job (a running one is aborted and records nothing)',
      params,
      response: { 200: GenerationJob, 401: ErrorBody, 403: ErrorBody, 404: notFound, 409: ErrorBody.describe('Job already finished: it succeeded, failed or was canceled') },
    },
  }, async (req) => present(await jobs.cancel(sessionUser(req).id, req.params.id)));
};
