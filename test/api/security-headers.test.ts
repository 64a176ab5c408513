// Security headers and cookie attributes: every kind of response carries nosniff, a framing ban
// (X-Frame-Options or CSP frame-ancestors) and a Referrer-Policy, never X-Powered-By; the routes' own CSPs
// (stored files, the web client, Swagger UI) are kept, and allow what their pages load and submit; API JSON
// gets a strict CSP; HSTS only in production (on registerSecurityHeaders itself, and on a production app); the
// session, CSRF and callback cookies are HttpOnly, SameSite=Lax, Path=/, and not Secure on http.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CSP, DOCS_CSP, registerSecurityHeaders } from '../../src/http/security-headers.js';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { PRODUCTION_ISSUER, startProductionApp } from '../helpers/production-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE = 'authlib.session-token';

function expectBaseline(name: string, headers: Headers) {
  expect(headers.get('x-content-type-options'), `${name}: nosniff`).toBe('nosniff');
  const framing = headers.get('x-frame-options') ?? '';
  const csp = headers.get('content-security-policy') ?? '';
  expect(/^(DENY|SAMEORIGIN)$/i.test(framing) || /frame-ancestors/.test(csp), `${name}: X-Frame-Options or frame-ancestors`).toBe(true);
  expect(headers.get('referrer-policy'), `${name}: Referrer-Policy`).toMatch(/^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/);
  expect(headers.get('x-powered-by'), `${name}: no X-Powered-By`).toBeNull();
  expect(headers.get('strict-transport-security'), `${name}: no HSTS outside production`).toBeNull();
}

