// Generation jobs: POST/GET /api/generations, GET /api/generations/:id, POST /api/generations/:id/cancel
// (docs/api.md "Generation jobs"). The work is src/jobs/generation-jobs.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import { invalidRequest, tooManyImagesFor, unknownModel } from '../errors.js';
import { closedEvent, type EventStreams } from '../http/event-streams.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody, NodeBusyBody } from '../http/schemas.js';
import { presentJob as present, presentJobEvent } from '../http/presenters.js';
import type { GenerationJobs } from '../jobs/runner.js';
import type { ModelRegistry } from '../models/registry.js';
import { generationBodyLimit, generationFields, nodeFieldsTogether, promptOrEmpty } from './image.js';
import { Lineage, presentLineage } from './lineage.js';

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
      .object({ status: z.number().int().describe("the status POST /api/image would have answered (derived from the job's error code)"), error: z.string(), details: z.string().optional() })
      .nullable(),
    output: z.object({ imageUrl: z.string() }).nullable(),
    projectId: z.string().nullable(),
    nodeId: z.string().nullable(),
    model: z.string().nullable(),
    attempts: z.number().int().describe('runs started: 2 when the instance running it died and it was retried'),
    progress: z
      .object({
        queuePosition: z.number().int().optional().describe("in the provider's own queue: 1 = next to start"),
        step: z.object({ done: z.number().int(), total: z.number().int() }).optional().describe('steps done of a total'),
        message: z.string().optional().describe("the provider's latest log line"),
        preview: z.string().optional().describe("the model's latest preview of the image (OpenAI's partial images), small: a data:image/webp URL"),
      })
      .nullable()
      .describe('While running: what the model last said of its progress (updated at most once a second); null otherwise'),
  })
  .meta({ id: 'GenerationJob' });

/** One job as GET /api/generations/{id} answers it: with the lineage of what it made. */
const GenerationJobDetail = GenerationJob.extend({
  lineage: Lineage.nullable().describe('What made the output (docs/api.md "Lineage"); null unless the job succeeded'),
  runId: z.string().nullable().describe('The run it is a job of (docs/api.md "Runs"); null for a job started alone'),
  cacheHit: z
    .boolean()
    .describe("A run's job that took an output the project already had for its key: no model call, cost 0; `lineage` is the generation it reuses"),
}).meta({ id: 'GenerationJobDetail' });

/** A Last-Event-ID: an event id we gave (a positive integer), nothing else. */
const EVENT_ID = /^[0-9]{1,15}$/;

