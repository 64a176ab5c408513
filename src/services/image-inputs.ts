// Input images of a generation (POST /api/image, docs/api.md "Image generation"): our own store's URLs are read
// from the store; data URLs are decoded; other http(s) URLs go through the SSRF-guarded fetcher. The type is
// always detected from the bytes, and the image is checked before any model sees it: first every header (the
// pixels of each input, and of all of them together), then the decode (truncated or corrupt data), which is the
// heavy part and runs where `decodeProblem` runs it (the image workers). A refused or failed input is a 400
// naming it, never skipped.
import { fileTypeFromBuffer } from 'file-type';
import { AppError, imagesOverPixelBudget, inputImageTooLarge, invalidImage, storageUnavailable, unusableImage } from '../errors.js';
import type { ModelImage } from '../models/index.js';
import { decodeDataUrl, ImageFetchError, type SafeFetcher } from '../net/safe-fetch.js';
import type { ObjectStore } from '../storage/index.js';
import { decodeProblem, pixelProblem, readInputHeader } from '../imaging/input-image-check.js';
import { ACCEPTED_IMAGE_TYPES } from '../imaging/object-names.js';

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
  /** Pixels all inputs of one request may declare together; GENERATION_MAX_PIXELS. */
  maxTotalPixels: number;
  /** Decodes an input to the end for `owner` (the user): its problem or undefined (default: in this process). */
  decodeProblem?: (data: Buffer, mimeType: string, maxPixels: number, owner?: string) => Promise<string | undefined>;
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
    // Our own store failing is an outage (503), never the input's fault.
    const unavailable = (err: unknown): never => {
      if (err instanceof AppError) throw err;
      throw storageUnavailable('a stored input image could not be read');
    };
    const found = await deps.store.get(name).catch(unavailable);
    if (!found) throw invalidImage(url, 'no such stored image');
    if (found.info.size > deps.maxBytes) throw inputImageTooLarge(url);
    return { data: await readAll(found.stream, deps.maxBytes, url).catch(unavailable), url };
  }
  return { data: (await deps.fetcher.fetch(url)).data, url };
}

interface Fetched extends ResolvedInput {
  index: number;
  pixels: number;
  decodable: boolean;
}

/** The input's bytes, type and header: everything but the decode. */
async function fetchOne(url: string, index: number, deps: InputDeps): Promise<Fetched> {
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
  const header = await readInputHeader(got.data, type.mime);
  if ('problem' in header) throw unusableImage(header.problem, { index, url });
  const tooLarge = pixelProblem(header, deps.maxPixels);
  if (tooLarge) throw unusableImage(tooLarge, { index, url });
  return { data: got.data, mimeType: type.mime, url: got.url, index, pixels: header.width * header.frameHeight, decodable: header.decodable };
}

/** The first failure in input order is the answer (all were tried concurrently). */
function firstFailure<T>(settled: PromiseSettledResult<T>[]): T[] {
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/**
 * All inputs, fetched concurrently; their headers are checked (each, then the total) before any is decoded,
 * so a request over the budget costs no decoding at all.
 */
export async function resolveInputs(urls: string[], deps: InputDeps, owner?: string): Promise<ResolvedInput[]> {
  const fetched = firstFailure(await Promise.allSettled(urls.map((url, index) => fetchOne(url, index, deps))));
  const total = fetched.reduce((sum, f) => sum + f.pixels, 0);
  if (total > deps.maxTotalPixels) throw imagesOverPixelBudget(total, deps.maxTotalPixels, fetched.length);
  const decode = deps.decodeProblem ?? decodeProblem;
  const checked = await Promise.allSettled(
    fetched.map(async ({ data, mimeType, url, index, decodable }) => {
      const problem = decodable ? await decode(data, mimeType, deps.maxPixels, owner) : undefined;
      if (problem) throw unusableImage(problem, { index, url: urls[index] });
      return { data, mimeType, url };
    }),
  );
  return firstFailure(checked);
}
