import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { ObjectTooLargeError } from './errors.js';

/** Passes bytes through, counting them; errors once more than `maxBytes` arrive. */
export class ByteLimit extends Transform {
  bytes = 0;
  /** The first error of this stream: ObjectTooLargeError, or the source's own error or abort. */
  failure?: Error;

  constructor(readonly maxBytes: number) {
    super();
    // Backend SDKs may replace a stream error with their own (e.g. a failed clean-up request); keep ours.
    this.on('error', (err) => (this.failure ??= err));
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, done: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.bytes += bytes.length;
    if (this.bytes > this.maxBytes) {
      done(new ObjectTooLargeError(this.maxBytes));
      return;
    }
    done(null, bytes);
  }
}

/**
 * `body` as a size-limited stream. A source error or abort surfaces as an error on the returned stream, and
 * destroying the returned stream destroys the source. A Buffer over the limit throws at once.
 */
export function limitBytes(body: NodeJS.ReadableStream | Buffer, maxBytes: number): ByteLimit {
  const limit = new ByteLimit(maxBytes);
  if (Buffer.isBuffer(body)) {
    if (body.length > maxBytes) throw new ObjectTooLargeError(maxBytes);
    limit.end(body);
  } else {
    pipeline(body, limit, () => {
      // Errors reach whoever consumes `limit`; pipeline has already destroyed both ends.
    });
  }
  return limit;
}

/** Destroys a stream `body` the caller handed over, e.g. when a put is refused before reading it. */
export function discardBody(body: NodeJS.ReadableStream | Buffer): void {
  if (!Buffer.isBuffer(body) && isDestroyable(body)) body.destroy();
}

const isDestroyable = (stream: object): stream is { destroy(): void } => 'destroy' in stream && typeof stream.destroy === 'function';
