// Small helpers shared by the provider drivers.
import { createSafeFetcher, ImageFetchError, publicInternet, readBounded, type SafeFetcher } from '../net/safe-fetch.js';
import { ModelFailedError, type ModelImage } from './image-model.js';

const MAX_REASON = 200;

/** One line, bounded, with the API key blanked out: provider messages can echo request details. */
export function shortReason(text: string, secret?: string): string {
  let out = text.replace(/\s+/g, ' ').trim();
  if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]'); // short test keys would mangle words
  return out.length > MAX_REASON ? `${out.slice(0, MAX_REASON - 1)}…` : out || 'unknown error';
}

/** A network failure's message plus its cause code (fetch says only "fetch failed"). */
export function networkReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return detail ? `${err.message} (${detail})` : err.message;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** Decodes strict base64 (standard or URL alphabet); undefined when it is not base64 or decodes to nothing. */
export function decodeBase64(value: unknown): Buffer | undefined {
  if (typeof value !== 'string') return undefined;
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return undefined;
  const data = Buffer.from(compact, 'base64');
  return data.length > 0 ? data : undefined;
}

/** Parses a Retry-After header value (seconds or HTTP date) into whole seconds. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export function extensionFor(mimeType: string): string {
  const sub = mimeType.split('/')[1]?.split(/[;+]/)[0]?.toLowerCase();
  if (!sub) return 'bin';
  return sub === 'jpeg' ? 'jpg' : sub;
}

/** Waits `ms`, or until `signal` aborts (then rejects as an aborted model call): a provider's polling pause. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelFailedError('Image model call was aborted'));
    const stop = () => {
      clearTimeout(timer);
      reject(new ModelFailedError('Image model call was aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** The largest output image a hosted model may return, unless a driver is told otherwise. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** An input image as a data URI, the form the hosted editors take inline. */
export const dataUri = (img: ModelImage): string => `data:${img.mimeType};base64,${img.data.toString('base64')}`;

/**
 * How a driver fetches an output image a provider names by URL: the service's SSRF guard (src/net/safe-fetch.ts:
 * public addresses only, every redirect checked again, the size limit enforced while reading).
 */
export type OutputFetcher = Pick<SafeFetcher, 'fetch'>;

let publicFetcher: SafeFetcher | undefined;
/**
 * The guard over the public internet, for a driver built without a fetcher (a script's own model): made once, on
 * first use. The service passes its own (src/composition.ts), which it closes.
 */
export function defaultOutputFetcher(): OutputFetcher {
  publicFetcher ??= createSafeFetcher({ maxBytes: DEFAULT_MAX_OUTPUT_BYTES, timeoutMs: 120_000, maxRedirects: 3, network: publicInternet });
  return publicFetcher;
}

const tooLarge = () => new ModelFailedError('the model returned an image larger than allowed');

/**
 * A response body of at most `maxBytes`, read chunk by chunk: a Content-Length over it is refused before reading,
 * and reading stops (the body is cancelled, its connection dropped) as soon as more has arrived — nothing past the
 * limit is kept. For a server the operator configured (ComfyUI); a URL a provider names goes through
 * `readOutputImage` (the SSRF guard) instead.
 */
export async function readBoundedBody(response: Response, maxBytes: number, refusal: () => Error): Promise<Buffer> {
  const body = await readBounded(response, maxBytes);
  if (body) return body;
  await response.body?.cancel().catch(() => undefined);
  throw refusal();
}

/**
 * A model's output image given as a URL: a data URI is decoded (at most `maxBytes`); an https URL — or an http one on
 * `trustedOrigin`, the provider API's own configured host — is fetched through `fetcher` (the SSRF guard), which
 * stops reading once more than `maxBytes` have arrived. Any other scheme (file:, ftp:, gopher:, …) is refused before
 * anything is fetched. `mimeType` is the type the answer states, when it does.
 */
export async function readOutputImage(
  url: string,
  opts: { signal: AbortSignal; maxBytes: number; fetcher: OutputFetcher; trustedOrigin?: string; mimeType?: string },
): Promise<ModelImage> {
  const inline = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (inline) {
    // Base64 holds 3 bytes in 4 characters: refused before decoding when it cannot fit.
    if (Math.floor((inline[2].length * 3) / 4) > opts.maxBytes + 2) throw tooLarge();
    const data = Buffer.from(inline[2], 'base64');
    if (data.length > opts.maxBytes) throw tooLarge();
    return { mimeType: inline[1], data };
  }
  const parsed = URL.parse(url);
  const trusted = parsed !== null && opts.trustedOrigin !== undefined && parsed.protocol === 'http:' && parsed.origin === opts.trustedOrigin;
  if (parsed?.protocol !== 'https:' && !trusted) throw new ModelFailedError('the model answered with an image URL that is not https');
  try {
    const { data, contentType } = await opts.fetcher.fetch(url, { signal: opts.signal, maxBytes: opts.maxBytes });
    return { mimeType: opts.mimeType ?? contentType?.split(';')[0] ?? 'image/png', data };
  } catch (err) {
    if (!(err instanceof ImageFetchError) || opts.signal.aborted) throw err;
    if (err.reason === 'too large') throw tooLarge();
    throw new ModelFailedError(`the model's image could not be fetched (${err.reason})`);
  }
}
