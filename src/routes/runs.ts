// Runs of a project's graph (docs/api.md "Runs", DESIGN.md §12): POST /api/projects/:id/runs (and /estimate),
// GET /api/projects/:id/runs and /runs/:runId, POST /api/projects/:id/runs/:runId/cancel. The work is src/runs/.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody, isStorableText } from '../http/schemas.js';
import { RUN_MODES } from '../kinds/graph.js';
import { RUN_JOB_STATUSES } from '../kinds/graph.js';
import type { Runs } from '../runs/coordinator.js';

const RUN_STATUSES = ['running', 'succeeded', 'failed', 'canceled'] as const;

export const Estimate = z
  .object({
    totalUsd: z.number().describe('The priced jobs that would run, in US dollars (cached jobs cost nothing; unpriced ones are left out: see unpriced)'),
    unpriced: z.number().int().describe('Jobs whose model has no published price'),
    nodes: z.array(
      z.object({
        nodeId: z.string(),
        jobs: z.number().int(),
        cached: z.boolean().describe('Every job of the node would come from the cache'),
        costUsd: z.number().nullable().describe("null when a job of it that would run has no published price"),
      }),
    ),
  })
  .meta({ id: 'RunEstimate' });

const RunJob = z
  .object({
    nodeId: z.string(),
    instance: z.number().int().describe('0-based: the list item (then count) of a fanned node'),
    jobId: z.string().describe('Chosen when planned; GET /api/generations/{jobId} answers once it is queued or taken from the cache'),
    status: z.enum(RUN_JOB_STATUSES as [string, ...string[]]).describe('waiting: its inputs are not ready yet (or another job makes the same result)'),
    cached: z.boolean(),
    key: z.string().describe('Its cache key (SHA-256 hex)'),
    seed: z.number().int().nullable(),
    queuePosition: z.number().int().nullable(),
    costUsd: z.number().nullable().describe('What it cost once made (cached: 0); null until then or when unknown'),
    reason: z.string().nullable().describe('Why it failed, was skipped or waits'),
    imageUrl: z.string().nullable(),
  })
  .meta({ id: 'RunJob' });

export const RunView = z
  .object({
    id: z.string(),
    projectId: z.string(),
    userId: z.string(),
    mode: z.string(),
    nodeIds: z.array(z.string()),
    status: z.enum(RUN_STATUSES),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    jobs: z.array(RunJob).describe('In topological order'),
    estimate: Estimate,
    costUsd: z.number().describe('What its jobs cost so far, in US dollars'),
  })
  .meta({ id: 'Run' });

const ProblemBody = ErrorBody.extend({ nodeIds: z.array(z.string()).optional().describe('The nodes the problem is about') });

export const runRoutes: FastifyPluginAsyncZod<{ runs: Runs; maxNodes: number; rateLimit?: RouteRateLimit }> = async (app, { runs, maxNodes, rateLimit }) => {
  const byProject = z.object({ id: z.string().max(100) });
  const byRun = byProject.extend({ runId: z.string().max(100) });
  const body = z.object({
    mode: z.enum(RUN_MODES as [string, ...string[]], says(`Invalid mode: one of ${RUN_MODES.join(', ')}`)).describe('node: the node after what it depends on that is stale; downstream: the node and everything after it; selection: these nodes; all: every node that runs'),
    nodeIds: z
      .array(z.string().min(1).max(200).refine(isStorableText, 'contains a character that cannot be stored'), says('Invalid nodeIds: a list of node ids'))
      .max(maxNodes, says(`Invalid nodeIds: at most ${maxNodes}`))
      .optional()
      .describe('node, downstream: exactly one; selection: at least one; all: none'),
  });
  const refusals = {
    400: ProblemBody.describe('The run cannot be planned (invalid_run: a cycle, a node that cannot run, a mode without its nodes, nothing to run; too_many_jobs): nothing queued'),
    401: ErrorBody,
    403: ErrorBody.describe('Forbidden: a viewer'),
    404: ProblemBody.describe('Project not found (no project you may see), or a node the canvas does not have'),
  };

  app.post('/api/projects/:id/runs', {
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['runs'],
      summary: "Run part of the project's graph (answered at once; follow it with GET …/runs/{runId} or the `run` events of GET /api/generations/events)",
      params: byProject,
      body,
      response: {
        202: RunView,
        ...refusals,
        402: ErrorBody.extend({ budgetUsd: z.number(), spentTodayUsd: z.number(), estimateUsd: z.number() }).describe('The estimate would pass USER_DAILY_BUDGET_USD; nothing queued'),
        429: ErrorBody,
      },
    },
  }, async (req, reply) => reply.code(202).send(await runs.start(sessionUser(req).id, req.params.id, req.body as Parameters<Runs['start']>[2])));

  app.post('/api/projects/:id/runs/estimate', {
    schema: { tags: ['runs'], summary: 'What the run would cost now, per node (cached jobs cost nothing)', params: byProject, body, response: { 200: Estimate, ...refusals } },
  }, async (req) => runs.estimate(sessionUser(req).id, req.params.id, req.body as Parameters<Runs['estimate']>[2]));

  app.get('/api/projects/:id/runs', {
    schema: {
      tags: ['runs'],
      summary: "The project's runs, newest first (owner and members)",
      params: byProject,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
      response: { 200: z.object({ items: z.array(RunView) }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
    },
  }, async (req) => ({ items: await runs.list(sessionUser(req).id, req.params.id, req.query.limit) }));

  app.get('/api/projects/:id/runs/:runId', {
    schema: { tags: ['runs'], summary: 'One run of the project, with its jobs (owner and members)', params: byRun, response: { 200: RunView, 401: ErrorBody, 404: ErrorBody.describe('Project or run not found') } },
  }, async (req) => runs.get(sessionUser(req).id, req.params.id, req.params.runId));

  app.post('/api/projects/:id/runs/:runId/cancel', {
    schema: {
      tags: ['runs'],
      summary: 'Cancel a running run: its queued and running jobs are canceled, its waiting ones too',
      params: byRun,
      response: { 200: RunView, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody.describe('Project or run not found'), 409: ErrorBody.describe('Run already finished') },
    },
  }, async (req) => runs.cancel(sessionUser(req).id, req.params.id, req.params.runId));
};
