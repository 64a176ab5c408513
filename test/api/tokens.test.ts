// Personal API tokens (docs/api.md "API tokens"): created, listed and revoked with a session; sent as
// `Authorization: Bearer` they act as their user within their scopes, skip the cross-site checks, share the
// user's rate limits, and stop working when revoked, expired or their user is gone.
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/db/index.js';
import type { HttpClient } from '../helpers/http-client.js';
import { migrateUpTo } from '../helpers/migrations.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let ada: Who;
let bob: Who;
let cat: Who;
const MAX_TOKENS = 3;
const MAX_DAYS = 30;
const GENERATIONS_PER_MINUTE = 3;
const UNAUTHORIZED = { status: 401, json: { error: 'Unauthorized' } };
const SESSION_ONLY = { status: 403, json: { error: 'This route needs a signed-in session, not an API token' } };

const create = (who: Who, body: unknown) => who.client.post('/api/user/tokens', body);
const list = (who: Who) => who.client.get('/api/user/tokens');
const revoke = (who: Who, id: string) => who.client.request(`/api/user/tokens/${id}`, { method: 'DELETE' });
/** A request with only the token (a script: no cookies). */
const bearer = (token: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
  t.client().request(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
const tokenRows = async (userId: string) => (await t.pool.query('SELECT * FROM api_tokens WHERE user_id = $1 ORDER BY created_at', [userId])).rows;
const png = async () => `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer()).toString('base64')}`;

/** A new token of `who` with these scopes: its secret and id. */
async function token(who: Who, scopes: string[], extra: Record<string, unknown> = {}): Promise<{ secret: string; id: string }> {
  const res = await create(who, { name: `t-${scopes.join('-')}`, scopes, ...extra });
  expect(res.status, res.text).toBe(201);
  return { secret: res.json.token, id: res.json.id };
}

beforeAll(async () => {
  t = await startTestApp({ API_TOKENS_PER_USER: String(MAX_TOKENS), API_TOKEN_MAX_DAYS: String(MAX_DAYS), RATE_LIMIT_GENERATIONS_PER_MINUTE: String(GENERATIONS_PER_MINUTE) });
  [ada, bob, cat] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob'), t.user('cat@example.com', 'Cat')]);
});
afterAll(() => t?.close());

describe('a token from creation to revocation', () => {
  it('is shown once, listed without its secret, acts as its user within its scopes, and is 401 once revoked', async () => {
    const made = await create(ada, { name: '  CI script  ', scopes: ['read', 'write', 'generate'], expiresInDays: 7 });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const secret: string = made.json.token;
    expect(secret).toMatch(/^ic_[A-Za-z0-9_-]{43}$/);
    expect(made.json).toEqual({
      id: expect.any(String),
      name: 'CI script',
      prefix: secret.slice(0, 9),
      scopes: ['read', 'write', 'generate'],
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: null,
      token: secret,
    });
    const days = (Date.parse(made.json.expiresAt) - Date.parse(made.json.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 2);
    // Stored hashed: the secret is nowhere in the database.
    const [row] = await tokenRows(ada.id);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(secret.slice(9));

    // read: the project list; write: a new project; generate: POST /api/image — all as ada.
    const projects = await bearer(secret, `/api/user/project?userId=${ada.id}`);
    expect(projects).toMatchObject({ status: 200, json: [] });
    const project = await bearer(secret, '/api/user/project', { json: { userId: ada.id, name: 'By script' } });
    expect(project).toMatchObject({ status: 200, json: { userId: ada.id, name: 'By script' } });
    expect((await ada.client.get(`/api/user/project?userId=${ada.id}`)).json.map((p: { name: string }) => p.name)).toEqual(['By script']);
    const generated = await bearer(secret, '/api/image', { json: { images: [await png()], prompt: 'grayscale' } });
    expect(generated.status, generated.text).toBe(200);
    expect(generated.json.imageUrl).toEqual(expect.any(String));
    // Ownership as for ada's session: bob's things stay bob's.
    expect(await bearer(secret, `/api/user/project?userId=${bob.id}`)).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    const bobs = (await bob.client.post('/api/user/project', { userId: bob.id, name: 'Bob only' })).json.id;
    expect(await bearer(secret, `/api/user/project/canvas?projectId=${bobs}`)).toMatchObject({ status: 404, json: { error: 'Project not found' } });

    // Listed with its last use, never with the secret or its hash.
    const listed = await list(ada);
    expect(listed.status).toBe(200);
    const { token: _secret, ...record } = made.json;
    expect(listed.json.tokens).toEqual([{ ...record, lastUsedAt: expect.any(String) }]);
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(row.token_hash);

    expect(await revoke(ada, made.json.id)).toMatchObject({ status: 204 });
    expect(await bearer(secret, `/api/user/project?userId=${ada.id}`)).toMatchObject(UNAUTHORIZED);
    expect(await bearer(secret, '/api/user/project', { json: { userId: ada.id, name: 'After' } })).toMatchObject(UNAUTHORIZED);
    expect((await list(ada)).json.tokens).toEqual([]);
    expect(await revoke(ada, made.json.id)).toMatchObject({ status: 404, json: { error: 'Token not found' } });
  });

  it('refuses what its scopes do not cover with 403 naming the scope; nothing is changed', async () => {
    const read = await token(bob, ['read']);
    const write = await token(bob, ['write']);
    const projectsBefore = (await t.pool.query('SELECT count(*)::int AS n FROM projects WHERE user_id = $1', [bob.id])).rows[0].n;
    expect(await bearer(read.secret, '/api/user/project', { json: { userId: bob.id, name: 'No' } })).toMatchObject({ status: 403, json: { error: 'Token lacks the write scope' } });
    expect(await bearer(read.secret, '/api/image', { json: { images: [await png()], prompt: 'invert' } })).toMatchObject({ status: 403, json: { error: 'Token lacks the generate scope' } });
    expect(await bearer(write.secret, '/api/image', { json: { images: [await png()], prompt: 'invert' } })).toMatchObject({ status: 403, json: { error: 'Token lacks the generate scope' } });
    expect(await bearer(write.secret, `/api/user/project?userId=${bob.id}`)).toMatchObject({ status: 403, json: { error: 'Token lacks the read scope' } });
    expect(await bearer(write.secret, '/api/user')).toMatchObject({ status: 403, json: { error: 'Token lacks the read scope' } });
    // HEAD is a read.
    expect((await bearer(read.secret, '/api/user', { method: 'HEAD' })).status).toBe(200);
    expect((await bearer(write.secret, '/api/user', { method: 'HEAD' })).status).toBe(403);
    expect((await t.pool.query('SELECT count(*)::int AS n FROM projects WHERE user_id = $1', [bob.id])).rows[0].n).toBe(projectsBefore);
    expect((await bearer(write.secret, '/api/user/project', { json: { userId: bob.id, name: 'Yes' } })).status).toBe(200);
    for (const { id } of [read, write]) await revoke(bob, id);
  });

  it('cannot manage tokens or end sessions: 403 even with every scope, also with a cookie beside it', async () => {
    const all = await token(ada, ['read', 'write', 'generate']);
    expect(await bearer(all.secret, '/api/user/tokens')).toMatchObject(SESSION_ONLY);
    expect(await bearer(all.secret, '/api/user/tokens', { json: { name: 'minted', scopes: ['read'] } })).toMatchObject(SESSION_ONLY);
    expect(await bearer(all.secret, `/api/user/tokens/${all.id}`, { method: 'DELETE' })).toMatchObject(SESSION_ONLY);
    expect(await bearer(all.secret, '/api/user/sessions', { method: 'DELETE' })).toMatchObject(SESSION_ONLY);
    // ada's cookie beside the token does not make it a session request.
    expect(await ada.client.request('/api/user/tokens', { json: { name: 'minted', scopes: ['read'] }, headers: { authorization: `Bearer ${all.secret}` } })).toMatchObject(SESSION_ONLY);
    expect((await tokenRows(ada.id)).map((r) => r.name)).toEqual(['t-read-write-generate']);
    expect((await ada.client.get('/api/user')).status).toBe(200); // the session still works
    await revoke(ada, all.id);
  });
});

describe('the Authorization header', () => {
  it('is the only credential when it carries a Bearer token: a bad one is 401 even beside a valid cookie; another scheme leaves the cookie', async () => {
    const bobs = await token(bob, ['read']);
    // ada's cookie and bob's token: the request is bob's.
    expect(await ada.client.get('/api/user/session', { authorization: `Bearer ${bobs.secret}` })).toMatchObject({ status: 200, json: { id: bob.id } });
    for (const authorization of ['Bearer', 'Bearer ', 'Bearer nonsense', `Bearer ic_${'A'.repeat(43)}`, `Bearer ${bobs.secret}x`, `bearer ${bobs.secret.slice(0, -1)}`]) {
      expect(await ada.client.get('/api/user', { authorization }), authorization).toMatchObject(UNAUTHORIZED);
    }
    expect(await t.client().get('/api/user', { authorization: `bearer ${bobs.secret}` })).toMatchObject({ status: 200, json: { id: bob.id } });
    expect(await ada.client.get('/api/user', { authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' })).toMatchObject({ status: 200, json: { id: ada.id } });
    await revoke(bob, bobs.id);
  });

  it('skips the cross-site checks with a Bearer token; with a cookie they stay', async () => {
    const writer = await token(ada, ['read', 'write']);
    const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const byToken = await bearer(writer.secret, '/api/user/project', { json: { userId: ada.id, name: 'Cross-site by token' }, headers: evil });
    expect(byToken).toMatchObject({ status: 200, json: { name: 'Cross-site by token' } });
    expect(await ada.client.request('/api/user/project', { json: { userId: ada.id, name: 'Cross-site by cookie' }, headers: evil })).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    // A bad token from another site is still refused.
    expect(await t.client().request('/api/user/project', { json: { userId: ada.id, name: 'x' }, headers: { ...evil, authorization: 'Bearer forged' } })).toMatchObject(UNAUTHORIZED);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM projects WHERE name IN ('Cross-site by cookie', 'x')")).rows[0].n).toBe(0);
    await revoke(ada, writer.id);
  });

  it('shares the user’s rate limits with the cookie session', async () => {
    const gen = await token(cat, ['generate']);
    const image = await png();
    for (let i = 0; i < GENERATIONS_PER_MINUTE - 1; i++) expect((await cat.client.post('/api/image', { images: [image], prompt: 'invert' })).status).toBe(200);
    expect((await bearer(gen.secret, '/api/image', { json: { images: [image], prompt: 'invert' } })).status).toBe(200);
    const over = await bearer(gen.secret, '/api/image', { json: { images: [image], prompt: 'invert' } });
    expect(over).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(over.headers.get('retry-after')).toBeTruthy();
    expect((await cat.client.post('/api/image', { images: [image], prompt: 'invert' })).status).toBe(429);
    await revoke(cat, gen.id);
  });
});

describe('expiry, last use and the token’s user', () => {
  it('an expired token is 401', async () => {
    const soon = await token(bob, ['read'], { expiresInDays: 1 });
    expect((await bearer(soon.secret, '/api/user')).status).toBe(200);
    await t.pool.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [soon.id]);
    expect(await bearer(soon.secret, '/api/user')).toMatchObject(UNAUTHORIZED);
    // Still listed (with its expiry) until revoked.
    expect((await list(bob)).json.tokens.map((x: { id: string }) => x.id)).toContain(soon.id);
    await revoke(bob, soon.id);
  });

  it('records the last use at most about once a minute', async () => {
    const reader = await token(bob, ['read']);
    const lastUse = async () => (await list(bob)).json.tokens.find((x: { id: string }) => x.id === reader.id).lastUsedAt as string | null;
    expect(await lastUse()).toBeNull();
    await bearer(reader.secret, '/api/user');
    const first = await lastUse();
    expect(first).toEqual(expect.any(String));
    expect(Math.abs(Date.parse(first!) - Date.now())).toBeLessThan(60_000);
    await bearer(reader.secret, '/api/user');
    expect(await lastUse()).toBe(first); // within the minute: not written again
    // A use recorded over a minute ago is recorded again.
    await t.pool.query("UPDATE api_tokens SET last_used_at = last_used_at - interval '61 seconds' WHERE id = $1", [reader.id]);
    const moved = await lastUse();
    await bearer(reader.secret, '/api/user');
    const again = await lastUse();
    expect(Date.parse(again!)).toBeGreaterThan(Date.parse(moved!) + 60_000);
    await revoke(bob, reader.id);
  });

  it("a user's tokens go with the user", async () => {
    const dan = await t.user('dan@example.com', 'Dan');
    const dans = await token(dan, ['read', 'write']);
    expect((await bearer(dans.secret, '/api/user')).status).toBe(200);
    await t.pool.query('DELETE FROM users WHERE id = $1', [dan.id]);
    expect(await tokenRows(dan.id)).toEqual([]);
    expect(await bearer(dans.secret, '/api/user')).toMatchObject(UNAUTHORIZED);
  });
});

describe('creating and revoking', () => {
  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const cases: Array<[unknown, string | RegExp]> = [
      [{ scopes: ['read'] }, 'Token name is required'],
      [{ name: '   ', scopes: ['read'] }, 'Token name is required'],
      [{ name: 42, scopes: ['read'] }, 'Invalid token name'],
      [{ name: 'x'.repeat(101), scopes: ['read'] }, 'Token name is too long (at most 100 characters)'],
      [{ name: 'a\u0000b', scopes: ['read'] }, 'Invalid token name'],
      [{ name: 'n' }, /^Invalid scopes: /],
      [{ name: 'n', scopes: [] }, 'Invalid scopes: at least one scope is needed'],
      [{ name: 'n', scopes: 'read' }, /^Invalid scopes: /],
      [{ name: 'n', scopes: ['read', 'admin'] }, 'Invalid scopes.1: unknown scope "admin"; the scopes are read, write, generate, billing'],
      [{ name: 'n', scopes: ['read', 'write', 'read'] }, 'Invalid scopes: read is listed twice'],
      [{ name: 'n', scopes: ['read'], expiresInDays: 0 }, `Invalid expiresInDays: must be a whole number of days from 1 to ${MAX_DAYS}`],
      [{ name: 'n', scopes: ['read'], expiresInDays: -3 }, `Invalid expiresInDays: must be a whole number of days from 1 to ${MAX_DAYS}`],
      [{ name: 'n', scopes: ['read'], expiresInDays: 1.5 }, `Invalid expiresInDays: must be a whole number of days from 1 to ${MAX_DAYS}`],
      [{ name: 'n', scopes: ['read'], expiresInDays: MAX_DAYS + 1 }, `Invalid expiresInDays: must be a whole number of days from 1 to ${MAX_DAYS}`],
      [{ name: 'n', scopes: ['read'], expiresInDays: '7' }, `Invalid expiresInDays: must be a whole number of days from 1 to ${MAX_DAYS}`],
    ];
    for (const [body, error] of cases) {
      const res = await create(ada, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (typeof error === 'string') expect(res.json.error, JSON.stringify(body)).toBe(error);
      else expect(res.json.error, JSON.stringify(body)).toMatch(error);
    }
    expect(await tokenRows(ada.id)).toEqual([]);
    // Without an expiry (omitted or null) a token never expires.
    const forever = await create(ada, { name: 'forever', scopes: ['read'], expiresInDays: null });
    expect(forever).toMatchObject({ status: 201, json: { expiresAt: null } });
    await revoke(ada, forever.json.id);
  });

  it(`allows ${MAX_TOKENS} tokens per user; one more is 400`, async () => {
    const made = [];
    for (let i = 0; i < MAX_TOKENS; i++) made.push(await token(cat, ['read']));
    expect(await create(cat, { name: 'one more', scopes: ['read'] })).toMatchObject({ status: 400, json: { error: `A user has at most ${MAX_TOKENS} API tokens` } });
    expect(await tokenRows(cat.id)).toHaveLength(MAX_TOKENS);
    await revoke(cat, made[0].id);
    expect((await create(cat, { name: 'in its place', scopes: ['read'] })).status).toBe(201);
  });

  it("another user's token, or an id that is none, is 404 and stays", async () => {
    const bobs = await token(bob, ['read']);
    for (const id of [bobs.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect(await revoke(ada, id), id).toMatchObject({ status: 404, json: { error: 'Token not found' } });
    }
    expect((await bearer(bobs.secret, '/api/user')).status).toBe(200);
    expect((await list(ada)).json.tokens.map((x: { id: string }) => x.id)).not.toContain(bobs.id);
    await revoke(bob, bobs.id);
  });

  it('needs a session: without one, 401', async () => {
    expect(await t.client().get('/api/user/tokens')).toMatchObject(UNAUTHORIZED);
    expect(await t.client().post('/api/user/tokens', { name: 'n', scopes: ['read'] })).toMatchObject(UNAUTHORIZED);
  });
});

describe('migration 0013_api_tokens', () => {
  it('adds the table to a database of the previous release: hashes unique, scopes checked, tokens go with their user', async () => {
    const database = await createOwnDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await migrateUpTo(database.url, '0012_generation_nodes');
      await client.connect();
      const { rows } = await client.query("INSERT INTO users (email, name, provider, provider_subject) VALUES ('old@example.com', 'Old', 'oauth', 's1') RETURNING id");
      const userId = rows[0].id;
      await migrateDatabase(database.url);
      const add = (hash: string, scopes: string[]) => client.query('INSERT INTO api_tokens (user_id, name, token_hash, prefix, scopes) VALUES ($1, $2, $3, $4, $5)', [userId, 'n', hash, 'ic_abcdef', scopes]);
      await add('h1', ['read']);
      await expect(add('h1', ['read'])).rejects.toThrow(/api_tokens_hash_key/);
      await expect(add('h2', [])).rejects.toThrow(/api_tokens_scopes_check/);
      await expect(add('h3', ['read', 'admin'])).rejects.toThrow(/api_tokens_scopes_check/);
      await client.query('DELETE FROM users WHERE id = $1', [userId]);
      expect((await client.query('SELECT count(*)::int AS n FROM api_tokens')).rows[0].n).toBe(0);
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });

  it('takes the billing scope on a database of the previous release (0020), keeping its tokens', async () => {
    const database = await createOwnDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await migrateUpTo(database.url, '0019_free_budget');
      await client.connect();
      const { rows } = await client.query("INSERT INTO users (email, name, provider, provider_subject) VALUES ('old@example.com', 'Old', 'oauth', 's1') RETURNING id");
      const userId = rows[0].id;
      const add = (hash: string, scopes: string[]) => client.query('INSERT INTO api_tokens (user_id, name, token_hash, prefix, scopes) VALUES ($1, $2, $3, $4, $5)', [userId, 'n', hash, 'ic_abcdef', scopes]);
      await add('old', ['read', 'generate']);
      await expect(add('early', ['billing'])).rejects.toThrow(/api_tokens_scopes_check/);
      await migrateDatabase(database.url);
      await add('h1', ['billing']);
      await add('h2', ['read', 'write', 'generate', 'billing']);
      await expect(add('h3', ['billing', 'admin'])).rejects.toThrow(/api_tokens_scopes_check/);
      const kept = await client.query('SELECT token_hash, scopes FROM api_tokens ORDER BY token_hash');
      expect(kept.rows).toEqual([
        { token_hash: 'h1', scopes: ['billing'] },
        { token_hash: 'h2', scopes: ['read', 'write', 'generate', 'billing'] },
        { token_hash: 'old', scopes: ['read', 'generate'] },
      ]);
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});
