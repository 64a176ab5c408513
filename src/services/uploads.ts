// Uploads (POST /api/upload, docs/api.md "Uploads and stored files"): the type is sniffed from the first bytes, the bytes stream
// straight into the store with the size limit enforced while streaming; a failure leaves nothing behind. An SVG
// is the exception: it is read whole (up to the limit) and stored as the PNG it rasterizes to (./svg.ts), drawn in
// the image workers, which send back no PNG over the limit either: in this process an SVG upload holds the SVG
// and its PNG, each at most UPLOAD_MAX_BYTES.
// The same rules store images that arrive in memory (data: URLs in canvas nodes, ./canvas-images.ts), named by
// their content so that the same image is stored once.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { AppError, fileTooLarge, storageUnavailable, unsupportedFileType, uploadFailed, uploadInterrupted } from '../errors.js';
import { uploadResult, type Metrics } from '../metrics.js';
import { ObjectExistsError, ObjectTooLargeError, storeFailure, type ObjectStore } from '../storage/index.js';
import { ACCEPTED_IMAGE_TYPES, extensionOf, safeFileName, uniquePrefix } from '../imaging/object-names.js';
import { sniffBuffer, sniffStream } from '../imaging/sniff.js';
import { rasterizeSvg, SVG_TYPE, type SvgRender } from '../imaging/svg.js';

const PNG = 'image/png';

/** An image held in memory, checked and named by its content; nothing is written before `store()`. */
export interface ContentImage {
  /** `content-<64 hex digits>.<extension of the stored type>`. */
  name: string;
  /** The object's public URL, the same whether it is stored yet or not. */
  url: string;
  /** False when the object is already stored: `store()` then does nothing. */
  isNew: boolean;
  /** Writes the object unless it exists (a concurrent write of the same content is success too). */
  store(): Promise<void>;
}

export interface UploadsService {
  /**
   * Store one uploaded file; `stream` is the client's stream (its errors are the client's fault). `written` is
   * given each chunk of it the store has written (PutOptions.written), e.g. to free the request's own chunks.
   */
  upload(file: { filename: string; stream: Readable; written?: (chunk: Buffer) => void }): Promise<{ url: string; name: string; size: number }>;
  /**
   * Check an image held in memory by the upload rules (type from the bytes, SVG rasterized to PNG, the upload
   * size limit) and name it by its content: SHA-256 over `scope` and the bytes, so the same bytes in the same scope
   * (a user) always give the same name and URL, and an image stored once is never written again. Throws the
   * upload's errors (400 Unsupported file type, Invalid image, Image too large; 413 File too large).
   */
  prepareContent(data: Buffer, scope: string): Promise<ContentImage>;
}

export interface UploadsDeps {
  store: ObjectStore;
  /** UPLOAD_MAX_BYTES: a file as sent, and as stored. */
  maxBytes: number;
  /** SVG_MAX_PIXELS: the size an SVG may be rasterized to. */
  svgMaxPixels: number;
  log: { error(o: object, m: string): void };
  metrics?: Pick<Metrics, 'upload'>;
  /** How many content names known to be stored are remembered (each saves a store round trip per save). */
  knownContentNames?: number;
  /** Draws an SVG (the image workers; default: in this process). */
  renderSvg?: (svg: Buffer, maxPixels: number, maxBytes?: number) => Promise<SvgRender>;
}

