// GET and POST /api/user/project/canvas, with versions (docs/api.md "Canvas versions"). Bodies go out as the
// JSON text the database builds: nodes and edges were validated (and stripped of unknown fields) when stored.
// A save's body may exceed CANVAS_MAX_BYTES only by its inline (data: URL) images, up to CANVAS_MAX_BODY_BYTES.
import type { FastifyBodyParser, FastifyReply } from 'fastify';
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { canvasTooLarge } from '../errors.js';
import { createCanvasBodyCheck, inlineImageChars } from '../http/canvas-body.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import { ErrorBody, canvasSchemas } from '../http/schemas.js';
import type { CanvasService } from '../services/canvas.js';

export const canvasRoutes: FastifyPluginAsyncZod<{ canvas: CanvasService; limits: Config['limits'] }> = async (app, { canvas, limits }) => {
  const { CanvasBody, Canvas } = canvasSchemas(limits);
  const fastCheck = createCanvasBodyCheck(limits);
  const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

  // Fastify's own JSON parser (same poisoning rules), plus the size rule: over CANVAS_MAX_BYTES only by inline
  // images. Counted in UTF-8 bytes only when the text could be over; the images' characters are ASCII. It
  // replaces each JSON parser the routes inherit (`text/plain` too, where the API reads it as JSON: the
  // original client saves canvases so, inline images and all).
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  const parseCanvas: FastifyBodyParser<string> = (req, text, done) => {
    // Fastify's parser calls `done` synchronously; its return value is nothing to wait for.
    void parseJson(req, text, (err, body) => {
      if (err) return done(err, undefined);
      if (text.length * 3 > limits.canvasBytes && Buffer.byteLength(text) - inlineImageChars(body) > limits.canvasBytes) return done(canvasTooLarge(), undefined);
      done(null, body);
    });
  };
  for (const type of ['application/json', 'text/plain']) {
    if (!app.hasContentTypeParser(type)) continue;
    app.removeContentTypeParser(type);
    app.addContentTypeParser(type, { parseAs: 'string' }, parseCanvas);
  }

  app.get('/api/user/project/canvas', {
    schema: {
      tags: ['canvas'],
      summary: "A project's canvas, or null when it has none",
      querystring: z.object({ projectId: z.string(says('Project ID is required')).min(1, says('Project ID is required')) }),
      response: { 200: Canvas.nullable(), ...errors },
    },
  }, async (req, reply) => {
    const json = await canvas.getJson({ userId: sessionUser(req).id }, req.query.projectId);
    return sendJsonText(reply, json ?? 'null');
  });

  app.post('/api/user/project/canvas', {
    bodyLimit: limits.canvasBodyBytes,
    config: { tooLarge: canvasTooLarge },
    // Saves are the hot path: a body the fast check accepts is taken as is (same verdict and value as the
    // schema, held so by test/unit/canvas-body.test.ts); anything else goes to the schema for its answer.
    validatorCompiler: (route) => {
      // Fastify hands each part's own schema (here the zod body schema); its types describe the route's.
      const bySchema = validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]);
      if (route.httpPart !== 'body') return bySchema;
      return (body: unknown) => {
        const value = fastCheck(body);
        return value ? { value } : bySchema(body);
      };
    },
    schema: {
      tags: ['canvas'],
      summary: 'Save a canvas (upsert; with `version`, refused with 409 when stale)',
      body: CanvasBody,
      response: { 200: Canvas, 409: ErrorBody.extend({ version: z.number().int() }), 413: ErrorBody, ...errors },
    },
  }, async (req, reply) => {
    const json = await canvas.save(sessionUser(req).id, req.body);
    return sendJsonText(reply, json);
  });
};

/** Send JSON text as is (Fastify does not re-serialize a string payload). */
function sendJsonText(reply: FastifyReply, json: string) {
  return reply.type('application/json; charset=utf-8').send(json);
}
