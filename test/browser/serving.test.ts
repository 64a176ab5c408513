// How the service serves the web client, over plain HTTP (no browser needed): the client's routes and
// nothing else (and a browser's page not found), caching, the Content-Security-Policy, the public client config,
// the no-JavaScript fallback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_ANALYTICS_TOKEN: 'phc_public_token', PUBLIC_ANALYTICS_PROXY_API: 'https://eu.example.com/ingest/' });
});
afterAll(() => t?.close());

describe('the web client over HTTP', () => {
  it('answers index.html for exactly the client routes, never cached, under a strict CSP', async () => {
    const { client } = await t.user('pages@example.com');
    for (const path of ['/', '/login', '/projects', '/projects/5f0c3a56-0000-4000-8000-000000000000', '/shared/some-token']) {
      const res = await client.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toMatch(/no-cache|no-store/);
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.text).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
      expect(csp).toContain("style-src 'self';");
      expect(csp).toContain(`img-src 'self' data: blob: https: ${t.baseUrl}`);
      expect(csp).toContain("connect-src 'self' https://eu.example.com;");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves the hashed assets with a year of immutable caching', async () => {
    const index = await t.client().get('/');
    const assets = [...index.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await t.client().get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await t.client().get('/assets/index-missing.js')).status).toBe(404);
    expect((await t.client().get('/assets/../index.html')).status).toBe(404);
  });

  it('leaves every other path alone: the API, files and the identity provider, and a JSON 404', async () => {
    const client = t.client();
    for (const path of ['/api/nope', '/api/user/project/x/y', '/nope', '/projects/a/b', '/index.html', '/files/missing.png']) {
      const res = await client.get(path);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toEqual({ error: 'Not found' });
    }
    expect((await client.get('/api/health')).json).toEqual({ status: 'ok' });
    expect((await client.get('/api/docs')).status).toBe(200);
    expect((await client.get('/api/user')).status).toBe(401);
    expect((await client.get('/dev-idp/.well-known/openid-configuration')).json.issuer).toBe(`${t.baseUrl}/dev-idp`);
  });

  it("answers a browser's request for an unknown page 404 with the client (its page not found), and keeps /api, /files and /assets JSON", async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const client = t.client();
    for (const path of ['/nope', '/projects/a/b', '/deep/unknown/path?x=1', '/index.html', '/apiary', '/shared/a/b']) {
      const res = await client.get(path, browser);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control'), path).toBe('no-cache');
      expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self' 'wasm-unsafe-eval';");
      expect(res.text, path).toContain('<div id="root"></div>');
      const fallback = /<noscript>([\s\S]*)<\/noscript>/.exec(res.text)?.[1] ?? '';
      expect(fallback, path).toContain('Page not found');
      expect(fallback, path).toContain('<a href="/projects">');
    }
    expect((await client.request('/nope', { method: 'HEAD', headers: browser })).status).toBe(404);
    for (const path of ['/api/nope', '/api', '/api/user/project/x/y', '/files/missing.png', '/assets/missing.js']) {
      const res = await client.get(path, browser);
      expect(res.status, path).toBe(404);
      expect(res.json, path).toEqual({ error: 'Not found' });
    }
    // Not a page request: another method, or a client that does not ask for HTML.
    expect((await client.request('/nope', { method: 'POST', json: {}, headers: browser })).json).toEqual({ error: 'Not found' });
    expect((await client.get('/nope', { accept: 'application/json' })).json).toEqual({ error: 'Not found' });
  });

  it('sends anonymous visitors of the signed-in pages to /login before any client code loads', async () => {
    for (const path of ['/projects', '/projects/some-id']) {
      const res = await t.client().request(path, { follow: false });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login');
    }
  });

  it("serves a read-only link's page to anyone, never cached", async () => {
    const res = await t.client().request('/shared/AbC-123_token', { follow: false });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.text).toContain('<div id="root"></div>');
    expect((await t.client().get('/shared/a/b')).status).toBe(404);
  });

  it('gives the client its public configuration without a session', async () => {
    const res = await t.client().get('/api/client-config');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      analytics: { token: 'phc_public_token', apiHost: 'https://eu.example.com/ingest' },
      payments: { enabled: false },
      uploads: { maxBytes: 4 * 1024 * 1024, types: expect.arrayContaining([{ type: 'image/png', name: 'PNG', extensions: ['png'] }]) },
      canvas: { promptMaxChars: 10_000, maxNodes: 5_000, maxEdges: 10_000 },
    });
  });

  it('keeps a working sign-in form for browsers without JavaScript', async () => {
    const res = await t.client().get('/login?error=AccessDenied');
    const fallback = /<noscript>([\s\S]*)<\/noscript>/.exec(res.text)?.[1] ?? '';
    expect(fallback).toContain('<form method="post" action="/api/auth/signin/oauth">');
    expect(fallback).toMatch(/name="csrfToken" value="\w+"/);
    expect(fallback).toContain('Sign-in was refused.');
    expect(res.headers.get('set-cookie')).toContain('authjs.csrf-token');
  });
});
