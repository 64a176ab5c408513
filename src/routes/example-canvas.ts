// POST /api/user/project/:projectId/example (docs/api.md "Example canvas"): the example canvas into an empty
// project, for a person's first project. Idempotent: a canvas that is not empty is left as it is.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { ErrorBody } from '../http/schemas.js';
import type { ExampleCanvasService } from '../services/example-canvas.js';

export const exampleCanvasRoutes: FastifyPluginAsyncZod<{ example: ExampleCanvasService }> = async (app, { example }) => {
  app.post('/api/user/project/:projectId/example', {
    schema: {
      tags: ['projects'],
      summary: 'Put the example canvas (two pictures and a generation node) into an empty project (owner and editors)',
      params: z.object({ projectId: z.string().max(100) }),
      response: {
        200: z.object({
          seeded: z.boolean().describe('false: the canvas was not empty, nothing changed'),
          version: z.number().int().describe('the canvas version after'),
        }),
        400: ErrorBody,
        401: ErrorBody,
        403: ErrorBody.describe('Forbidden: a viewer'),
        404: ErrorBody.describe('Project not found: no project the user may see'),
      },
    },
  }, async (req) => example.seed(sessionUser(req).id, req.params.projectId));
};
