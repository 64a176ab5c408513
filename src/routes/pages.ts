// Plain server-rendered pages: the sign-in page SPEC §3 names (/login), the landing page and /projects.
// The React web client takes these paths over; the sign-in form works without JavaScript.
import type { AuthConfig } from '@auth/core';
import type { FastifyInstance } from 'fastify';
import { callAuth } from '../auth/authjs.js';
import type { SessionVerifier } from '../auth/session.js';
import { escapeHtml, page } from '../http/html.js';

/** Auth.js error codes (?error=) as sentences. */
const AUTH_ERRORS: Record<string, string> = {
  AccessDenied: 'Sign-in was refused. Your account may not have a verified email, or the email belongs to another sign-in.',
  OAuthCallbackError: 'Sign-in was cancelled or failed at the identity provider. Please try again.',
  OAuthSignin: 'Could not start sign-in with the identity provider. Please try again.',
  OAuthCallback: 'The identity provider sent back an answer we could not use. Please try again.',
  MissingCSRF: 'Your sign-in form expired. Please try again.',
  Configuration: 'Sign-in is misconfigured on the server. An administrator has to fix it.',
  Verification: 'The sign-in link is no longer valid.',
};
export const authErrorText = (code: string) => AUTH_ERRORS[code] ?? 'Sign-in failed. Please try again.';

export async function pageRoutes(app: FastifyInstance, opts: { authConfig: AuthConfig; baseUrl: string; sessions: SessionVerifier }) {
  const html = { schema: { hide: true } };

  app.get('/login', html, async (req, reply) => {
    // A CSRF token for the form, from Auth.js itself (it also sets the matching cookie).
    const res = await callAuth(opts.authConfig, opts.baseUrl, { method: 'GET', url: '/api/auth/csrf', headers: req.headers });
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const cookies = res.headers.getSetCookie();
    if (cookies.length) reply.header('set-cookie', cookies);
    const code = (req.query as Record<string, string | undefined>).error;
    const error = code ? `<p class="error" role="alert">${escapeHtml(authErrorText(code))}</p>` : '';
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(
      page(
        'Sign in — Image Canvas',
        `<main class="card"><h1>Sign in to Image Canvas</h1>${error}
<form method="post" action="/api/auth/signin/oauth">
  <input type="hidden" name="csrfToken" value="${escapeHtml(csrfToken)}">
  <input type="hidden" name="callbackUrl" value="/projects">
  <button type="submit">Sign in</button>
</form></main>`,
      ),
    );
  });

  app.get('/projects', html, async (req, reply) => {
    const user = await opts.sessions.verify(req.headers.cookie);
    if (!user) return reply.redirect('/login');
    return reply.type('text/html; charset=utf-8').send(
      page(
        'Projects — Image Canvas',
        `<main class="card"><h1>Projects</h1><p>Signed in as <strong>${escapeHtml(user.name)}</strong> (${escapeHtml(user.email)}).</p>
<p class="muted">Your user id is <code>${escapeHtml(user.id)}</code>. The API is documented at <a href="/api/docs">/api/docs</a>.</p>
<p><a href="/api/auth/signout">Sign out</a></p></main>`,
      ),
    );
  });

  app.get('/', html, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(
      page('Image Canvas', `<main class="card"><h1>Image Canvas</h1><p>An AI image-editing canvas.</p><p><a href="/projects">Open your projects</a></p></main>`),
    ),
  );
}
