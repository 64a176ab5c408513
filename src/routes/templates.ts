// /api/upload/templates (docs/api.md "Templates"). Two plugins: the list is public (registered among the
// public routes of src/app.ts, rate-limited per client address, `mine` computed for a caller with a session);
// publishing and deleting need a session (registered in the protected block).
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SessionVerifier } from '../auth/session.js';
import type { Config } from '../config.js';
import { canvasTooLarge } from '../errors.js';
import { readUser, sessionUser } from '../http/guards.js';
import { presentTemplatesJson } from '../http/presenters.js';
import { perAddressPerMinute } from '../http/rate-limit.js';
import { ErrorBody, templateSchemas } from '../http/schemas.js';
import type { TemplatesService } from '../services/templates.js';

const Success = z.object({ success: z.literal(true), id: z.uuid().describe('the new template (on publishing)').optional() });

export const publicTemplateRoutes: FastifyPluginAsyncZod<{ templates: TemplatesService; sessions: SessionVerifier; limits: Config['limits'] }> = async (
  app,
  { templates, sessions, limits },
) => {
  const { Template } = templateSchemas(limits);
  const rateLimit = perAddressPerMinute('templates', limits.templateListsPerMinute);

  app.get('/api/upload/templates', {
    onRequest: readUser(sessions),
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['templates'],
      summary: 'The newest templates of everyone, newest first (no session needed; rate-limited per address)',
      response: { 200: z.array(Template), 429: ErrorBody },
    },
  }, async (req, reply) => {
    const json = presentTemplatesJson(await templates.list(), req.user?.id);
    return sendJsonText(reply, json);
  });
};

export const templateRoutes: FastifyPluginAsyncZod<{ templates: TemplatesService; limits: Config['limits'] }> = async (app, { templates, limits }) => {
  const { TemplateBody } = templateSchemas(limits);
  const errors = { 400: ErrorBody, 401: ErrorBody };

  app.post('/api/upload/templates', {
    bodyLimit: limits.canvasBytes,
    config: { tooLarge: canvasTooLarge },
    schema: {
      tags: ['templates'],
      summary: 'Publish a canvas as a template, for everyone to see (the author is the signed-in user)',
      body: TemplateBody,
      response: { 200: Success, 413: ErrorBody, ...errors },
    },
  }, async (req) => {
    const { templateName, canvas } = req.body;
    const { id } = await templates.create(sessionUser(req).id, { name: templateName, ...canvas });
    return { success: true as const, id };
  });

  app.delete('/api/upload/templates/:id', {
    schema: {
      tags: ['templates'],
      summary: 'Delete one of your templates',
      params: z.object({ id: z.string() }),
      response: { 200: Success, 403: ErrorBody, 404: ErrorBody, ...errors },
    },
  }, async (req) => {
    await templates.remove(sessionUser(req).id, req.params.id);
    return { success: true as const };
  });
};

/** Send JSON text as is (Fastify does not re-serialize a string payload): the stored nodes and edges were validated when published. */
function sendJsonText(reply: FastifyReply, json: string) {
  return reply.type('application/json; charset=utf-8').send(json);
}
