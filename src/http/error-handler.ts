// The one mapping from errors to SPEC §7's body `{ error, details? }`. 5xx bodies never carry internals.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../errors.js';
import { isPublicMessage } from './messages.js';
import { API_CSP } from './security-headers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 413 message of a route whose body limit is part of its contract. */
    tooLargeMessage?: string;
  }
}

/** Errors that mean the database (or another backing service) cannot be reached right now. */
export function isUnavailable(err: unknown, depth = 0): boolean {
  const e = err as { code?: string; message?: string; cause?: unknown };
  if (e.cause && depth < 3 && isUnavailable(e.cause, depth + 1)) return true; // drizzle wraps driver errors
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'].includes(e.code ?? '')) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections|the database system is (starting up|shutting down)/i.test(e.message ?? '');
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.status).send({ error: err.message, ...(err.details ? { details: err.details } : {}), ...err.extra });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issue = err.validation[0];
      if (issue.message && isPublicMessage(issue.message)) return reply.code(400).send({ error: issue.message });
      const where = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || err.validationContext || 'request';
      return reply.code(400).send({ error: `Invalid ${where}: ${issue.message}` });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send({ error: req.routeOptions.config?.tooLargeMessage ?? 'Request body too large' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(400).send({ error: 'Invalid JSON' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send({ error: 'Unsupported content type' });
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
      return reply.code(400).send({ error: 'Invalid JSON' });
    }
    if (isUnavailable(err)) {
      req.log.warn({ err }, 'backing service unavailable');
      return reply.code(503).header('retry-after', '5').send({ error: 'Service unavailable' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: err.statusCode === 404 ? 'Not found' : 'Bad request' });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'Internal server error' });
  });

  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'Not found' }));
}

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers too large, a request that
 * timed out) never reach Fastify: they are answered here, on the raw socket, in our error shape and with the
 * security headers every other answer has, and the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request header fields too large'] : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request timeout'] : [400, 'Bad request'];
  const body = JSON.stringify({ error });
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Cache-Control: no-store',
        `Content-Security-Policy: ${API_CSP}`,
        'Cross-Origin-Resource-Policy: same-origin',
        'Referrer-Policy: no-referrer',
        'X-Content-Type-Options: nosniff',
        'X-Frame-Options: DENY',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}
