// The one mapping from errors to answers: an error's code decides its status (statusOf, one exhaustive table)
// and its body is `{ error, details? }` plus the documented extras (docs/errors.md). Errors that are not ours
// (Fastify's, zod's, a library's, a database outage) are first classified to a code (toAppError). Codes go
// to the log lines, never into a body; 5xx bodies never carry internals.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  AppError,
  badRequest,
  bodyTooLarge,
  headerTooLarge,
  internal,
  invalidJson,
  invalidRequest,
  invalidUrlEncoding,
  notFound,
  requestTimeout,
  serviceUnavailable,
  storageUnavailable,
  unsupportedContentType,
  type ErrorCode,
} from '../errors.js';
import { StorageUnavailableError } from '../storage/errors.js';
import { isPublicMessage } from './messages.js';
import { API_CSP } from './security-headers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 413 error of a route whose body limit is part of its contract (default: `Request body too large`). */
    tooLarge?: () => AppError;
  }
}

/** The HTTP status of every error code: the one table. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'invalid_json':
    case 'invalid_url_encoding':
    case 'invalid_path':
    case 'bad_request':
    case 'invalid_cursor':
    case 'invalid_image':
    case 'unusable_image':
    case 'input_image_too_large':
    case 'no_file_provided':
    case 'unsupported_file_type':
    case 'invalid_image_file':
    case 'image_too_large':
    case 'invalid_node_image':
    case 'upload_interrupted':
    case 'no_subscription':
    case 'video_asset_id_required':
    case 'node_settings_unusable':
    case 'prompt_not_understood':
    case 'invalid_run':
    case 'too_many_jobs':
      return 400;
    case 'unauthorized':
      return 401;
    case 'upgrade_required':
    case 'budget_exceeded':
      return 402;
    case 'forbidden':
    case 'invalid_signature':
    case 'insufficient_scope':
    case 'session_required':
      return 403;
    case 'not_found':
    case 'project_not_found':
    case 'asset_not_found':
    case 'template_not_found':
    case 'member_not_found':
    case 'version_not_found':
    case 'token_not_found':
    case 'job_not_found':
    case 'node_not_found':
    case 'run_not_found':
    case 'generation_not_found':
      return 404;
    case 'not_acceptable':
      return 406;
    case 'request_timeout':
      return 408;
    case 'canvas_conflict':
    case 'job_finished':
    case 'run_finished':
    case 'node_busy':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'body_too_large':
    case 'canvas_too_large':
    case 'psd_too_large':
    case 'file_too_large':
      return 413;
    case 'unsupported_content_type':
      return 415;
    case 'range_not_satisfiable':
      return 416;
    case 'too_many_requests':
    case 'too_many_generations':
    case 'image_model_busy':
      return 429;
    case 'header_too_large':
      return 431;
    case 'internal':
    case 'model_key_missing':
    case 'no_image_generated':
    case 'image_model_failed':
    case 'generation_failed':
    case 'job_interrupted':
    case 'upload_failed':
      return 500;
    case 'payment_provider_unavailable':
    case 'video_provider_unavailable':
      return 502;
    case 'service_unavailable':
    case 'storage_unavailable':
    case 'payments_not_configured':
    case 'video_not_configured':
      return 503;
    default: {
      const unknown: never = code;
      throw new Error(`no status for error code ${String(unknown)}`);
    }
  }
}

/** The store's outage (drivers throw StorageUnavailableError for it) in `err` or its causes. */
function storeOutageIn(err: unknown, depth = 0): StorageUnavailableError | undefined {
  if (err instanceof StorageUnavailableError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause && depth < 3 ? storeOutageIn(cause, depth + 1) : undefined;
}

/** Errors that mean the database (or another backing service) cannot be reached right now. */
function isUnavailable(err: unknown, depth = 0): boolean {
  const e = err as { code?: string; message?: string; cause?: unknown };
  if (e.cause && depth < 3 && isUnavailable(e.cause, depth + 1)) return true; // drizzle wraps driver errors
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'].includes(e.code ?? '')) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections|the database system is (starting up|shutting down)/i.test(e.message ?? '');
}

/**
 * A client error of Fastify or a library (multipart, static files) keeps its status where we have a code for
 * it, with that code's fixed message; any other 4xx is a plain 400.
 */
const CLIENT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  412: 'precondition_failed',
  413: 'body_too_large',
  415: 'unsupported_content_type',
  416: 'range_not_satisfiable',
};

/** Any error, as one of ours. */
function toAppError(err: FastifyError | AppError, req: Pick<FastifyRequest, 'routeOptions' | 'body'>): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const issue = err.validation[0];
    if (issue.message && isPublicMessage(issue.message)) return invalidRequest(issue.message);
    const path = issue.instancePath.split('/').slice(1);
    const where = path.join('.') || err.validationContext || 'request';
    const entry = err.validationContext === 'body' ? entryNamed(req.body, path) : '';
    return invalidRequest(`Invalid ${where}${entry}: ${issue.message}`);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return req.routeOptions.config?.tooLarge?.() ?? bodyTooLarge();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidJson();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedContentType();
    case 'FST_ERR_BAD_URL':
      return invalidUrlEncoding();
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) return invalidJson();
  // The object store down or full, wherever it was met (src/storage/errors.ts): before the database's outages.
  const storeOutage = storeOutageIn(err);
  if (storeOutage) return storageUnavailable(storeOutage.full ? 'the object store is full' : 'the object store could not be reached');
  if (isUnavailable(err)) return serviceUnavailable();
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = CLIENT_ERROR_CODES[status];
    if (code === 'not_found') return notFound();
    return code ? new AppError(code, 'Bad request') : badRequest();
  }
  return internal();
}

