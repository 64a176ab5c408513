// Uploads (POST /api/upload, docs/api.md "Uploads and stored files"): the type is sniffed from the first bytes, the bytes stream
// straight into the store with the size limit enforced while streaming; a failure leaves nothing behind.
import type { Readable } from 'node:stream';
import { AppError, fileTooLarge, unsupportedFileType, uploadFailed, uploadInterrupted } from '../errors.js';
import { uploadResult, type Metrics } from '../metrics.js';
import { ObjectTooLargeError, type ObjectStore } from '../storage/index.js';
import { ACCEPTED_IMAGE_TYPES, safeFileName, uniquePrefix } from './object-names.js';
import { sniffStream } from './sniff.js';

export interface UploadsService {
  /** Store one uploaded file; `source` is the client's stream (its errors are the client's fault). */
  upload(file: { filename: string; stream: Readable }): Promise<{ url: string; name: string; size: number }>;
}

export function createUploadsService({ store, maxBytes, log, metrics }: { store: ObjectStore; maxBytes: number; log: { error(o: object, m: string): void }; metrics?: Pick<Metrics, 'upload'> }): UploadsService {
  const service: UploadsService = {
    async upload({ filename, stream }) {
      let clientError: Error | undefined;
      stream.once('error', (err) => (clientError ??= err));
      const fail = (err: unknown): never => {
        if (err instanceof AppError) throw err;
        if (err instanceof ObjectTooLargeError || isSizeLimit(clientError ?? err)) throw fileTooLarge();
        if (clientError) throw uploadInterrupted();
        const failed = uploadFailed();
        log.error({ err, code: failed.code }, 'storing an upload failed');
        throw failed;
      };

      let sniffed: Awaited<ReturnType<typeof sniffStream>>;
      try {
        sniffed = await sniffStream(stream);
      } catch (err) {
        clientError ??= err as Error; // reading the client's stream failed (possibly before we listened)
        return fail(err);
      }
      const type = sniffed.mime;
      if (!type || !ACCEPTED_IMAGE_TYPES.has(type)) {
        sniffed.stream.destroy();
        if (clientError) return fail(clientError);
        throw unsupportedFileType(
          sniffed.size === 0 ? 'the file is empty' : type ? `${type} is not an accepted image type` : 'the file is not a recognised raster image',
        );
      }
      const name = `${uniquePrefix()}-${safeFileName(filename, type)}`;
      try {
        const stored = await store.put(name, sniffed.stream, { contentType: type, maxBytes });
        return { url: stored.url, name, size: stored.size };
      } catch (err) {
        return fail(err);
      }
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
  };
}

const isSizeLimit = (err: unknown) => (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE';
