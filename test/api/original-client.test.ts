// Clients written for the original system (docs/differences.md): next-auth v4's browser client and the
// original web client's plain `fetch` calls, sent with the headers a browser gives them, work unchanged.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type Sent } from '../helpers/http-client.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
});
afterAll(() => t?.close());

/** What Chromium adds to a same-origin `fetch` from a page of ours (Origin only on unsafe methods). */
function fetchHeaders(method: string, page = '/projects'): Record<string, string> {
  return {
    accept: '*/*',
    'accept-language': 'en-US,en;q=0.9',
    referer: `${t.baseUrl}${page}`,
    'sec-fetch-site': 'same-origin',
    'sec-fetch-mode': 'cors',
    'sec-fetch-dest': 'empty',
    ...(method === 'GET' ? {} : { origin: new URL(t.baseUrl).origin }),
  };
}

/** `fetch(path, { method, headers, body })` from the original client's pages. */
function send(client: HttpClient, method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}, page?: string): Promise<Sent> {
  return client.request(path, { method, body: init.body, headers: { ...fetchHeaders(method, page), ...init.headers } });
}

/** A string body with no headers: what `fetch(url, { method: 'POST', body: JSON.stringify(x) })` sends. */
const plain = (value: unknown) => ({ headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: JSON.stringify(value) });
const json = (value: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
const form = (fields: Record<string, string>) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

/** next-auth v4's signIn('oauth', { callbackUrl }): providers, CSRF token, POST json=true, then the browser goes to `url`. */
async function v4SignIn(client: HttpClient, email: string, name: string, callbackUrl = `${t.baseUrl}/projects`): Promise<Sent> {
  const providers = await send(client, 'GET', '/api/auth/providers', {}, '/login');
  expect(providers.status).toBe(200);
  expect(providers.json.oauth).toMatchObject({ id: 'oauth', type: 'oidc' }); // signIn() checks `provider in providers` and its type
  const csrf = await send(client, 'GET', '/api/auth/csrf', {}, '/login');
  expect(csrf.json.csrfToken).toEqual(expect.any(String));
  const res = await send(client, 'POST', '/api/auth/signin/oauth', form({ csrfToken: csrf.json.csrfToken, callbackUrl, json: 'true' }), '/login');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('location')).toBeNull();
  const url = new URL(res.json.url as string);
  expect(url.pathname).toMatch(/\/auth$/); // the identity provider's authorization endpoint
  // window.location.href = url: the provider's form, then back through the callback to callbackUrl.
  const page = await client.get(url.toString());
  const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
  if (!action) throw new Error(`no identity provider form at ${page.url}: ${page.status}`);
  return client.request(action, { form: { email, name } });
}

/** next-auth v4's signOut({ callbackUrl }): CSRF token, POST json=true, read `{ url }`. */
async function v4SignOut(client: HttpClient, callbackUrl: string): Promise<Sent> {
  const csrf = await send(client, 'GET', '/api/auth/csrf');
  return send(client, 'POST', '/api/auth/signout', form({ csrfToken: csrf.json.csrfToken, callbackUrl, json: 'true' }));
}

