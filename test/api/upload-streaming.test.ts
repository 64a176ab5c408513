// POST /api/upload streams (docs/api.md "Uploads and stored files"): the bytes reach the store while the body is
// still arriving, and the chunks written are freed at once rather than at a garbage collection. The service runs
// in this process, so its memory is this process's. Ordered, not timed: the client holds the body open mid-way
// and the test waits for the store's temp file to grow, then looks at memory.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const MB = 1024 * 1024;
const FILE = 32 * MB;
/** Sent before the client pauses: far more than any buffer on the way to the store holds. */
const HELD_AT = 24 * MB;

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A PNG signature and header, then incompressible bytes: accepted by the type check, `size` bytes in all. */
async function bigPng(size: number): Promise<Buffer> {
  const head = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#345678' } }).png().toBuffer();
  return Buffer.concat([head, randomBytes(size - head.length)]);
}

describe('uploads stream', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_MAX_BYTES: String(40 * MB), RATE_LIMIT_UPLOADS_PER_MINUTE: '0' });
    const ada = await t.user('ada@example.com');
    cookie = await ada.client.jar.getCookieString(t.baseUrl);
  });
  afterAll(() => t?.close());

  it('writes a 32 MB upload into the store while its body arrives, holding far less than what it wrote', async () => {
    const objects = path.join(t.dataDir, 'objects');
    const written = async () => {
      const temps = (await fs.readdir(objects)).filter((f) => f.startsWith('.tmp-') && !f.endsWith('.json'));
      const sizes = await Promise.all(temps.map((f) => fs.stat(path.join(objects, f)).then((s) => s.size, () => 0)));
      return Math.max(0, ...sizes);
    };
    const file = await bigPng(FILE);
    const boundary = 'streamingBoundary42';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const length = head.length + file.length + tail.length;

    gc();
    const before = process.memoryUsage();
    const req = http.request(`${t.baseUrl}/api/upload`, {
      method: 'POST',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    answered.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    req.write(head);
    for (let at = 0; at < HELD_AT; at += 64 * 1024) req.write(file.subarray(at, Math.min(at + 64 * 1024, HELD_AT)));

    // The client holds the rest back: a service that gathered the file before storing it would write nothing.
    for (let i = 0; (await written()) < HELD_AT - 4 * MB; i++) {
      if (i > 1_000) req.destroy();
      if (i > 1_000) throw new Error(`the store holds ${await written()} bytes of the ${HELD_AT} sent; the upload is not streamed`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // 20+ MB written and not yet collected would show here; what is in flight is well under 8 MB.
    const held = process.memoryUsage();
    expect((held.arrayBuffers - before.arrayBuffers) / MB, 'MB of Buffers held mid-upload').toBeLessThan(8);

    req.end(Buffer.concat([file.subarray(HELD_AT), tail]));
    const res = await answered;
    expect(res.status, res.body).toBe(200);
    const { url } = JSON.parse(res.body) as { url: string };
    const stored = await fs.readFile(path.join(objects, decodeURIComponent(new URL(url).pathname.replace('/files/', ''))));
    expect(stored.equals(file)).toBe(true);
  });

  it('stores the exact bytes of a file full of near-delimiters, sent in pieces that split them', async () => {
    const boundary = 'nearBoundary9c1e';
    // The delimiter with its last character changed, again and again: the parser keeps and cuts pieces of chunks here.
    const near = Buffer.from(`\r\n--${boundary.slice(0, -1)}X`);
    const png = await bigPng(64 * 1024);
    const file = Buffer.concat([png, ...Array.from({ length: 40_000 }, (_, i) => (i % 3 === 0 ? near : randomBytes(17)))]);
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="near.png"\r\nContent-Type: image/png\r\n\r\n`);
    const body = Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.baseUrl}/api/upload`, {
        method: 'POST',
        headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
      });
      req.on('response', (r) => {
        let text = '';
        r.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      for (let at = 0; at < body.length; at += 7_777) req.write(body.subarray(at, at + 7_777));
      req.end();
    });
    expect(res.status, res.body).toBe(200);
    const { url } = JSON.parse(res.body) as { url: string };
    const stored = await fs.readFile(path.join(t.dataDir, 'objects', new URL(url).pathname.replace('/files/', '')));
    expect(stored.equals(file)).toBe(true);
  });
});
