// A project's gallery and named downloads (docs/api.md "Project gallery"): GET /api/projects/:id/generations and
// GET /api/projects/:id/generations/:generationId/download. Owner and members read; anyone else gets 404.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import { ErrorBody, isStorableText } from '../http/schemas.js';
import type { ProjectGenerationsService } from '../services/project-generations.js';
import { Lineage, presentLineage } from './lineage.js';

/** The longest prompt search (GET /api/user/generations takes the same). */
export const SEARCH_CHARS = 200;
/** `q`: words of the prompt, the last one a prefix (docs/api.md "Prompt search"). */
export const searchText = () =>
  z
    .string()
    .max(SEARCH_CHARS, says(`Search text is too long (at most ${SEARCH_CHARS} characters)`))
    .optional()
    .describe('Words of the prompt (any order; the last one may be the start of a word). Quotes and operators are ignored.');

const ProjectGeneration = z
  .object({
    id: z.string(),
    prompt: z.string(),
    outputImageUrl: z.string(),
    model: z.string(),
    createdAt: z.string(),
    nodeId: z.string().nullable(),
    author: z.object({ id: z.string(), name: z.string() }),
    lineage: Lineage,
    text: z.string().nullable().describe('What the model said beside the image (the offline engine: what it did, in words); null when it said nothing'),
    cacheKey: z.string().nullable().describe("The cache key of the run's job that made it (docs/api.md \"Runs\"): \"Use this\" brings it back as the node's resultKey; null when not made by a run"),
    seed: z.number().int().nullable().describe("The seed it was made with (a run's job); null when not known"),
  })
  .meta({ id: 'ProjectGeneration' });

const byProject = z.object({ id: z.string().max(100) });
const byGeneration = byProject.extend({ generationId: z.string().max(100) });

/** RFC 6266: an ASCII `filename` for old clients, and the exact name as UTF-8 in `filename*` (RFC 8187). */
export function attachment(fileName: string): string {
  const ascii = fileName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export const projectGenerationRoutes: FastifyPluginAsyncZod<{ gallery: ProjectGenerationsService }> = async (app, { gallery }) => {
  const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody.describe('Project not found: no project the user may see') };

  app.get('/api/projects/:id/generations', {
    schema: {
      tags: ['generation'],
      summary: "Every generation made into the project, by anyone, newest first (owner and members)",
      params: byProject,
      querystring: z.object({
        nodeId: z.string().min(1).max(200).refine(isStorableText, 'contains a character that cannot be stored (NUL or a lone surrogate)').optional().describe("Only this canvas node's generations"),
        q: searchText(),
        model: z.string().min(1).max(100).optional().describe('Only the generations of this model (an id, as GET /api/models names them)'),
        cursor: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(20),
      }),
      response: { 200: z.object({ items: z.array(ProjectGeneration), nextCursor: z.string().nullable() }), ...errors },
    },
  }, async (req) => {
    const page = await gallery.list(sessionUser(req).id, req.params.id, req.query);
    return {
      items: page.items.map((g) => ({
        id: g.id,
        prompt: g.prompt,
        outputImageUrl: g.outputImageUrl,
        model: g.model,
        createdAt: g.createdAt.toISOString(),
        nodeId: g.nodeId,
        author: { id: g.userId, name: g.authorName },
        lineage: presentLineage(g),
        text: g.modelText,
        cacheKey: g.cacheKey,
        seed: g.seed,
      })),
      nextCursor: page.nextCursor,
    };
  });

  app.get('/api/projects/:id/generations/:generationId/download', {
    schema: {
      tags: ['generation'],
      summary: 'A generation of the project as a PNG attachment named `<project name> - <prompt start>.png` (owner and members)',
      params: byGeneration,
      response: {
        200: z.any().describe('The PNG (image/png), with Content-Disposition: attachment'),
        ...errors,
        404: ErrorBody.describe('Project not found, or Generation not found: not one made into this project, or its image is gone'),
      },
    },
  }, async (req, reply) => {
    const file = await gallery.download(sessionUser(req).id, req.params.id, req.params.generationId);
    return reply
      .headers({
        'content-type': file.contentType,
        'content-length': file.size,
        'content-disposition': attachment(file.fileName),
        // Readable only by those who may see the project, which can change: kept by the browser, checked again.
        'cache-control': 'private, no-cache',
        'content-security-policy': "default-src 'none'; sandbox",
      })
      .send(file.stream);
  });
};