describe("next-auth v4's signIn() and signOut()", () => {
  it('signIn() posts json=true and gets 200 { url } to the provider; the code flow then signs the user in', async () => {
    const client = t.client();
    const landed = await v4SignIn(client, 'v4-in@example.com', 'Vee');
    expect(landed.status).toBe(200);
    expect(new URL(landed.url).pathname).toBe('/projects');
    const session = await send(client, 'GET', '/api/auth/session');
    expect(session.json.user).toMatchObject({ email: 'v4-in@example.com', name: 'Vee' });
  });

  it('signOut() posts json=true and gets 200 { url } (the callback URL); the session is gone', async () => {
    const client = t.client();
    await v4SignIn(client, 'v4-out@example.com', 'Out');
    const res = await v4SignOut(client, `${t.baseUrl}/projects/canvas/x`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ url: `${t.baseUrl}/projects/canvas/x` });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('authlib.session-token=;'))).toBe(true);
    expect((await send(client, 'GET', '/api/auth/session')).json).toBeNull();
    expect((await send(client, 'GET', '/api/user')).status).toBe(401);
  });

  it('never hands out a URL off our origin', async () => {
    const client = t.client();
    await v4SignIn(client, 'v4-off@example.com', 'Off');
    const res = await v4SignOut(client, 'https://elsewhere.example/phish');
    expect(res.status).toBe(200);
    expect(new URL(res.json.url as string).origin).toBe(new URL(t.baseUrl).origin);
  });

  it('X-Auth-Return-Redirect: 1 gets { url } as json=true does; without either, the answer stays a redirect', async () => {
    const client = t.client();
    const csrf = await send(client, 'GET', '/api/auth/csrf');
    const withHeader = await send(client, 'POST', '/api/auth/signin/oauth', { ...form({ csrfToken: csrf.json.csrfToken, callbackUrl: '/projects' }), headers: { ...form({}).headers, 'x-auth-return-redirect': '1' } });
    expect(withHeader.status).toBe(200);
    expect(withHeader.json.url).toMatch(/\/auth\?/);
    const plainForm = await client.request('/api/auth/signin/oauth', { ...form({ csrfToken: csrf.json.csrfToken, callbackUrl: '/projects' }), method: 'POST', follow: false });
    expect(plainForm.status).toBe(302);
    expect(plainForm.headers.get('location')).toMatch(/\/auth\?/);
  });

  it('a refused sign-in (bad CSRF token) with json=true answers { url } of the error page, not a redirect', async () => {
    const client = t.client();
    const res = await send(client, 'POST', '/api/auth/signin/oauth', form({ csrfToken: 'forged', callbackUrl: '/projects', json: 'true' }));
    expect(res.status).toBe(200);
    expect(new URL(res.json.url as string).pathname).toBe('/login');
  });

  it('POST /api/auth/_log (the v4 client error logger, sent by sendBeacon) answers 200', async () => {
    const client = t.client();
    const body = new URLSearchParams({ level: 'error', code: 'CLIENT_FETCH_ERROR', message: 'Cannot convert undefined or null to object', client: 'true' }).toString();
    const res = await send(client, 'POST', '/api/auth/_log', { headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    // Anything at all (or nothing) is acknowledged; an oversized body is still refused.
    expect((await send(client, 'POST', '/api/auth/_log')).status).toBe(200);
    expect((await send(client, 'POST', '/api/auth/_log', { headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(70_000) })).status).toBe(413);
  });
});

