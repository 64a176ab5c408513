// POST /api/upload: one image in multipart field `file` → { url }. The rules (type from the bytes, size limit
// while streaming, unique names; docs/api.md "Uploads and stored files") live in the uploads service; this
// file only speaks HTTP.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fileTooLarge, noFileProvided, unauthorized } from '../errors.js';
import { bodyChunkRelease } from '../http/body-chunks.js';
import { sessionUser } from '../http/guards.js';
import { ErrorBody } from '../http/schemas.js';
import type { UploadsService } from '../services/uploads.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import type { UsersService } from '../services/users.js';

export const uploadRoutes: FastifyPluginAsyncZod<{ uploads: UploadsService; users: Pick<UsersService, 'findById'>; maxBytes: number; rateLimit?: RouteRateLimit }> = async (app, { uploads, users, maxBytes, rateLimit }) => {
  await app.register(multipart, {
    limits: { fileSize: maxBytes + 1, files: 1, fields: 10, fieldSize: 1024, parts: 20, headerPairs: 100 },
  });

  app.post('/api/upload', {
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['uploads'],
      summary: 'Upload one image (multipart/form-data, field `file`) → its permanent public URL',
      consumes: ['multipart/form-data'],
      response: { 200: z.object({ url: z.string() }), 400: ErrorBody, 401: ErrorBody, 413: ErrorBody, 429: ErrorBody, 500: ErrorBody },
    },
  }, async (req) => {
    // A session that outlived its user stores nothing (the session check itself reads no database).
    if (!(await users.findById(sessionUser(req).id))) throw unauthorized();
    if (!req.isMultipart()) throw noFileProvided();
    let file;
    try {
      file = await req.file();
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw fileTooLarge();
      throw noFileProvided('the multipart body could not be read');
    }
    if (!file || file.fieldname !== 'file') {
      file?.file.resume();
      throw noFileProvided();
    }
    // A client that goes away mid-upload leaves the part stream stalled, not failed: fail it, so the store
    // cleans up instead of waiting forever.
    const stream = file.file;
    const onClose = () => {
      if (!req.raw.complete) stream.destroy(new Error('the client closed the connection mid-upload'));
    };
    req.raw.once('close', onClose);
    try {
      // The body's chunks are freed as soon as they are written, not at the next garbage collection.
      const { url } = await uploads.upload({ filename: file.filename, stream, written: bodyChunkRelease(req.raw) });
      return { url };
    } finally {
      req.raw.off('close', onClose);
    }
  });
};
