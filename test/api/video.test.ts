// Video: GET /api/video/asset through the real @mux/mux-node against a local fake of
// Mux's API; no session; rate-limited per client address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMux, type FakeMux } from '../fakes/mux-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = { id: 'mux-token-id-1', secret: 'mux-token-secret-1' };

describe('video asset status through Mux', () => {
  let t: TestApp;
  let mux: FakeMux;

  beforeAll(async () => {
    mux = await startFakeMux({ tokenId: TOKEN.id, tokenSecret: TOKEN.secret });
    mux.addAsset({ id: 'asset01ready', status: 'ready', playback_ids: [{ id: 'signed01', policy: 'signed' }, { id: 'play01public', policy: 'public' }], duration: 12.5 });
    mux.addAsset({ id: 'asset02prep', status: 'preparing' });
    mux.addUpload({ id: 'upload01done', status: 'asset_created', asset_id: 'asset01ready' });
    mux.addUpload({ id: 'upload02wait', status: 'waiting' });
    mux.addUpload({ id: 'upload03lost', status: 'asset_created', asset_id: 'asset99gone' });
    t = await startTestApp({ VIDEO_TOKEN_ID: TOKEN.id, VIDEO_TOKEN_SECRET: TOKEN.secret, VIDEO_API_URL: mux.baseUrl, RATE_LIMIT_VIDEO_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await t?.close();
    await mux?.close();
  });

  it('reports an asset by id, without a session, with the token sent as basic credentials', async () => {
    const res = await t.client().get('/api/video/asset?assetId=asset01ready');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ assetId: 'asset01ready', status: 'ready', playbackId: 'play01public', duration: 12.5 });
    const call = mux.requests.at(-1)!;
    expect(call).toMatchObject({ method: 'GET', path: '/video/v1/assets/asset01ready', auth: { user: TOKEN.id, password: TOKEN.secret } });

    expect((await t.client().get('/api/video/asset?assetId=asset02prep')).json).toEqual({ assetId: 'asset02prep', status: 'preparing', playbackId: null, duration: null });
  });

  it('reports the asset of a direct upload, or the upload itself while it has none', async () => {
    expect((await t.client().get('/api/video/asset?uploadId=upload01done')).json)
      .toEqual({ assetId: 'asset01ready', uploadId: 'upload01done', status: 'ready', playbackId: 'play01public', duration: 12.5 });
    expect(mux.requests.slice(-2).map((r) => r.path)).toEqual(['/video/v1/uploads/upload01done', '/video/v1/assets/asset01ready']);
    expect((await t.client().get('/api/video/asset?uploadId=upload02wait')).json)
      .toEqual({ assetId: null, uploadId: 'upload02wait', status: 'waiting', playbackId: null, duration: null });
  });

  it('answers 400 without an id or with a malformed one', async () => {
    expect(await t.client().get('/api/video/asset')).toMatchObject({ status: 400, json: { error: 'assetId or uploadId is required' } });
    expect(await t.client().get('/api/video/asset?assetId=')).toMatchObject({ status: 400 });
    const before = mux.requests.length;
    for (const bad of ['..%2F..%2Fuploads%2Fx', 'a%20b', 'x'.repeat(201)]) {
      const res = await t.client().get(`/api/video/asset?assetId=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.error, bad).toMatch(/^Invalid /);
    }
    expect(mux.requests.length).toBe(before);
  });

  it('answers 404 Asset not found for an asset or upload the provider does not know', async () => {
    for (const query of ['assetId=nosuchasset', 'uploadId=nosuchupload', 'uploadId=upload03lost']) {
      expect(await t.client().get(`/api/video/asset?${query}`), query).toMatchObject({ status: 404, json: { error: 'Asset not found' } });
    }
  });

  it('answers 502 Video provider unavailable when the provider fails, without internals', async () => {
    mux.failWith(500);
    try {
      const res = await t.client().get('/api/video/asset?assetId=asset01ready');
      expect(res.status).toBe(502);
      expect(res.json).toEqual({ error: 'Video provider unavailable' });
    } finally {
      mux.failWith(null);
    }
  });
});

describe('video with the wrong credentials', () => {
  let t: TestApp;
  let mux: FakeMux;
  beforeAll(async () => {
    mux = await startFakeMux({ tokenId: TOKEN.id, tokenSecret: TOKEN.secret });
    mux.addAsset({ id: 'asset01ready', status: 'ready' });
    t = await startTestApp({ VIDEO_TOKEN_ID: TOKEN.id, VIDEO_TOKEN_SECRET: 'not-the-secret', VIDEO_API_URL: mux.baseUrl });
  });
  afterAll(async () => {
    await t?.close();
    await mux?.close();
  });

  it('answers 502 (the provider refuses us), never echoing the token', async () => {
    const res = await t.client().get('/api/video/asset?assetId=asset01ready');
    expect(res).toMatchObject({ status: 502, json: { error: 'Video provider unavailable' } });
    expect(res.text).not.toContain('not-the-secret');
  });
});

describe('video not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_VIDEO_PER_MINUTE: '3' });
  });
  afterAll(() => t?.close());

  it('answers 503 Video is not configured, and 429 after RATE_LIMIT_VIDEO_PER_MINUTE requests a minute', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await t.client().get('/api/video/asset?assetId=a1'), `request ${i + 1}`).toMatchObject({ status: 503, json: { error: 'Video is not configured' } });
    }
    const limited = await t.client().get('/api/video/asset?assetId=a1');
    expect(limited).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