describe('JSON bodies sent as text/plain', () => {
  let ada: Awaited<ReturnType<TestApp['user']>>;
  let projectId: string;
  beforeAll(async () => {
    ada = await t.user('plain@example.com', 'Plain');
    projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Plain' })).json.id;
  });

  it('a canvas save with no Content-Type of its own (text/plain;charset=UTF-8) is stored', async () => {
    const nodes = [{ id: 'upload-1', type: 'upload', position: { x: 1, y: 2 }, data: { type: 'upload' } }];
    const res = await send(ada.client, 'POST', '/api/user/project/canvas', plain({ projectId, nodes, edges: [] }));
    expect(res.status).toBe(200);
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes).toEqual(nodes);
  });

  it('other JSON routes take it too (project creation)', async () => {
    const res = await send(ada.client, 'POST', '/api/user/project', plain({ userId: ada.id, name: 'From text' }));
    expect(res.status).toBe(200);
    expect(res.json.name).toBe('From text');
  });

  it('text/plain that is not JSON is 400 Invalid JSON, another type 415, and nothing is stored', async () => {
    const before = await countRows(t, 'canvases');
    const notJson = await send(ada.client, 'POST', '/api/user/project/canvas', { headers: { 'content-type': 'text/plain' }, body: 'projectId=x' });
    expect(notJson).toMatchObject({ status: 400, json: { error: 'Invalid JSON' } });
    const html = await send(ada.client, 'POST', '/api/user/project/canvas', { headers: { 'content-type': 'text/html' }, body: JSON.stringify({ projectId, nodes: [], edges: [] }) });
    expect(html).toMatchObject({ status: 415, json: { error: 'Unsupported content type' } });
    const proto = await send(ada.client, 'POST', '/api/user/project', { headers: { 'content-type': 'text/plain' }, body: '{"userId":"x","name":"p","__proto__":{"admin":true}}' });
    expect(proto.status).toBe(400);
    expect(await countRows(t, 'canvases')).toBe(before);
  });

  it('the cross-site guard still refuses text/plain from another origin', async () => {
    const body = plain({ projectId, nodes: [], edges: [] });
    const site = await ada.client.request('/api/user/project/canvas', { method: 'POST', ...body, headers: { ...body.headers, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(site).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes).toHaveLength(1);
  });
});

describe('trailing slashes', () => {
  it('every documented route answers the same with and without a trailing slash', async () => {
    const spec = (await t.client().get('/api/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const anon = t.client();
    const ada = await t.user('slash@example.com');
    let checked = 0;
    for (const [path, methods] of Object.entries(spec.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
        if (method !== 'GET' && method !== 'POST' && method !== 'DELETE' && method !== 'PATCH') continue;
        // Accepted, DELETE /api/user/sessions would end the session the loop goes on with: anonymous only.
        for (const client of path === '/api/user/sessions' ? [anon] : [anon, ada.client]) {
          const init = method === 'GET' || method === 'DELETE' ? {} : json({});
          // The event stream, accepted, never ends: asked with a Last-Event-ID it refuses (400), the same either way.
          const query = path === '/api/generations/events' ? '?lastEventId=not-an-id' : '';
          const bare = await send(client, method, `${concrete}${query}`, init);
          const slashed = await send(client, method, `${concrete}/${query}`, init);
          expect({ path, method, status: slashed.status }).toEqual({ path, method, status: bare.status });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('GET /api/user/ answers the signed-in user; auth routes and pages take a slash too', async () => {
    const ada = await t.user('slash-user@example.com', 'Slash');
    const res = await ada.client.get('/api/user/');
    expect(res).toMatchObject({ status: 200, json: { email: 'slash-user@example.com' } });
    expect((await ada.client.get('/api/auth/session/')).json.user.email).toBe('slash-user@example.com');
    expect((await ada.client.get('/api/user/project/?userId=' + ada.id)).status).toBe(200);
    expect((await ada.client.get('/projects/')).status).toBe(200);
  });
});

describe("the original client's whole session, replayed", () => {
  it('sign-in, projects, canvas, auto-save, upload, generation, reload and sign-out', async () => {
    const browser = t.client();
    // Signed out: the session is empty and the client's error logger may report it.
    expect((await send(browser, 'GET', '/api/auth/session', {}, '/')).json).toBeNull();
    expect((await send(browser, 'POST', '/api/auth/_log', { headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: 'level=error&code=CLIENT_FETCH_ERROR&client=true' }, '/')).status).toBe(200);

    // signIn('oauth', { callbackUrl: '/projects' }) from /login.
    const landed = await v4SignIn(browser, 'replay@example.com', 'Replay');
    expect(new URL(landed.url).pathname).toBe('/projects');
    const session = await send(browser, 'GET', '/api/auth/session');
    expect(session.json.user).toMatchObject({ email: 'replay@example.com', name: 'Replay', id: expect.any(String) });
    expect(session.json.expires).toEqual(expect.any(String));

    // The user store, then the projects store (GET with a JSON content type and no body, as the client sends it).
    const user = await send(browser, 'GET', '/api/user');
    expect(user.status).toBe(200);
    expect(user.json).toMatchObject({ id: session.json.user.id, email: 'replay@example.com', name: 'Replay', isPro: false });
    const userId = user.json.id as string;
    const empty = await send(browser, 'GET', `/api/user/project?userId=${userId}`, { headers: { 'content-type': 'application/json' } });
    expect(empty).toMatchObject({ status: 200, json: [] });

    // "New project" twice: POST the project (JSON), then its canvas with only { projectId }.
    const created: Array<{ id: string; canvasId: string }> = [];
    for (const name of ['Untitled Project', 'Untitled Project']) {
      const project = await send(browser, 'POST', '/api/user/project', json({ userId, name }));
      expect(project.status).toBe(200);
      expect(project.json).toMatchObject({ id: expect.any(String), userId, name, createdDate: expect.any(String) });
      const canvas = await send(browser, 'POST', '/api/user/project/canvas', json({ projectId: project.json.id }));
      expect(canvas.status).toBe(200);
      expect(canvas.json).toMatchObject({ id: expect.any(String), projectId: project.json.id, nodes: [], edges: [] });
      created.push({ id: project.json.id, canvasId: canvas.json.id });
    }
    // Oldest first: the client reverses the list to show the newest first.
    const listed = await send(browser, 'GET', `/api/user/project?userId=${userId}`, { headers: { 'content-type': 'application/json' } });
    expect(listed.json.map((p: { id: string }) => p.id)).toEqual(created.map((p) => p.id));
    expect(listed.json.every((p: { createdDate: string }) => !Number.isNaN(new Date(p.createdDate).getTime()))).toBe(true);

    // The canvas page of the newest project: GET the canvas, upload an image (FormData: the browser's boundary).
    const { id: projectId, canvasId } = created[1];
    const page = `/projects/canvas/${projectId}`;
    const loaded = await send(browser, 'GET', `/api/user/project/canvas?projectId=${projectId}`, { headers: { 'content-type': 'application/json' } }, page);
    expect(loaded.json).toMatchObject({ id: canvasId, projectId, nodes: [], edges: [] });
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'photo.png');
    const uploaded = await send(browser, 'POST', '/api/upload', { body: upload }, page);
    expect(uploaded.status).toBe(200);
    const imageUrl = uploaded.json.url as string;
    expect((await fetch(imageUrl)).status).toBe(200);

    // Auto-save (no headers: text/plain), React Flow's node and edge objects as they are in the client's state.
    const uploadNode = { id: 'upload-1', type: 'upload', position: { x: 100, y: 80 }, data: { type: 'upload', image: imageUrl }, measured: { width: 256, height: 256 }, selected: false, dragging: false };
    const generationNode = { id: 'generation-2', type: 'generation', position: { x: 500, y: 80 }, data: { type: 'generation' }, measured: { width: 256, height: 300 } };
    const edge = { source: 'upload-1', sourceHandle: null, target: 'generation-2', targetHandle: null, id: 'xy-edge__upload-1-generation-2' };
    const saved = await send(browser, 'POST', '/api/user/project/canvas', plain({ id: canvasId, projectId, nodes: [uploadNode, generationNode], edges: [edge] }), page);
    expect(saved.status).toBe(200);

    // Generate: the isGenerating flag is auto-saved while it runs, then the result image.
    const generating = await send(browser, 'POST', '/api/user/project/canvas', plain({ id: canvasId, projectId, nodes: [uploadNode, { ...generationNode, data: { type: 'generation', prompt: 'grayscale', isGenerating: true } }], edges: [edge] }), page);
    expect(generating.status).toBe(200);
    const generated = await send(browser, 'POST', '/api/image', json({ images: [imageUrl], prompt: 'grayscale' }), page);
    expect(generated.status).toBe(200);
    expect(generated.json.imageUrl).toEqual(expect.any(String));
    expect(generated.json.imageBase64).toMatch(/^data:image\/png;base64,/);
    const done = { ...generationNode, data: { type: 'generation', prompt: 'grayscale', image: generated.json.imageUrl, isGenerating: false } };
    expect((await send(browser, 'POST', '/api/user/project/canvas', plain({ id: canvasId, projectId, nodes: [uploadNode, done], edges: [edge] }), page)).status).toBe(200);

    // Reload: the canvas the client reads back has its nodes and edges (fields it reads: id, projectId, nodes, edges).
    const reloaded = await send(browser, 'GET', `/api/user/project/canvas?projectId=${projectId}`, { headers: { 'content-type': 'application/json' } }, page);
    expect(reloaded.json).toMatchObject({ id: canvasId, projectId });
    expect(reloaded.json.nodes).toEqual([
      { id: 'upload-1', type: 'upload', position: { x: 100, y: 80 }, data: { type: 'upload', image: imageUrl } },
      { id: 'generation-2', type: 'generation', position: { x: 500, y: 80 }, data: { type: 'generation', prompt: 'grayscale', image: generated.json.imageUrl, isGenerating: false } },
    ]);
    expect(reloaded.json.edges).toEqual([{ id: edge.id, source: 'upload-1', target: 'generation-2', sourceHandle: null, targetHandle: null }]);
    expect((await fetch(generated.json.imageUrl as string)).headers.get('content-type')).toBe('image/png');

    // signOut({ callbackUrl: '/' }) and the session is over.
    const out = await v4SignOut(browser, `${t.baseUrl}/`);
    expect(out).toMatchObject({ status: 200, json: { url: `${t.baseUrl}/` } });
    expect((await send(browser, 'GET', '/api/auth/session', {}, '/')).json).toBeNull();
    expect((await send(browser, 'GET', `/api/user/project?userId=${userId}`)).status).toBe(401);
  });
});

describe("the original client's templates", () => {
  it('lists the templates and starts a project from one: a new project, then its canvas saved with the listed canvas', async () => {
    // Someone has published a template (through our API; the original client publishes with the same route).
    const author = await t.user('template-author@example.com', 'Author');
    const canvas = {
      nodes: [
        { id: 'upload-1', type: 'upload', position: { x: 100, y: 80 }, data: { type: 'upload', image: 'https://img.example/cat.png' } },
        { id: 'generation-2', type: 'generation', position: { x: 500, y: 80 }, data: { type: 'generation', prompt: 'make it blue' } },
      ],
      edges: [{ id: 'xy-edge__upload-1-generation-2', source: 'upload-1', target: 'generation-2', sourceHandle: null, targetHandle: null }],
      viewport: { x: 10, y: -20, zoom: 0.8 },
    };
    expect((await author.client.post('/api/upload/templates', { templateName: 'Blue cat', canvas })).status).toBe(200);

    // The projects page: signed in, it fetches the template list as it is and reads each template's canvas.
    const browser = t.client();
    await v4SignIn(browser, 'template-user@example.com', 'User');
    const userId = (await send(browser, 'GET', '/api/user')).json.id as string;
    const listed = await send(browser, 'GET', '/api/upload/templates');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/);
    const template = (listed.json as Array<{ templateName: string; canvas: typeof canvas; user: unknown; mine: boolean }>).find((x) => x.templateName === 'Blue cat');
    expect(template).toMatchObject({ templateName: 'Blue cat', user: { name: 'Author' }, canvas, mine: false });

    // "Use template": a project named after it, then its canvas with the template's nodes and edges (text/plain).
    const project = await send(browser, 'POST', '/api/user/project', json({ userId, name: template!.templateName }));
    expect(project.status).toBe(200);
    const projectId = project.json.id as string;
    const saved = await send(browser, 'POST', '/api/user/project/canvas', plain({ projectId, nodes: template!.canvas.nodes, edges: template!.canvas.edges }));
    expect(saved.status).toBe(200);

    // The canvas page reads it back: the template's nodes and edges.
    const page = `/projects/canvas/${projectId}`;
    const loaded = await send(browser, 'GET', `/api/user/project/canvas?projectId=${projectId}`, { headers: { 'content-type': 'application/json' } }, page);
    expect(loaded.json).toMatchObject({ projectId, nodes: canvas.nodes, edges: canvas.edges });
  });
});
