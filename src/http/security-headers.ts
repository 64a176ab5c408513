// Security headers on every response, with @fastify/helmet, set for an API plus a single-page client:
// - no Content-Security-Policy from helmet: the routes that serve documents set their own (the stored files
//   under /files/*, the web client's pages); the API's JSON answers get API_CSP below; the Swagger UI page
//   (/api/docs) gets DOCS_CSP, which lets it run its own files only;
// - Cross-Origin-Resource-Policy `same-origin`, except `cross-origin` for /files/*: stored images are public
//   and shown by other sites;
// - Strict-Transport-Security only in production (local http must keep working).
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The CSP of API answers (JSON): nothing may load, nothing may frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The CSP of the API reference page (Swagger UI, /api/docs): its scripts, styles and images are its own files
 * under /api/docs/static (no inline code), it reads the OpenAPI document and calls the API on our origin ("Try
 * it out"), and nothing else.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Registers the headers for every response, and returns the function that gives them to an answer sent
 * outside the request lifecycle (Fastify's framework errors run no hooks).
 */
export async function registerSecurityHeaders(app: FastifyInstance, opts: { production: boolean }): Promise<(req: FastifyRequest, reply: FastifyReply) => void> {
  // No type annotation: @fastify/helmet's types name helmet's CommonJS declarations, `helmet` here its ESM ones;
  // this plain object satisfies both.
  const helmetOptions = {
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: opts.production ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true } : false,
  } as const satisfies FastifyHelmetOptions & HelmetOptions;
  await app.register(fastifyHelmet, helmetOptions);
  const setHeaders = helmet(helmetOptions); // the same headers, for answers that skip the plugin's hook

  const apply = (req: FastifyRequest, reply: FastifyReply) => {
    // helmet sets its headers in an onRequest hook; one registered before it may have refused the request
    // first (the cross-site guard's 403): such answers get the same headers here.
    if (!reply.raw.hasHeader('x-content-type-options')) setHeaders(req.raw, reply.raw, () => {});
    reply.removeHeader('x-powered-by'); // helmet removes the server's; none set later either
    const path = req.url;
    if (path.startsWith('/files/')) {
      reply.header('cross-origin-resource-policy', 'cross-origin');
    } else if (path.startsWith('/api/') && !reply.hasHeader('content-security-policy')) {
      const type = String(reply.getHeader('content-type') ?? '');
      if (path.startsWith('/api/docs')) {
        if (/^text\/html\b/i.test(type)) reply.header('content-security-policy', DOCS_CSP);
      } else if (/\bjson\b/i.test(type)) {
        reply.header('content-security-policy', API_CSP);
      }
    }
  };
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    apply(req, reply);
    return payload;
  });
  return apply;
}
