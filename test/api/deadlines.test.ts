// Deadlines on slow clients (src/http/deadlines.ts, docs/deploy.md "Timeouts"), over real sockets: a client
// that trickles its headers, or declares a body and trickles it or stops sending it, is answered 408 in our
// error shape and cut off — on the public routes (sign-in, the payment webhook), on the server Fastify makes
// itself (as server.ts runs) as well as on one handed to it (the test harness) — while a signed-in upload that
// is slow but steady within the longer limit of the large-body routes still succeeds. The limits are tiny here;
// every assertion waits for the socket's close event, bounded only generously.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Far beyond the tiny limits below, far below the 5-minute defaults: a cut-off must come before it. */
const BOUND_MS = 20_000;
const COOKIE = 'authlib.session-token';

interface Ended {
  /** Everything the server sent before closing. */
  answer: string;
  /** How much of the body was sent before the close. */
  sent: number;
}

/**
 * Opens a connection, sends `head` and then `body` in `chunk`-byte pieces, one every `everyMs` (or only the
 * first `stopAfter` bytes, then nothing), and resolves when the server closes the connection.
 */
function sendSlowly(port: number, head: string, body: Buffer, opts: { chunk: number; everyMs: number; stopAfter?: number }): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const limit = Math.min(body.length, opts.stopAfter ?? body.length);
    const timer = setInterval(() => {
      if (sent >= limit || socket.destroyed) return;
      const piece = body.subarray(sent, Math.min(limit, sent + opts.chunk));
      sent += piece.length;
      socket.write(piece);
    }, opts.everyMs);
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${BOUND_MS} ms (answer so far: ${JSON.stringify(answer.slice(0, 200))})`));
    }, BOUND_MS);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => {}); // a reset after the answer is still a close
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(bound);
      resolve({ answer, sent });
    });
    socket.write(head);
  });
}

/** A request head declaring `length` bytes of body. */
const head = (method: string, url: string, headers: Record<string, string>, length: number) =>
  `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Content-Length: ${length}\r\n\r\n`;

function expectTimeoutAnswer(ended: Ended) {
  const [status, ...rest] = ended.answer.split('\r\n');
  expect(status).toBe('HTTP/1.1 408 Request Timeout');
  const [headers, body] = rest.join('\r\n').split('\r\n\r\n');
  expect(JSON.parse(body)).toEqual({ error: 'Request timeout' });
  expect(headers.toLowerCase()).toContain('connection: close');
  expect(headers.toLowerCase()).toContain('x-content-type-options: nosniff');
  expect(headers.toLowerCase()).toMatch(/x-request-id: \S+/);
}

/** Log lines of the app, to check that a cut-off is logged, and is no failure of ours (nothing at warn or above). */
function logCapture() {
  const { stream, lines } = captureLogs();
  return {
    stream,
    requestProblems: () => lines.filter((l) => l.reqId && l.level >= 40).map((l) => l.msg),
    cutOffs: () => lines.filter((l) => l.reqId && /^request body (too slow|stalled)/.test(l.msg)).length,
  };
}

/**
 * A service with these deadline settings for the tests of one `describe` (started before them, closed after),
 * whose log must show each cut-off (at info, saying why) and no request problem.
 */
function appWithDeadlines(env: Record<string, string>): { readonly t: TestApp; readonly port: number } {
  let t: TestApp | undefined;
  const logs = logCapture();
  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info', ...env }, undefined, { logStream: logs.stream });
  });
  afterAll(async () => {
    await t?.close();
    expect(logs.cutOffs()).toBeGreaterThan(0);
    expect(logs.requestProblems()).toEqual([]);
  });
  return {
    get t() {
      return t!;
    },
    get port() {
      return Number(new URL(t!.baseUrl).port);
    },
  };
}

async function signedInUploadBody() {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c63' } }).png().toBuffer();
  const boundary = 'slow-upload-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

const PUBLIC_ROUTES: Array<[string, Record<string, string>]> = [
  ['/api/auth/signin/oauth', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['/api/webhook/payments', { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }],
];

describe('a whole-request deadline (HTTP_REQUEST_TIMEOUT_MS), longer on the large-body routes', () => {
  const app = appWithDeadlines({
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    HTTP_REQUEST_TIMEOUT_MS: '1500',
    HTTP_BODY_IDLE_TIMEOUT_MS: '60000', // the idle timeout never fires here: a steady trickle is cut by the deadline alone
    HTTP_LARGE_BODY_TIMEOUT_MS: '60000',
    HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: '60000',
  });

  it.each(PUBLIC_ROUTES)('a client trickling a body to %s is answered 408 and cut off', async (url, headers) => {
    const ended = await sendSlowly(app.port, head('POST', url, headers, 60_000), Buffer.alloc(60_000, 'a'), { chunk: 1, everyMs: 100 });
    expectTimeoutAnswer(ended);
    expect(ended.sent).toBeLessThan(60_000);
    // The service still answers.
    expect((await app.t.client().get('/api/health')).status).toBe(200);
  });

  it('an anonymous request to a large-body route keeps the short deadline: answered 401, then cut off', async () => {
    const ended = await sendSlowly(app.port, head('POST', '/api/upload', { 'content-type': 'multipart/form-data; boundary=x' }, 60_000), Buffer.alloc(60_000, 'a'), { chunk: 1, everyMs: 100 });
    expect(ended.answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(ended.answer.match(/HTTP\/1\.1 /g)).toHaveLength(1); // one answer only: no 408 is written after it
    expect(ended.sent).toBeLessThan(60_000);
  });

  it('a signed-in upload that is slow but steady, longer than the short deadline, succeeds', async () => {
    const ada = await app.t.user('ada@example.com');
    const { body, contentType } = await signedInUploadBody();
    const cookie = `${COOKIE}=${await ada.client.cookie(COOKIE)}`;
    const started = Date.now();
    // 16 pieces, one every 200 ms: about 3 s in all, twice the short deadline.
    const ended = await sendSlowly(
      app.port,
      head('POST', '/api/upload', { 'content-type': contentType, cookie, connection: 'close' }, body.length),
      body,
      { chunk: Math.ceil(body.length / 16), everyMs: 200 },
    );
    expect(Date.now() - started).toBeGreaterThan(1500); // it did outlast the short deadline
    expect(ended.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(ended.answer.split('\r\n\r\n')[1])).toEqual({ url: expect.stringMatching(/slow\.png$/) });
  });
});

describe('an idle-body timeout (HTTP_BODY_IDLE_TIMEOUT_MS, HTTP_LARGE_BODY_IDLE_TIMEOUT_MS)', () => {
  const app = appWithDeadlines({
    HTTP_REQUEST_TIMEOUT_MS: '60000', // the whole-request deadlines never fire here
    HTTP_BODY_IDLE_TIMEOUT_MS: '1000',
    HTTP_LARGE_BODY_TIMEOUT_MS: '60000',
    HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: '1500',
  });

  it.each(PUBLIC_ROUTES)('a client that stops sending its body to %s is answered 408 and cut off', async (url, headers) => {
    const ended = await sendSlowly(app.port, head('POST', url, headers, 60_000), Buffer.alloc(60_000, 'a'), { chunk: 10, everyMs: 50, stopAfter: 100 });
    expectTimeoutAnswer(ended);
    expect(ended.sent).toBe(100);
  });

  it('a body that keeps coming is not idle: a slow but steady sign-in body is read', async () => {
    const form = 'callbackUrl=%2Fprojects&csrfToken=not-a-token&padding=' + 'a'.repeat(40);
    const ended = await sendSlowly(
      app.port,
      head('POST', '/api/auth/signin/oauth', { 'content-type': 'application/x-www-form-urlencoded', connection: 'close' }, form.length),
      Buffer.from(form),
      { chunk: 10, everyMs: 200 }, // ~2 s in all, never 1 s without a byte
    );
    // Auth.js answers (a redirect for the missing CSRF token): the body was read to its end, not cut off.
    expect(ended.answer).toMatch(/^HTTP\/1\.1 302 /);
  });

  it('a signed-in upload that stalls mid-body is answered 408 and cut off; nothing is stored', async () => {
    const ada = await app.t.user('ada@example.com');
    const { body, contentType } = await signedInUploadBody();
    const cookie = `${COOKIE}=${await ada.client.cookie(COOKIE)}`;
    const objects = path.join(app.t.dataDir, 'objects');
    const before = await fs.readdir(objects).catch(() => []);
    const ended = await sendSlowly(app.port, head('POST', '/api/upload', { 'content-type': contentType, cookie }, body.length), body, {
      chunk: 100,
      everyMs: 50,
      stopAfter: Math.floor(body.length / 2),
    });
    expectTimeoutAnswer(ended);
    // The abandoned upload leaves nothing behind (the store cleans up once the request stream fails).
    await expect.poll(async () => (await fs.readdir(objects).catch(() => [])).filter((f) => !f.startsWith('.')), { timeout: BOUND_MS }).toEqual(before.filter((f) => !f.startsWith('.')));
  });
});

describe('the deadlines on a server Fastify makes itself (as server.ts runs the service)', () => {
  let app: FastifyInstance;
  let port: number;
  let dataDir: string;
  let database: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-deadlines-'));
    await fs.chmod(dataDir, 0o755);
    database = await createOwnDatabase();
    const { config } = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DATABASE_CONNECTION_STRING: database.url,
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '1500',
      HTTP_BODY_IDLE_TIMEOUT_MS: '1000',
    });
    app = await buildApp(config); // no serverFactory: Fastify creates the server, as in server.ts
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('cuts off a client trickling its headers (HTTP_HEADERS_TIMEOUT_MS)', async () => {
    const headers = Buffer.from(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: a\r\n'.repeat(5000)}\r\n`);
    const ended = await sendSlowly(port, '', headers, { chunk: 5, everyMs: 100 });
    expect(ended.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(ended.answer.split('\r\n\r\n')[1])).toEqual({ error: 'Request timeout' });
    expect(ended.sent).toBeLessThan(headers.length);
  });

  it('cuts off a trickling client and a stalled one', async () => {
    const [url, headers] = PUBLIC_ROUTES[0];
    expectTimeoutAnswer(await sendSlowly(port, head('POST', url, headers, 60_000), Buffer.alloc(60_000, 'a'), { chunk: 1, everyMs: 100 }));
    expectTimeoutAnswer(await sendSlowly(port, head('POST', url, headers, 60_000), Buffer.alloc(60_000, 'a'), { chunk: 10, everyMs: 50, stopAfter: 50 }));
  });
});
