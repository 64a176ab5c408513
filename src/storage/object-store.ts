// The one port every storage backend implements. Services reach object storage only through this.

export interface PutOptions {
  contentType: string;
  maxBytes: number;
  /**
   * Given each chunk of a stream body once it is written and the store holds it no more, so that the caller can
   * free its memory at once (src/http/body-chunks.ts). Drivers that gather chunks into larger parts of their own
   * (Azure, S3) need not call it.
   */
  written?: (chunk: Buffer) => void;
}

export interface StoredObject {
  name: string;
  url: string;
  size: number;
}

export interface ObjectInfo {
  contentType: string;
  /** Size of the whole object, also when a range was requested. */
  size: number;
  /** A strong HTTP entity tag, quotes included (e.g. `"0x8DC…"`). */
  etag: string;
  lastModified: Date;
}

/** Inclusive byte range; `end` must be below the object's size (check with `head` first). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStore {
  readonly kind: 'local' | 'azure' | 's3';
  /** Prepare the backend (create folder / container with public blob read / check bucket). Idempotent. */
  init(): Promise<void>;
  /**
   * Stream `body` into object `name`. Throws ObjectTooLargeError as soon as more than maxBytes arrive; after
   * any failure (too large, source stream error, backend error) no object and no partial object remains,
   * and a stream `body` is destroyed. Refuses to overwrite an existing object (ObjectExistsError). Returns
   * the public URL. Every method throws InvalidObjectNameError for a name outside the namespace.
   */
  put(name: string, body: NodeJS.ReadableStream | Buffer, opts: PutOptions): Promise<StoredObject>;
  /** null when missing. With `range`, the stream yields only those bytes. */
  get(name: string, range?: ByteRange): Promise<{ stream: NodeJS.ReadableStream; info: ObjectInfo } | null>;
  head(name: string): Promise<ObjectInfo | null>;
  /** A missing object is not an error. */
  delete(name: string): Promise<void>;
  /**
   * Every object's name, page by page (never the whole listing in memory): for backups (src/ops/backup.ts).
   * Objects written or deleted while it runs may or may not be listed.
   */
  list(): AsyncIterable<string>;
  /**
   * The public URL object `name` has (or would have once written): the URL `put` answers, with no request to
   * the backend. Lets a caller that names objects by their content answer the URL of one already stored.
   */
  urlOf(name: string): string;
  /** Map one of our public URLs back to an object name; null for anything else. */
  nameFromUrl(url: string): string | null;
  /** Cheap readiness probe; throws StorageUnavailableError when the backend is unreachable. */
  check(): Promise<void>;
  close(): Promise<void>;
}
