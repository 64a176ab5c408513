// History (docs/api.md "History"): a project's versions (restore points and named versions), naming the current
// state, a read-only preview of a version, and restoring one into the live document. Session required (registered
// in the protected block of src/app.ts). A preview's and a restore's canvas go out as rendered from the document,
// as GET /api/user/project/canvas sends it (not re-serialized).
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { sessionUser } from '../http/guards.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { presentVersion } from '../http/presenters.js';
import { ErrorBody, versionsSchemas } from '../http/schemas.js';
import type { VersionsService } from '../services/versions.js';

const byProject = z.object({ projectId: z.string().max(100) });
const byVersion = byProject.extend({ versionId: z.string().max(100) });

export const versionRoutes: FastifyPluginAsyncZod<{ versions: VersionsService; limits: Config['limits']; rateLimit?: RouteRateLimit }> = async (app, { versions, limits, rateLimit }) => {
  // Naming and restoring each store a whole document: one per-user rate for both (RATE_LIMIT_VERSIONS_PER_MINUTE).
  const limited = rateLimit ? { rateLimit } : undefined;
  const { Version, NameVersion, Versions, VersionPreview, Restored } = versionsSchemas(limits);
  // 400: a path parameter over 100 characters; 403: a viewer's change, or a cross-site one.
  const readErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
  const errors = { ...readErrors, 403: ErrorBody };

  app.get('/api/user/project/:projectId/versions', {
    schema: {
      tags: ['history'],
      summary: "The canvas's history: restore points and named versions, newest first (owner and members)",
      params: byProject,
      response: { 200: Versions, ...readErrors },
    },
  }, async (req) => ({ versions: (await versions.list(sessionUser(req).id, req.params.projectId)).map(presentVersion) }));

  app.post('/api/user/project/:projectId/versions', {
    config: limited,
    schema: {
      tags: ['history'],
      summary: 'Keep the canvas as it is now as a named version (owner and editors)',
      params: byProject,
      body: NameVersion,
      response: { 201: z.object({ version: Version }), 429: ErrorBody, ...errors },
    },
  }, async (req, reply) => {
    const version = await versions.create(sessionUser(req).id, req.params.projectId, req.body.name);
    return reply.code(201).send({ version: presentVersion(version) });
  });

  app.get('/api/user/project/:projectId/versions/:versionId', {
    schema: {
      tags: ['history'],
      summary: 'A version and its canvas, read-only (owner and members)',
      params: byVersion,
      response: { 200: VersionPreview, ...readErrors },
    },
  }, async (req, reply) => {
    const { version, canvas } = await versions.get(sessionUser(req).id, req.params.projectId, req.params.versionId);
    return sendJson(reply, { version: presentVersion(version), canvas });
  });

  app.post('/api/user/project/:projectId/versions/:versionId/restore', {
    config: limited,
    schema: {
      tags: ['history'],
      summary: 'Make the canvas what the version holds, as a new change everyone sees; the canvas as it was is kept as a version first (owner and editors)',
      params: byVersion,
      response: { 200: Restored, 429: ErrorBody, ...errors },
    },
  }, async (req, reply) => {
    const user = sessionUser(req);
    const canvas = await versions.restore(user.id, req.params.projectId, req.params.versionId, user.name || user.email);
    return sendJson(reply, { canvas });
  });
};

/** Send as JSON text (Fastify does not re-serialize a string payload): the canvas as the document renders it. */
function sendJson(reply: FastifyReply, body: unknown) {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}
