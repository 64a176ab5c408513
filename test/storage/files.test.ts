// GET/HEAD /files/<name>: the local driver's objects served read-only, through Fastify inject().
import Fastify, { type FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { localFilesPlugin, parseRange } from '../../src/http/files.js';
import { LocalObjectStore } from '../../src/storage/local-object-store.js';

const CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox";

describe('local files route', () => {
  let dir: string;
  let app: FastifyInstance;
  let store: LocalObjectStore;
  const bytes = randomBytes(5000);
  const name = '1700000000000-abc123-photo.png';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'files-route-'));
    store = new LocalObjectStore(join(dir, 'objects'), 'http://localhost:3000');
    await store.init();
    await store.put(name, bytes, { contentType: 'image/png', maxBytes: 10_000 });
    // Something outside the store a traversal would like to reach.
    await writeFile(join(dir, 'secret.txt'), 'do not serve');
    app = Fastify();
    registerErrorHandler(app); // the app's one error mapping answers the plugin's 404s
    await app.register(localFilesPlugin, { store });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  it('serves the bytes with the stored type and protective headers', async () => {
    const res = await get(`/files/${name}`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': '5000',
      'x-content-type-options': 'nosniff',
      'content-security-policy': CSP,
      'cache-control': 'public, max-age=31536000, immutable',
      'accept-ranges': 'bytes',
    });
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(new Date(String(res.headers['last-modified'])).getTime()).not.toBeNaN();
  });

  it('answers HEAD with the same headers and no body', async () => {
    const res = await app.inject({ method: 'HEAD', url: `/files/${name}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('5000');
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.payload).toBe('');
  });

  it.each([
    '/files/missing.png',
    '/files/..%2F..%2Fetc%2Fpasswd',
    '/files/..%2Fsecret.txt',
    '/files/%2e%2e%2fsecret.txt',
    '/files/a/b.png',
    '/files/.meta',
    `/files/.meta/${name}.json`,
    '/files/.meta%2F' + name + '.json',
    '/files/',
    '/files/%00',
    '/files/x%20y.png',
  ])('answers 404 JSON for %s', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.payload).not.toContain('do not serve');
  });

  it('never reaches outside the store through dot segments (normalised away before routing)', async () => {
    const res = await get('/files/../secret.txt');
    expect(res.statusCode).toBe(404);
    expect(res.payload).not.toContain('do not serve');
  });

  it('answers 304 when the ETag matches', async () => {
    const { etag } = (await get(`/files/${name}`)).headers as { etag: string };
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get(`/files/${name}`, { 'if-none-match': ifNoneMatch });
      expect(res.statusCode, ifNoneMatch).toBe(304);
      expect(res.payload).toBe('');
      expect(res.headers.etag).toBe(etag);
    }
    expect((await get(`/files/${name}`, { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=4990-', 4990, 4999],
    ['bytes=-100', 4900, 4999],
    ['bytes=4000-999999', 4000, 4999],
    ['bytes=-999999', 0, 4999],
  ])('serves the single range %s', async (range, start, end) => {
    const res = await get(`/files/${name}`, { range });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/5000`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it.each(['bytes=5000-', 'bytes=6000-7000', 'bytes=-0'])('answers 416 for unsatisfiable %s', async (range) => {
    const res = await get(`/files/${name}`, { range });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */5000');
  });

  it.each(['bytes=9-0', 'bytes=0-1,5-6', 'items=0-5', 'bytes=abc', 'bytes=-'])(
    'ignores the malformed or multiple range %s and serves everything',
    async (range) => {
      const res = await get(`/files/${name}`, { range });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(bytes)).toBe(true);
    },
  );

  it('honours If-Range: a stale validator gets the whole object', async () => {
    const { etag } = (await get(`/files/${name}`)).headers as { etag: string };
    expect((await get(`/files/${name}`, { range: 'bytes=0-9', 'if-range': etag })).statusCode).toBe(206);
    expect((await get(`/files/${name}`, { range: 'bytes=0-9', 'if-range': '"stale"' })).statusCode).toBe(200);
  });

  it('answers a ranged HEAD with the range length', async () => {
    const res = await app.inject({ method: 'HEAD', url: `/files/${name}`, headers: { range: 'bytes=10-19' } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-length']).toBe('10');
    expect(res.payload).toBe('');
  });

  it('serves an empty object', async () => {
    await store.put('empty.png', Buffer.alloc(0), { contentType: 'image/png', maxBytes: 10 });
    const res = await get('/files/empty.png');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect((await get('/files/empty.png', { range: 'bytes=0-' })).statusCode).toBe(416);
  });
});

describe('parseRange', () => {
  it('reads one range and ignores what it does not understand', () => {
    expect(parseRange(undefined, 10)).toBeNull();
    expect(parseRange('bytes=2-4', 10)).toEqual({ start: 2, end: 4 });
    expect(parseRange(' bytes=2-4 ', 10)).toEqual({ start: 2, end: 4 });
    expect(parseRange('bytes=2-', 10)).toEqual({ start: 2, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-1', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=1-2,4-5', 10)).toBeNull();
    expect(parseRange('bytes=+1-2', 10)).toBeNull();
  });
});
