// GET /api/metrics (Prometheus text exposition) guarded by METRICS_TOKEN; route metrics by pattern; generation
// and upload metrics recorded by the services.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ModelFailedError, ModelQuotaError, type ImageModel } from '../../src/models/index.js';
import { addToCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive } from '../helpers/live-client.js';
import { sample } from '../helpers/metrics-text.js';
import { dbMode, startTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const png = () => sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
type User = { client: HttpClient; id: string; email: string };

async function upload(user: User, bytes: Buffer, name = 'in.png') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  return user.client.request('/api/upload', { method: 'POST', body: form });
}

describe('METRICS_TOKEN', () => {
  it('is optional, and at least 16 characters when set', () => {
    expect(loadConfig({}).config.metrics.token).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '  ' }).config.metrics.token).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).config.metrics.token).toBe(TOKEN);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
  });
});

describe('metrics off (no METRICS_TOKEN)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('answers 404, with or without a token', async () => {
    expect(await t.client().get('/api/metrics')).toMatchObject({ status: 404, json: { error: 'Not found' } });
    expect(await t.client().get('/api/metrics', bearer(TOKEN))).toMatchObject({ status: 404, json: { error: 'Not found' } });
    expect(t.app.metrics).toBeUndefined();
  });
});

describe('metrics on', () => {
  let t: TestApp;
  let ada: User;
  const scrape = async () => {
    const res = await t.client().get('/api/metrics', bearer(TOKEN));
    expect(res.status).toBe(200);
    return res.text;
  };
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
    ada = await t.user('ada@example.com');
  });
  afterAll(() => t?.close());

  it('refuses a missing, malformed or wrong token with 401 Unauthorized', async () => {
    for (const headers of [undefined, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }, bearer('x'), bearer(`${TOKEN}x`), bearer(TOKEN.replace(/.$/, 'X'))]) {
      const res = await t.client().get('/api/metrics', headers);
      expect(res, JSON.stringify(headers)).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.text).not.toContain('http_requests_total');
    }
  });

  it('serves the text exposition with route metrics by pattern, never by raw URL', async () => {
    for (let i = 0; i < 3; i++) expect((await t.client().get('/api/health')).status).toBe(200);
    expect((await t.client().get('/api/no-such-route-7f3a')).status).toBe(404);
    const project = await ada.client.post('/api/user/project', { name: 'Metrics', userId: ada.id });
    expect(project.status).toBe(200);
    const projectId: string = project.json.id;
    expect((await ada.client.request(`/api/user/project/${projectId}`, { method: 'PATCH', json: { name: 'Renamed' } })).status).toBe(200);
    expect((await t.client().request(`/api/user/project/${projectId}`, { method: 'DELETE' })).status).toBe(401);

    const res = await t.client().get('/api/metrics', bearer(TOKEN));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = res.text;
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/health', status_class: '2xx' })).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/health', status_class: '2xx' })).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/health', status_class: '2xx', le: '+Inf' })).toBe(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'not_found', status_class: '4xx' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'PATCH', route: '/api/user/project/:projectId', status_class: '2xx' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'DELETE', route: '/api/user/project/:projectId', status_class: '4xx' })).toBe(1);
    expect(text).not.toContain(projectId);
    expect(text).not.toContain('no-such-route');
    // Process default metrics.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts generations with the offline engine, and uploads with their bytes', async () => {
    const bytes = await png();
    const stored = await upload(ada, bytes);
    expect(stored.status).toBe(200);
    expect((await upload(ada, Buffer.from('<html><script>alert(1)</script></html>'), 'x.html')).status).toBe(400);
    expect((await upload(ada, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.svg')).status).toBe(400); // no size: cannot be drawn
    expect((await ada.client.post('/api/image', { images: [stored.json.url], prompt: 'grayscale' })).status).toBe(200);
    expect((await ada.client.post('/api/image', { images: ['http://127.0.0.1:1/private.png'], prompt: 'grayscale' })).status).toBe(400);

    const text = await scrape();
    expect(sample(text, 'image_canvas_uploads_total', { result: 'ok' })).toBe(1);
    expect(sample(text, 'image_canvas_uploads_total', { result: 'unsupported_type' })).toBe(1);
    expect(sample(text, 'image_canvas_uploads_total', { result: 'invalid_image' })).toBe(1);
    expect(sample(text, 'image_canvas_upload_bytes_total')).toBe(bytes.length);
    expect(sample(text, 'image_canvas_generations_total', { result: 'ok' })).toBe(1);
    expect(sample(text, 'image_canvas_generations_total', { result: 'invalid_input' })).toBe(1);
    expect(sample(text, 'image_canvas_generation_duration_seconds_count', { result: 'ok' })).toBe(1);
    expect(sample(text, 'image_canvas_generation_duration_seconds_sum', { result: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'image_canvas_model_errors_total')).toBeUndefined();
  });

  it('shows the live canvas: documents in memory, connections, changes not yet stored, and whether storing works', async () => {
    const before = await scrape();
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Live' })).json.id as string;
    const editor = await connectLive({ baseUrl: t.baseUrl, as: ada.client, projectId });
    try {
      await editor.event('synced');
      // A node the canvas rules take (type, position, data with its type), as the web client adds one.
      addToCanvas(editor.doc, { nodes: [{ id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } }] });
      await editor.saved();
      const text = await scrape();
      expect(sample(text, 'image_canvas_live_open_documents')).toBe(sample(before, 'image_canvas_live_open_documents')! + 1);
      expect(sample(text, 'image_canvas_live_connections')).toBe(sample(before, 'image_canvas_live_connections')! + 1);
      expect(sample(text, 'image_canvas_live_unsaved_bytes')).toBe(0);
      expect(sample(text, 'image_canvas_live_saving')).toBe(1);
      expect(text).toContain('# TYPE image_canvas_live_compactions_total counter');
      expect(text).toContain('# TYPE image_canvas_live_compaction_duration_seconds histogram');
      expect(text).toContain('# TYPE image_canvas_live_document_tasks_total counter');
      expect(text).toContain('# TYPE image_canvas_live_document_task_duration_seconds histogram');
      expect(text).toContain('# TYPE image_canvas_live_canvas_measures_total counter');
    } finally {
      editor.close();
    }
  });

  it('keeps one registry per app: another app counts only its own requests', async () => {
    const other = await startTestApp({ METRICS_TOKEN: TOKEN }, dbMode());
    try {
      await other.client().get('/api/health');
      const text = (await other.client().get('/api/metrics', bearer(TOKEN))).text;
      expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/health', status_class: '2xx' })).toBe(1);
      expect(sample(text, 'image_canvas_generations_total', { result: 'ok' })).toBeUndefined();
    } finally {
      await other.close();
    }
    expect(sample(await scrape(), 'http_requests_total', { method: 'GET', route: '/api/health', status_class: '2xx' })).toBe(3);
  });
});

