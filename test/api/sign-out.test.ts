// Sign-out really ends the session (docs/api.md "Signing out"): the old cookie stops working at once on the
// instance that signed it out, on every other instance within SESSION_REVOCATION_POLL_MS, cached or not; and
// "sign out of all devices" ends every session of the user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE = 'authlib.session-token';
const SECRET = 'sign-out-test-secret-0123456789abcdef0123';

/** Requests made with exactly this Cookie header (a copy of a session cookie kept by someone). */
const withCookie = (t: TestApp, cookie: string, path: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init, headers: { cookie: `${COOKIE}=${cookie}`, ...init.headers } });

async function signedIn(t: TestApp, email: string): Promise<{ client: HttpClient; cookie: string }> {
  const client = new HttpClient(t.baseUrl);
  const landed = await signIn(client, email, email.split('@')[0]);
  if (!landed.url.endsWith('/projects')) throw new Error(`sign-in ended at ${landed.url}`);
  return { client, cookie: (await client.cookie(COOKIE))! };
}

/** POST /api/auth/signout as the web client does (the CSRF token from /api/auth/csrf). */
async function signOut(client: HttpClient) {
  const csrf = (await client.get('/api/auth/csrf')).json.csrfToken as string;
  return client.request('/api/auth/signout', { form: { csrfToken: csrf, callbackUrl: '/' }, follow: false });
}

/** Everything a session cookie opens: the API, the cheap session route, Auth.js's session, the pages. */
async function whatWorks(t: TestApp, cookie: string) {
  const [user, session, auth, page] = await Promise.all([
    withCookie(t, cookie, '/api/user'),
    withCookie(t, cookie, '/api/user/session'),
    withCookie(t, cookie, '/api/auth/session'),
    withCookie(t, cookie, '/projects'),
  ]);
  return { api: user.status, session: session.status, authSession: await auth.json(), page: page.status === 200 ? 'page' : page.headers.get('location') };
}

describe('signing out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_SECRET: SECRET });
  });
  afterAll(() => t?.close());

  it('a signed-out cookie no longer opens anything, though it was cached and has not expired', async () => {
    const { client, cookie } = await signedIn(t, 'leaver@example.com');
    expect(await whatWorks(t, cookie)).toMatchObject({ api: 200, session: 200, page: 'page' }); // now cached
    const out = await signOut(client);
    expect(out.status).toBe(302);
    expect(await whatWorks(t, cookie)).toEqual({ api: 401, session: 401, authSession: null, page: '/login' });
    // Auth.js's session route also clears the dead cookie.
    const clears = (await withCookie(t, cookie, '/api/auth/session')).headers.getSetCookie();
    expect(clears.some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
  });

  it('every copy of the session ends, including the renewed token Auth.js issued after sign-in', async () => {
    const { client, cookie: first } = await signedIn(t, 'renewer@example.com');
    await client.get('/api/auth/session'); // re-issues the cookie (a new token for the same session)
    const renewed = (await client.cookie(COOKIE))!;
    expect(renewed).not.toBe(first);
    expect((await withCookie(t, first, '/api/user')).status).toBe(200);
    await signOut(client);
    expect((await withCookie(t, first, '/api/user')).status).toBe(401);
    expect((await withCookie(t, renewed, '/api/user')).status).toBe(401);
  });

  it("signing out one device leaves the user's other sessions alone", async () => {
    const laptop = await signedIn(t, 'two-devices@example.com');
    const phone = await signedIn(t, 'two-devices@example.com');
    await signOut(laptop.client);
    expect((await withCookie(t, laptop.cookie, '/api/user')).status).toBe(401);
    expect((await withCookie(t, phone.cookie, '/api/user')).status).toBe(200);
  });

  it('DELETE /api/user/sessions signs out every device, this one too; signing in again works', async () => {
    const laptop = await signedIn(t, 'everywhere@example.com');
    const phone = await signedIn(t, 'everywhere@example.com');
    const other = await signedIn(t, 'bystander@example.com');
    const res = await laptop.client.request('/api/user/sessions', { method: 'DELETE' });
    expect(res).toMatchObject({ status: 200, json: { success: true } });
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`) && /Max-Age=0/.test(c))).toBe(true);
    expect((await withCookie(t, laptop.cookie, '/api/user')).status).toBe(401);
    expect((await withCookie(t, phone.cookie, '/api/user')).status).toBe(401);
    expect((await withCookie(t, phone.cookie, '/api/auth/session').then((r) => r.json()))).toBeNull();
    expect((await withCookie(t, other.cookie, '/api/user')).status).toBe(200);
    const again = await signedIn(t, 'everywhere@example.com');
    expect((await withCookie(t, again.cookie, '/api/user')).status).toBe(200);
  });

  it('DELETE /api/user/sessions needs a session and refuses other sites', async () => {
    expect(await t.client().request('/api/user/sessions', { method: 'DELETE' })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    const victim = await signedIn(t, 'victim@example.com');
    const forged = await victim.client.request('/api/user/sessions', { method: 'DELETE', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(forged).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect((await withCookie(t, victim.cookie, '/api/user')).status).toBe(200);
  });

  it('revocations outlive a restart: they are read from the database at start', async () => {
    const { client, cookie } = await signedIn(t, 'restart@example.com');
    await signOut(client);
    const again = await startTestApp({ AUTH_SECRET: SECRET, DATABASE_CONNECTION_STRING: t.databaseUrl }, 'embedded');
    try {
      expect((await withCookie(again, cookie, '/api/user')).status).toBe(401);
    } finally {
      await again.close();
    }
  });
});

describe('signing out with two instances', () => {
  let database: { url: string; drop(): Promise<void> };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await createOwnDatabase();
    const env = { AUTH_SECRET: SECRET, DATABASE_CONNECTION_STRING: database.url, SESSION_REVOCATION_POLL_MS: '100' };
    a = await startTestApp(env, 'embedded');
    b = await startTestApp(env, 'embedded');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  /** Asks instance `t` until the cookie is refused (the other instance learns of the revocation by polling). */
  async function refusedBy(t: TestApp, cookie: string): Promise<number> {
    for (let i = 0; i < 400; i++) {
      const res = await withCookie(t, cookie, '/api/user/session');
      if (res.status === 401) return i;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the other instance still accepts the signed-out session after 400 tries');
  }

  it('a sign-out on one instance ends the session on the other, which had it cached', async () => {
    const { client, cookie } = await signedIn(a, 'both@example.com');
    expect((await withCookie(b, cookie, '/api/user/session')).status).toBe(200); // cached on b
    await signOut(client);
    expect((await withCookie(a, cookie, '/api/user/session')).status).toBe(401); // at once where it happened
    await refusedBy(b, cookie);
  });

  it('sign out of all devices on one instance reaches the other', async () => {
    const laptop = await signedIn(a, 'all-both@example.com');
    const phone = await signedIn(a, 'all-both@example.com');
    expect((await withCookie(b, phone.cookie, '/api/user/session')).status).toBe(200);
    expect((await laptop.client.request('/api/user/sessions', { method: 'DELETE' })).status).toBe(200);
    await refusedBy(b, phone.cookie);
  });
});