/**
 * ` (node "a")` for a field inside a canvas's (or template's) node or edge, naming the entry by the id the body
 * gave it, so that a refusal names the node and the field; '' when there is no such id to name.
 */
function entryNamed(body: unknown, path: string[]): string {
  let named = '';
  let value = body;
  for (let i = 0; i < path.length && typeof value === 'object' && value !== null; i++) {
    const key = path[i];
    value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    const id = typeof value === 'object' && value !== null && Object.hasOwn(value, 'id') ? (value as { id: unknown }).id : undefined;
    if ((path[i - 1] === 'nodes' || path[i - 1] === 'edges') && typeof id === 'string' && id.length > 0 && id.length <= 200) {
      named = ` (${path[i - 1] === 'nodes' ? 'node' : 'edge'} ${JSON.stringify(id)})`;
    }
  }
  return named;
}

/** The answer to an error: status from its code, body `{ error, details?, …extra }`, Retry-After when it has one. */
function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(err.retryAfterSeconds))));
  return reply.code(statusOf(err.code)).send({ error: err.message, ...(err.details ? { details: err.details } : {}), ...err.extra });
}

/**
 * The answer to a not-found request that is a person's browser asking for a page (the web client's 404 page,
 * src/http/web-client.ts): true when it answered; false for anything else, which gets the JSON 404. A boolean, not the
 * reply: a reply is thenable, so awaiting one waits for the response to finish and yields undefined — which once
 * made every browser 404 send a second answer and log "Reply was already sent".
 */
export type NotFoundPage = (req: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

export function registerErrorHandler(app: FastifyInstance, opts: { notFoundPage?: NotFoundPage } = {}): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    // A request out of time was answered 408 on its socket (answerOnSocket): whatever its route meets after
    // that (the body stream cut short) is that same timeout, not a failure of ours or of a backing service.
    const appError = timedOut.has(req.raw) ? requestTimeout() : toAppError(err, req);
    const { code } = appError;
    if (appError !== err) {
      // A foreign error is logged here with its cause; ours were logged with theirs where they were thrown.
      if (code === 'service_unavailable' || code === 'storage_unavailable') req.log.warn({ err, code }, 'backing service unavailable');
      else if (code === 'internal') req.log.error({ err, code }, 'request failed');
    } else if (statusOf(code) >= 500) {
      req.log.warn({ code, details: appError.details }, 'request failed');
    }
    return sendError(reply, appError);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (await opts.notFoundPage?.(req, reply)) return;
    return sendError(reply, notFound());
  });
}

/**
 * Fastify's `frameworkErrors` (a path the router cannot decode, a failed route constraint): answered in our
 * error shape. Such answers run no hooks, so the caller gives the request id and security headers first.
 */
export function sendFrameworkError(err: FastifyError, reply: FastifyReply): void {
  sendError(reply, err.code === 'FST_ERR_BAD_URL' ? invalidUrlEncoding() : badRequest());
}

/** Requests that ran out of time (src/http/deadlines.ts); their later errors are answered as the timeout. */
const timedOut = new WeakSet<IncomingMessage>();

export function markTimedOut(req: IncomingMessage): void {
  timedOut.add(req);
}

/**
 * Answers `error` on the raw socket, in our error shape with the security headers every other answer has (and
 * `headers`), when nothing of a response was written on it yet; then closes the connection either way.
 */
export function answerOnSocket(socket: Duplex, error: AppError, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  // Node's own field: the response in progress on this connection, if any (its head may be on the wire).
  const response = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || response?.headersSent === true) {
    socket.destroy();
    return;
  }
  const status = statusOf(error.code);
  const body = JSON.stringify({ error: error.message });
  const answer = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    `Content-Security-Policy: ${API_CSP}`,
    'Cross-Origin-Resource-Policy: same-origin',
    'Referrer-Policy: no-referrer',
    'X-Content-Type-Options: nosniff',
    'X-Frame-Options: DENY',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
    '',
    body,
  ].join('\r\n');
  // Closed as soon as the answer is handed to the kernel, or after a second if the client does not read it.
  const force = setTimeout(() => socket.destroy(), 1000);
  force.unref();
  socket.end(answer, () => {
    clearTimeout(force);
    socket.destroy();
  });
}

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers too large, a request that
 * timed out) never reach Fastify: they are answered here, on the raw socket (answerOnSocket), and the
 * connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  answerOnSocket(socket, err.code === 'HPE_HEADER_OVERFLOW' ? headerTooLarge() : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? requestTimeout() : badRequest());
}
