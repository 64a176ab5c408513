// Uploads (issue 3): 50 concurrent 4 MB uploads through POST /api/upload vs writing the same bytes straight to
// the same store in the same run, and the server process's peak RSS growth during the API run (it must stream).
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { combine, runLoad, toRow } from './load.js';
import type { ApiContext } from './api.js';
import type { Section } from './table.js';

const SIZE = 4_000_000; // under the default 4 MiB limit
const LOAD = { requests: 150, warmup: 50, concurrency: 50 };

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

/** Samples this process's RSS (the server runs here) while `work` runs; returns the peak growth in bytes. */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  global.gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(0, peak - start);
}

export const uploadSection: Section<ApiContext> = async ({ t, load, notes }, rows) => {
  const user = await t.user('bench-uploader@example.com', 'Bench Uploader');
  const file = await payload();
  const { body, contentType } = multipart(file);
  const cookie = await user.client.jar.getCookieString(`${t.baseUrl}/api/upload`);
  const store = t.app.store;

  let n = 0;
  const direct = await runLoad({ name: 'direct', ...LOAD }, async () => {
    await store.put(`bench-direct-${process.pid}-${n++}.png`, Readable.from([file]), { contentType: 'image/png', maxBytes: SIZE + 1 });
  });
  const baseline = toRow('upload 4 MB: store.put straight to the store (local folder)', direct);
  rows.push(baseline);

  let api!: Awaited<ReturnType<typeof load.http>>;
  const growth = await peakRssGrowth(async () => {
    api = combine([await load.http(t.baseUrl, { name: 'api', ...LOAD }, [[{ method: 'POST', path: '/api/upload', headers: { cookie, 'content-type': contentType }, body }]], [200])]);
  });
  rows.push(toRow('upload 4 MB: POST /api/upload (multipart, streamed)', api, baseline));
  const mbps = (r: { reqPerSec: number }) => ((r.reqPerSec * SIZE) / 1e6).toFixed(0);
  notes.push(
    `Uploads: ${LOAD.concurrency} in flight, ${(SIZE / 1e6).toFixed(1)} MB each: API ${mbps(api)} MB/s vs direct ${mbps(direct)} MB/s; ` +
      `peak RSS growth of the process (server + load thread) during the API run: ${(growth / 2 ** 20).toFixed(1)} MiB (goal ≤ 64 MiB; the load thread holds one copy of the 4 MB body).`,
  );
};