/** `streams`: the event streams open here, capped per user and ended by revocation (src/http/event-streams.ts). */
export const generationRoutes: FastifyPluginAsyncZod<{ jobs: GenerationJobs; limits: Config['limits']; models: Pick<ModelRegistry, 'find' | 'defaultId'>; streams: EventStreams; rateLimit?: RouteRateLimit; keepAliveMs?: number }> = async (
  app,
  { jobs, limits, models, streams: open, rateLimit, keepAliveMs = 15_000 },
) => {
  const fields = generationFields(limits);
  /** A node start: `{ projectId, nodeId }` without images and prompt (the node's own are read from its canvas). */
  const nodeStart = (b: { images?: unknown; prompt?: unknown; nodeId?: string }) => b.images === undefined && b.prompt === undefined && b.nodeId !== undefined;
  /** Whether a generation with `model` (none: the default) needs a prompt: not for a model that uses none (the upscalers). */
  const needsPrompt = (model: string | undefined) => models.find(model ?? models.defaultId)?.takesPrompt !== false;
  const body = nodeFieldsTogether(
    z.object({
      ...fields,
      images: fields.images.optional().describe("The input images (as POST /api/image); omitted with projectId and nodeId and no prompt: the node's job, its inputs from its incoming edges"),
      // Its minimum is checked below: an empty prompt is refused unless the model takes none.
      prompt: promptOrEmpty(limits)
        .optional()
        .describe("The prompt (as POST /api/image); empty or omitted for a model that takes none (GET /api/models `takesPrompt: false`); omitted with projectId and nodeId and no images: the node's own"),
      model: z.string().max(100).optional().describe(`The model to run: an id from GET /api/models (default: the deployment's default, ${models.defaultId})`),
      promptInMetadata: z.boolean(says('Invalid promptInMetadata: not a boolean')).optional().describe("Write the prompt into the output PNG's XMP metadata (default false: the PNG never carries the prompt)"),
    }),
  )
    .refine((b) => b.images !== undefined || nodeStart(b), { ...says('No images provided'), path: ['images'] })
    .refine((b) => (b.prompt !== undefined && b.prompt !== '') || nodeStart(b) || !needsPrompt(b.model), { ...says('No prompt provided'), path: ['prompt'] });
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
        409: NodeBusyBody,
        413: ErrorBody,
        429: ErrorBody.describe('Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE, shared with POST /api/image)'),
        503: ErrorBody.describe('Service unavailable: the database cannot be reached; nothing was queued'),
      },
    },
  }, async (req, reply) => {
    // Refused before anything is queued: a model this deployment does not run, or more images than the named model
    // takes (a job that names none keeps SPEC's limits, as POST /api/image).
    const { images, prompt, projectId, nodeId, model, promptInMetadata } = req.body;
    if (model !== undefined) {
      const entry = models.find(model);
      if (!entry) throw unknownModel(model);
      if (images && images.length > entry.maxInputs) throw tooManyImagesFor(entry.label, entry.maxInputs);
    }
    const userId = sessionUser(req).id;
    const job =
      images !== undefined
        ? await jobs.create(userId, { images, prompt: prompt ?? '', projectId, nodeId, model, promptInMetadata })
        : await jobs.startNode(userId, { projectId: projectId!, nodeId: nodeId!, model, promptInMetadata }, needsPrompt);
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

  // The server closing ends the streams (they would hold it open), so clients reconnect elsewhere with Last-Event-ID.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of streams) close();
  });

  app.get('/api/generations/events', {
    schema: {
      tags: ['generation'],
      summary:
        "Server-Sent Events of your jobs' changes (`event: job`, `data`: the job as GET /api/generations/{id}); reconnect with Last-Event-ID for what you missed. " +
        'A stream the service ends gets a last `event: closed` with `data: {"reason": …}` (too-many-streams, signed-out, token-revoked, token-expired): do not reconnect on it',
      headers: z.object({ 'last-event-id': z.string().max(100).optional() }).passthrough(),
      querystring: z.object({ lastEventId: z.string().max(100).optional().describe('The same as the Last-Event-ID header, for clients that cannot send it') }),
      response: {
        200: z
          .string()
          .describe('text/event-stream: `id: <n>`, `event: job`, `data: <GenerationJob>` (or `event: run`, `data: <Run>` for a run you started); `: ping` comments keep the connection alive; `event: closed`, `data: {"reason": …}` last when the service ends it'),
        400: ErrorBody.describe('Invalid Last-Event-ID: not an event id'),
        401: ErrorBody,
        503: ErrorBody,
      },
    },
  }, async (req, reply) => {
    const given = req.headers['last-event-id'] ?? req.query.lastEventId;
    if (given !== undefined && !EVENT_ID.test(given.trim())) throw invalidRequest('Invalid Last-Event-ID: not an event id');
    const user = sessionUser(req);
    const userId = user.id;
    const queued: string[] = [];
    const out: { write?: (chunk: string) => void } = {}; // set once the stream is open; events before that wait
    const stop = await jobs.follow(userId, given === undefined ? null : Number(given.trim()), (event) => {
      // A run's change (src/runs/: its id is `run_…`) is an `event: run` of the same stream, with the run as data.
      const isRun = typeof event.job.id === 'string' && event.job.id.startsWith('run_');
      const chunk = isRun ? `id: ${event.id}\nevent: run\ndata: ${JSON.stringify(event.job)}\n\n` : `id: ${event.id}\nevent: job\ndata: ${JSON.stringify(presentJobEvent(event.job))}\n\n`;
      if (out.write) out.write(chunk);
      else queued.push(chunk);
    });
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': connected\n\n');
    out.write = (chunk) => res.write(chunk);
    for (const chunk of queued.splice(0)) out.write(chunk);
    const ping = setInterval(() => res.write(': ping\n\n'), keepAliveMs);
    const end = () => {
      clearInterval(ping);
      stop();
    };
    const close = () => res.end();
    streams.add(close);
    // Capped per user, and ended when what let it in ends (a sign-out, a revoked token), with a last event saying why.
    const release = open.add(user, (reason) => {
      if (res.writableEnded) return;
      res.write(closedEvent(reason));
      res.end();
    });
    res.on('close', () => {
      streams.delete(close);
      release();
      end();
    });
  });

  app.get('/api/generations/:id', {
    schema: { tags: ['generation'], summary: 'One of your generation jobs, with the lineage of its output', params, response: { 200: GenerationJobDetail, 401: ErrorBody, 404: notFound } },
  }, async (req) => {
    const { job, lineage } = await jobs.detail(sessionUser(req).id, req.params.id);
    return { ...present(job), lineage: lineage ? presentLineage(lineage) : null, runId: job.runId ?? null, cacheHit: job.cacheHit };
  });

  app.post('/api/generations/:id/cancel', {
    schema: {
      tags: ['generation'],
      summary: 'Cancel a queued or running generation job (a running one is aborted and records nothing)',
      params,
      response: { 200: GenerationJob, 401: ErrorBody, 403: ErrorBody, 404: notFound, 409: ErrorBody.describe('Job already finished: it succeeded, failed or was canceled') },
    },
  }, async (req) => present(await jobs.cancel(sessionUser(req).id, req.params.id)));
};
