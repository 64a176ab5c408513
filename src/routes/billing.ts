// Payments (docs/api.md "Paid plans and video"): GET /api/checkout and GET /api/portal (session required: register
// `billingPlugin` among the protected routes) and POST /api/webhook/payments (no session: register
// `paymentsWebhookPlugin` among the public ones).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionUser } from '../http/guards.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody } from '../http/schemas.js';
import type { BillingService } from '../services/billing.js';

const RedirectQuery = z.object({
  format: z.enum(['json']).optional().describe('`json` answers `{ url }` instead of redirecting (as does `Accept: application/json`)'),
});
const UrlBody = z.object({ url: z.string() });
const redirectResponses = (to: string) => ({
  200: UrlBody.describe(`The ${to} URL (with \`format=json\` or \`Accept: application/json\`)`),
  302: z.void().describe(`Redirect to the ${to} (Location header)`),
  400: ErrorBody,
  401: ErrorBody,
  429: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
});

const wantsJson = (format: 'json' | undefined, accept: string | undefined) =>
  format === 'json' || /\bapplication\/json\b/i.test(accept ?? '');

export const billingPlugin: FastifyPluginAsyncZod<{ billing: BillingService; rateLimit?: RouteRateLimit }> = async (app, { billing, rateLimit }) => {
  app.get('/api/checkout', {
    // Each call creates a checkout session at the provider: bounded per user.
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['payments'],
      summary: "Start a checkout of the Pro plan for the signed-in user (the customer is the session's user, never the query's)",
      querystring: RedirectQuery,
      response: redirectResponses('hosted checkout'),
    },
  }, async (req, reply) => {
    const { url } = await billing.checkout(sessionUser(req).id);
    reply.header('cache-control', 'no-store');
    return wantsJson(req.query.format, req.headers.accept) ? { url } : reply.redirect(url, 302);
  });

  app.get('/api/portal', {
    schema: {
      tags: ['payments'],
      summary: "Open the payment provider's customer portal for the signed-in user (400 when the user has never paid)",
      querystring: RedirectQuery,
      response: redirectResponses('customer portal'),
    },
  }, async (req, reply) => {
    const { url } = await billing.portal(sessionUser(req).id);
    reply.header('cache-control', 'no-store');
    return wantsJson(req.query.format, req.headers.accept) ? { url } : reply.redirect(url, 302);
  });
};

/** Webhook bodies are at most this large (Polar's subscription events are a few KB). */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export const paymentsWebhookPlugin: FastifyPluginAsyncZod<{ billing: BillingService }> = async (app, { billing }) => {
  // The signature covers the exact bytes sent: keep the body as the raw string (this plugin only).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post('/api/webhook/payments', {
    schema: {
      tags: ['payments'],
      summary: 'Receive a payment provider webhook (Standard Webhooks signature; idempotent by webhook id)',
      description:
        'The body is the provider\'s event JSON, verified over its raw bytes with the `webhook-id`, `webhook-timestamp` ' +
        'and `webhook-signature` headers (timestamps older or newer than 5 minutes are refused). A second delivery ' +
        'of one webhook id answers `duplicate: true` and changes nothing.',
      headers: z.object({
        'webhook-id': z.string().optional(),
        'webhook-timestamp': z.string().optional(),
        'webhook-signature': z.string().optional(),
      }),
      response: {
        200: z.object({ received: z.literal(true), duplicate: z.literal(true).optional() }),
        403: ErrorBody,
        413: ErrorBody,
        503: ErrorBody,
      },
    },
  }, async (req) => billing.receiveWebhook(typeof req.body === 'string' ? req.body : '', req.headers));
};
