// What an ObjectStore throws, typed, with a stable code. They are not answers: a service decides what a
// storage failure means to its caller (an upload's `File too large`, a generation's `Failed to generate image`).
// A missing object is not an error (`get`/`head` return null, `delete` succeeds).

export type StorageErrorCode = 'object_too_large' | 'object_exists' | 'invalid_object_name' | 'storage_unavailable';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A write went past its byte limit; nothing is left stored. */
export class ObjectTooLargeError extends StorageError {
  constructor(readonly limit: number) {
    super('object_too_large', `object larger than ${limit} bytes`);
  }
}

/** A write named an object that exists (objects are never overwritten). */
export class ObjectExistsError extends StorageError {
  constructor(readonly objectName: string) {
    super('object_exists', `Object already exists: ${objectName}`);
  }
}

/** A name outside the object namespace (callers make safe names; drivers check again). */
export class InvalidObjectNameError extends StorageError {
  constructor(name: unknown) {
    super('invalid_object_name', `Invalid object name ${JSON.stringify(String(name).slice(0, 60))}`);
  }
}

/**
 * The backend could not be reached, failed, or is full (`full`: out of space or over its quota); `cause` is the
 * backend's error. Drivers throw it for every failure that is the store's and not the request's (storeFailure).
 */
export class StorageUnavailableError extends StorageError {
  constructor(
    cause: unknown,
    readonly full = false,
  ) {
    super('storage_unavailable', full ? 'object storage full' : 'object storage unavailable', { cause });
  }
}

/** Node's errors of a socket or a file system that mean the store, not the caller, failed. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'EROFS', 'EIO', 'EACCES', 'EPERM', 'ENOTDIR', 'EMFILE', 'ENFILE']);
/** Out of space: the local file system's errors, and the names S3-compatible and Azure services give a full store or a used-up quota. */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'XMinioStorageFull', 'StorageFull', 'QuotaExceeded', 'InsufficientStorage', 'AccountQuotaExceeded']);

interface BackendError {
  code?: string;
  name?: string;
  statusCode?: number;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

/**
 * The store's own failure as a StorageUnavailableError (full when it says it is out of space), or null when `err` is
 * not one (our own typed errors, a caller's stream failing, a 4xx that is the request's). Sound either way: an error
 * left as it is still fails the request, only not as 503.
 */
export function storeFailure(err: unknown, depth = 0): StorageUnavailableError | null {
  if (err instanceof StorageUnavailableError) return err;
  if (err instanceof StorageError || typeof err !== 'object' || err === null) return null;
  const e = err as BackendError;
  const code = e.code ?? e.name ?? '';
  const status = e.statusCode ?? e.$metadata?.httpStatusCode;
  if (FULL_CODES.has(code) || FULL_CODES.has(e.name ?? '') || status === 507) return new StorageUnavailableError(err, true);
  if (UNAVAILABLE_CODES.has(code)) return new StorageUnavailableError(err);
  // Azure's RestError without a status (REQUEST_SEND_ERROR), the AWS SDK's network and time-out errors.
  if (code === 'REQUEST_SEND_ERROR' || e.name === 'TimeoutError' || e.name === 'AbortError') return new StorageUnavailableError(err);
  if (status !== undefined && (status >= 500 || status === 408 || status === 429)) return new StorageUnavailableError(err);
  if (e.cause && depth < 3) {
    const inner = storeFailure(e.cause, depth + 1);
    if (inner) return new StorageUnavailableError(err, inner.full);
  }
  return null;
}

/** `err` as the store's failure when it is one, else unchanged: for a driver's `catch`. */
export const asStoreFailure = (err: unknown): unknown => storeFailure(err) ?? err;
