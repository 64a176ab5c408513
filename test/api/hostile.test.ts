// Hostile input is answered 4xx, with a message, and changes nothing.
// The live canvas socket's hostile cases (garbage, text and oversized frames, malformed updates, floods, node
// limits, foreign projects) are in live-hostile.test.ts.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
let projectId: string;
const node = (i: number) => ({ id: `n${i}`, type: 'upload', position: { x: i, y: i }, data: { type: 'upload' } });

beforeAll(async () => {
  t = await startTestApp({ CANVAS_MAX_BYTES: String(2 * 1024 * 1024) });
  ada = await t.user('ada@example.com');
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id;
});
afterAll(() => t?.close());

async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
  const tables = ['users', 'projects', 'canvases'] as const;
  const before = await Promise.all(tables.map((x) => countRows(t, x)));
  const canvasBefore = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).text;
  const result = await fn();
  expect(await Promise.all(tables.map((x) => countRows(t, x)))).toEqual(before);
  expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).text).toBe(canvasBefore);
  return result;
}

/** Sends raw bytes on a new connection and returns everything the server answers before closing. */
async function raw(bytes: string): Promise<string> {
  const { port, hostname } = new URL(t.baseUrl);
  const socket = net.connect(Number(port), hostname);
  socket.end(bytes);
  let answer = '';
  for await (const chunk of socket) answer += chunk;
  return answer;
}

