// Generates an image with the Image Canvas API from a script, through the typed client in client/
// (docs/api.md "Scripts and the typed client"):
//
//   IMAGE_CANVAS_TOKEN=ic_… npx tsx docs/examples/generate.ts <image-url-or-path> "<prompt>" [--out <folder>]
//
// It checks the token, uploads the image when given a local file, starts a generation job, follows the job's
// events until it ends (printing its state and queue position), and saves the result as `<prompt>.png` in the
// current folder (or --out). The token needs the scopes read, write (only to upload a file) and generate.
// IMAGE_CANVAS_URL names the service (default http://localhost:3000). Ctrl-C cancels the job.
// Exit status: 0 saved, 1 failed (the reason is printed), 2 wrong usage.
import { openAsBlob } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createImageCanvasClient, ImageCanvasError, type GenerationJob } from '../../client/index.js';

const USAGE = 'usage: IMAGE_CANVAS_TOKEN=ic_… npx tsx docs/examples/generate.ts <image-url-or-path> "<prompt>" [--out <folder>]';

class Failure extends Error {}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
const [image, prompt] = positionals;
const baseUrl = process.env.IMAGE_CANVAS_URL || 'http://localhost:3000';
const token = process.env.IMAGE_CANVAS_TOKEN;
if (!image || !prompt?.trim() || positionals.length > 2) usage(USAGE);
if (!token) usage('IMAGE_CANVAS_TOKEN is not set: create a token (read, write, generate) on the API tokens page of the web client');

const client = createImageCanvasClient({ baseUrl, token });

try {
  await checkToken();
  const url = await imageUrl(image);
  const job = await generate(url, prompt.trim());
  if (job.status !== 'succeeded' || !job.output) {
    const reason = job.error ? `${job.error.error}${job.error.details ? `: ${job.error.details}` : ''}` : job.status;
    throw new Failure(`the job ${job.status}: ${reason}`);
  }
  const file = await save(job.output.imageUrl, prompt, values.out ?? '.');
  console.log(`saved ${file}`);
} catch (err) {
  console.error(`error: ${describe(err)}`);
  process.exitCode = 1;
}

function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

function describe(err: unknown): string {
  if (err instanceof Failure || err instanceof ImageCanvasError) return err.message;
  if (err instanceof TypeError) return `could not reach ${baseUrl} (${(err.cause as Error | undefined)?.message ?? err.message})`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** A read route answers only for a valid token with the read scope (GET /api/user/tokens would need a session). */
async function checkToken(): Promise<void> {
  const { response, error } = await client.GET('/api/user/generations', { params: { query: { limit: 1 } } });
  if (response.status === 401) throw new Failure('the token was refused (unknown, revoked or expired)');
  if (!response.ok) throw new ImageCanvasError(response.status, error);
}

/** The URL to generate from: the argument itself when it is one, else the local file, uploaded. */
async function imageUrl(arg: string): Promise<string> {
  if (/^(https?|data):/i.test(arg)) return arg;
  const file = path.resolve(arg);
  const blob = await openAsBlob(file).catch((err: NodeJS.ErrnoException) => {
    throw new Failure(`cannot read ${arg}: ${err.code ?? err.message}`);
  });
  const { url } = await client.upload(blob, path.basename(file));
  console.log(`uploaded ${arg} → ${url}`);
  return url;
}

async function generate(url: string, text: string): Promise<GenerationJob> {
  const { data, error, response } = await client.POST('/api/generations', { body: { images: [url], prompt: text } });
  if (!data) throw new ImageCanvasError(response.status, error);
  console.log(`job ${data.id}`);
  const stop = new AbortController();
  const cancel = () => {
    stop.abort();
    console.log('canceling…');
    void client.POST('/api/generations/{id}/cancel', { params: { path: { id: data.id } } }).finally(() => process.exit(130));
  };
  process.once('SIGINT', cancel);
  let shown = '';
  try {
    return await client.waitForJob(data.id, {
      signal: stop.signal,
      onUpdate(job) {
        const line = job.status === 'queued' && job.queuePosition !== null ? `queued (position ${job.queuePosition})` : job.status;
        if (line !== shown) console.log((shown = line));
      },
    });
  } finally {
    process.off('SIGINT', cancel);
  }
}

/** Streams the result into `<folder>/<prompt>.png` (`-2`, `-3`, … when that name is taken); returns the path. */
async function save(url: string, text: string, folder: string): Promise<string> {
  const download = await client.download(url);
  const ext = { 'image/jpeg': '.jpg', 'image/webp': '.webp' }[download.contentType?.split(';')[0].trim() ?? ''] ?? '.png';
  const base = fileNameOf(text);
  await fs.mkdir(folder, { recursive: true });
  for (let n = 1; ; n++) {
    const file = path.join(folder, `${base}${n > 1 ? `-${n}` : ''}${ext}`);
    const handle = await fs.open(file, 'wx').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return undefined;
      throw err;
    });
    if (!handle) continue;
    try {
      await pipeline(Readable.fromWeb(download.body as NodeReadableStream<Uint8Array>), handle.createWriteStream());
    } catch (err) {
      await fs.rm(file, { force: true });
      throw err;
    }
    return file;
  }
}

/** The prompt as a file name: lower-case ASCII letters and digits joined by `-`, at most 60 characters. */
function fileNameOf(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 60)
    .replace(/^-+|-+$/g, '');
  return slug || 'generation';
}
