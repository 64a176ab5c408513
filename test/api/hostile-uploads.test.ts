// Hostile uploads (POST /api/upload, docs/api.md "Uploads and stored files"): broken and abusive multipart
// bodies, sizes at the limit, slow bodies and SVG bombs, as a table. Every case is sent over raw HTTP (node:http
// sends framing exactly as given) and must get a 4xx naming the problem in our JSON shape, with the object store's
// folder exactly as before (no object, no metadata, no temp file). Deadlines are short here so that slow bodies
// meet them; the client waits for the answer, never a fixed time.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const LIMIT = 64 * 1024;
const NS = 'xmlns="http://www.w3.org/2000/svg"';
const BOUNDARY = 'HostileUploadBoundary3f9a';

interface Answer {
  status: number;
  json: { error?: string; details?: unknown } | undefined;
  text: string;
}

interface Upload {
  /** The body in the pieces it is written in. */
  pieces: Buffer[];
  /** The Content-Type header; default multipart/form-data with BOUNDARY. */
  type?: string;
  /** Send without a Content-Length (chunked). */
  chunked?: boolean;
  /** Declare this Content-Length instead of the body's. */
  length?: number;
  /** After the pieces, keep the request open without ending it (a stalled client). */
  stall?: boolean;
  /** After the pieces, send one more byte every 100 ms until answered (a slow client). */
  trickle?: boolean;
}

let t: TestApp;
let cookie: string;

function send(u: Upload): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const size = u.pieces.reduce((n, p) => n + p.length, 0);
    const headers: Record<string, string> = { cookie, 'content-type': u.type ?? `multipart/form-data; boundary=${BOUNDARY}` };
    if (!u.chunked) headers['content-length'] = String(u.length ?? size);
    let answered = false;
    const req = http.request(`${t.baseUrl}/api/upload`, { method: 'POST', headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        let json: Answer['json'];
        try {
          json = JSON.parse(text) as Answer['json'];
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
        req.destroy();
      });
    });
    // The service may answer (413) and close before the whole body is written: that answer counts.
    req.on('error', (err) => answered || reject(err));
    req.on('close', () => answered || reject(new Error('connection closed without an answer')));
    for (const piece of u.pieces) req.write(piece);
    if (u.trickle) {
      // The client's pace, not a wait: whatever the timer's precision, the deadlines end it.
      const drip = setInterval(() => (answered || req.destroyed ? clearInterval(drip) : req.write('x')), 100);
      req.on('close', () => clearInterval(drip));
    } else if (!u.stall) req.end();
  });
}

