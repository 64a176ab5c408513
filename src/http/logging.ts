// Logging (Fastify's pino): JSON lines, or human-readable lines through pino-pretty on a terminal outside
// production (Config.logFormat). Request ids that follow a request across services, and nothing secret
// in a log line. Request ids: a sane incoming `x-request-id` (≤ 64 of [A-Za-z0-9._-]) is kept, anything else
// is replaced by a UUID; the id is echoed in the response's `x-request-id`. Secrets: credentials in headers
// and fields named like secrets are redacted, secret query parameters (OAuth codes, tokens) are masked in the
// logged URL, and errors are logged without the query parameters drizzle puts in its messages (they hold
// prompts and emails). Request bodies are never logged.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import type { Config } from '../config.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Fastify's genReqId: the caller's id when it is sane, else a new UUID. */
function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** An onRequest hook on the root instance: every answer (errors and 404s included) carries the request id. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header(REQUEST_ID_HEADER, req.id);
    done();
  });
}

/**
 * Pretty logs (a person at a terminal): one line per answered request — method, path (secrets masked), status and
 * time — with its request id, in place of Fastify's "incoming request" / "request completed" pair.
 */
export function requestLines(app: FastifyInstance): void {
  app.addHook('onResponse', (req, reply, done) => {
    req.log.info(`${req.method} ${maskUrl(req.url)} → ${reply.statusCode} in ${Math.round(reply.elapsedTime)} ms`);
    done();
  });
}

const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  ...['password', 'secret', 'token', 'apiKey', 'prompt'].flatMap((field) => [field, `*.${field}`]),
];

/** Query parameters whose values are credentials (OAuth/OIDC codes and tokens, signatures). */
const SECRET_QUERY_PARAMS = new Set(['code', 'state', 'token', 'access_token', 'id_token', 'refresh_token', 'client_secret', 'code_verifier', 'password', 'secret', 'api_key', 'apikey', 'key', 'signature', 'sig']);

export function maskUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    let name = pair.slice(0, eq);
    try {
      name = decodeURIComponent(name);
    } catch {
      // a malformed name is logged as sent
    }
    return SECRET_QUERY_PARAMS.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

// drizzle's DrizzleQueryError: "Failed query: <sql>\nparams: <values>" (the values hold prompts, emails).
const QUERY_PARAMS = /\nparams: [\s\S]*?(?=\n\s+at |$)/;
const scrub = (text: string) => text.replace(QUERY_PARAMS, '\nparams: [redacted]');

/**
 * Like pino's standard error serializer, but: query parameters scrubbed from messages and stacks, and only
 * primitive fields kept (SDK errors carry request objects whose headers hold credentials).
 */
export function serializeError(err: unknown, depth = 0): { type: string; message: string; stack: string; [key: string]: unknown } {
  if (!(err instanceof Error)) {
    // An error as a plain object (pg-boss emits `{ ...err, message, stack, queue, worker }`): read as an error, never
    // `[object Object]`.
    if (err === null || typeof err !== 'object' || typeof (err as { message?: unknown }).message !== 'string') {
      return { type: typeof err, message: err !== null && typeof err === 'object' ? scrub(safeJson(err)) : String(err), stack: '' };
    }
  }
  const e = err as Error;
  const out = { type: typeof e.name === 'string' ? e.name : 'object', message: scrub(e.message), stack: scrub(typeof e.stack === 'string' ? e.stack : '') } as { type: string; message: string; stack: string; [key: string]: unknown };
  for (const [key, value] of Object.entries(e)) {
    if (key in out || key === 'params' || key === 'cause') continue;
    if (typeof value === 'string') out[key] = scrub(value);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out[key] = value;
  }
  if (e.cause !== undefined && depth < 3) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/** An object as JSON, bounded (a log line, not a dump); what cannot be serialized says so. */
function safeJson(value: object): string {
  try {
    return (JSON.stringify(value) ?? '').slice(0, 500);
  } catch {
    return 'an object that cannot be shown';
  }
}

function serializeRequest(req: FastifyRequest) {
  return { method: req.method, url: maskUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

/** Human-readable lines (default: on stdout): time, level, message with its request id, then the fields; pid and hostname left out. */
export function prettyStream(destination: number | NodeJS.WritableStream = 1): NodeJS.WritableStream {
  // The request id goes on the message's own line (a request is then one line), not below it as a field.
  return pretty({ destination, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId', messageFormat: '{msg}{if reqId} (request {reqId}){end}' });
}

/**
 * The logging part of Fastify's options. `stream` replaces stdout (tests capture the lines) and always gets
 * JSON lines; without it, `format` 'pretty' writes human-readable lines to stdout, 'json' JSON lines.
 */
export function loggingOptions(
  level: Config['logLevel'],
  stream?: NodeJS.WritableStream,
  format: Config['logFormat'] = 'json',
): Pick<FastifyServerOptions, 'logger' | 'genReqId' | 'requestIdHeader' | 'logController'> {
  const destination = stream ?? (format === 'pretty' && level !== 'silent' ? prettyStream() : undefined);
  return {
    // Pretty: one line per request (requestLines), not Fastify's two objects spread over a dozen lines. (Through a
    // LogController: the top-level disableRequestLogging option printed a deprecation warning at every start.)
    logController: new LogController({ disableRequestLogging: format === 'pretty' }),
    logger:
      level === 'silent'
        ? false
        : {
            level,
            redact: REDACTED_PATHS,
            serializers: { req: serializeRequest, err: serializeError },
            ...(destination ? { stream: destination } : {}),
          },
    requestIdHeader: false, // genReqId reads (and checks) x-request-id itself
    genReqId: requestId,
  };
}
