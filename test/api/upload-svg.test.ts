// SVG uploads (docs/api.md "Uploads and stored files"): recognised from their first bytes, rasterized to PNG and
// stored as PNG (never as SVG), bounded in pixels, and never fetching anything they reference.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
const UPLOAD_MAX_BYTES = 200_000;
const SVG_MAX_PIXELS = 1_000_000;

let t: TestApp;
let ada: { client: HttpClient };
/** A loopback server that counts every request an SVG's references would make. */
let bait: http.Server;
let baitUrl: string;
const baitRequests: string[] = [];
let tmp: string;

function upload(data: Buffer | string, filename = 'drawing.svg', type = 'image/svg+xml') {
  const boundary = 'XsvgBoundaryX';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    Buffer.from(data),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return ada.client.request('/api/upload', { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
}

async function objectFiles(): Promise<string[]> {
  const all = await fs.readdir(path.join(t.dataDir, 'objects')).catch(() => [] as string[]);
  return all.filter((f) => !f.startsWith('.')).sort();
}

/** The stored file behind a URL: its type as served, and its pixels' format and size. */
async function served(url: string) {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  return { status: res.status, type: res.headers.get('content-type'), bytes, format: meta.format, width: meta.width, height: meta.height };
}

beforeAll(async () => {
  bait = http.createServer((req, res) => {
    baitRequests.push(req.url ?? '');
    res.setHeader('content-type', 'image/png');
    res.end();
  });
  await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
  baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'svg-upload-'));
  await fs.writeFile(path.join(tmp, 'secret.png'), await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).png().toBuffer());
  t = await startTestApp({ UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES), SVG_MAX_PIXELS: String(SVG_MAX_PIXELS), RATE_LIMIT_UPLOADS_PER_MINUTE: '1000' });
  ada = await t.user('ada@example.com');
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => bait?.close(resolve));
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('SVG uploads', () => {
  it('stores a small SVG as a PNG of its declared size, under a .png name; the stored file is never SVG', async () => {
    const svg = `<svg ${NS} width="64" height="40"><rect width="64" height="40" fill="#36c"/><circle cx="20" cy="20" r="10" fill="#fff"/></svg>`;
    const res = await upload(svg, 'My Drawing.svg');
    expect(res.status).toBe(200);
    expect(res.json.url).toMatch(/\/\d{13}-[0-9a-f]{12}-MyDrawing\.png$/);
    const file = await served(res.json.url as string);
    expect(file).toMatchObject({ status: 200, type: 'image/png', format: 'png', width: 64, height: 40 });
    expect(file.bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    const name = (res.json.url as string).split('/').pop()!;
    const meta = JSON.parse(await fs.readFile(path.join(t.dataDir, 'objects', '.meta', `${name}.json`), 'utf8')) as { contentType: string };
    expect(meta.contentType).toBe('image/png');
    expect((await fs.readFile(path.join(t.dataDir, 'objects', name))).toString('latin1')).not.toMatch(/<svg/);
  });

  it('recognises an SVG behind a BOM, an XML declaration, comments and a DOCTYPE, whatever its name or declared type', async () => {
    const svg =
      '\uFEFF<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- Created with an editor -->\n' +
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [\n  <!ENTITY fill "#c60">\n]>\n' +
      `<!-- another -->\n<svg ${NS} viewBox="0 0 30 20"><rect width="30" height="20" fill="&fill;"/></svg>\n`;
    const res = await upload(svg, 'picture.png', 'application/octet-stream');
    expect(res.status).toBe(200);
    expect(res.json.url).toMatch(/-picture\.png$/);
    expect(await served(res.json.url as string)).toMatchObject({ type: 'image/png', format: 'png', width: 30, height: 20 });
  });

  it('refuses an SVG declaring more pixels than SVG_MAX_PIXELS (400 Image too large, naming the limit); nothing stored', async () => {
    const before = await objectFiles();
    const res = await upload(`<svg ${NS} width="100000" height="100000"><rect width="10" height="10"/></svg>`);
    expect(res).toMatchObject({ status: 400, json: { error: 'Image too large', details: `the SVG is 100000×100000 pixels; at most ${SVG_MAX_PIXELS} pixels are rasterized` } });
    expect(await objectFiles()).toEqual(before);
  });

  it('refuses a malformed SVG with 400 Invalid image saying why; nothing stored', async () => {
    const before = await objectFiles();
    const malformed = await upload(`<svg ${NS} width="10" height="10"><g><rect width="5" height="5"></svg>`);
    expect(malformed).toMatchObject({ status: 400, json: { error: 'Invalid image', details: expect.stringMatching(/^the SVG could not be read: .*tag mismatch/) } });
    const sizeless = await upload(`<svg ${NS}><script>alert(1)</script></svg>`);
    expect(sizeless).toMatchObject({ status: 400, json: { error: 'Invalid image', details: 'the SVG could not be read: it has no usable width and height (nor viewBox)' } });
    expect(await objectFiles()).toEqual(before);
  });

  it('refuses an SVG over UPLOAD_MAX_BYTES with 413 File too large', async () => {
    const big = `<svg ${NS} width="10" height="10"><!-- ${'x'.repeat(UPLOAD_MAX_BYTES)} --></svg>`;
    expect(await upload(big)).toMatchObject({ status: 413, json: { error: 'File too large' } });
  });

  it('never fetches what an SVG references (http, xlink, file:, CSS, filters, entities); the upload still succeeds', async () => {
    const secret = `file://${path.join(tmp, 'secret.png')}`;
    const referencing = [
      `<svg ${NS} width="20" height="20"><image href="${baitUrl}/image.png" width="20" height="20"/></svg>`,
      `<svg ${NS} width="20" height="20"><image xlink:href="${baitUrl}/xlink.png" width="20" height="20"/></svg>`,
      `<svg ${NS} width="20" height="20"><image href="${secret}" width="20" height="20"/><image xlink:href="${path.join(tmp, 'secret.png')}" width="20" height="20"/></svg>`,
      `<svg ${NS} width="20" height="20"><use href="${baitUrl}/use.svg#x"/></svg>`,
      `<svg ${NS} width="20" height="20"><style>@import url(${baitUrl}/import.css); rect { fill: url(${baitUrl}/paint.svg#p) }</style><rect width="4" height="4"/></svg>`,
      `<svg ${NS} width="20" height="20"><filter id="f"><feImage href="${baitUrl}/fe.png"/></filter><rect width="20" height="20" filter="url(#f)"/></svg>`,
    ];
    /** Whether the stored picture has any visible red (the referenced square). */
    const drawsRed = async (svg: string) => {
      const res = await upload(svg);
      expect(res.status, svg).toBe(200);
      const file = await served(res.json.url as string);
      expect(file.format).toBe('png');
      const { data, info } = await sharp(file.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return data.some((v, i) => i % info.channels === 0 && v > 200 && data[i + 1] < 50 && data[i + 3] > 0);
    };
    // The check sees the square when it is embedded in the SVG itself (a data: URL is part of the document)…
    const embedded = `data:image/png;base64,${(await fs.readFile(path.join(tmp, 'secret.png'))).toString('base64')}`;
    expect(await drawsRed(`<svg ${NS} width="20" height="20"><image href="${embedded}" width="20" height="20"/></svg>`)).toBe(true);
    // …and never when it is referenced.
    for (const svg of referencing) expect(await drawsRed(svg), svg).toBe(false);
    // An external entity is not loaded either: the document does not parse (400), nothing is fetched.
    const entity = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY ext SYSTEM "${baitUrl}/entity.xml">]><svg ${NS} width="20" height="20"><text y="10">&ext;</text></svg>`;
    expect(await upload(entity)).toMatchObject({ status: 400, json: { error: 'Invalid image' } });
    // A stylesheet processing instruction is not part of what is recognised as an SVG: refused as not an image.
    expect(await upload(`<?xml-stylesheet href="${baitUrl}/pi.css"?><svg ${NS} width="20" height="20"/>`)).toMatchObject({ status: 400, json: { error: 'Unsupported file type' } });
    expect(baitRequests).toEqual([]);
  });

  it('keeps refusing text that only mentions <svg, with the usual message', async () => {
    const before = await objectFiles();
    for (const text of ['Use <svg width="10" height="10"/> for icons', '<!doctype html><html><body><svg width="10" height="10"></svg></body></html>', '<?xml version="1.0"?><page><svg/></page>']) {
      expect(await upload(text, 'notes.svg'), text).toMatchObject({ status: 400, json: { error: 'Unsupported file type' } });
    }
    expect(await objectFiles()).toEqual(before);
  });
});
