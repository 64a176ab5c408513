// Security headers and cookie attributes: every kind of response carries nosniff, a framing ban
// (X-Frame-Options or CSP frame-ancestors) and a Referrer-Policy, never X-Powered-By; the routes' own CSPs
// (stored files, the web client, Swagger UI) are kept; API JSON gets a strict CSP; HSTS only in production
// (checked on registerSecurityHeaders itself, as a production app needs every production value); the session,
// CSRF and callback cookies are HttpOnly, SameSite=Lax, Path=/, and not Secure on http.
import Fastify from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CSP, registerSecurityHeaders } from '../../src/http/security-headers.js';
import type { HttpClient, Sent } from '../helpers/http-client.js';
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

  it('the Swagger UI page keeps working: no strict CSP, its scripts served', async () => {
    const page = await t.client().get('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectBaseline('/api/docs', page.headers);
    expect(page.headers.get('content-security-policy') ?? '').not.toContain("default-src 'none'");
    const scripts = [...page.text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => new URL(m[1], `${t.baseUrl}/api/docs/`).pathname);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const src of scripts) {
      const res = await t.client().get(src);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('content-type'), src).toMatch(/javascript/);
      expect(res.headers.get('content-security-policy') ?? '', src).not.toContain("default-src 'none'");
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