/** A Content-Security-Policy header as directive → sources. */
function parseCsp(header: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

/**
 * Whether the policy lets the page at `page` load (or submit to) `what` under `directive` (falling back to
 * `fallbacks`, then default-src, as browsers do): a URL, or inline content (a hash of it, or 'unsafe-inline').
 */
function allows(csp: Map<string, string[]>, directives: string[], page: URL, what: { url: string } | { inline: string }): boolean {
  const name = [...directives, 'default-src'].find((d) => csp.has(d));
  if (!name) return !directives.includes('form-action'); // form-action has no fallback: absent, anything goes
  const sources = csp.get(name)!;
  if ('inline' in what) {
    const hash = `'sha256-${createHash('sha256').update(what.inline).digest('base64')}'`;
    if (sources.includes(hash)) return true;
    return sources.includes("'unsafe-inline'") && !sources.some((s) => /^'(sha\d+|nonce)-/.test(s));
  }
  const url = new URL(what.url, page);
  return sources.some((source) => {
    if (source === "'self'") return url.origin === page.origin;
    if (source === '*') return /^https?:$/.test(url.protocol);
    if (/^[a-z][a-z0-9+.-]*:$/.test(source)) return url.protocol === source;
    return !source.startsWith("'") && url.href.startsWith(source.replace(/\/?$/, '/'));
  });
}

/** Every script, style, image and form target of an HTML page, as it names them. */
function pageResources(html: string) {
  const attr = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`, 'i').exec(tag)?.[1];
  const tags = (name: string) => [...html.matchAll(new RegExp(`<${name}\\b[^>]*>`, 'gi'))].map((m) => m[0]);
  return {
    scripts: tags('script').map((t) => attr(t, 'src')).filter((src): src is string => src !== undefined),
    inlineScripts: [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]).filter((code) => code.trim() !== ''),
    styles: tags('link').filter((t) => /\brel\s*=\s*"stylesheet"/i.test(t)).map((t) => attr(t, 'href')!),
    inlineStyles: [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]),
    styleAttributes: [...html.matchAll(/<[a-z][^>]*\sstyle\s*=\s*"([^"]*)"/gi)].map((m) => m[1]),
    images: [...tags('img').map((t) => attr(t, 'src')), ...tags('link').filter((t) => /\brel\s*=\s*"(icon|shortcut icon)"/i.test(t)).map((t) => attr(t, 'href'))].filter((u): u is string => u !== undefined),
    forms: tags('form').map((t) => attr(t, 'action') ?? ''),
  };
}

describe('security headers on every kind of response', () => {
  let t: TestApp;
  let ada: { client: HttpClient; id: string };
  let fileUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    ada = await t.user('ada@example.com');
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#36c' } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'h.png');
    const up = await ada.client.request('/api/upload', { method: 'POST', body: form });
    expect(up.status).toBe(200);
    fileUrl = new URL(up.json.url).pathname;
  });
  afterAll(() => t?.close());

  it('API JSON (200, 400, 401, 403, 404, 413) carries the baseline and the strict API CSP', async () => {
    const anon = t.client();
    const cases: Array<[string, () => Promise<Sent>, number]> = [
      ['health 200', () => anon.get('/api/health'), 200],
      ['user 200', () => ada.client.get('/api/user'), 200],
      ['openapi.json 200', () => anon.get('/api/openapi.json'), 200],
      ['Auth.js csrf 200', () => anon.get('/api/auth/csrf'), 200],
      ['malformed JSON 400', () => ada.client.request('/api/user/project', { method: 'POST', json: '{' }), 400],
      ['no session 401', () => anon.get('/api/user'), 401],
      ['cross-site 403 (refused before helmet runs)', () => ada.client.post('/api/user/project', { userId: ada.id, name: 'x' }, { origin: 'https://evil.example' }), 403],
      ['unknown route 404', () => anon.get('/api/nope'), 404],
      ['body too large 413', () => ada.client.post('/api/user/project', { userId: ada.id, name: 'x', pad: 'x'.repeat(1024 * 1024) }), 413],
    ];
    for (const [name, call, status] of cases) {
      const res = await call();
      expect(res.status, name).toBe(status);
      expectBaseline(name, res.headers);
      expect(res.headers.get('content-security-policy'), `${name}: API CSP`).toBe(API_CSP);
      expect(res.headers.get('cross-origin-resource-policy'), `${name}: CORP`).toBe('same-origin');
    }
  });

  it('stored files keep their own sandbox CSP and may be shown by other sites (CORP cross-origin)', async () => {
    for (const [name, path, method, status] of [
      ['file 200', fileUrl, 'GET', 200],
      ['file HEAD', fileUrl, 'HEAD', 200],
      ['file 404', '/files/missing.png', 'GET', 404],
    ] as const) {
      const res = await t.client().request(path, { method });
      expect(res.status, name).toBe(status);
      expectBaseline(name, res.headers);
      expect(res.headers.get('cross-origin-resource-policy'), `${name}: CORP`).toBe('cross-origin');
      if (status === 200) expect(res.headers.get('content-security-policy'), `${name}: the files' own CSP`).toMatch(/^default-src 'none'.*sandbox/);
    }
    const range = await t.client().get(fileUrl, { range: 'bytes=0-3' });
    expect(range.status).toBe(206);
    expectBaseline('file 206', range.headers);
  });

  it("pages keep the web client's CSP; redirects, Swagger UI and the identity provider carry the baseline", async () => {
    for (const path of ['/login', '/']) {
      const res = await t.client().get(path);
      expect(res.status, path).toBe(200);
      expectBaseline(path, res.headers);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, `${path}: the client's CSP`).toContain("script-src 'self'");
      expect(csp, `${path}: not the API's`).not.toBe(API_CSP);
    }
    const redirect = await t.client().request('/projects', { follow: false });
    expect(redirect.status).toBe(302);
    expectBaseline('redirect', redirect.headers);
    const idp = await t.client().get('/dev-idp/interaction/nope');
    expectBaseline('dev-idp page', idp.headers);
  });

  it("the pages' CSP lets forms post only to us (form-action), and allows the forms the pages have", async () => {
    for (const path of ['/login', '/']) {
      const res = await t.client().get(path);
      const csp = parseCsp(res.headers.get('content-security-policy') ?? '');
      // 'self', and our public origin (AUTH_URL), where sign-in's redirects lead with the bundled identity provider.
      expect(csp.get('form-action'), path).toEqual(["'self'", t.baseUrl]);
      const page = new URL(path, t.baseUrl);
      for (const action of pageResources(res.text).forms) expect(allows(csp, ['form-action'], page, { url: action || page.href }), `${path}: form to ${action}`).toBe(true);
      expect(allows(csp, ['form-action'], page, { url: 'https://evil.example/steal' }), path).toBe(false);
    }
    expect(pageResources((await t.client().get('/login')).text).forms).toContain('/api/auth/signin/oauth');
  });

  it('the Swagger UI page has its own CSP, which allows its own scripts, styles and images, and nothing else', async () => {
    const page = await t.client().get('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectBaseline('/api/docs', page.headers);
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const csp = parseCsp(DOCS_CSP);
    const at = new URL(page.url);
    const found = pageResources(page.text);
    expect(found.scripts.length).toBeGreaterThanOrEqual(2);
    expect(found.styles.length).toBeGreaterThanOrEqual(1);
    const fetched: Array<[string, RegExp]> = [];
    for (const src of found.scripts) {
      expect(allows(csp, ['script-src-elem', 'script-src'], at, { url: src }), `script ${src}`).toBe(true);
      fetched.push([src, /javascript/]);
    }
    for (const code of found.inlineScripts) expect(allows(csp, ['script-src-elem', 'script-src'], at, { inline: code }), `inline script ${code.slice(0, 40)}`).toBe(true);
    for (const href of found.styles) {
      expect(allows(csp, ['style-src-elem', 'style-src'], at, { url: href }), `stylesheet ${href}`).toBe(true);
      fetched.push([href, /css/]);
    }
    for (const css of found.inlineStyles) expect(allows(csp, ['style-src-elem', 'style-src'], at, { inline: css }), `inline style ${css.slice(0, 40)}`).toBe(true);
    for (const css of found.styleAttributes) expect(allows(csp, ['style-src-attr', 'style-src'], at, { inline: css }), `style attribute ${css}`).toBe(true);
    for (const src of found.images) expect(allows(csp, ['img-src'], at, { url: src }), `image ${src}`).toBe(true);
    // The OpenAPI document the page reads, and the API it calls, are ours.
    expect(allows(csp, ['connect-src'], at, { url: './json' })).toBe(true);
    expect(allows(csp, ['connect-src'], at, { url: '/api/health' })).toBe(true);
    // Nothing from elsewhere.
    expect(allows(csp, ['script-src'], at, { url: 'https://cdn.example/x.js' })).toBe(false);
    expect(allows(csp, ['script-src'], at, { inline: 'alert(1)' })).toBe(false);
    expect(allows(csp, ['connect-src'], at, { url: 'https://evil.example/' })).toBe(false);
    // What the page names is served.
    for (const [src, type] of fetched) {
      const res = await t.client().get(new URL(src, at).pathname);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('content-type'), src).toMatch(type);
    }
    const json = await t.client().get('/api/docs/json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-security-policy')).toBeNull();
  });

  it('the session cookie is HttpOnly; SameSite=Lax; Path=/, not Secure on http; the CSRF and callback cookies are HttpOnly', async () => {
    const session = (await ada.client.jar.getCookies(t.baseUrl)).find((c) => c.key === COOKIE)!;
    expect(session).toBeDefined();
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('lax');
    expect(session.path).toBe('/');
    expect(session.secure).toBe(false);

    // As sent: the session read re-issues the cookie.
    const cookie = `${COOKIE}=${await ada.client.cookie(COOKIE)}`;
    const reissued = (await fetch(`${t.baseUrl}/api/auth/session`, { headers: { cookie } })).headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`))!;
    expect(reissued).toBeDefined();
    expect(reissued).toMatch(/; HttpOnly(;|$)/i);
    expect(reissued).toMatch(/; SameSite=Lax(;|$)/i);
    expect(reissued).toMatch(/; Path=\/(;|$)/i);
    expect(reissued).not.toMatch(/; Secure(;|$)/i);

    const csrf = (await fetch(`${t.baseUrl}/api/auth/csrf`)).headers.getSetCookie();
    const login = (await fetch(`${t.baseUrl}/login`)).headers.getSetCookie();
    for (const [name, cookies] of [['csrf', csrf], ['/login', login]] as const) {
      for (const prefix of ['authjs.csrf-token=', 'authjs.callback-url=']) {
        const set = cookies.find((c) => c.startsWith(prefix));
        expect(set, `${name}: ${prefix}`).toBeDefined();
        expect(set, `${name}: ${prefix} HttpOnly`).toMatch(/; HttpOnly(;|$)/i);
        expect(set, `${name}: ${prefix} SameSite=Lax`).toMatch(/; SameSite=Lax(;|$)/i);
        expect(set, `${name}: ${prefix} Path=/`).toMatch(/; Path=\/(;|$)/i);
      }
    }
  });
});

describe('security headers of a production app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startProductionApp();
  });
  afterAll(() => t?.close());

  it('HSTS on every answer; forms may lead to us and to the identity provider only; the docs keep their CSP', async () => {
    for (const path of ['/login', '/api/health', '/api/docs', '/api/nope']) {
      const res = await t.client().get(path);
      expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000; includeSubDomains');
    }
    const login = await t.client().get('/login');
    expect(login.status).toBe(200);
    // Sign-in posts to us and is redirected to the issuer: both must be allowed, nothing else.
    expect(parseCsp(login.headers.get('content-security-policy') ?? '').get('form-action')).toEqual(["'self'", t.baseUrl, PRODUCTION_ISSUER]);
    expect((await t.client().get('/api/docs')).headers.get('content-security-policy')).toBe(DOCS_CSP);
  });
});

describe('registerSecurityHeaders on a bare Fastify', () => {
  async function bare(production: boolean) {
    const app = Fastify();
    // A guard registered first that refuses some requests before helmet's own hook runs.
    app.addHook('onRequest', async (req, reply) => {
      if (req.headers['x-refuse']) return reply.code(403).send({ error: 'Forbidden' });
    });
    await registerSecurityHeaders(app, { production });
    app.get('/api/thing', async () => ({ ok: true }));
    app.get('/api/page', async (_req, reply) => reply.type('text/html').send('<p>hi</p>'));
    app.get('/api/own-csp', async (_req, reply) => reply.header('content-security-policy', "default-src 'self'").send({ ok: true }));
    app.get('/api/docs/static/x.js', async (_req, reply) => reply.type('application/javascript').send('1'));
    app.get('/api/docs/json', async () => ({ openapi: '3.0.0' }));
    app.get('/files/*', async (_req, reply) => reply.type('image/png').send(Buffer.from([1])));
    app.get('/page', async (_req, reply) => reply.header('x-powered-by', 'Express').type('text/html').send('<p>hi</p>'));
    await app.ready();
    return app;
  }

  it('sends HSTS in production only', async () => {
    const prod = await bare(true);
    const dev = await bare(false);
    try {
      for (const url of ['/api/thing', '/files/a.png', '/page', '/nope']) {
        const p = await prod.inject({ url });
        expect(p.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
        const d = await dev.inject({ url });
        expect(d.headers['strict-transport-security'], url).toBeUndefined();
      }
      const refused = await prod.inject({ url: '/api/thing', headers: { 'x-refuse': '1' } });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await prod.close();
      await dev.close();
    }
  });

  it('sets the baseline everywhere, the API CSP on API JSON only, CORP cross-origin on /files only', async () => {
    const app = await bare(false);
    try {
      const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });
      const expectations: Array<[string, Record<string, string>, string | undefined, string]> = [
        ['/api/thing', {}, API_CSP, 'same-origin'],
        ['/api/nope', {}, API_CSP, 'same-origin'],
        ['/api/thing', { 'x-refuse': '1' }, API_CSP, 'same-origin'],
        ['/api/page', {}, undefined, 'same-origin'],
        ['/api/own-csp', {}, "default-src 'self'", 'same-origin'],
        ['/api/docs/static/x.js', {}, undefined, 'same-origin'],
        ['/api/docs/json', {}, undefined, 'same-origin'],
        ['/files/a.png', {}, undefined, 'cross-origin'],
        ['/page', {}, undefined, 'same-origin'],
      ];
      for (const [url, headers, csp, corp] of expectations) {
        const res = await get(url, headers);
        const name = `${url}${headers['x-refuse'] ? ' (refused first)' : ''}`;
        expect(res.headers['x-content-type-options'], name).toBe('nosniff');
        expect(res.headers['x-frame-options'], name).toBe('DENY');
        expect(res.headers['referrer-policy'], name).toBe('no-referrer');
        expect(res.headers['x-powered-by'], name).toBeUndefined();
        expect(res.headers['content-security-policy'], name).toBe(csp);
        expect(res.headers['cross-origin-resource-policy'], name).toBe(corp);
      }
    } finally {
      await app.close();
    }
  });
});
