// Input images of a generation (POST /api/image, docs/api.md "Image generation"): our own store's URLs are read
// from the store; data URLs are decoded; other http(s) URLs go through the SSRF-guarded fetcher. The type is
// always detected from the bytes, and the image is checked (size in pixels, truncated or corrupt data) before
// any model sees it. A refused or failed input is a 400 naming it, never skipped.
import { fileTypeFromBuffer } from 'file-type';
import { AppError, inputImageTooLarge, invalidImage, unusableImage } from '../errors.js';
import type { ModelImage } from '../models/index.js';
import { decodeDataUrl, ImageFetchError, type SafeFetcher } from '../net/safe-fetch.js';
import type { ObjectStore } from '../storage/index.js';
import { inputImageProblem } from './input-image-check.js';
import { ACCEPTED_IMAGE_TYPES } from './object-names.js';

export interface ResolvedInput extends ModelImage {
  /** The URL to record: the one given, or undefined for a data URL (stored later, its URL recorded). */
  url?: string;
}

export interface InputDeps {
  store: Pick<ObjectStore, 'nameFromUrl' | 'get'>;
  fetcher: Pick<SafeFetcher, 'fetch'>;
  maxBytes: number;
  /** Pixels an input may declare (width × height of one frame); INPUT_IMAGE_MAX_PIXELS. */
  maxPixels: number;
}

async function readAll(stream: NodeJS.ReadableStream, maxBytes: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      (stream as { destroy?: () => void }).destroy?.();
      throw inputImageTooLarge(url);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function bytesOf(url: string, deps: InputDeps): Promise<{ data: Buffer; url?: string }> {
  if (url.startsWith('data:')) return { data: decodeDataUrl(url, deps.maxBytes) };
  const name = deps.store.nameFromUrl(url);
  if (name) {
    const found = await deps.store.get(name);
    if (!found) throw invalidImage(url, 'no such stored image');
    if (found.info.size > deps.maxBytes) throw inputImageTooLarge(url);
    return { data: await readAll(found.stream, deps.maxBytes, url), url };
  }
  return { data: (await deps.fetcher.fetch(url)).data, url };
}

async function resolveOne(url: string, index: number, deps: InputDeps): Promise<ResolvedInput> {
  let got: { data: Buffer; url?: string };
  try {
    got = await bytesOf(url, deps);
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof ImageFetchError) {
      if (err.reason === 'too large') throw inputImageTooLarge(url);
      throw invalidImage(url, err.reason);
    }
    throw invalidImage(url, 'could not be read');
  }
  const type = await fileTypeFromBuffer(got.data);
  if (!type || !ACCEPTED_IMAGE_TYPES.has(type.mime)) throw invalidImage(url, 'not a supported raster image');
  const problem = await inputImageProblem(got.data, type.mime, deps.maxPixels);
  if (problem) throw unusableImage(problem, { index, url });
  return { data: got.data, mimeType: type.mime, url: got.url };
}

/** All inputs, fetched concurrently; the first failure (in input order) is the answer. */
export async function resolveInputs(urls: string[], deps: InputDeps): Promise<ResolvedInput[]> {
  const settled = await Promise.allSettled(urls.map((url, index) => resolveOne(url, index, deps)));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<ResolvedInput>).value);
}
