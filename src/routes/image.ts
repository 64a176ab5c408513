// POST /api/image and GET /api/user/generations (the user's history); docs/api.md "Image generation".
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody, isStorableText, NodeBusyBody } from '../http/schemas.js';
import type { GenerationJobs } from '../jobs/runner.js';
import type { GenerationService } from '../services/generation.js';
import { searchText } from './project-generations.js';

const Generation = z
  .object({
    id: z.string(),
    userId: z.string().describe("the user's email"),
    prompt: z.string(),
    inputImages: z.array(z.string()),
    outputImageUrl: z.string(),
    model: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'Generation' });

/** A prompt's checks but its minimum (POST /api/generations lets a model that takes no prompt go without one). */
export const promptOrEmpty = (limits: Config['limits']) =>
  z
    .string(says('No prompt provided'))
    .trim()
    .max(limits.promptChars, says('Prompt too long'))
    .refine(isStorableText, 'contains a character that cannot be stored (NUL or a lone surrogate)');

/**
 * A generation request's fields (POST /api/image, and POST /api/generations with `model`): the same checks and
 * messages. `projectId` and `nodeId` go together.
 */
export function generationFields(limits: Config['limits']) {
  const noImages = says('No images provided');
  const noPrompt = says('No prompt provided');
  return {
    images: z
      .array(
        z
          .string(says('Invalid image: not a string'))
          .min(1, says('Invalid image: empty'))
          // Kept in the job's record (PostgreSQL text cannot hold NUL): refused here like any unusable address.
          .refine(isStorableText, says('Invalid image: contains a character that cannot be stored (NUL or a lone surrogate)')),
        noImages,
      )
      .min(1, noImages)
      .max(limits.imagesPerGeneration, says('Too many images')),
    prompt: promptOrEmpty(limits).min(1, noPrompt),
    projectId: z.string().max(100).optional().describe('With nodeId: the project whose canvas node shows this generation (owner or editor; docs/api.md "Image generation")'),
    nodeId: z
      .string()
      .min(1)
      .max(200)
      .refine(isStorableText, 'contains a character that cannot be stored (NUL or a lone surrogate)')
      .optional()
      .describe("With projectId: the id of the node whose `data` shows the generation's state (isGenerating, image, error)"),
  };
}

/** projectId and nodeId: both or neither. */
export const nodeFieldsTogether = <T extends z.ZodType<{ projectId?: string; nodeId?: string }>>(schema: T) =>
  schema.refine((b) => (b.projectId === undefined) === (b.nodeId === undefined), { ...says('projectId and nodeId go together'), path: ['nodeId'] });

/** The largest generation request body: room for every allowed input as a base64 data URL, within a hard cap. */
export const generationBodyLimit = (limits: Config['limits']) =>
  Math.min(Math.ceil((limits.imagesPerGeneration * limits.inputImageBytes * 4) / 3) + 1024 * 1024, limits.generationBodyBytes);

const generationBody = (limits: Config['limits']) => nodeFieldsTogether(z.object(generationFields(limits)));

export const imageRoutes: FastifyPluginAsyncZod<{ generation: GenerationService; jobs: Pick<GenerationJobs, 'generateNow'>; limits: Config['limits']; rateLimit?: RouteRateLimit }> = async (
  app,
  { generation, jobs, limits, rateLimit },
) => {
  const body = generationBody(limits);
  // Inputs may be data URLs: room for every allowed input, base64-encoded, within a hard cap.
  const bodyLimit = generationBodyLimit(limits);

  app.post('/api/image', {
    bodyLimit,
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['generation'],
      summary: 'Generate an image from one or more images and a prompt',
      body,
      response: {
        200: z.object({ imageBase64: z.string(), imageUrl: z.string(), text: z.string().optional() }),
        400: ErrorBody,
        401: ErrorBody,
        402: ErrorBody.describe('Upgrade required: the free daily quota (FREE_GENERATIONS_PER_DAY) or monthly budget (FREE_BUDGET_USD_PER_MONTH) is used up'),
        403: ErrorBody.describe('Forbidden: a viewer of projectId cannot generate into it'),
        404: ErrorBody.describe('Project not found: projectId names no project the user may see'),
        409: NodeBusyBody,
        413: ErrorBody,
        429: ErrorBody.describe(
          'Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE), Too many generations in flight (GENERATIONS_IN_FLIGHT_PER_USER) or Image model is busy; Retry-After says when to retry',
        ),
        500: ErrorBody.extend({ text: z.string().optional() }),
        503: ErrorBody.describe('Storage unavailable: the object store could not be reached (reading a stored input or storing the result); Retry-After says when to retry'),
      },
    },
  }, async (req) => {
    // A job like any other (queued, visible in GET /api/generations, cancelable), waited for here.
    const { generationId: _id, ...answer } = await jobs.generateNow(sessionUser(req), req.body);
    return answer;
  });

  app.get('/api/user/generations', {
    schema: {
      tags: ['generation'],
      summary: "The signed-in user's generations, newest first; searched by prompt words (q), filtered by project and model",
      querystring: z.object({
        cursor: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(20),
        q: searchText(),
        projectId: z.string().max(100).optional().describe('Only generations made into this project'),
        model: z.string().max(100).refine(isStorableText, 'contains a character that cannot be stored (NUL or a lone surrogate)').optional().describe('Only generations of this model'),
      }),
      response: { 200: z.object({ items: z.array(Generation), nextCursor: z.string().nullable() }), 400: ErrorBody, 401: ErrorBody },
    },
  }, async (req) => {
    const page = await generation.history(sessionUser(req).id, req.query);
    return {
      items: page.items.map((g) => ({ id: g.id, userId: g.userEmail, prompt: g.prompt, inputImages: g.inputImages, outputImageUrl: g.outputImageUrl, model: g.model, createdAt: g.createdAt.toISOString() })),
      nextCursor: page.nextCursor,
    };
  });
};
