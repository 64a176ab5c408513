// The web client's pages: `/`, `/login`, `/projects`, `/projects/:projectId`, `/projects/:projectId/gallery`, `/projects/:projectId/spend`, `/spend`, `/settings/tokens` (API tokens) and `/shared/:token` (a
// read-only link's page, for anyone: the client reads GET /api/shared/:token). Each answers the
// React client's index.html (src/http/web-client.ts); the client does the rest. Besides:
// - protected pages redirect an anonymous visitor to /login before any client code loads;
// - each page carries a small fallback for browsers without JavaScript (inside <noscript>): /login keeps a
//   working sign-in form, so signing in never needs JavaScript.
import type { AuthConfig } from '@auth/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authErrorText } from '../auth/auth-errors.js';
import { callAuth } from '../auth/authjs.js';
import type { SessionUser, SessionVerifier } from '../auth/session.js';
import { escapeHtml } from '../html.js';

export interface ClientShell {
  /**
   * The HTML of a client page: the built index.html, with `fallback` inside <noscript> for browsers without
   * JavaScript; when the client is not built, a plain page showing `fallback` and how to build it.
   */
  render(fallback: string): Promise<{ html: string; headers: Record<string, string> }>;
}

const NEEDS_JS = '<p class="muted">This page needs JavaScript.</p>';

export async function pageRoutes(app: FastifyInstance, opts: { authConfig: AuthConfig; baseUrl: string; sessions: SessionVerifier; shell: ClientShell }) {
  const route = { schema: { hide: true } };

  async function send(reply: FastifyReply, fallback: string, personal = false) {
    const { html, headers } = await opts.shell.render(`<main class="card fallback">${fallback}</main>`);
    return reply
      .headers(headers)
      .header('cache-control', personal ? 'private, no-store' : 'no-cache')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  /** The protected pages: anonymous visitors go to /login (the client checks again, e.g. after expiry). */
  async function protectedPage(req: FastifyRequest, reply: FastifyReply) {
    const user = await opts.sessions.verify(req.headers.cookie);
    if (!user) return reply.header('cache-control', 'no-store').redirect('/login');
    return send(reply, signedInAs(user), true);
  }

  const signedInAs = (user: SessionUser) =>
    `<h1>Image Canvas</h1><p>Signed in as <strong>${escapeHtml(user.name)}</strong> (${escapeHtml(user.email)}).</p>${NEEDS_JS}<p><a href="/api/auth/signout">Sign out</a></p>`;

  app.get('/', route, async (_req, reply) =>
    send(reply, `<h1>Image Canvas</h1><p>An AI image-editing canvas.</p>${NEEDS_JS}<p><a href="/login">Sign in</a></p>`),
  );

  app.get('/login', route, async (req, reply) => {
    // A CSRF token for the fallback form, from Auth.js itself (it also sets the matching cookie).
    const res = await callAuth(opts.authConfig, opts.baseUrl, { method: 'GET', url: '/api/auth/csrf', headers: req.headers });
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const cookies = res.headers.getSetCookie();
    if (cookies.length) reply.header('set-cookie', cookies);
    const code = (req.query as Record<string, string | undefined>).error;
    const error = code ? `<p class="error" role="alert">${escapeHtml(authErrorText(code))}</p>` : '';
    return send(
      reply,
      `<h1>Sign in to Image Canvas</h1>${error}
<form method="post" action="/api/auth/signin/oauth">
  <input type="hidden" name="csrfToken" value="${escapeHtml(csrfToken)}">
  <input type="hidden" name="callbackUrl" value="/projects">
  <button type="submit">Sign in</button>
</form>`,
      true,
    );
  });

  app.get('/projects', route, protectedPage);
  app.get('/projects/:projectId', route, protectedPage);
  app.get('/projects/:projectId/gallery', route, protectedPage);
  app.get('/settings/tokens', route, protectedPage);
  app.get('/spend', route, protectedPage);
  app.get('/projects/:projectId/spend', route, protectedPage);
  // The path carries the link's token: never kept by a cache (the page itself holds no data).
  app.get('/shared/:token', route, async (_req, reply) =>
    send(reply, `<h1>Image Canvas</h1><p>A canvas shared by its link.</p>${NEEDS_JS}`, true),
  );
}
