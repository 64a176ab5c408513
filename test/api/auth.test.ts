// Sign-in (docs/api.md, "Authentication") through the real OAuth code flow against the bundled provider.
import { encode } from '@auth/core/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE = 'authlib.session-token';
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('sign-in with the bundled identity provider', () => {
  it('runs the whole code flow, lands on /projects, and creates the user once', async () => {
    const client = t.client();
    const landed = await signIn(client, 'Grace@Example.com', 'Grace Hopper');
    expect(landed.url).toBe(`${t.baseUrl}/projects`);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('Grace Hopper');

    const session = await client.get('/api/auth/session');
    expect(session.json.user).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com' });
    expect(session.json.user.id).toMatch(/^[0-9a-f-]{36}$/);

    expect((await client.get('/api/user/session')).json).toEqual({ id: session.json.user.id, email: 'grace@example.com', name: 'Grace Hopper' });
    expect(await t.client().get('/api/user/session')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    const me = await client.get('/api/user');
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ id: session.json.user.id, email: 'grace@example.com', name: 'Grace Hopper', image: '', isPro: false, provider: 'oauth' });
    expect(Date.parse(me.json.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    // A second sign-in (new browser) is the same user, and creates no row.
    const before = await countRows(t, 'users');
    const again = t.client();
    await signIn(again, 'grace@example.com', 'Grace Hopper');
    expect((await again.get('/api/auth/session')).json.user.id).toBe(me.json.id);
    expect(await countRows(t, 'users')).toBe(before);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, for 30 days', async () => {
    const client = t.client();
    await signIn(client, 'cookie@example.com', 'Cookie');
    const cookie = (await client.jar.getCookies(t.baseUrl)).find((c) => c.key === COOKIE)!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('lax');
    expect(cookie.secure).toBe(false); // http in tests; production sets Secure (config test)
    const days = ((cookie.expires as Date).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30.01);
  });

  it('two first sign-ins of one person racing create one user', async () => {
    const before = await countRows(t, 'users');
    const [a, b] = [t.client(), t.client()];
    await Promise.all([signIn(a, 'race@example.com', 'Racer'), signIn(b, 'race@example.com', 'Racer')]);
    const [ida, idb] = await Promise.all([a.get('/api/user'), b.get('/api/user')]);
    expect(ida.json.id).toBe(idb.json.id);
    expect(await countRows(t, 'users')).toBe(before + 1);
  });

  it('signs out to /', async () => {
    const client = t.client();
    await signIn(client, 'leaver@example.com', 'Leaver');
    const { csrfToken } = (await client.get('/api/auth/csrf')).json;
    const out = await client.request('/api/auth/signout', { form: { csrfToken } });
    expect(out.url).toBe(`${t.baseUrl}/`);
    expect(await client.cookie(COOKIE)).toBeUndefined();
    expect((await client.get('/api/user')).status).toBe(401);
    const page = await client.get('/api/auth/signout');
    expect(page.status).toBe(200);
  });

  it('serves the documented auth routes', async () => {
    const client = t.client();
    const providers = await client.get('/api/auth/providers');
    expect(providers.json.oauth).toMatchObject({ id: 'oauth', type: 'oidc' });
    expect((await client.get('/api/auth/csrf')).json.csrfToken).toMatch(/\w{20,}/);
    expect((await client.get('/api/auth/session')).text).toBe('null');
    const signinPage = await client.request('/api/auth/signin', { follow: false });
    expect(signinPage.status).toBe(302);
    expect(signinPage.headers.get('location')).toContain('/login');
  });

  it('answers a bad CSRF token on /login with a readable message', async () => {
    const client = t.client();
    await client.get('/login');
    const res = await client.request('/api/auth/signin/oauth', { form: { csrfToken: 'forged', callbackUrl: '/projects' } });
    expect(res.url).toContain('/login?error=MissingCSRF');
    expect(res.text).toContain('Your sign-in form expired');
  });

  it('redirects an anonymous visitor of /projects to /login', async () => {
    const res = await t.client().request('/projects', { follow: false });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login');
  });

  it('refuses a redirect URI other than the registered one at the identity provider', async () => {
    const res = await t.client().get(`/dev-idp/auth?client_id=image-canvas-dev&response_type=code&scope=openid&redirect_uri=${encodeURIComponent('http://evil.example/cb')}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('redirect_uri');
  });

  it('never redirects off-site after sign-in', async () => {
    const client = t.client();
    await client.get('/login');
    const { csrfToken } = (await client.get('/api/auth/csrf')).json;
    const start = await client.request('/api/auth/signin/oauth', { form: { csrfToken, callbackUrl: 'https://evil.example/' } });
    const action = /<form method="post" action="([^"]+)"/.exec(start.text)![1];
    const landed = await client.request(action, { form: { email: 'safe@example.com', name: 'Safe' } });
    expect(new URL(landed.url).origin).toBe(t.baseUrl);
  });
});

describe('the session check', () => {

  it('answers 401 Unauthorized with no cookie, a tampered one, a forged one and an expired one', async () => {
    const client = t.client();
    await signIn(client, 'tamper@example.com', 'Tamper');
    const good = (await client.cookie(COOKIE))!;
    expect((await client.get('/api/user')).status).toBe(200);

    const plain = new HttpClient(t.baseUrl);
    const ask = (cookie?: string) => plain.get('/api/user', cookie ? { cookie: `${COOKIE}=${cookie}` } : {});
    expect(await ask()).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    const flipped = good.slice(0, -5) + (good.at(-5) === 'A' ? 'B' : 'A') + good.slice(-4);
    expect((await ask(flipped)).status).toBe(401);
    expect((await ask('not-a-token')).status).toBe(401);

    // A well-formed token under another secret, and a real-secret token that has expired.
    const other = await encode({ token: { sub: 'x', email: 'x@example.com' }, secret: 'another-secret-of-enough-length-123456', salt: COOKIE });
    expect((await ask(other)).status).toBe(401);
    const authSecret = (await import('node:fs/promises')).readFile(`${t.dataDir}/secrets/auth-secret`, 'utf8');
    const me = (await client.get('/api/user')).json;
    const expired = await encode({ token: { sub: me.id, email: me.email }, secret: (await authSecret).trim(), salt: COOKIE, maxAge: -10 });
    expect((await ask(expired)).status).toBe(401);
    const valid = await encode({ token: { sub: me.id, email: me.email }, secret: (await authSecret).trim(), salt: COOKIE, maxAge: 60 });
    expect((await ask(valid)).status).toBe(200);
  });
});
