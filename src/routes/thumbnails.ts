// For the projects page (docs/api.md "Thumbnails"): GET /api/user/project/:projectId/thumbnail, a small PNG of the
// canvas (owner and members; 304 when the browser's copy shows the current version), and
// GET /api/user/project/activity, when each of the user's projects (own and shared) was last edited.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import { presentProjectActivity } from '../http/presenters.js';
import { ErrorBody } from '../http/schemas.js';
import type { ProjectsService } from '../services/projects.js';
import type { ThumbnailsService } from '../services/thumbnails.js';

const ProjectActivity = z
  .object({
    projectId: z.uuid(),
    version: z.number().int().describe('the canvas version (0: no canvas yet); the thumbnail shows this version'),
    lastEditedAt: z.string().describe('ISO 8601: the canvas’s last change, or the project’s creation when it has no canvas yet'),
  })
  .meta({ id: 'ProjectActivity' });

export const thumbnailRoutes: FastifyPluginAsyncZod<{ thumbnails: ThumbnailsService; projects: ProjectsService }> = async (app, { thumbnails, projects }) => {
  app.get('/api/user/project/activity', {
    schema: {
      tags: ['projects'],
      summary: 'When each project you own or are a member of was last edited, and its canvas version',
      response: { 200: z.array(ProjectActivity), 401: ErrorBody },
    },
  }, async (req) => (await projects.activity(sessionUser(req).id)).map(presentProjectActivity));

  app.get('/api/user/project/:projectId/thumbnail', {
    schema: {
      tags: ['projects'],
      summary: 'A 320×200 PNG of the canvas (owner and members); revalidate with If-None-Match',
      params: z.object({ projectId: z.string().max(100) }),
      response: {
        200: z.any().describe('The thumbnail (image/png), with an ETag naming the canvas version it shows'),
        304: z.null().describe('The ETag sent in If-None-Match is current'),
        400: ErrorBody,
        401: ErrorBody,
        404: ErrorBody.describe('Project not found: no project the user may see'),
        503: ErrorBody.describe('Storage unavailable: the object store is down or full, or did not answer within THUMBNAIL_DEADLINE_MS; Retry-After says when to retry'),
      },
    },
  }, async (req, reply) => {
    const { etag, png } = await thumbnails.thumbnail(sessionUser(req).id, req.params.projectId, req.headers['if-none-match']);
    // Readable only by those who may see the project, which can change: kept by the browser, asked again each time.
    reply.headers({ etag, 'cache-control': 'private, no-cache' });
    if (!png) return reply.code(304).send(null);
    return reply.type('image/png').header('content-length', png.length).send(png);
  });
};
