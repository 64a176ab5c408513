// Serves the built React client (web/dist, see scripts/build-web.ts): content-hashed files under /assets/*
// cached for a year, and index.html for the client's routes (src/routes/pages.ts), never cached, under a
// strict Content-Security-Policy. Only those paths: /api/*, /files/* and /dev-idp/* are never shadowed. Any
// other path is a 404: a browser asking for a page there (Accept: text/html) gets the client, which shows its
// "Page not found" page with a way back (notFoundPage); everything else, and always /api/*, /files/*,
// /assets/* and /dev-idp/*, keeps the JSON 404.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuthConfig } from '@auth/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionVerifier } from '../auth/session.js';
import type { Config } from '../config.js';
import { invalidPath } from '../errors.js';
import { analyticsHost } from '../routes/client-config.js';
import { pageRoutes, type ClientShell } from '../routes/pages.js';
import type { NotFoundPage } from './error-handler.js';
import { page } from '../html.js';

const WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** Origins images may come from besides https: (object storage on plain http, e.g. Azurite or a local S3). */
function imageOrigins(config: Pick<Config, 'baseUrl' | 'storage'>): string[] {
  const origins = new Set<string>([new URL(config.baseUrl).origin]);
  const add = (url: string | undefined) => {
    if (!url) return;
    try {
      origins.add(new URL(url).origin);
    } catch {
      // not a URL: nothing to allow
    }
  };
  add(config.storage.publicUrl);
  const connection = config.storage.connectionString ?? '';
  add(/(?:^|;)\s*BlobEndpoint=([^;]+)/i.exec(connection)?.[1]);
  if (/(?:^|;)\s*UseDevelopmentStorage=true/i.test(connection)) add('http://127.0.0.1:10000');
  return [...origins];
}

/**
 * Where the pages' forms may lead besides the page's own origin ('self'): as browsers check form-action on
 * every redirect of a form's submission, sign-in (a form posted to us) must be let through to the identity
 * provider it redirects to — our public origin (AUTH_URL: the bundled provider, the callback) and the issuer's
 * origin. A provider whose authorization endpoint is on another origin than its issuer would need that origin too.
 */
function formTargets(config: Pick<Config, 'auth' | 'baseUrl'>): string[] {
  const origins = new Set([new URL(config.baseUrl).origin]);
  if (config.auth.provider.kind === 'oidc') origins.add(new URL(config.auth.provider.issuer).origin);
  return [...origins];
}

/**
 * The client's policy. Scripts and styles only from our own files (no inline code, no eval; WebAssembly may
 * compile); images also from object storage (any https: origin, as Azure/S3/CDN hosts vary) and data:/blob: (local previews); API calls to us
 * and, when configured, the analytics host; forms posted to us (and on to the identity provider, formTargets).
 */
function contentSecurityPolicy(opts: { imageOrigins: string[]; analyticsHost?: string; formTargets: string[]; inlineStyles?: boolean }): string {
  const analytics = opts.analyticsHost ? [new URL(opts.analyticsHost).origin] : [];
  return [
    "default-src 'self'",
    // 'wasm-unsafe-eval': WebAssembly of our own files may compile (the mask editor's offline person finder); it
    // lets no string run as JavaScript.
    "script-src 'self' 'wasm-unsafe-eval'",
    `style-src 'self'${opts.inlineStyles ? " 'unsafe-inline'" : ''}`,
    ["img-src 'self' data: blob: https:", ...opts.imageOrigins].join(' '),
    "font-src 'self'",
    ["connect-src 'self'", ...analytics].join(' '),
    "object-src 'none'",
    "base-uri 'self'",
    ["form-action 'self'", ...opts.formTargets].join(' '),
    "frame-ancestors 'none'",
  ].join('; ');
}

