// Deadlines for receiving a request (docs/deploy.md "Timeouts"), so that a slow or stalled client cannot hold a
// connection open: a client that declares a body and sends a byte now and then is cut off like one that sends
// nothing.
// - Headers: Node's `headersTimeout`; between two requests of a kept-alive connection: `keepAliveTimeout`.
// - The body: it must arrive within `requestTimeoutMs` of the headers, with no pause longer than
//   `bodyIdleTimeoutMs`. Timed per request (a timer, and the socket's idle timeout while the body is read), as
//   Node's own `requestTimeout` is one value for the whole server.
// - The routes that take large bodies (`largeBodyRoutes`: uploads, canvas saves, generation with inline images)
//   get the longer `largeBody` limits — once the request has passed its onRequest hooks, the session check
//   among them: an anonymous request to those routes keeps the short limits.
// - Node's `requestTimeout` is set above every per-request limit, as a backstop.
// A request out of time is answered `408 Request timeout` in our error shape when nothing of its response was
// sent yet (answerOnSocket), and its connection is closed either way.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { requestTimeout } from '../errors.js';
import { answerOnSocket, markTimedOut } from './error-handler.js';
import { REQUEST_ID_HEADER } from './logging.js';

export type Deadlines = Omit<Config['http'], 'trustedProxies'>;

interface Watch {
  started: number;
  /** Ends the watch: the body arrived, or the connection closed. */
  stop(): void;
}

const watches = new WeakMap<IncomingMessage, Watch>();
/** Sockets whose idle timeout is ours (set for a body), to be cleared however the request ended. */
const idleSockets = new WeakSet<Socket>();

/** Whether the request declares a body still to come. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function setIdle(socket: Socket, ms: number) {
  idleSockets.add(socket);
  socket.setTimeout(ms);
}

function clearIdle(socket: Socket, serverTimeout: number) {
  if (!idleSockets.delete(socket)) return;
  socket.setTimeout(serverTimeout);
}

/**
 * Registers the deadlines on the root instance; call it first, before any other hook or plugin, so that every
 * route is covered (a hook refusing a request early leaves its body to the same limits). `largeBodyRoutes`
 * names routes as `METHOD /path` (the route's declared path). Returns the function that starts the limits for
 * a request answered outside the lifecycle (Fastify's framework errors run no hooks).
 */
export function registerDeadlines(
  app: FastifyInstance,
  opts: { deadlines: Deadlines; largeBodyRoutes: string[] },
): (req: FastifyRequest, reply: FastifyReply) => void {
  const { deadlines } = opts;
  const largeBody = new Set(opts.largeBodyRoutes);
  const server = app.server;
  // The same server settings whether Fastify made the server (server.ts) or was handed one (serverFactory).
  server.headersTimeout = deadlines.headersTimeoutMs;
  server.requestTimeout = deadlines.largeBody.requestTimeoutMs + deadlines.headersTimeoutMs;
  server.keepAliveTimeout = deadlines.keepAliveTimeoutMs;

  const expire = (req: FastifyRequest, reply: FastifyReply, why: 'deadline' | 'idle') => {
    const raw = req.raw;
    watches.get(raw)?.stop();
    if (raw.complete) return;
    req.log.info({ timeout: why }, why === 'idle' ? 'request body stalled: closing the connection' : 'request body too slow: closing the connection');
    markTimedOut(raw);
    // Answered already (e.g. 401 before the body was read): nothing more may be written, only closed.
    if (reply.raw.headersSent) raw.socket.destroy();
    else answerOnSocket(raw.socket, requestTimeout(), { [REQUEST_ID_HEADER]: req.id });
  };

  const watch = (req: FastifyRequest, reply: FastifyReply, limits: { requestTimeoutMs: number; bodyIdleTimeoutMs: number }, started: number) => {
    const raw = req.raw;
    const response = reply.raw;
    const socket = raw.socket;
    watches.get(raw)?.stop();
    const timer = setTimeout(() => expire(req, reply, 'deadline'), Math.max(0, started + limits.requestTimeoutMs - Date.now()));
    // Node emits 'timeout' on the request while its body is incomplete: the client stalled.
    const onIdle = () => expire(req, reply, 'idle');
    // Once the body is in, an idle connection (a long generation) is no slow client: the idle timeout is
    // cleared. (A listener on the response also keeps Node from destroying the socket on that timeout.)
    const onResponseIdle = () => {
      if (raw.complete) clearIdle(socket, server.timeout);
    };
    const stop = () => {
      clearTimeout(timer);
      raw.off('timeout', onIdle).off('end', stop).off('close', stop);
      response.off('timeout', onResponseIdle);
      socket.off('close', stop);
      clearIdle(socket, server.timeout);
      watches.delete(raw);
    };
    raw.on('timeout', onIdle).once('end', stop).once('close', stop);
    response.on('timeout', onResponseIdle);
    socket.once('close', stop);
    setIdle(socket, limits.bodyIdleTimeoutMs);
    watches.set(raw, { started, stop });
  };

  /** Starts the short limits for a request with a body still to come. */
  const start = (req: FastifyRequest, reply: FastifyReply) => {
    const socket = req.raw.socket as Socket | undefined;
    if (typeof socket?.setTimeout !== 'function') return; // no connection: an injected request (light-my-request)
    clearIdle(socket, server.timeout); // left by an earlier request on this connection whose body never ended
    if (hasBody(req.raw) && !req.raw.complete) watch(req, reply, deadlines, Date.now());
  };

  app.addHook('onRequest', (req, reply, done) => {
    start(req, reply);
    done();
  });

  // After every onRequest hook (the session check among them): the longer limits of the large-body routes.
  app.addHook('preParsing', (req, reply, payload, done) => {
    const current = watches.get(req.raw);
    if (current && largeBody.has(`${req.method} ${req.routeOptions.url ?? ''}`)) watch(req, reply, deadlines.largeBody, current.started);
    done(null, payload);
  });
  // For answers given outside the request lifecycle (Fastify's framework errors run no hooks).
  return start;
}
