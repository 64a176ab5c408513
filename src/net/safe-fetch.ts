import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { fetch, type Response } from 'undici';
import { createGuardedAgent, type Lookup } from './guarded-agent.js';
import { FetchRefusal, HOST_REFUSED, ImageFetchError } from './errors.js';
import { isPublicAddress } from './ip.js';

export { ImageFetchError } from './errors.js';
export { decodeDataUrl } from './data-url.js';

/** The network the fetcher reaches: how host names resolve, and which addresses it may connect to. */
export interface Network {
  lookup: Lookup;
  isAllowed(ip: string): boolean;
}

export interface SafeFetchOptions {
  /** Refuse as soon as more bytes arrive, and early when Content-Length says more. */
  maxBytes: number;
  /** Total time for connect, headers and the whole body, across all redirects. */
  timeoutMs: number;
  /** Default 3; every hop is validated again (scheme, host, resolved address). */
  maxRedirects?: number;
  /** The service uses `publicInternet`. */
  network: Network;
}

export interface SafeFetchResult {
  data: Buffer;
  contentType?: string;
  finalUrl: string;
}

export interface SafeFetchCall {
  /** Stops the fetch (connect, headers or body) when it aborts. */
  signal?: AbortSignal;
  /** A lower or higher limit than the fetcher's `maxBytes` for this call. */
  maxBytes?: number;
}

export interface SafeFetcher {
  fetch(url: string, call?: SafeFetchCall): Promise<SafeFetchResult>;
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The system resolver, every address of a name. */
const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** The public internet: names through the system resolver, and only public unicast addresses (no loopback,
 *  private, link-local, NAT64 of those, …; see ip.ts). */
export const publicInternet: Network = { lookup: systemLookup, isAllowed: isPublicAddress };

export function createSafeFetcher(opts: SafeFetchOptions): SafeFetcher {
  const maxRedirects = opts.maxRedirects ?? 3;
  const isAllowed = (ip: string) => opts.network.isAllowed(ip);
  const agent = createGuardedAgent({
    lookup: opts.network.lookup,
    isAllowed,
    connectTimeoutMs: opts.timeoutMs,
  });

  async function fetchImage(url: string, call: SafeFetchCall = {}): Promise<SafeFetchResult> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, opts.timeoutMs);
    const stop = () => controller.abort();
    if (call.signal?.aborted) controller.abort();
    call.signal?.addEventListener('abort', stop, { once: true });
    try {
      let current = validateUrl(url, isAllowed);
      for (let hop = 0; ; hop++) {
        // undici's own fetch: its dispatcher is the guarded agent of the same undici (Node's global fetch bundles
        // another undici version, whose fetch cannot drive this agent).
        const res = await fetch(current, {
          dispatcher: agent,
          redirect: 'manual',
          signal: controller.signal,
          headers: { accept: 'image/*,*/*;q=0.8' },
        });
        const location = res.headers.get('location');
        if (REDIRECT_STATUSES.has(res.status) && location !== null) {
          await res.body?.cancel().catch(() => {});
          if (hop >= maxRedirects) throw new FetchRefusal('too many redirects');
          current = validateUrl(resolveLocation(location, current), isAllowed);
          continue;
        }
        if (res.status < 200 || res.status > 299) {
          await res.body?.cancel().catch(() => {});
          throw new FetchRefusal(`HTTP ${res.status}`);
        }
        const data = await readBody(res, call.maxBytes ?? opts.maxBytes, controller);
        return { data, contentType: res.headers.get('content-type') ?? undefined, finalUrl: current.href };
      }
    } catch (err) {
      throw toImageFetchError(url, err, timedOut);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', stop);
    }
  }

  return { fetch: fetchImage, close: () => agent.close() };
}

function validateUrl(raw: string, isAllowed: (ip: string) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusal('invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusal('unsupported URL scheme');
  if (url.username || url.password) throw new FetchRefusal('credentials in URL');
  // The URL parser has already normalised decimal, octal, hex and short IPv4 forms to dotted quads.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!host) throw new FetchRefusal('invalid URL');
  // Literal addresses are refused here, before any connection; the connector checks them again.
  if (isIP(host) && !isAllowed(host)) throw new FetchRefusal(HOST_REFUSED);
  return url;
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw new FetchRefusal('invalid redirect');
  }
}

/** A fetch response as `readBounded` reads it: undici's and the global fetch's alike (a body is a stream of bytes). */
interface BoundedSource {
  headers: { get(name: string): string | null };
  body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void } } | null;
}

/**
 * A response body of at most `maxBytes`, read chunk by chunk; null when a Content-Length over it is declared or more
 * has arrived (nothing past the limit is kept, and the body is left unlocked for the caller to abort or cancel).
 */
export async function readBounded(res: BoundedSource, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done || !value) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.releaseLock();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

async function readBody(res: Response, maxBytes: number, controller: AbortController): Promise<Buffer> {
  const body = await readBounded(res, maxBytes);
  if (body) return body;
  // Aborting (rather than cancelling the body) makes undici drop the connection instead of draining it.
  controller.abort();
  throw new FetchRefusal('too large');
}

function toImageFetchError(url: string, err: unknown, timedOut: boolean): ImageFetchError {
  if (err instanceof ImageFetchError) return err;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof FetchRefusal) return new ImageFetchError(url, e.reason);
  }
  if (timedOut) return new ImageFetchError(url, 'timeout');
  return new ImageFetchError(url, 'fetch failed');
}