describe('metrics of model failures', () => {
  // A model behind the ImageModel port whose answer the prompt chooses.
  const scripted: ImageModel = {
    id: 'scripted',
    async generate(req) {
      if (req.prompt === 'fail') throw new ModelFailedError('the model is down');
      if (req.prompt === 'busy') throw new ModelQuotaError('quota exceeded', 7);
      if (req.prompt === 'empty') return { text: 'nothing to show' };
      return { image: req.images[0], model: 'scripted' };
    },
  };
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, dbMode(), { imageModel: scripted });
  });
  afterAll(() => t?.close());

  it('counts model errors by model id and each outcome', async () => {
    const ada = await t.user('ada@example.com');
    const input = `data:image/png;base64,${(await png()).toString('base64')}`;
    const generate = (prompt: string) => ada.client.post('/api/image', { images: [input], prompt });
    expect((await generate('fail')).status).toBe(500);
    expect((await generate('fail')).status).toBe(500);
    expect((await generate('busy')).status).toBe(429);
    expect(await generate('empty')).toMatchObject({ status: 500, json: { error: 'No image was generated' } });
    expect((await generate('anything')).status).toBe(200);

    const text = (await t.client().get('/api/metrics', bearer(TOKEN))).text;
    expect(sample(text, 'image_canvas_model_errors_total', { model: 'scripted' })).toBe(3);
    expect(sample(text, 'image_canvas_generations_total', { result: 'model_error' })).toBe(2);
    expect(sample(text, 'image_canvas_generations_total', { result: 'quota' })).toBe(1);
    expect(sample(text, 'image_canvas_generations_total', { result: 'no_image' })).toBe(1);
    expect(sample(text, 'image_canvas_generations_total', { result: 'ok' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/api/image', status_class: '5xx' })).toBe(3);
  });
});
