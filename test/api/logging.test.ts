// Request ids (kept when sane, else generated; echoed in x-request-id) and JSON logs with no secrets or
// prompt text, read from a stream the test owns.
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskUrl, serializeError } from '../../src/http/logging.js';
import { dbMode, startTestApp, type TestApp } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('echoes a sane incoming x-request-id', async () => {
    for (const id of ['abc-123', 'A.b_C-9', 'x'.repeat(64), 'f47ac10b-58cc-4372-a567-0e02b2c3d479']) {
      const res = await t.client().get('/api/health', { 'x-request-id': id });
      expect(res.headers.get('x-request-id')).toBe(id);
    }
  });

  it('generates a UUID when there is none, or when the given one is not sane', async () => {
    const seen = new Set<string>();
    for (const id of [undefined, '', 'x'.repeat(65), 'has space', 'semi;colon', 'new\u00e9line', '../etc/passwd', '{"json":1}']) {
      const res = await t.client().get('/api/health', id === undefined ? undefined : { 'x-request-id': id });
      const echoed = res.headers.get('x-request-id')!;
      expect(echoed, String(id)).toMatch(UUID);
      seen.add(echoed);
    }
    expect(seen.size).toBe(8);
  });

  it('carries the id on errors, 404s and refusals too', async () => {
    for (const [path, status] of [['/api/no-such-route', 404], ['/api/user', 401]] as const) {
      const res = await t.client().get(path, { 'x-request-id': `req-${status}` });
      expect(res.status).toBe(status);
      expect(res.headers.get('x-request-id')).toBe(`req-${status}`);
    }
    const bad = await t.client().request('/api/user/project', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json', 'x-request-id': 'req-bad-json' } });
    expect(bad.headers.get('x-request-id')).toBe('req-bad-json');
  });
});

describe('logs', () => {
  const lines: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts.filter(Boolean));
      done();
    },
  });
  const METRICS_TOKEN = 'metrics-token-for-log-test-0123456789';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info', METRICS_TOKEN }, dbMode(), { logStream: stream });
  });
  afterAll(() => t?.close());

  it('are JSON with request ids, and hold no cookie, Authorization value or prompt after a sign-in and a generation', async () => {
    const ada = await t.user('ada@example.com');
    const session = await ada.client.cookie('authlib.session-token');
    expect(session && session.length).toBeGreaterThan(20);
    const prompt = 'grayscale zebra-quokka-7d1e9 marmalade';
    const input = `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } } }).png().toBuffer()).toString('base64')}`;
    const generated = await ada.client.post('/api/image', { images: [input], prompt }, { 'x-request-id': 'trace-generation-1' });
    expect(generated.status).toBe(200);
    const apiKey = 'sk-live-authorization-value-5f2c8e';
    expect((await t.client().get('/api/health', { authorization: `Bearer ${apiKey}` })).status).toBe(200);
    expect((await t.client().get('/api/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).status).toBe(200);
    t.app.log.info({ user: { password: 'hunter2-password' }, token: 'top-level-token-value', extra: { apiKey: 'nested-api-key-value' } }, 'a careless line');

    const all = lines.join('\n');
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed.length).toBeGreaterThan(10);
    for (const secret of [session!, apiKey, METRICS_TOKEN, 'zebra-quokka-7d1e9', 'hunter2-password', 'top-level-token-value', 'nested-api-key-value']) {
      expect(all, secret).not.toContain(secret);
    }
    expect(all).not.toContain(input.slice(30, 90)); // no request body either

    // Every request line has its id; the caller's id is the one logged.
    const requests = parsed.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed');
    expect(requests.length).toBeGreaterThan(0);
    for (const l of requests) expect(typeof l.reqId).toBe('string');
    expect(parsed.filter((l) => l.reqId === 'trace-generation-1').map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    // OAuth codes and states in logged URLs are masked.
    const callback = parsed.find((l) => l.req?.url?.startsWith('/api/auth/callback/oauth'));
    expect(callback.req.url).toMatch(/code=\[redacted\]/);
    expect(callback.req.url).toMatch(/state=\[redacted\]/);
    // The careless line kept its shape, with the values censored.
    expect(parsed.find((l) => l.msg === 'a careless line')).toMatchObject({ user: { password: '[Redacted]' }, token: '[Redacted]', extra: { apiKey: '[Redacted]' } });
  });

  it("answers a browser's 404 once: no second answer, no warning or error logged for it", async () => {
    const page = await t.client().get('/no-such-page', { accept: 'text/html', 'x-request-id': 'trace-404-page' });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const api = await t.client().get('/api/no-such-route', { accept: 'text/html', 'x-request-id': 'trace-404-api' });
    expect(api.status).toBe(404);
    expect(api.json).toEqual({ error: 'Not found' });
    // A later request's completed line: the 404s' handlers have long finished (the second answer came right after the first).
    expect((await t.client().get('/api/health', { 'x-request-id': 'trace-after-404' })).status).toBe(200);
    await expect.poll(() => lines.some((l) => l.includes('"trace-after-404"') && l.includes('request completed')), { timeout: 30_000 }).toBe(true);
    for (const id of ['trace-404-page', 'trace-404-api']) {
      const own = lines.map((l) => JSON.parse(l) as { reqId?: string; level: number; msg: string }).filter((l) => l.reqId === id);
      expect(own.map((l) => l.msg), id).toEqual(['incoming request', 'request completed']);
      expect(own.every((l) => l.level < 40), id).toBe(true);
    }
  });
});

describe('log serializers', () => {
  it('masks secret query parameters and keeps the rest', () => {
    expect(maskUrl('/api/health')).toBe('/api/health');
    expect(maskUrl('/cb?code=abc&iss=https%3A%2F%2Fidp&STATE=xyz&access_token=t&flag')).toBe('/cb?code=[redacted]&iss=https%3A%2F%2Fidp&STATE=[redacted]&access_token=[redacted]&flag');
  });

  it('drops query parameters (prompts, emails) from database errors, and non-primitive fields', () => {
    class DrizzleQueryError extends Error {
      constructor(readonly query: string, readonly params: unknown[], cause: Error) {
        super(`Failed query: ${query}\nparams: ${params.join(',')}`, { cause });
        this.name = 'DrizzleQueryError';
      }
    }
    const cause = Object.assign(new Error('value too long'), { code: '22001' });
    const err = Object.assign(new DrizzleQueryError('insert into "generations" values ($1, $2)', ['ada@example.com', 'secret prompt\nwith lines'], cause), { request: { headers: { authorization: 'Bearer abc' } } });
    const out = serializeError(err);
    const text = JSON.stringify(out);
    expect(text).not.toContain('secret prompt');
    expect(text).not.toContain('ada@example.com');
    expect(text).not.toContain('Bearer abc');
    expect(out).toMatchObject({ type: 'DrizzleQueryError', message: 'Failed query: insert into "generations" values ($1, $2)\nparams: [redacted]', query: 'insert into "generations" values ($1, $2)', cause: { message: 'value too long', code: '22001' } });
    expect(out.stack).toMatch(/^DrizzleQueryError: Failed query: .*\nparams: \[redacted\]\n\s+at /);
  });
});
