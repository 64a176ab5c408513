// Uploads: 50 concurrent 4 MB uploads through POST /api/upload vs writing the same bytes straight to
// the same store in the same run, and the server process's peak RSS growth during the API run (it must stream).
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import sharp from 'sharp';
import { openObjectStore } from '../test/helpers/test-app.js';
import { combine, runLoad, toRow } from './load.js';
import type { ApiContext } from './api.js';
import type { Section } from './table.js';

const SIZE = 4_000_000; // under the default 4 MiB limit
const LOAD = { requests: 150, warmup: 50, concurrency: 50 };
const CHUNK = 64 * 1024;

/** A PNG header (so the type sniffing accepts it) followed by incompressible bytes, SIZE in all. */
async function payload(): Promise<Buffer> {
  const head = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } }).png().toBuffer();
  const body = Buffer.alloc(SIZE);
  head.copy(body);
  for (let i = head.length; i < SIZE; i += 4) body.writeUInt32LE((Math.imul(i, 2654435761) ^ 0x9e3779b9) >>> 0, Math.min(i, SIZE - 4));
  return body;
}

function multipart(file: Buffer): { body: Uint8Array; contentType: string } {
  const boundary = 'benchBoundary7f3a';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: new Uint8Array(Buffer.concat([head, file, tail])), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Samples this process's memory (the service runs here; the client is another process) while `work` runs; returns
 * the peak RSS growth and, at that peak, the growth of Buffers' memory (ArrayBuffers: body chunks in flight, and
 * chunks not yet freed) and of V8's heap, in bytes; and the CPU time the process used (less sensitive than
 * throughput to other work on the machine).
 */
async function peakRssGrowth(work: () => Promise<void>): Promise<{ rss: number; arrayBuffers: number; heap: number; cpuMs: number }> {
  global.gc?.();
  const start = process.memoryUsage();
  const cpu = process.cpuUsage();
  let peak = start;
  const timer = setInterval(() => {
    if (process.memoryUsage.rss() > peak.rss) peak = process.memoryUsage();
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const used = process.cpuUsage(cpu);
  return { rss: Math.max(0, peak.rss - start.rss), arrayBuffers: peak.arrayBuffers - start.arrayBuffers, heap: peak.heapUsed - start.heapUsed, cpuMs: (used.user + used.system) / 1000 };
}

async function drainedTransfer(load: ApiContext['load'], contentType: string, body: Uint8Array) {
  const bare = Fastify();
  bare.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
  bare.post('/drain', async (req) => {
    for await (const _chunk of req.raw);
    return { ok: true };
  });
  try {
    const origin = await bare.listen({ host: '127.0.0.1', port: 0 });
    return await load.http(origin, { name: 'transfer', ...LOAD }, [[{ method: 'POST', path: '/drain', headers: { 'content-type': contentType }, body }]], [200]);
  } finally {
    await bare.close();
  }
}

export const uploadSection: Section<ApiContext> = async ({ t, load, notes }, rows) => {
  const user = await t.user('bench-uploader@example.com', 'Bench Uploader');
  const file = await payload();
  const { body, contentType } = multipart(file);
  const cookie = await user.client.jar.getCookieString(`${t.baseUrl}/api/upload`);
  // A store of the bench's own on the service's folder: the direct baseline without the service.
  const store = await openObjectStore(t);

  let n = 0;
  const direct = await runLoad({ name: 'direct', ...LOAD }, async () => {
    await store.put(`bench-direct-${process.pid}-${n++}.png`, Readable.from([file]), { contentType: 'image/png', maxBytes: SIZE + 1 });
  });
  const baseline = toRow('upload 4 MB: store.put straight to the store (local folder), one 4 MB chunk', direct);
  rows.push(baseline);
  // The same bytes as a stream of 64 KB chunks, the size a network body arrives in: what the store itself
  // costs for bytes that come from a socket, without the socket.
  const chunks = Array.from({ length: Math.ceil(SIZE / CHUNK) }, (_, i) => file.subarray(i * CHUNK, (i + 1) * CHUNK));
  const chunked = await runLoad({ name: 'direct, chunked', ...LOAD }, async () => {
    await store.put(`bench-direct-${process.pid}-${n++}.png`, Readable.from(chunks), { contentType: 'image/png', maxBytes: SIZE + 1 });
  });
  rows.push(toRow('upload 4 MB: store.put straight to the store, 64 KB chunks', chunked, baseline));
  await store.close();

  let api!: Awaited<ReturnType<typeof load.http>>;
  const growth = await peakRssGrowth(async () => {
    api = combine([await load.http(t.baseUrl, { name: 'api', ...LOAD }, [[{ method: 'POST', path: '/api/upload', headers: { cookie, 'content-type': contentType }, body }]], [200])]);
  });
  rows.push(toRow('upload 4 MB: POST /api/upload (multipart, streamed)', api, baseline));
  // The transfer alone: the same multipart body POSTed over loopback to a bare Fastify route (in this process,
  // like the service) that reads it to the end and stores nothing. Run after the API so it cannot warm the
  // service's heap before the RSS measurement. An upload costs about this plus the store's own cost.
  const transfer = await drainedTransfer(load, contentType, body);
  rows.splice(rows.length - 1, 0, toRow('upload 4 MB: HTTP transfer only (bare route, body read and dropped)', transfer, baseline));
  // Both costs paid one after the other on the same cores: the most the API could reach here.
  const combinedMBps = 1 / (1 / transfer.reqPerSec + 1 / chunked.reqPerSec);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const mbps = (r: { reqPerSec: number }) => ((r.reqPerSec * SIZE) / 1e6).toFixed(0);
  notes.push(
    `Uploads: ${LOAD.concurrency} in flight, ${(SIZE / 1e6).toFixed(1)} MB each: API ${mbps(api)} MB/s vs direct ${mbps(direct)} MB/s (one chunk) / ${mbps(chunked)} MB/s (64 KB chunks), transfer alone ${mbps(transfer)} MB/s; ` +
      `transfer + store paid in turn on these cores ≈ ${mbps({ reqPerSec: combinedMBps })} MB/s = ${(combinedMBps / direct.reqPerSec).toFixed(2)}× of direct (the API reaches ${(api.reqPerSec / combinedMBps).toFixed(2)}× of that); ` +
      `peak RSS growth of the service process during the API run: ${mib(growth.rss)} MiB (goal ≤ 64 MiB; at that peak, ArrayBuffers ${mib(growth.arrayBuffers)} MiB and V8's heap ${mib(growth.heap)} MiB over the start); the service's CPU per upload: ${(growth.cpuMs / (LOAD.requests + LOAD.warmup)).toFixed(1)} ms.`,
  );
};
