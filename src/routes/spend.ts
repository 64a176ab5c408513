// Spend (docs/api.md "Spend"): GET /api/user/spend (what your generations cost this month, today and per project,
// with your daily budget for runs) and GET /api/projects/:id/spend (a project's cost per person; owner and members,
// viewers too; anyone else 404). Costs in US dollars, summed from the generations' recorded costs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { ErrorBody } from '../http/schemas.js';
import type { GenerationService } from '../services/generation.js';
import type { SpendService } from '../services/spend.js';

const UserSpend = z
  .object({
    month: z.string().describe('YYYY-MM (UTC)'),
    usd: z.number().describe("the sum of the month's known costs, in US dollars: each as its provider stated it, else its model's list price per image"),
    generations: z.number().int().describe('generations made this month'),
    priced: z.number().int().describe('of which with a known cost (the offline engine and models without a published price have none)'),
    freeBudget: z
      .object({
        usd: z.number().describe('the monthly free budget (FREE_BUDGET_USD_PER_MONTH)'),
        usedUsd: z.number().describe("what counts against it: this month's priced generations, priced calls that made no image, and what running generations hold"),
        leftUsd: z.number(),
      })
      .optional()
      .describe('only with a monthly free budget, for a user without Pro'),
    todayUsd: z.number().describe('what your generations cost since UTC midnight (a job the cache answered costs nothing)'),
    monthUsd: z.number().describe('what your generations cost since the first of this UTC month (the same as usd)'),
    budgetUsd: z.number().nullable().describe('your daily budget for runs (USER_DAILY_BUDGET_USD); null when there is none'),
    projects: z
      .array(
        z.object({
          projectId: z.string(),
          name: z.string(),
          usd: z.number().describe('what your generations in the project cost, all time'),
          generations: z.number().int(),
        }),
      )
      .describe('per project you generated into (that still exists), all time, most spent first'),
  })
  .meta({ id: 'UserSpend' });

const ProjectSpend = z
  .object({
    totalUsd: z.number().describe("what everyone's generations in the project cost, all time, in US dollars"),
    people: z
      .array(z.object({ userId: z.string(), name: z.string(), email: z.string(), usd: z.number(), generations: z.number().int() }))
      .describe('per person who generated into the project, most spent first'),
  })
  .meta({ id: 'ProjectSpend' });

export const spendRoutes: FastifyPluginAsyncZod<{ generation: Pick<GenerationService, 'spend'>; spend: SpendService }> = async (app, { generation, spend }) => {
  app.get('/api/user/spend', {
    schema: {
      tags: ['generation'],
      summary: "What the signed-in user's generations cost: this calendar month (UTC), today, per project; and their daily budget for runs",
      response: { 200: UserSpend, 401: ErrorBody },
    },
  }, async (req) => {
    const userId = sessionUser(req).id;
    const [month, mine] = await Promise.all([generation.spend(userId), spend.user(userId)]);
    return { ...month, ...mine };
  });

  app.get('/api/projects/:id/spend', {
    schema: {
      tags: ['generation'],
      summary: "What the project's generations cost, per person (owner and members, viewers too)",
      params: z.object({ id: z.string().max(100) }),
      response: { 200: ProjectSpend, 401: ErrorBody, 404: ErrorBody.describe('Project not found: no project the user may see') },
    },
  }, async (req) => spend.project(sessionUser(req).id, req.params.id));
};
