// Canvas saves carrying images inline, as data: URLs in `data.image` (docs/api.md "Canvas"): each is stored as a
// file by the upload rules, named by its content, and the node keeps the file's URL; the body may exceed
// CANVAS_MAX_BYTES by its images only (up to CANVAS_MAX_BODY_BYTES), the stored canvas may not.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const UPLOAD_MAX_BYTES = 300_000;
const CANVAS_MAX_BYTES = 64 * 1024;
const CANVAS_MAX_BODY_BYTES = 1024 * 1024;

let t: TestApp;
let ada: { client: HttpClient; id: string };
let bob: { client: HttpClient; id: string };

const png = (w = 16, h = 12, background = '#2a6') => sharp({ create: { width: w, height: h, channels: 3, background } }).png().toBuffer();
/** Random pixels: a PNG that does not compress (about 3 bytes a pixel). */
const noisy = (side: number) => sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();
const dataUrl = (bytes: Buffer | string, type = 'image/png') => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
const node = (id: string, image?: string) => ({ id, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', ...(image === undefined ? {} : { image }) } });
const project = async (who: { client: HttpClient; id: string }) => (await who.client.post('/api/user/project', { userId: who.id, name: 'P' })).json.id as string;
const canvasOf = async (projectId: string) => (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json as { nodes: Array<{ data: { image?: string } }>; version: number } | null;

/** The files in the local store. */
async function objectFiles(): Promise<string[]> {
  const all = await fs.readdir(path.join(t.dataDir, 'objects')).catch(() => [] as string[]);
  return all.filter((f) => !f.startsWith('.')).sort();
}

beforeAll(async () => {
  t = await startTestApp({
    UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
    CANVAS_MAX_BYTES: String(CANVAS_MAX_BYTES),
    CANVAS_MAX_BODY_BYTES: String(CANVAS_MAX_BODY_BYTES),
    SVG_MAX_PIXELS: String(1000 * 1000),
  });
  [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
});
afterAll(() => t?.close());

describe('canvas images sent as data: URLs', () => {
  it('stores a PNG data URL as a file and keeps its public URL in the node; the file serves the PNG', async () => {
    const projectId = await project(ada);
    const bytes = await png();
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', dataUrl(bytes)), node('b', 'https://img.example/b.png')], edges: [], version: 0 });
    expect(saved.status).toBe(200);
    const url = saved.json.nodes[0].data.image as string;
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/files/content-[0-9a-f]{64}\\.png$`));
    expect(saved.json.nodes[1].data.image).toBe('https://img.example/b.png');
    expect((await canvasOf(projectId))!.nodes[0].data.image).toBe(url);
    const file = await fetch(url); // public: no cookie
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('stores one file however often a client re-sends the same image (auto-save)', async () => {
    const projectId = await project(ada);
    const image = dataUrl(await png(20, 20, '#c33'));
    const before = await objectFiles();
    let version = 0;
    const urls = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', image), node(`moved-${i}`)], edges: [], version });
      expect(saved.status).toBe(200);
      version = saved.json.version as number;
      urls.add(saved.json.nodes[0].data.image as string);
    }
    expect(version).toBe(10);
    expect(urls.size).toBe(1);
    const added = (await objectFiles()).filter((f) => !before.includes(f));
    expect(added).toEqual([[...urls][0].split('/').pop()]);
    // Ten saves at once, too.
    const other = dataUrl(await png(21, 21, '#3c3'));
    const results = await Promise.all(Array.from({ length: 10 }, () => ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', other)], edges: [] })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.json.nodes[0].data.image)).size).toBe(1);
    expect((await objectFiles()).filter((f) => !before.includes(f))).toHaveLength(2);
  });

  it('stores an SVG data URL as the PNG it rasterizes to', async () => {
    const projectId = await project(ada);
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32"><rect width="48" height="32" fill="#08f"/></svg>';
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('s', dataUrl(svg, 'image/svg+xml'))], edges: [] });
    expect(saved.status).toBe(200);
    const url = saved.json.nodes[0].data.image as string;
    expect(url).toMatch(/\/content-[0-9a-f]{64}\.png$/);
    const file = await fetch(url);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(await sharp(Buffer.from(await file.arrayBuffer())).metadata()).toMatchObject({ format: 'png', width: 48, height: 32 });
  });

  it('refuses a bad data URL with 400 naming the node and the problem; nothing is stored', async () => {
    const projectId = await project(ada);
    await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('kept')], edges: [] });
    const good = dataUrl(await png(9, 9, '#999'));
    const cases: Array<[string, string]> = [
      ['data:image/png,not-base64', 'not a base64 data URL (data:<type>;base64,<data>)'],
      ['data:image/png;base64,', 'the data URL is empty'],
      ['data:image/png;base64,***', 'malformed data URL: not valid base64'],
      [dataUrl(await noisy(330)), `the image is larger than ${UPLOAD_MAX_BYTES} bytes (the upload limit)`],
      [dataUrl('hello, world'), 'Unsupported file type: the file is not a recognised raster image'],
      [dataUrl('<!doctype html><html><script>alert(1)</script></html>', 'image/png'), 'Unsupported file type: the file is not a recognised raster image'],
      [dataUrl('<svg xmlns="http://www.w3.org/2000/svg" width="10"', 'image/svg+xml'), 'Invalid image: the SVG could not be read'],
      [dataUrl('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>', 'image/svg+xml'), 'Image too large: the SVG is 100000×100000 pixels; at most 1000000 pixels are rasterized'],
    ];
    const before = await objectFiles();
    for (const [image, reason] of cases) {
      const res = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('first', good), node('the-bad-one', image)], edges: [] });
      expect(res.status, reason).toBe(400);
      expect(res.json.error).toBe('Invalid image in node the-bad-one');
      expect(res.json.details, reason).toContain(reason);
    }
    expect(await objectFiles()).toEqual(before);
    expect((await canvasOf(projectId))!.nodes).toEqual([node('kept')]);
  });

  it('keeps the 2,048-character limit for images that are not data: URLs', async () => {
    const projectId = await project(ada);
    const long = `https://img.example/${'x'.repeat(2048)}`;
    const res = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', long)], edges: [] });
    expect(res).toMatchObject({ status: 400, json: { error: expect.stringContaining('nodes.0.data.image') } });
  });

  it('stores nothing for a project that is not yours (404)', async () => {
    const projectId = await project(ada);
    const before = await objectFiles();
    const res = await bob.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', dataUrl(await png(7, 7, '#f0f')))], edges: [] });
    expect(res).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await objectFiles()).toEqual(before);
  });

  it('lets a body exceed CANVAS_MAX_BYTES by its images only; the stored canvas and the whole body keep their limits (413)', async () => {
    const projectId = await project(ada);
    const big = await noisy(200); // ~120 KB, ~160 KB as a data URL: over CANVAS_MAX_BYTES on its own
    expect(big.length).toBeGreaterThan(CANVAS_MAX_BYTES);
    expect(big.length).toBeLessThan(UPLOAD_MAX_BYTES);
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('big', dataUrl(big))], edges: [] });
    expect(saved.status).toBe(200);

    const before = await objectFiles();
    const prompt = 'p'.repeat(4000);
    const many = Array.from({ length: 20 }, (_, i) => ({ id: `g${i}`, type: 'generation', position: { x: i, y: 0 }, data: { type: 'generation', prompt } }));
    // The same canvas without its image is over the limit once stored: 413, and the new image is not stored.
    const stored = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('new', dataUrl(await png(30, 30, '#123'))), ...many], edges: [] });
    expect(stored).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    // Padding that is not an image counts in full, as before.
    const padded = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('new', dataUrl(await png(31, 31, '#321')))], edges: [], pad: 'x'.repeat(CANVAS_MAX_BYTES) });
    expect(padded).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    // And the whole body, images included, has CANVAS_MAX_BODY_BYTES.
    const images = await Promise.all(Array.from({ length: 8 }, (_, i) => noisy(200 + i))); // ~1.3 MB as data URLs
    const huge = await ada.client.post('/api/user/project/canvas', { projectId, nodes: images.map((b, i) => node(`i${i}`, dataUrl(b))), edges: [] });
    expect(huge).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    expect(await objectFiles()).toEqual(before);
    expect((await canvasOf(projectId))!.nodes.map((n) => n.data.image)).toEqual([saved.json.nodes[0].data.image]);
  });

  it('takes the original client’s save as it sends it: text/plain, the image inline; the same limits apply', async () => {
    const projectId = await project(ada);
    const plain = (body: unknown) => ada.client.request('/api/user/project/canvas', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    const big = dataUrl(await noisy(200));
    const saved = await plain({ projectId, nodes: [node('a', big)], edges: [] });
    expect(saved.status).toBe(200);
    expect(saved.json.nodes[0].data.image).toMatch(/\/content-[0-9a-f]{64}\.png$/);
    expect(await plain({ projectId, nodes: [node('a', big)], edges: [], pad: 'x'.repeat(CANVAS_MAX_BYTES) })).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
  });

  it('applies the same limits to a chunked body (no Content-Length)', async () => {
    const projectId = await project(ada);
    const cookie = await ada.client.jar.getCookieString(t.baseUrl);
    const chunked = (body: unknown) =>
      new Promise<{ status: number; json: unknown }>((resolve, reject) => {
        const text = Buffer.from(JSON.stringify(body));
        const req = http.request(`${t.baseUrl}/api/user/project/canvas`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' } });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        req.on('error', reject);
        for (let at = 0; at < text.length; at += 64 * 1024) req.write(text.subarray(at, at + 64 * 1024));
        req.end();
      });
    const image = dataUrl(await noisy(200));
    expect((await chunked({ projectId, nodes: [node('a', image)], edges: [] })).status).toBe(200);
    expect(await chunked({ projectId, nodes: [node('a', image)], edges: [], pad: 'x'.repeat(CANVAS_MAX_BYTES) })).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    const images = await Promise.all(Array.from({ length: 8 }, (_, i) => noisy(200 + i)));
    expect(await chunked({ projectId, nodes: images.map((b, i) => node(`i${i}`, dataUrl(b))), edges: [] })).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
  });
});
