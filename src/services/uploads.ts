// Uploads (SPEC §4 POST /api/upload, DESIGN.md §4): the type is sniffed from the first bytes, the bytes stream
// straight into the store with the size limit enforced while streaming; a failure leaves nothing behind.
import type { Readable } from 'node:stream';
import { AppError, ObjectTooLargeError, badRequest, internal, payloadTooLarge } from '../errors.js';
import type { Metrics, UploadResult } from '../http/metrics.js';
import type { ObjectStore } from '../storage/index.js';
import { ACCEPTED_IMAGE_TYPES, safeFileName, uniquePrefix } from './object-names.js';
import { sniffStream } from './sniff.js';

export interface UploadsService {
  /** Store one uploaded file; `source` is the client's stream (its errors are the client's fault). */
  upload(file: { filename: string; stream: Readable }): Promise<{ url: string; name: string; size: number }>;
}

export const unsupportedType = (details?: string) => badRequest('Unsupported file type', details);
export const fileTooLarge = () => payloadTooLarge('File too large');

export function createUploadsService({ store, maxBytes, log, metrics }: { store: ObjectStore; maxBytes: number; log: { error(o: object, m: string): void }; metrics?: Pick<Metrics, 'upload'> }): UploadsService {
  const service: UploadsService = {
    async upload({ filename, stream }) {
      let clientError: Error | undefined;
      stream.once('error', (err) => (clientError ??= err));
      const fail = (err: unknown): never => {
        if (err instanceof AppError) throw err;
        if (err instanceof ObjectTooLargeError || isSizeLimit(clientError ?? err)) throw fileTooLarge();
        if (clientError) throw badRequest('Upload was interrupted', 'the multipart body ended early or was malformed');
        log.error({ err }, 'storing an upload failed');
        throw internal('Failed to upload file');
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
        throw unsupportedType(
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
        metrics.upload(uploadOutcome(err), 0);
        throw err;
      }
    },
  };
}

function uploadOutcome(err: unknown): UploadResult {
  if (!(err instanceof AppError)) return 'error';
  if (err.status === 413) return 'too_large';
  if (err.status === 400) return err.message === 'Unsupported file type' ? 'unsupported_type' : 'interrupted';
  return 'error';
}

const isSizeLimit = (err: unknown) => (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE';
