// The editor's side of a mask save (./regions.ts), in a process of its own so that its work — encoding the PNG, the
// live documents — is neither on the service's event loop nor in the service's memory figures: encode a mask PNG
// (sharp, as the browser's canvas.toBlob would), POST it to /api/upload, put its URL in the node's data in the live
// document (the real @hocuspocus/provider), wait for the service to acknowledge it, and wait for a second client of the
// same project to see it and fetch the PNG (what its overlay then draws). The baseline does the same with a photo put in
// an upload node's `data.image`. Answers each repeat's times by stage; everything bounded by CAP_MS.
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import * as Y from 'yjs';
import { canvasMaps } from '../src/collab/canvas-doc.js';
import type { HttpClient } from '../test/helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../test/helpers/live-client.js';

const CAP_MS = 60_000;

export interface RoundTripJob {
  baseUrl: string;
  /** The session cookie's value (SESSION_COOKIE). */
  token: string;
  projectId: string;
  nodeId: string;
  /** mask: a PNG into `data.mask`; photo: a JPEG into `data.image`. */
  what: 'mask' | 'photo';
  size: number;
  /** Measured repeats, after one warm-up. */
  repeats: number;
}

export interface RoundTripTimes {
  encodeMs: number;
  uploadMs: number;
  /** From setting the URL in the document to the service's acknowledgement. */
  savedMs: number;
  /** From setting it to the second client's document holding it. */
  seenMs: number;
  /** The second client's GET of the file (after it saw the URL). */
  fetchMs: number;
  /** From the encode's start to the second client having fetched the file: the user's save to the other client showing it. */
  totalMs: number;
  bytes: number;
}

/** Pixels ready to encode: what the page holds before canvas.toBlob (not timed). */
interface Pixels {
  raw: Buffer;
  size: number;
  channels: 3 | 4;
}

/** A mask the editor could have painted: black, with white brush dabs along a curve (seeded), RGBA as a canvas is. */
async function maskPixels(size: number, seed: number): Promise<Pixels> {
  const dabs = Array.from({ length: 40 }, (_, i) => {
    const t = i / 39;
    const x = size * (0.2 + 0.6 * t);
    const y = size * (0.5 + 0.25 * Math.sin(t * 6 + seed));
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${(size / 24).toFixed(1)}" fill="#fff"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="100%" height="100%" fill="#000"/>${dabs}</svg>`;
  return { raw: (await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true })).data, size, channels: 4 };
}

/** A photo-like picture (a gradient with noise). */
function photoPixels(size: number, seed: number): Pixels {
  const raw = Buffer.alloc(size * size * 3);
  const row = size * 3;
  for (let p = 0; p < raw.length; p++) raw[p] = (((p % row) / row) * 200 + ((p * 7919 + seed * 31) % 41)) & 0xff;
  return { raw, size, channels: 3 };
}

/** The timed encode: the mask as PNG (as canvas.toBlob('image/png')), the photo as a camera's JPEG. */
function encode(what: 'mask' | 'photo', { raw, size, channels }: Pixels): Promise<Buffer> {
  const img = sharp(raw, { raw: { width: size, height: size, channels } });
  return what === 'mask' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

const within = <T>(p: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${CAP_MS / 1000} s`)), CAP_MS);
  });
  return Promise.race([p, cap]).finally(() => clearTimeout(timer));
};

export async function roundTrips(job: RoundTripJob): Promise<RoundTripTimes[]> {
  const cookie = `authlib.session-token=${job.token}`;
  const as = { cookie: async () => job.token } as unknown as HttpClient;
  const field = job.what === 'mask' ? 'mask' : 'image';
  const dataOf = (doc: Y.Doc) => (canvasMaps(doc).nodes.get(job.nodeId) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;
  let editor: LiveClient | undefined;
  let viewer: LiveClient | undefined;
  try {
    editor = await connectLive({ baseUrl: job.baseUrl, as, projectId: job.projectId, maxAttempts: 1 });
    viewer = await connectLive({ baseUrl: job.baseUrl, as, projectId: job.projectId, maxAttempts: 1 });
    await within(Promise.all([editor.event('synced'), viewer.event('synced')]), 'live documents synced');
    if (!dataOf(editor.doc)) throw new Error(`node ${job.nodeId} is not in the live document`);
    const times: RoundTripTimes[] = [];
    for (let k = 0; k <= job.repeats; k++) {
      const pixels = job.what === 'mask' ? await maskPixels(job.size, k) : photoPixels(job.size, k);
      const t0 = performance.now();
      const bytes = await encode(job.what, pixels);
      const t1 = performance.now();
      const form = new FormData();
      const type = job.what === 'mask' ? 'image/png' : 'image/jpeg';
      form.append('file', new Blob([new Uint8Array(bytes)], { type }), job.what === 'mask' ? 'mask.png' : 'photo.jpg');
      const res = await within(fetch(`${job.baseUrl}/api/upload`, { method: 'POST', headers: { cookie }, body: form }), 'upload');
      const answer = (await res.json()) as { url?: string; error?: string };
      if (res.status !== 200 || !answer.url) throw new Error(`POST /api/upload → ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
      const url = answer.url;
      const t2 = performance.now();
      // The second client, as a page would: once its document holds the URL it fetches the file to draw it.
      const viewed = docWhere(viewer.doc, (d) => dataOf(d)?.get(field) === url).then(async () => {
        const seenAt = performance.now();
        const got = await fetch(new URL(url, job.baseUrl), { headers: { cookie } });
        const read = Buffer.from(await got.arrayBuffer());
        if (got.status !== 200 || read.length !== bytes.length) throw new Error(`GET ${url} → ${got.status}, ${read.length} of ${bytes.length} bytes`);
        return { seenAt, fetchedAt: performance.now() };
      });
      viewed.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
      dataOf(editor.doc)!.set(field, url);
      await within(editor.saved(), 'acknowledged');
      const t3 = performance.now();
      const { seenAt, fetchedAt } = await within(viewed, 'seen and fetched by the second client');
      if (k > 0) times.push({ encodeMs: t1 - t0, uploadMs: t2 - t1, savedMs: t3 - t2, seenMs: seenAt - t2, fetchMs: fetchedAt - seenAt, totalMs: fetchedAt - t0, bytes: bytes.length });
    }
    return times;
  } finally {
    editor?.close();
    viewer?.close();
  }
}

// As a child process (./regions.ts forks it): one job per message, answered with its result or error.
if (process.send) {
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: { id: number; job: RoundTripJob }) => {
    roundTrips(m.job).then(
      (result) => process.send!({ id: m.id, result }),
      (err: unknown) => process.send!({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}