/** A part's header and body, without the delimiter that ends it. */
const part = (disposition: string, data: Buffer | string, type?: string) =>
  Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`), Buffer.from(data), Buffer.from('\r\n')]);
const filePart = (data: Buffer | string, filename = 'x.png', type = 'image/png') => part(`form-data; name="file"; filename="${filename}"`, data, type);
const end = Buffer.from(`--${BOUNDARY}--\r\n`);
const svg = (body: string) => Buffer.from(body);

async function storeEntries(): Promise<string[]> {
  const all = await fs.readdir(path.join(t.dataDir, 'objects'), { recursive: true }).catch(() => [] as string[]);
  return all.sort();
}

describe('hostile uploads', () => {
  let png: Buffer;
  /** A PNG of exactly `size` bytes (a valid start, then filler): accepted by type, judged only by its size. */
  const pngOf = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length, 0x5a)]);

  beforeAll(async () => {
    t = await startTestApp({
      UPLOAD_MAX_BYTES: String(LIMIT),
      RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
      SVG_MAX_PIXELS: String(1024 * 1024),
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '3000',
      HTTP_LARGE_BODY_TIMEOUT_MS: '3000',
      HTTP_BODY_IDLE_TIMEOUT_MS: '1000',
      HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: '1000',
    });
    cookie = await (await t.user('mallory@example.com')).client.jar.getCookieString(t.baseUrl);
    png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#0a0' } }).png().toBuffer();
  });
  afterAll(() => t?.close());

  const cases: Array<{ name: string; upload: () => Upload; status: number; error: string; details?: RegExp }> = [
    { name: 'truncated: the file part cut off mid-body, no closing delimiter', upload: () => ({ pieces: [filePart(pngOf(20_000)).subarray(0, 12_000)] }), status: 400, error: 'Upload was interrupted' },
    { name: 'truncated: the closing delimiter cut in half', upload: () => ({ pieces: [filePart(pngOf(20_000)), end.subarray(0, 10)] }), status: 400, error: 'Upload was interrupted' },
    { name: 'slow body: the client stops before the closing delimiter', upload: () => ({ pieces: [filePart(pngOf(20_000))], length: 40_000, stall: true }), status: 408, error: 'Request timeout' },
    { name: 'slow body: the client stops mid-file', upload: () => ({ pieces: [filePart(pngOf(20_000)).subarray(0, 9_000)], length: 40_000, stall: true }), status: 408, error: 'Request timeout' },
    { name: 'slow body: a byte every 100 ms, past the request deadline', upload: () => ({ pieces: [filePart(pngOf(20_000)).subarray(0, 9_000)], length: 40_000, trickle: true }), status: 408, error: 'Request timeout' },
    { name: 'size one byte over UPLOAD_MAX_BYTES', upload: () => ({ pieces: [filePart(pngOf(LIMIT + 1)), end] }), status: 413, error: 'File too large' },
    { name: 'size one byte over UPLOAD_MAX_BYTES, chunked (no Content-Length)', upload: () => ({ pieces: [filePart(pngOf(LIMIT + 1)), end], chunked: true }), status: 413, error: 'File too large' },
    { name: 'size far over the limit, declared up front (1 GB Content-Length)', upload: () => ({ pieces: [filePart(pngOf(LIMIT + 1))], length: 2 ** 30 }), status: 413, error: 'File too large' },
    { name: 'an SVG one byte over UPLOAD_MAX_BYTES', upload: () => ({ pieces: [filePart(`<svg ${NS} width="9" height="9"><!--${'x'.repeat(LIMIT)}--></svg>`.slice(0, LIMIT + 1), 'x.svg', 'image/svg+xml'), end] }), status: 413, error: 'File too large' },
    { name: 'boundary: declared, never used in the body', upload: () => ({ pieces: [Buffer.from(filePart(png).toString('latin1').replace(BOUNDARY, 'SomethingElse'), 'latin1'), end] }), status: 400, error: 'No file provided' },
    { name: 'boundary: none declared', upload: () => ({ pieces: [filePart(png), end], type: 'multipart/form-data' }), status: 400, error: 'No file provided' },
    { name: 'boundary: over 70 characters', upload: () => ({ pieces: [filePart(png), end], type: `multipart/form-data; boundary=${'b'.repeat(200)}` }), status: 400, error: 'No file provided' },
    { name: 'boundary: the delimiter without its CRLF, inside the file (the file never ends)', upload: () => ({ pieces: [Buffer.from(filePart(png).toString('latin1').replace(/\r\n$/, ''), 'latin1'), Buffer.from(`--${BOUNDARY}--`)] }), status: 400, error: 'Upload was interrupted' },
    { name: 'many parts: 30 empty fields before the file', upload: () => ({ pieces: [...Array.from({ length: 30 }, (_, i) => part(`form-data; name="f${i}"`, '')), filePart(png), end] }), status: 400, error: 'No file provided' },
    { name: 'many parts: 12 fields, then a part that is not the file', upload: () => ({ pieces: [...Array.from({ length: 12 }, (_, i) => part(`form-data; name="f${i}"`, 'v')), part('form-data; name="image"; filename="x.png"', png, 'image/png'), end] }), status: 400, error: 'No file provided' },
    { name: 'part headers: 200 header lines', upload: () => ({ pieces: [Buffer.from(`--${BOUNDARY}\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: v\r\n`).join('')}Content-Disposition: form-data; name="file"; filename="x.png"\r\n\r\n`), png, Buffer.from('\r\n'), end] }), status: 400, error: 'No file provided' },
    { name: 'part headers: no Content-Disposition', upload: () => ({ pieces: [Buffer.from(`--${BOUNDARY}\r\nContent-Type: image/png\r\n\r\n`), png, Buffer.from('\r\n'), end] }), status: 400, error: 'No file provided' },
    { name: 'not multipart: the PNG as the raw body', upload: () => ({ pieces: [png], type: 'application/octet-stream' }), status: 415, error: 'Unsupported content type' },
    { name: 'empty file', upload: () => ({ pieces: [filePart(''), end] }), status: 400, error: 'Unsupported file type', details: /empty/ },
    { name: 'SVG bomb: 100,000 × 100,000 pixels declared', upload: () => ({ pieces: [filePart(svg(`<svg ${NS} width="100000" height="100000"><rect width="9" height="9"/></svg>`), 'x.svg', 'image/svg+xml'), end] }), status: 400, error: 'Image too large' },
    {
      name: 'SVG bomb: nested entities (billion laughs)',
      upload: () => {
        const entities = ['<!ENTITY a0 "lollollollollol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i};`.repeat(10)}">`)].join('');
        return { pieces: [filePart(svg(`<?xml version="1.0"?><!DOCTYPE svg [${entities}]><svg ${NS} width="9" height="9"><text y="9">&a9;</text></svg>`), 'x.svg', 'image/svg+xml'), end] };
      },
      status: 400,
      error: 'Invalid image',
    },
    { name: 'SVG bomb: 5,000 nested groups', upload: () => ({ pieces: [filePart(svg(`<svg ${NS} width="9" height="9">${'<g>'.repeat(5_000)}<rect width="9" height="9"/>${'</g>'.repeat(5_000)}</svg>`), 'x.svg', 'image/svg+xml'), end] }), status: 400, error: 'Invalid image' },
  ];

  it.each(cases)('$name → $status $error, nothing stored', async ({ upload, status, error, details }) => {
    const before = await storeEntries();
    const res = await send(upload());
    expect(res.status, res.text).toBe(status);
    expect(res.json?.error, res.text).toBe(error);
    if (details) expect(JSON.stringify(res.json?.details)).toMatch(details);
    // A part the service stopped reading is cleaned up when its stream fails; wait for that, not for a time.
    for (let i = 0; (await storeEntries()).some((e) => e.startsWith('.tmp-')); i++) {
      if (i > 400) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await storeEntries()).toEqual(before);
  });

  it('still takes a file of exactly UPLOAD_MAX_BYTES afterwards', async () => {
    const res = await send({ pieces: [filePart(pngOf(LIMIT)), end] });
    expect(res.status, res.text).toBe(200);
  });
});