/** Reads a whole stream, failing with 413 File too large past `maxBytes`. */
async function readAll(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      stream.destroy();
      throw fileTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The details of a file that is not an image we take (unchanged wording: clients compare them). */
const unsupported = (size: number, type: string | undefined) =>
  unsupportedFileType(size === 0 ? 'the file is empty' : type ? `${type} is not an accepted image type` : 'the file is not a recognised raster image');

export function createUploadsService(deps: UploadsDeps): UploadsService {
  const { store, maxBytes, log, metrics } = deps;
  const rasterize = (svg: Buffer) => rasterizeSvg(svg, { maxPixels: deps.svgMaxPixels, maxBytes }, deps.renderSvg);
  /**
   * Content names known to be stored. Objects are never changed or deleted by the service, so a name once seen
   * stays true; bounded, so that memory stays small whatever the number of images.
   */
  const known = new LRUCache<string, true>({ max: deps.knownContentNames ?? 10_000 });

  const storeFailed = (err: unknown): never => {
    // The store down or full is an outage (503 Storage unavailable, retry later); anything else is ours (500).
    const outage = storeFailure(err);
    if (outage) {
      log.error({ err, code: 'storage_unavailable' }, 'storing an upload failed: the object store is unavailable');
      throw storageUnavailable(outage.full ? 'the object store is full' : 'the object store could not be reached');
    }
    const failed = uploadFailed();
    log.error({ err, code: failed.code }, 'storing an upload failed');
    throw failed;
  };

  const service: UploadsService = {
    async upload({ filename, stream, written }) {
      let clientError: Error | undefined;
      stream.once('error', (err) => (clientError ??= err));
      const fail = (err: unknown): never => {
        if (err instanceof AppError) throw err;
        if (err instanceof ObjectTooLargeError || isSizeLimit(clientError ?? err)) throw fileTooLarge();
        if (clientError) throw uploadInterrupted();
        return storeFailed(err);
      };

      let sniffed: Awaited<ReturnType<typeof sniffStream>>;
      try {
        sniffed = await sniffStream(stream);
      } catch (err) {
        clientError ??= err as Error; // reading the client's stream failed (possibly before we listened)
        return fail(err);
      }
      const type = sniffed.mime;
      if (type === SVG_TYPE) {
        try {
          const png = await rasterize(await readAll(sniffed.stream, maxBytes));
          const name = `${uniquePrefix()}-${safeFileName(filename, PNG)}`;
          const stored = await store.put(name, png, { contentType: PNG, maxBytes });
          return { url: stored.url, name, size: stored.size };
        } catch (err) {
          sniffed.stream.destroy();
          return fail(err);
        }
      }
      if (!type || !ACCEPTED_IMAGE_TYPES.has(type)) {
        sniffed.stream.destroy();
        if (clientError) return fail(clientError);
        throw unsupported(sniffed.size, type);
      }
      const name = `${uniquePrefix()}-${safeFileName(filename, type)}`;
      try {
        const stored = await store.put(name, sniffed.stream, { contentType: type, maxBytes, written });
        return { url: stored.url, name, size: stored.size };
      } catch (err) {
        return fail(err);
      }
    },

    async prepareContent(data, scope) {
      if (data.length > maxBytes) throw fileTooLarge();
      const type = await sniffBuffer(data);
      if (!type || (type !== SVG_TYPE && !ACCEPTED_IMAGE_TYPES.has(type))) throw unsupported(data.length, type);
      const storedType = type === SVG_TYPE ? PNG : type;
      // The scope comes first, with its length: no (scope, bytes) pair hashes like another.
      const hash = createHash('sha256').update(`${scope.length}:${scope}\n`).update(data).digest('hex');
      const name = `content-${hash}.${extensionOf(storedType)}`;
      const url = store.urlOf(name);
      const stored = (): ContentImage => ({ name, url, isNew: false, store: async () => {} });
      if (known.has(name)) return stored();
      let exists: boolean;
      try {
        exists = (await store.head(name)) !== null;
      } catch (err) {
        return storeFailed(err);
      }
      if (exists) {
        known.set(name, true);
        return stored();
      }
      const body = type === SVG_TYPE ? await rasterize(data) : data;
      return {
        name,
        url,
        isNew: true,
        async store() {
          try {
            await store.put(name, body, { contentType: storedType, maxBytes });
          } catch (err) {
            if (!(err instanceof ObjectExistsError)) storeFailed(err);
          }
          known.set(name, true);
        },
      };
    },
  };
  if (!metrics) return service;
  return {
    async upload(file) {
      try {
        const stored = await service.upload(file);
        metrics.upload('ok', stored.size);
        return stored;
      } catch (err) {
        metrics.upload(uploadResult(err), 0);
        throw err;
      }
    },
    prepareContent: (data, scope) => service.prepareContent(data, scope),
  };
}

const isSizeLimit = (err: unknown) => (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE';
