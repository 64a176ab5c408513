// Payments (docs/api.md "Paid plans and video"): checkout and customer portal (session or a `billing`-scoped token:
// register `billingPlugin` among the protected routes) and POST /api/webhook/payments (no session: register
// `paymentsWebhookPlugin` among the public ones).
//
// Starting a checkout or opening the portal creates a session at the provider. POST does it (the cross-site guard
// refuses other sites' POSTs); GET, SPEC's route that the original client navigates to, does it only for a
// navigation from our own origin or with an API token, and otherwise answers a page whose button POSTs
// (src/http/navigation.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { sessionUser } from '../http/guards.js';
import { confirmationPage, isOwnNavigation, noticePage } from '../http/navigation.js';
import type { RouteRateLimit } from '../http/rate-limit.js';
import { ErrorBody } from '../http/schemas.js';
import type { BillingService } from '../services/billing.js';

const RedirectQuery = z.object({
  format: z.enum(['json']).optional().describe('`json` answers `{ url }` instead of redirecting (as does `Accept: application/json`)'),
});
const UrlBody = z.object({ url: z.string() });
const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody.describe('A token without the billing scope; a GET asking for JSON that is not a navigation from this site; a cross-site POST'),
  429: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
};
const getResponses = (to: string) => ({
  200: {
    description:
      `The ${to} URL (with \`format=json\` or \`Accept: application/json\`), or — when the request is not a navigation ` +
      'from this site nor made with an API token — a page whose button POSTs to the same path; nothing is created then',
    content: { 'application/json': { schema: UrlBody }, 'text/html': { schema: z.string() } },
  },
  302: z.void().describe(`Redirect to the ${to} (Location header)`),
  ...errorResponses,
});
const postResponses = (to: string) => ({
  200: UrlBody.describe(`The ${to} URL (with \`format=json\` or \`Accept: application/json\`)`),
  303: z.void().describe(`Redirect to the ${to} (Location header)`),
  ...errorResponses,
});

const wantsJson = (format: 'json' | undefined, accept: string | undefined) =>
  format === 'json' || /\bapplication\/json\b/i.test(accept ?? '');

/** A browser opening the page (it asks for HTML), not an API client: it gets a page in words rather than JSON. */
const isBrowser = (format: 'json' | undefined, accept: string | undefined) => !wantsJson(format, accept) && /\btext\/html\b/i.test(accept ?? '');

/** A page of ours, its headers over the service's defaults (helmet set them on the raw response already). */
function sendPage(reply: FastifyReply, { html, headers }: { html: string; headers: Record<string, string> }) {
  for (const [name, value] of Object.entries(headers)) reply.raw.setHeader(name, value);
  return reply.send(html);
}

/** What a browser sees when payments are not configured on this server. */
const NOT_CONFIGURED_PAGE = {
  title: 'Payments are not set up',
  text: 'This server has no payment provider configured, so plans cannot be bought or managed here. Everything else works as before; ask whoever runs this server if you need a paid plan.',
};

/** What each route starts, and the words of its confirmation page. */
const ROUTES = {
  checkout: {
    path: '/api/checkout',
    to: 'hosted checkout',
    page: { title: 'Upgrade to Pro', text: "You are about to go to the payment provider's checkout for the Pro plan.", button: 'Continue to checkout' },
  },
  portal: {
    path: '/api/portal',
    to: 'customer portal',
    page: { title: 'Manage your subscription', text: "You are about to open the payment provider's customer portal.", button: 'Open the customer portal' },
  },
} as const;

/** A GET asking for JSON that may not start anything: there is no page to show, so it is refused, saying what to do. */
const notFromThisSite = (path: string) =>
  new AppError('forbidden', 'Forbidden', { details: `a GET starts this only on a navigation from this site or with an API token; use POST ${path}` });

export const billingPlugin: FastifyPluginAsyncZod<{ billing: BillingService; origin: string; rateLimit?: RouteRateLimit }> = async (app, { billing, origin, rateLimit }) => {
  // The confirmation page's form posts an empty urlencoded body; nothing in it is read (this plugin only).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, _body, done) => done(null, undefined));

  const answer = (reply: FastifyReply, url: string, json: boolean, status: 302 | 303) => {
    reply.header('cache-control', 'no-store');
    return json ? { url } : reply.redirect(url, status);
  };

  /** Payments not configured, asked by a browser: a 503 page in words with a way back (API clients get the JSON 503). */
  const notConfiguredPage = (req: { query: { format?: 'json' }; headers: { accept?: string } }, reply: FastifyReply, err: unknown) => {
    if (!(err instanceof AppError && err.code === 'payments_not_configured') || !isBrowser(req.query.format, req.headers.accept)) throw err;
    return sendPage(reply.code(503), noticePage(NOT_CONFIGURED_PAGE));
  };

  for (const kind of ['checkout', 'portal'] as const) {
    const route = ROUTES[kind];
    const start = (req: FastifyRequest) => (kind === 'checkout' ? billing.checkout(sessionUser(req).id) : billing.portal(sessionUser(req).id));
    const summary =
      kind === 'checkout'
        ? "Start a checkout of the Pro plan for the signed-in user (the customer is the session's user, never the query's)"
        : "Open the payment provider's customer portal for the signed-in user (400 when the user has never paid)";

    app.get(route.path, {
      // Each start creates a session at the provider: bounded per user (the pages count too).
      config: rateLimit ? { rateLimit } : {},
      schema: {
        tags: ['payments'],
        summary,
        description:
          'Starts only on a navigation from this site (`Sec-Fetch-Site: same-origin` or `none`, and no Origin or Referer of ' +
          `another origin) or with an API token with the \`billing\` scope; otherwise answers a page whose button posts to \`POST ${route.path}\`.`,
        querystring: RedirectQuery,
        response: getResponses(route.to),
      },
    }, async (req, reply) => {
      const json = wantsJson(req.query.format, req.headers.accept);
      // HEAD (which Fastify answers with this handler) never starts anything.
      const starts = req.method === 'GET' && (sessionUser(req).token !== undefined || isOwnNavigation(req, origin));
      if (!starts) {
        if (json) throw notFromThisSite(route.path);
        return sendPage(reply, confirmationPage({ ...route.page, action: route.path }));
      }
      try {
        return answer(reply, (await start(req)).url, json, 302);
      } catch (err) {
        return notConfiguredPage(req, reply, err);
      }
    });

    app.post(route.path, {
      config: rateLimit ? { rateLimit } : {},
      schema: {
        tags: ['payments'],
        summary: `${summary}; a form's POST is redirected (303), \`format=json\` or \`Accept: application/json\` answers \`{ url }\``,
        querystring: RedirectQuery,
        response: postResponses(route.to),
      },
    }, async (req, reply) => {
      try {
        return answer(reply, (await start(req)).url, wantsJson(req.query.format, req.headers.accept), 303);
      } catch (err) {
        return notConfiguredPage(req, reply, err);
      }
    });
  }
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
