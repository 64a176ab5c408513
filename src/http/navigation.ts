// Which GET requests may have an effect (docs/api.md "Paid plans"): starting a checkout or opening the customer
// portal creates a session at the payment provider, and SPEC's client reaches them by navigating to
// `GET /api/checkout` / `GET /api/portal`. A page of another site can make a browser navigate there too (a link, a
// form with method GET, a redirect), with our SameSite=Lax session cookie. Such a GET starts nothing: only a
// navigation the browser says is our own does, or a request with an API token (a header no page can add).
import type { FastifyRequest } from 'fastify';
import { escapeHtml, page } from '../html.js';

/**
 * True when the browser says this request comes from our own origin, or from the person themselves (a typed
 * address, a bookmark: `Sec-Fetch-Site: none`), and no Origin or Referer names another origin. A request without
 * `Sec-Fetch-Site` proves nothing (an old browser sends none, and a page can strip its Referer), so it is not one.
 */
export function isOwnNavigation(req: FastifyRequest, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== ownOrigin) return false;
  const referer = req.headers.referer;
  if (referer !== undefined && URL.parse(referer)?.origin !== ownOrigin) return false;
  return true;
}

/**
 * The CSP of a confirmation page: nothing loads or runs (its one style is inline), nothing may frame it. No
 * form-action: browsers check it on every redirect of the submission, and the answer redirects to the payment
 * provider's hosted page, whose origin is the provider's to choose.
 */
export const CONFIRMATION_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

/** A page of ours in one card — title, text, then `more` (already HTML) — with a way back, and its headers. */
function cardPage(title: string, text: string, more = ''): { html: string; headers: Record<string, string> } {
  const body =
    `<main class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${more}` +
    `<p class="muted"><a href="/projects">Back to your projects</a></p></main>`;
  return {
    html: page(title, body),
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONFIRMATION_CSP,
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
    },
  };
}

/**
 * The page a GET that may not start anything answers: what would happen, and one button that POSTs to the same
 * path (which the cross-site guard protects). Its Referrer-Policy lets the POST carry our Origin (the service's
 * default, no-referrer, makes a browser send `Origin: null` with a form's POST).
 */
export function confirmationPage(opts: { title: string; text: string; action: string; button: string }): { html: string; headers: Record<string, string> } {
  return cardPage(opts.title, opts.text, `<form method="post" action="${escapeHtml(opts.action)}"><button type="submit">${escapeHtml(opts.button)}</button></form>`);
}

/**
 * The page a browser gets instead of a JSON error when what it navigated to cannot be done here (payments not
 * configured): the reason in words and a way back. Same headers as a confirmation page; API clients keep the JSON.
 */
export function noticePage(opts: { title: string; text: string }): { html: string; headers: Record<string, string> } {
  return cardPage(opts.title, opts.text);
}
