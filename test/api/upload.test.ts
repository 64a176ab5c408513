// POST /api/upload (docs/api.md, "Uploads and stored files"), on the local store and on each production driver.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzurite, type AzuriteHandle } from '../helpers/azurite.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startS3Server, type S3ServerHandle } from '../helpers/s3-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const png = (w = 32, h = 24) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 30, b: 60 } } }).png().toBuffer();
/** Random pixels: a PNG that does not compress (about 3 bytes a pixel). */
const noisy = (side: number) => sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();
const NAME = /\/(\d{13})-([0-9a-f]{12})-([A-Za-z0-9._-]+)$/;

/** A multipart body built by hand, so tests can send names and framing no FormData would. */
function multipart(parts: Array<{ field: string; filename?: string; type?: string; data: Buffer | string }>, boundary = 'XtestBoundaryX') {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.field}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`, 'latin1'));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const upload = (client: HttpClient, data: Buffer | string, filename = 'photo.png', type = 'image/png', field = 'file') => {
  const { body, headers } = multipart([{ field, filename, type, data }]);
  return client.request('/api/upload', { method: 'POST', body, headers });
};

async function objectFiles(t: TestApp): Promise<string[]> {
  const dir = path.join(t.dataDir, 'objects');
  const all = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return all.filter((f) => !f.startsWith('.meta')).sort();
}

describe.each([
  { driver: 'local' },
  { driver: 'azure' },
  { driver: 's3' },
])('upload on the $driver store', ({ driver }) => {
  let t: TestApp;
  let ada: { client: HttpClient };
  let azurite: AzuriteHandle | undefined;
  let s3: S3ServerHandle | undefined;

  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (driver === 'azure') {
      azurite = await startAzurite();
      env.OBJECT_STORAGE_CONNECTION_STRING = azurite.connectionString;
    }
    if (driver === 's3') {
      s3 = await startS3Server();
      env.OBJECT_STORAGE_CONNECTION_STRING = s3.connectionString;
      env.OBJECT_STORAGE_PUBLIC_URL = s3.publicUrl;
    }
    t = await startTestApp(env);
    ada = await t.user('ada@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await azurite?.stop();
    await s3?.stop();
  });

  it('stores the exact bytes with the detected type under a unique safe name, readable by anyone', async () => {
    const bytes = await png();
    const res = await upload(ada.client, bytes, 'My Photo (1).png');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['url']);
    const [, stamp, , safe] = NAME.exec(res.json.url)!;
    expect(Math.abs(Number(stamp) - Date.now())).toBeLessThan(60_000);
    expect(safe).toBe('MyPhoto1.png');
    const anon = await fetch(res.json.url); // no cookie: public read
    expect(anon.status).toBe(200);
    expect(anon.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await anon.arrayBuffer()).equals(bytes)).toBe(true);
  });

  // Only Azure here: s3rver cannot be stopped and restarted by the harness as cleanly, and the local folder cannot be down.
  if (driver === 'azure') it('answers 503 Storage unavailable while the store is down (issue 33)', async () => {
    await azurite!.stop();
    try {
      const res = await upload(ada.client, await png());
      expect(res).toMatchObject({ status: 503, json: { error: 'Storage unavailable', details: 'the object store could not be reached' } });
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
      expect((await t.client().get('/api/ready')).json.checks.storage).toBe('unavailable');
    } finally {
      azurite = undefined;
    }
  });
});

describe('upload rules (local store)', () => {
  let t: TestApp;
  let ada: { client: HttpClient };
  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_MAX_BYTES: String(200_000), RATE_LIMIT_UPLOADS_PER_MINUTE: '1000' });
    ada = await t.user('ada@example.com');
  });
  afterAll(() => t?.close());

  it('serves stored files with nosniff, a restrictive CSP and immutable caching', async () => {
    const res = await upload(ada.client, await png());
    const file = await fetch(res.json.url);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(file.headers.get('cache-control')).toContain('immutable');
    expect(res.json.url.startsWith(`${t.baseUrl}/files/`)).toBe(true);
  });

  it('401 without a session; 400 No file provided without a `file` part', async () => {
    expect(await upload(t.client(), await png())).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await upload(ada.client, await png(), 'a.png', 'image/png', 'picture')).toMatchObject({ status: 400, json: { error: 'No file provided' } });
    const onlyText = multipart([{ field: 'file', data: 'just text' }]);
    expect(await ada.client.request('/api/upload', { method: 'POST', ...onlyText })).toMatchObject({ status: 400, json: { error: 'No file provided' } });
    expect(await ada.client.post('/api/upload', { file: 'x' })).toMatchObject({ status: 400, json: { error: 'No file provided' } });
    expect(await objectFiles(t)).not.toContainEqual(expect.stringContaining('a.png'));
  });

  it('413 File too large, with nothing left behind', async () => {
    const before = await objectFiles(t);
    const big = await noisy(300);
    expect(big.length).toBeGreaterThan(200_000);
    expect(await upload(ada.client, big)).toMatchObject({ status: 413, json: { error: 'File too large' } });
    expect(await objectFiles(t)).toEqual(before);
  });

  it('accepts raster images by their bytes, whatever they are called; refuses everything else (SVG: test/api/upload-svg.test.ts)', async () => {
    const before = await objectFiles(t);
    for (const [data, name, type] of [
      ['Draw it with <svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'x.svg', 'image/svg+xml'],
      ['<!doctype html><html><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/></html>', 'x.png', 'image/png'],
      ['<!doctype html><html><script>alert(1)</script></html>', 'x.png', 'image/png'],
      ['', 'empty.png', 'image/png'],
      ['hello world', 'x.txt', 'text/plain'],
      [Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n'), 'x.png', 'image/png'],
    ] as const) {
      const res = await upload(ada.client, data, name, type);
      expect(res, name).toMatchObject({ status: 400, json: { error: 'Unsupported file type' } });
    }
    expect(await objectFiles(t)).toEqual(before);

    const renamed = await upload(ada.client, await png(), 'actually.svg', 'image/svg+xml');
    expect(renamed.status).toBe(200);
    expect(renamed.json.url).toMatch(/-actually\.png$/);
    expect((await fetch(renamed.json.url)).headers.get('content-type')).toBe('image/png');
    const jpeg = await upload(ada.client, await sharp(await png()).jpeg().toBuffer(), 'p.jpeg', 'image/png');
    expect((await fetch(jpeg.json.url)).headers.get('content-type')).toBe('image/jpeg');
    const webp = await upload(ada.client, await sharp(await png()).webp().toBuffer(), 'p', 'application/octet-stream');
    expect(webp.json.url).toMatch(/-p\.webp$/);
  });

  it('makes hostile names safe and keeps every file inside the store', async () => {
    const bytes = await png();
    const names = ['../../x.png', '/etc/passwd', 'C:\\Windows\\evil.png', 'a\u0000b.png', 'tab\there\u0001\u007f.png', '…ünïcødé 图片.png', 'x'.repeat(4000) + '.png', '.hidden.png', '..png'];
    for (const name of names) {
      const res = await upload(ada.client, bytes, name);
      expect(res.status, name).toBe(200);
      const safe = NAME.exec(res.json.url)![3];
      expect(safe.length).toBeLessThanOrEqual(100);
      expect(safe).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*\.png$/);
      expect(Buffer.from(await (await fetch(res.json.url)).arrayBuffer()).equals(bytes)).toBe(true);
    }
    const escaped = await fs.readdir(t.dataDir);
    expect(escaped.sort()).toEqual(['objects', 'postgres', 'secrets', 'service.lock'].filter((n) => escaped.includes(n)));
    expect(escaped).not.toContain('x.png');
  });

  it('gives two uploads of one name at the same moment two URLs', async () => {
    const bytes = await png();
    const results = await Promise.all(Array.from({ length: 10 }, () => upload(ada.client, bytes, 'same.png')));
    const urls = results.map((r) => r.json.url);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(urls).size).toBe(10);
  });

  it('answers a truncated multipart body with 400 and stores nothing', async () => {
    const before = await objectFiles(t);
    const { body, headers } = multipart([{ field: 'file', filename: 'cut.png', type: 'image/png', data: await png(200, 200) }]);
    const cut = body.subarray(0, body.length - 200); // no closing boundary, file part unfinished
    const res = await ada.client.request('/api/upload', { method: 'POST', body: cut, headers });
    expect(res.status).toBe(400);
    expect(await objectFiles(t)).toEqual(before);
  });

  it('leaves nothing behind when the client goes away mid-upload', async () => {
    const before = await objectFiles(t);
    const objects = path.join(t.dataDir, 'objects');
    const temps = async () => (await fs.readdir(objects)).filter((f) => f.startsWith('.tmp'));
    const until = async (what: string, done: () => Promise<boolean>) => {
      // Bounded by the test's own timeout, not by a guess of how fast a busy machine cleans up.
      for (let i = 0; i < 2_000; i++) if (await done()) return;
      else await new Promise((r) => setTimeout(r, 25));
      throw new Error(`gave up waiting for ${what}`);
    };
    const { body, headers } = multipart([{ field: 'file', filename: 'abandoned.png', type: 'image/png', data: await noisy(250) }]);
    expect(body.length).toBeGreaterThan(150_000);
    const cookie = await ada.client.jar.getCookieString(t.baseUrl);
    const req = http.request(`${t.baseUrl}/api/upload`, { method: 'POST', headers: { ...headers, cookie, 'content-length': String(body.length) } });
    const closed = new Promise((resolve) => req.on('close', resolve));
    req.on('error', () => {});
    req.write(body.subarray(0, 60_000));
    // Ordered, not timed: abort only once the server is visibly writing into the store.
    await until('the upload to reach the store', async () => (await temps()).length > 0);
    req.destroy();
    await closed;
    await until('the server to clean up', async () => (await temps()).length === 0);
    expect(await objectFiles(t)).toEqual(before);
    expect((await upload(ada.client, await png())).status).toBe(200); // and the service is fine
  });
});

describe('upload rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_UPLOADS_PER_MINUTE: '3' });
  });
  afterAll(() => t?.close());

  it('answers 429 Too many requests with Retry-After past the per-user limit; other users are not affected', async () => {
    const [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
    const bytes = await png();
    for (let i = 0; i < 3; i++) expect((await upload(ada.client, bytes)).status).toBe(200);
    const limited = await upload(ada.client, bytes);
    expect(limited).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await upload(bob.client, bytes)).status).toBe(200);
  });

  it('counts per user, not per session or address: a second sign-in of the same person shares the count', async () => {
    const [first, second] = await Promise.all([t.user('cy@example.com'), t.user('cy@example.com')]);
    expect(second.id).toBe(first.id);
    const bytes = await png();
    for (let i = 0; i < 3; i++) expect((await upload(i % 2 ? second.client : first.client, bytes)).status).toBe(200);
    expect(await upload(second.client, bytes)).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
  });
});

describe('upload rate limit by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('lets one user drop 100 images at once (120 a minute), three at a time as the web client sends them', async () => {
    const ada = await t.user('ada@example.com');
    const bytes = await png();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 3) {
      const batch = await Promise.all(Array.from({ length: Math.min(3, 100 - i) }, () => upload(ada.client, bytes)));
      statuses.push(...batch.map((r) => r.status));
    }
    expect(statuses).toEqual(Array(100).fill(200));
    expect(t.config.limits).toMatchObject({ uploadsPerMinute: 120, uploadsWindowSeconds: 60 });
  });
});

describe('upload rate limit in a window of its own (RATE_LIMIT_UPLOADS_WINDOW_SECONDS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_UPLOADS_PER_MINUTE: '3', RATE_LIMIT_UPLOADS_WINDOW_SECONDS: '5' });
  });
  afterAll(() => t?.close());

  it('refuses past the limit with a Retry-After within the window, and takes the file again once that has passed', async () => {
    const ada = await t.user('ada@example.com');
    const bytes = await png();
    const answers = await Promise.all(Array.from({ length: 5 }, () => upload(ada.client, bytes)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429]);
    const limited = answers.find((r) => r.status === 429)!;
    expect(limited.json).toEqual({ error: 'Too many requests' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(5);
    // The service's own Retry-After, not a guess: once it has passed, the same file is taken.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await upload(ada.client, bytes)).status).toBe(200);
  });
});
