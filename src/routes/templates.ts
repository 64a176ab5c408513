// Templates (docs/api.md "Templates"). Public, rate-limited per client address, `mine` computed for a caller
// with a session: the original system's list at /api/upload/templates (whole canvases, bounded in bytes), our
// web client's listing at /api/templates (no canvases) and one template's canvas at /api/templates/:id. The
// lists are rendered once and shared (src/services/template-listing.ts) and answer 304 to a current
// If-None-Match. Publishing (capped per user, rate-limited per user) and deleting need a session (registered in
// the protected block).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SessionVerifier } from '../auth/session.js';
import type { Config } from '../config.js';
import { canvasTooLarge } from '../errors.js';
import { readUser, sessionUser } from '../http/guards.js';
import { perAddressPerMinute, perUserPerMinute } from '../http/rate-limit.js';
import { ErrorBody, templateSchemas } from '../http/schemas.js';
import type { ListingView } from '../services/template-listing.js';
import type { TemplatesService } from '../services/templates.js';
import { matchesEtag } from '../services/thumbnails.js';

const Success = z.object({ success: z.literal(true), id: z.uuid().describe('the new template (on publishing)').optional() });
const NotModified = z.null().describe('The ETag sent in If-None-Match is current');

export const publicTemplateRoutes: FastifyPluginAsyncZod<{ templates: TemplatesService; sessions: SessionVerifier; limits: Config['limits'] }> = async (
  app,
  { templates, sessions, limits },
) => {
  const { Template, TemplateSummary, TemplateCanvas } = templateSchemas(limits);
  const listLimit = perAddressPerMinute('templates', limits.templateListsPerMinute);
  const summariesLimit = perAddressPerMinute('template-summaries', limits.templateListsPerMinute);
  const canvasLimit = perAddressPerMinute('template-canvas', limits.templateListsPerMinute);

  app.get('/api/upload/templates', {
    onRequest: readUser(sessions),
    config: listLimit ? { rateLimit: listLimit } : {},
    schema: {
      tags: ['templates'],
      summary: 'The newest templates of everyone with their canvases, newest first, as many as fit in TEMPLATES_LIST_MAX_BYTES (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match)',
      response: { 200: z.array(Template), 304: NotModified, 429: ErrorBody },
    },
  }, async (req, reply) => sendListing(req, reply, await templates.list(req.user?.id)));

  app.get('/api/templates', {
    onRequest: readUser(sessions),
    config: summariesLimit ? { rateLimit: summariesLimit } : {},
    schema: {
      tags: ['templates'],
      summary: 'The newest templates of everyone without their canvases, newest first (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match)',
      response: { 200: z.array(TemplateSummary), 304: NotModified, 429: ErrorBody },
    },
  }, async (req, reply) => sendListing(req, reply, await templates.summaries(req.user?.id)));

  app.get('/api/templates/:id', {
    // Only so that a signed-in caller's requests are counted per user, not per address.
    onRequest: readUser(sessions),
    config: canvasLimit ? { rateLimit: canvasLimit } : {},
    schema: {
      tags: ['templates'],
      summary: "One template's canvas (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match)",
      params: z.object({ id: z.string().max(100) }),
      response: { 200: TemplateCanvas, 304: NotModified, 400: ErrorBody, 404: ErrorBody, 429: ErrorBody },
    },
  }, async (req, reply) => {
    const { etag, body } = await templates.canvas(req.params.id, req.headers['if-none-match']);
    // A template never changes, but may be deleted: kept by browsers and shared caches, asked again each time.
    reply.headers({ etag, 'cache-control': 'public, no-cache' });
    if (!body) return reply.code(304).send(null);
    return sendJsonBytes(reply, body);
  });
};

export const templateRoutes: FastifyPluginAsyncZod<{ templates: TemplatesService; limits: Config['limits'] }> = async (app, { templates, limits }) => {
  const { TemplateBody } = templateSchemas(limits);
  const errors = { 400: ErrorBody, 401: ErrorBody };
  // Counted before the body is read: a user over the rate costs no parsing of a canvas-sized body.
  const rateLimit = perUserPerMinute('template-publish', limits.templatePublishesPerMinute, 'preParsing');

  app.post('/api/upload/templates', {
    bodyLimit: limits.canvasBytes,
    config: { tooLarge: canvasTooLarge, ...(rateLimit ? { rateLimit } : {}) },
    schema: {
      tags: ['templates'],
      summary: 'Publish a canvas as a template, for everyone to see (the author is the signed-in user; at most TEMPLATES_PER_USER_MAX each; rate-limited per user)',
      body: TemplateBody,
      response: { 200: Success, 413: ErrorBody, 429: ErrorBody, ...errors },
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

/**
 * A shared rendering as the caller gets it: its ETag (304 when If-None-Match names it), then the bytes as they
 * are (Fastify does not re-serialize a Buffer or a stream). One that holds the caller's `mine` values is private.
 */
function sendListing(req: FastifyRequest, reply: FastifyReply, view: ListingView) {
  reply.headers({ etag: view.etag, 'cache-control': view.personal ? 'private, no-cache' : 'no-cache', vary: 'Cookie, Authorization' });
  if (matchesEtag(req.headers['if-none-match'], view.etag)) return reply.code(304).send(null);
  reply.header('content-length', view.length);
  return sendJsonBytes(reply, view.chunks.length === 1 ? view.chunks[0] : Readable.from(view.chunks, { objectMode: false }));
}

/** JSON bytes as they are: the stored nodes and edges were validated when published. */
function sendJsonBytes(reply: FastifyReply, body: Buffer | Readable) {
  return reply.type('application/json; charset=utf-8').send(body);
}