function createClientShell(opts: { distDir: string; csp: (inlineStyles: boolean) => string }): ClientShell {
  const indexFile = path.join(opts.distDir, 'index.html');
  const common = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  const built = { ...common, 'content-security-policy': opts.csp(false) };
  const unbuilt = { ...common, 'content-security-policy': opts.csp(true) };
  // index.html is re-read when a build replaces it (its mtime changes), so a running service picks it up.
  let cached: { mtimeMs: number; html: string } | undefined;

  async function index(): Promise<string | undefined> {
    try {
      const { mtimeMs } = await fs.stat(indexFile);
      if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, html: await fs.readFile(indexFile, 'utf8') };
      return cached.html;
    } catch {
      return undefined;
    }
  }

  return {
    async render(fallback) {
      const html = await index();
      if (!html) {
        const notice = '<p class="muted">The web client is not built: run <code>npm run build:web</code> (or <code>npm start</code>, which builds it).</p>';
        return { html: page('Image Canvas', `${fallback}${notice}`), headers: unbuilt };
      }
      const at = html.lastIndexOf('</body>');
      const withFallback = at < 0 ? html : `${html.slice(0, at)}<noscript>${fallback}</noscript>\n${html.slice(at)}`;
      return { html: withFallback, headers: built };
    },
  };
}

/**
 * Whether a path climbs: a `..` segment (between `/` or `\`) in it as sent or in any of its percent-decodings
 * (`%2e%2e`, `..%2f`, a double-encoded `%252e%252e`…).
 */
function climbs(path: string): boolean {
  let text = path;
  for (let i = 0; i < 4; i++) {
    if (text.split(/[/\\]/).includes('..')) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      return false; // not decodable any further (the router refuses what it cannot decode itself)
    }
    if (decoded === text) return false;
    text = decoded;
  }
  return true; // encoded more deeply than any file name of ours: refused as well
}

/** The client's pages as `config` serves them (from web/dist, or `distDir`): shared by the pages and the 404 page. */
export function createWebClientShell(config: Config, distDir = WEB_DIST_DIR): ClientShell {
  const csp = (inlineStyles: boolean) =>
    contentSecurityPolicy({ imageOrigins: imageOrigins(config), analyticsHost: analyticsHost(config.analytics), formTargets: formTargets(config), inlineStyles });
  return createClientShell({ distDir, csp });
}

/** Paths that are never a page: their 404 is always the JSON one (SPEC §7), whoever asks. */
const NEVER_PAGES = ['/api', '/files', '/assets', '/dev-idp'];

/**
 * The 404 of an unknown address opened in a browser: a GET or HEAD that accepts HTML, outside NEVER_PAGES, is
 * answered 404 with the client (its router shows "Page not found" with links back), and without JavaScript a
 * plain page with the same links: true. Anything else: false (the caller answers the JSON 404).
 */
export function notFoundPage(shell: ClientShell): NotFoundPage {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (!/\btext\/html\b/i.test(req.headers.accept ?? '')) return false;
    const path = req.url.split('?')[0];
    if (NEVER_PAGES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return false;
    const { html, headers } = await shell.render(
      '<main class="card fallback"><h1>Page not found</h1><p>There is nothing at this address.</p><p><a href="/projects">Go to your projects</a> · <a href="/">Home</a></p></main>',
    );
    void reply.code(404).headers(headers).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    return true;
  };
}

export async function webClient(app: FastifyInstance, opts: { config: Config; authConfig: AuthConfig; sessions: SessionVerifier; shell: ClientShell; distDir?: string }) {
  const distDir = opts.distDir ?? WEB_DIST_DIR;
  // A path that would climb out of /assets answers 400 `Invalid path`, before any file is looked for.
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.url === '/assets/*' && climbs(req.url.split('?')[0])) throw invalidPath();
  });
  // Hashed names: a file's bytes never change, so it may be cached forever.
  await app.register(fastifyStatic, {
    root: path.join(distDir, 'assets'),
    prefix: '/assets/',
    wildcard: true,
    index: false,
    redirect: false,
    decorateReply: false,
    dotfiles: 'ignore',
    suppressWarning: true,
    maxAge: 365 * 24 * 60 * 60 * 1000,
    immutable: true,
    setHeaders: (reply: { header(name: string, value: string): unknown }) => reply.header('x-content-type-options', 'nosniff'),
  });
  await app.register(pageRoutes, { authConfig: opts.authConfig, baseUrl: opts.config.baseUrl, sessions: opts.sessions, shell: opts.shell });
}
