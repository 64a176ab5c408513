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

/** The backend could not be reached (the readiness probe failed); `cause` is the backend's error. */
export class StorageUnavailableError extends StorageError {
  constructor(cause: unknown) {
    super('storage_unavailable', 'object storage unavailable', { cause });
  }
}