/** GET with the path exactly as given (fetch would resolve `..` and `%2e%2e` segments before sending). */
function getAsIs(path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { port, hostname } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    http
      .get({ host: hostname, port: Number(port), path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

describe('hostile input', () => {
  it('malformed HTTP gets a 4xx in our error shape and the connection is closed', async () => {
    for (const request of [
      'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /api/health HTTP/1.1\r\nHost: x\r\nX-A: \u0001\r\n\r\n',
      'NOT A REQUEST\r\n\r\n',
      'POST /api/user/project HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]) {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, request).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(JSON.parse(body), request).toEqual({ error: 'Bad request' });
      expect(head.toLowerCase()).toContain('x-content-type-options: nosniff');
    }
    const huge = await raw(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.split('\r\n\r\n')[1])).toEqual({ error: 'Request header fields too large' });
    // The service still answers on a new connection.
    expect((await ada.client.get('/api/health')).status).toBe(200);
  });

  it('a path the router cannot decode → 400 Invalid URL encoding in our error shape, with the security headers', async () => {
    for (const [method, path] of [['GET', '/api/user/project/%E0%A4%A'], ['PATCH', '/api/user/project/%E0%A4%A'], ['GET', '/files/%C0'], ['GET', '/api/%ZZ']] as const) {
      const res = await unchanged(() => ada.client.request(path, { method, ...(method === 'PATCH' ? { json: { name: 'x' } } : {}) }));
      expect(res, `${method} ${path}`).toMatchObject({ status: 400, json: { error: 'Invalid URL encoding' } });
      expect(Object.keys(res.json)).toEqual(['error']);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      if (path.startsWith('/api/')) expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('a path that climbs out of /assets (.., in any encoding) → 400 Invalid path in our error shape', async () => {
    for (const path of [
      '/assets/../x',
      '/assets/../../etc/passwd',
      '/assets/%2e%2e/x',
      '/assets/%2E%2E/x',
      '/assets/.%2e/x',
      '/assets/%2e./x',
      '/assets/..%2fx',
      '/assets/%2e%2e%2fx',
      '/assets/..\\x',
      '/assets/..%5cx',
      '/assets/%252e%252e/x',
      '/assets/%252e%252e%252fx',
      '/assets/x/../../x',
      '/assets/..',
      '/assets/%2e%2e',
      '/assets/../x?v=1',
    ]) {
      const res = await getAsIs(path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body), path).toEqual({ error: 'Invalid path' });
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers['x-request-id'], path).toBeTruthy();
    }
    // Not a climb: a missing asset is still the JSON 404, and a real one is served.
    expect(await getAsIs('/assets/nope.js')).toMatchObject({ status: 404, body: JSON.stringify({ error: 'Not found' }) });
    expect(await getAsIs('/assets/..nope.js')).toMatchObject({ status: 404 });
    const built = fs.existsSync('web/dist/assets') ? fs.readdirSync('web/dist/assets').find((f) => f.endsWith('.js')) : undefined;
    if (built) expect((await getAsIs(`/assets/${built}`)).status).toBe(200);
  });

  it('malformed JSON → 400 Invalid JSON', async () => {
    for (const body of ['{', '{"projectId":', 'nul', '[1,2', '\u0000']) {
      const res = await unchanged(() => ada.client.request('/api/user/project/canvas', { method: 'POST', json: body }));
      expect(res).toMatchObject({ status: 400, json: { error: 'Invalid JSON' } });
    }
    const res = await ada.client.request('/api/user/project', { method: 'POST', body: '', headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 400, json: { error: 'Invalid JSON' } });
  });

  it('wrong types → 400 naming the field', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/api/user/project/canvas', { projectId, nodes: {}, edges: [] }, /nodes/],
      ['/api/user/project/canvas', { projectId, nodes: [], edges: [{ id: 1, source: 'a', target: 'b' }] }, /edges\.0\.id/],
      ['/api/user/project/canvas', { projectId, nodes: [{ ...node(1), data: { type: 'upload', isGenerating: 'yes' } }], edges: [] }, /nodes\.0\.data\.isGenerating/],
      ['/api/user/project/canvas', { projectId: 12, nodes: [], edges: [] }, /Project ID is required/],
      ['/api/user/project/canvas', [], /body/],
      ['/api/user/project', { userId: ['a'], name: 'x' }, /User ID is required/],
    ];
    for (const [path, body, error] of cases) {
      const res = await unchanged(() => ada.client.post(path, body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatch(error);
    }
  });

  it('a canvas over the node or edge limit → 400 with the limit named; nothing stored', async () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node(i));
    const res = await unchanged(() => ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] }));
    expect(res).toMatchObject({ status: 400, json: { error: 'A canvas holds at most 5000 nodes' } });
    const edges = Array.from({ length: 10_001 }, (_, i) => ({ id: `e${i}`, source: 'n0', target: 'n0' }));
    const res2 = await unchanged(() => ada.client.post('/api/user/project/canvas', { projectId, nodes: [node(0)], edges }));
    expect(res2).toMatchObject({ status: 400, json: { error: 'A canvas holds at most 10000 edges' } });
  });

  it('a body over the limit → 413 Canvas too large / Request body too large', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const res = await unchanged(() => ada.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], pad: big }));
    expect(res).toMatchObject({ status: 413, json: { error: 'Canvas too large' } });
    const res2 = await unchanged(() => ada.client.post('/api/user/project', { userId: ada.id, name: 'x', pad: big }));
    expect(res2).toMatchObject({ status: 413, json: { error: 'Request body too large' } });
  });

  it('huge strings → 400', async () => {
    const huge = 'y'.repeat(100_000);
    for (const body of [
      { projectId, nodes: [{ ...node(1), id: huge }], edges: [] },
      { projectId, nodes: [{ ...node(1), data: { type: 'upload', image: huge } }], edges: [] },
      { projectId, nodes: [{ ...node(1), data: { type: 'generation', prompt: huge } }], edges: [] },
    ]) {
      expect((await unchanged(() => ada.client.post('/api/user/project/canvas', body))).status).toBe(400);
    }
    expect((await unchanged(() => ada.client.post('/api/user/project', { userId: ada.id, name: huge }))).json.error).toBe('Invalid project name');
    expect((await ada.client.get(`/api/user/project?userId=${huge.slice(0, 6000)}`)).status).toBe(403);
    expect((await ada.client.get(`/api/user/project?userId=${huge}`)).status).toBe(431); // Node's header limit
  });

  it('unknown fields are dropped, never stored', async () => {
    const res = await ada.client.post('/api/user/project', { userId: ada.id, name: 'Clean', id: '00000000-0000-4000-8000-000000000000', createdDate: '1999-01-01', isAdmin: true });
    expect(res.status).toBe(200);
    expect(res.json.id).not.toBe('00000000-0000-4000-8000-000000000000');
    expect(res.json.createdDate).not.toContain('1999');
    expect(Object.keys(res.json).sort()).toEqual(['createdDate', 'id', 'name', 'userId']);
  });

  it('wrong content types and methods are refused', async () => {
    // text/plain is read as JSON (docs/api.md "Conventions"): a form-like body is not JSON.
    const res = await unchanged(() => ada.client.request('/api/user/project', { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } }));
    expect(res).toMatchObject({ status: 400, json: { error: 'Invalid JSON' } });
    const xml = await unchanged(() => ada.client.request('/api/user/project', { method: 'POST', body: '<name>x</name>', headers: { 'content-type': 'application/xml' } }));
    expect(xml).toMatchObject({ status: 415, json: { error: 'Unsupported content type' } });
    expect((await ada.client.request('/api/user/project/canvas', { method: 'PUT', json: {} })).status).toBe(404);
    expect((await ada.client.get('/api/nope')).json).toEqual({ error: 'Not found' });
  });

  it('cross-site state changes are refused with 403', async () => {
    const evil = await unchanged(() => ada.client.post('/api/user/project', { userId: ada.id, name: 'CSRF' }, { origin: 'https://evil.example' }));
    expect(evil).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    const site = await unchanged(() => ada.client.post('/api/user/project', { userId: ada.id, name: 'CSRF' }, { 'sec-fetch-site': 'cross-site' }));
    expect(site.status).toBe(403);
    const same = await ada.client.post('/api/user/project', { userId: ada.id, name: 'Fine' }, { origin: t.baseUrl, 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(200);
  });
});
