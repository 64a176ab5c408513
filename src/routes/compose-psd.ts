// A compose node's result as a layered PSD (docs/api.md "Node kinds", compose): GET /api/projects/:id/nodes/:nodeId/psd.
// Owner and members (viewers too) download; anyone else gets 404. The work is src/jobs/compose-psd.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { ErrorBody, isStorableText } from '../http/schemas.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import type { ComposePsdService } from '../jobs/compose-psd.js';
import { attachment } from './project-generations.js';

export const composePsdRoutes: FastifyPluginAsyncZod<{ psd: ComposePsdService; rateLimit?: RouteRateLimit }> = async (app, { psd, rateLimit }) => {
  app.get('/api/projects/:id/nodes/:nodeId/psd', {
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['generation'],
      summary: "A compose node's result as a layered PSD (image/vnd.adobe.photoshop attachment): one layer per image with its name, position, opacity, blend mode and visibility, its mask baked into its alpha, over the composite (owner and members)",
      params: z.object({
        id: z.string().max(100),
        nodeId: z.string().min(1).max(200).refine(isStorableText, 'contains a character that cannot be stored (NUL or a lone surrogate)'),
      }),
      response: {
        200: z.any().describe('The PSD (image/vnd.adobe.photoshop), with Content-Disposition: attachment'),
        400: ErrorBody.describe('Invalid nodeId: the node is not a compose node; or its layers or data cannot be read'),
        401: ErrorBody,
        404: ErrorBody.describe('Project not found (no project the user may see); Node not found; or Generation not found: the node has no result yet'),
        413: ErrorBody.describe('PSD too large: it would pass PSD_MAX_BYTES (details: its size)'),
        429: ErrorBody.describe('Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE PSDs a minute per user: each is image work)'),
      },
    },
  }, async (req, reply) => {
    const file = await psd.psd(sessionUser(req).id, req.params.id, req.params.nodeId);
    return reply
      .headers({
        'content-type': 'image/vnd.adobe.photoshop',
        'content-length': file.psd.length,
        'content-disposition': attachment(file.fileName),
        'cache-control': 'private, no-cache',
        'content-security-policy': "default-src 'none'; sandbox",
      })
      .send(file.psd);
  });
};
