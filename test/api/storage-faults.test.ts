// The object store down, full or hanging (issue 33 point 6): `503 Storage unavailable` (with Retry-After) for uploads,
// images in a saved canvas and thumbnails, never 400 or 500; /api/ready names the store (`unavailable` or `full`);
// a thumbnail never waits past THUMBNAIL_DEADLINE_MS. The S3 store is a real s3rver reached through a loopback TCP
// relay the test controls (relaying, holding every connection without an answer, or refusing connections); the
// full local store is a tiny tmpfs mounted over its folder (as root, which the test machines and CI are).
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile, type HttpClient } from '../helpers/http-client.js';
import { startS3Server, type S3ServerHandle } from '../helpers/s3-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A TCP relay to `target`: `relay` passes bytes, `hang` accepts and never answers, `down` refuses connections. */
async function startRelay(target: { host: string; port: number }) {
  let mode: 'relay' | 'hang' | 'down' = 'relay';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (mode === 'hang') return; // read nothing, answer nothing
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port,
    /** Every open connection is cut, so pooled keep-alive connections meet the new mode too. */
    async set(next: 'relay' | 'hang' | 'down') {
      dropAll();
      if (next === 'down' && mode !== 'down') await new Promise<void>((resolve) => server.close(() => resolve()));
      if (next !== 'down' && mode === 'down') await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      mode = next;
    },
    async stop() {
      dropAll();
      if (mode !== 'down') await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const png = (seed: number) => sharp({ create: { width: 8, height: 8, channels: 3, background: { r: seed, g: 90, b: 30 } } }).png().toBuffer();

const upload = (client: HttpClient, data: Buffer) => uploadFile(client, data, { filename: 'a.png' });

const METRICS_TOKEN = 'storage-faults-metrics-token-0123456789';
/** One sample of the instance's metrics (0 when the series is absent). */
async function metric(client: HttpClient, series: string): Promise<number> {
  const res = await client.get('/api/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const node = (id: string, image: string) => ({ id, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } });

describe('the S3 store unreachable or hanging', () => {
  let s3: S3ServerHandle;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let t: TestApp;
  let ada: { client: HttpClient; id: string };

  beforeAll(async () => {
    s3 = await startS3Server();
    const endpoint = new URL(new URL(s3.connectionString).searchParams.get('endpoint')!);
    relay = await startRelay({ host: endpoint.hostname, port: Number(endpoint.port) });
    const url = new URL(s3.connectionString);
    url.searchParams.set('endpoint', `http://127.0.0.1:${relay.port}`);
    t = await startTestApp({
      OBJECT_STORAGE_CONNECTION_STRING: url.toString(),
      OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
      OBJECT_STORAGE_PROBE_WRITE_SECONDS: '0',
      THUMBNAIL_DEADLINE_MS: '1500',
      METRICS_TOKEN,
    });
    ada = await t.user('ada@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await relay?.stop();
    await s3?.stop();
  });

  it('answers a thumbnail 503 at its deadline when the store never answers, 503 Storage unavailable everywhere when it is down, and is ready again once it is back', async () => {
    const stored = await upload(ada.client, await png(1));
    expect(stored.status, stored.text).toBe(200);
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id as string;
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', stored.json.url as string)], edges: [], version: 0 });
    expect(saved.status, saved.text).toBe(200);
    expect(await ada.client.get('/api/ready')).toMatchObject({ status: 200, json: { checks: { storage: 'ok' } } });

    // Accepts connections, never answers: the thumbnail reads its image from the store, and is answered at its deadline.
    await relay.set('hang');
    const hung = await ada.client.get(`/api/user/project/${projectId}/thumbnail`);
    expect(hung.status, hung.text).toBe(503);
    expect(hung.json).toMatchObject({ error: 'Storage unavailable' });
    expect(hung.headers.get('retry-after')).toBe('5');

    // Refuses connections.
    await relay.set('down');
    const up = await upload(ada.client, await png(2));
    expect(up.status, up.text).toBe(503);
    expect(up.json).toEqual({ error: 'Storage unavailable', details: 'the object store could not be reached' });
    expect(up.headers.get('retry-after')).toBe('5');
    // An image inside a saved canvas is stored too: the store's outage, not the node's fault (400).
    const dataUrl = `data:image/png;base64,${(await png(3)).toString('base64')}`;
    const withImage = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', stored.json.url as string), node('b', dataUrl)], edges: [], version: saved.json.version });
    expect(withImage.status, withImage.text).toBe(503);
    expect(withImage.json).toMatchObject({ error: 'Storage unavailable' });
    const thumbnail = await ada.client.get(`/api/user/project/${projectId}/thumbnail`);
    expect(thumbnail.status, thumbnail.text).toBe(503);
    expect(thumbnail.json).toMatchObject({ error: 'Storage unavailable' });
    expect(await ada.client.get('/api/ready')).toMatchObject({ status: 503, json: { status: 'unavailable', checks: { database: 'ok', storage: 'unavailable' } } });
    // The metrics say so: the failures that reached callers, and what readiness found.
    expect(await metric(ada.client, 'image_canvas_store_failures_total{result="unavailable"}')).toBeGreaterThanOrEqual(3);
    expect(await metric(ada.client, 'image_canvas_store_up')).toBe(0);

    await relay.set('relay');
    expect(await ada.client.get('/api/ready')).toMatchObject({ status: 200, json: { checks: { storage: 'ok' } } });
    expect(await metric(ada.client, 'image_canvas_store_up')).toBe(1);
    // Drawn again (on a machine busy enough, one drawing may still pass the short deadline this test sets: asked again).
    await expect.poll(async () => (await ada.client.get(`/api/user/project/${projectId}/thumbnail`)).status, { timeout: 60_000, interval: 200 }).toBe(200);
    expect((await upload(ada.client, await png(4))).status).toBe(200);
  });
});

describe('the local store full', () => {
  let t: TestApp;
  let mounted: string | undefined;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
    // A 64 KiB file system over the store's folder, filled up: every write then fails with ENOSPC.
    mounted = join(t.dataDir, 'objects');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mounted]);
    await mkdir(join(mounted, '.meta'));
    await writeFile(join(mounted, 'filler'), Buffer.alloc(1024 * 1024)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOSPC') throw err;
    });
  });
  afterAll(async () => {
    if (mounted) execFileSync('umount', [mounted]);
    await t?.close();
  });

  it('answers uploads 503 Storage unavailable (the store is full) and readiness says full', async () => {
    const ada = await t.user('ada@example.com');
    const res = await upload(ada.client, await png(5));
    expect(res.status, res.text).toBe(503);
    expect(res.json).toEqual({ error: 'Storage unavailable', details: 'the object store is full' });
    expect(await ada.client.get('/api/ready')).toMatchObject({ status: 503, json: { status: 'unavailable', checks: { database: 'ok', storage: 'full' } } });
    expect(await metric(ada.client, 'image_canvas_store_failures_total{result="full"}')).toBeGreaterThanOrEqual(1);
    expect(await metric(ada.client, 'image_canvas_store_full')).toBe(1);
    expect(await metric(ada.client, 'image_canvas_store_up')).toBe(0);
  });
});
