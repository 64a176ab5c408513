// GET /api/models (docs/api.md "Models"): the models this deployment runs, for the generation node's picker and for
// API clients choosing a job's `model`. Signed in (a session or a token), like the generations that use them.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '../http/schemas.js';
import { MODEL_ROLES, type ModelRole } from '../kinds/kind.js';
import { PROVIDERS } from '../models/index.js';
import type { ModelRegistry } from '../models/registry.js';

const ModelPrice = z
  .object({
    perImageUsd: z.number().optional().describe('US dollars per output image (0: runs on this service or your own server)'),
    perSecondUsd: z.number().optional().describe('US dollars per second of video'),
    per1kTokensUsd: z.number().optional().describe('US dollars per 1,000 output tokens (OpenAI bills images as tokens)'),
    tokensPerImage: z.number().optional().describe('With per1kTokensUsd: the output tokens one image is taken to take in an estimate'),
    source: z.string().describe("The provider's pricing page and the month it was read, or `self-hosted` / `offline`"),
  })
  .meta({ id: 'ModelPrice' });

const Model = z
  .object({
    id: z.string().describe("The value of a generation's `model` (and of a generation node's `data.model`)"),
    provider: z.enum(PROVIDERS).describe('Who runs it: `offline` is this service itself, without sending the images anywhere'),
    label: z.string(),
    maxInputs: z.number().int().describe('Input images one generation with this model may have'),
    progress: z.enum(['none', 'steps', 'previews']).describe('What it reports while it works: nothing, steps done of a total, or preview images'),
    costPerImageUsd: z.number().optional().describe("The provider's list price of one image in US dollars, when it publishes one"),
    offline: z.boolean().describe('Runs on this service, with no key and nothing sent to a provider'),
    promptHints: z
      .array(z.string())
      .readonly()
      .optional()
      .describe('Short prompts the model understands, when it understands only some words (the offline engine: each is one operation it applies); absent for a model that takes any prompt'),
    takesPrompt: z.boolean().describe('false: the model uses no prompt (the upscalers), and a generation with it may have an empty one'),
    maxInputPixels: z
      .number()
      .int()
      .optional()
      .describe("The most pixels (width × height) one input image may have: the model's own limit (the upscalers: UPSCALE_MAX_INPUT_PIXELS) or the service's (INPUT_IMAGE_MAX_PIXELS), the lower"),
    default: z.boolean().describe('The model a generation that names none runs (exactly one is, unless the default lacks its key)'),
    price: ModelPrice.optional().describe('Its published price and where it was read; absent when the provider publishes none we can use (a run counts its jobs as unpriced)'),
    takesSeed: z.boolean().describe("Whether a generation's seed reaches the model (fal's, Replicate's Kontext and Qwen editors, ComfyUI); the others ignore it"),
    does: z
      .array(z.enum(MODEL_ROLES as [ModelRole, ...ModelRole[]]))
      .readonly()
      .describe('What it does, so which node kinds offer it: generate (generation nodes), inpaint (edit nodes; it takes a mask), upscale (upscale nodes), remove-background'),
    takesMask: z.boolean().describe("Whether an edit's mask reaches it (the models that do inpaint)"),
  })
  .meta({ id: 'Model' });

export const modelRoutes: FastifyPluginAsyncZod<{ models: Pick<ModelRegistry, 'list'> }> = async (app, { models }) => {
  app.get('/api/models', {
    schema: {
      tags: ['generation'],
      summary: 'The image models this deployment runs (a provider without its key configured is absent)',
      response: { 200: z.object({ models: z.array(Model) }), 401: ErrorBody },
    },
  }, async (_req, reply) => reply.header('cache-control', 'private, no-cache').send({ models: models.list() }));
};
