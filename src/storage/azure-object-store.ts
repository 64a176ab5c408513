// Azure Blob Storage: one container with anonymous read of single blobs (stored files have public-read URLs).
import { BlobServiceClient, type BlockBlobClient, type ContainerClient } from '@azure/storage-blob';
import { uploadInBlocks } from './azure-block-upload.js';
import { discardBody, limitBytes } from './byte-limit.js';
import { asStoreFailure, ObjectExistsError, StorageUnavailableError } from './errors.js';
import { assertValidObjectName, nameUnderBase, publicBase } from './object-name.js';
import type { ByteRange, ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';

/** A readiness probe must answer quickly, whatever the SDK's retry policy. */
const CHECK_TIMEOUT_MS = 3_000;

const statusOf = (err: unknown) => (err as { statusCode?: number }).statusCode;
// What a commit with `ifNoneMatch: '*'` answers when the blob already exists.
const isAlreadyExists = (err: unknown) =>
  ['BlobAlreadyExists', 'ConditionNotMet'].includes((err as { code?: string }).code ?? '');

export class AzureObjectStore implements ObjectStore {
  readonly kind = 'azure';
  private readonly containerBase: string;
  private readonly overrideBase?: string;

  /** `publicUrl`: optional public base (e.g. a CDN) for returned URLs; blob URLs are still recognised. */
  constructor(private readonly container: ContainerClient, publicUrl?: string) {
    this.containerBase = publicBase(container.url);
    this.overrideBase = publicUrl ? publicBase(publicUrl) : undefined;
  }

  static fromConnectionString(connectionString: string, container: string, publicUrl?: string): AzureObjectStore {
    // The SDK's default retries back off for ~28 s before giving up: a person waiting on an upload gets a
    // quick, clear failure instead (a few short retries ride out a blip).
    const service = BlobServiceClient.fromConnectionString(connectionString, {
      // Each try bounded too: a store that accepts connections and never answers would otherwise hold the request
      // (and whatever waits on it: a thumbnail, the deletion sweep's lock) forever. One 4 MB block per try.
      retryOptions: { maxTries: 3, retryDelayInMs: 200, maxRetryDelayInMs: 1000, tryTimeoutInMs: 60_000 },
    });
    return new AzureObjectStore(service.getContainerClient(container), publicUrl);
  }

  async init(): Promise<void> {
    await this.container.createIfNotExists({ access: 'blob' });
  }

  async put(name: string, body: NodeJS.ReadableStream | Buffer, opts: PutOptions): Promise<StoredObject> {
    let limited;
    try {
      assertValidObjectName(name);
      // Fails fast, and avoids staging blocks onto someone else's blob; the commit condition is the real guard.
      if (await this.blob(name).exists()) throw new ObjectExistsError(name);
      limited = limitBytes(body, opts.maxBytes);
    } catch (err) {
      discardBody(body);
      throw asStoreFailure(err);
    }
    try {
      await uploadInBlocks(this.blob(name), limited, opts.contentType);
    } catch (err) {
      limited.destroy();
      if (isAlreadyExists(err)) throw new ObjectExistsError(name);
      throw asStoreFailure(limited.failure ?? err);
    }
    return { name, url: this.urlOf(name), size: limited.bytes };
  }

  async get(name: string, range?: ByteRange) {
    assertValidObjectName(name);
    try {
      const offset = range?.start ?? 0;
      const count = range ? range.end - range.start + 1 : undefined;
      const res = await this.blob(name).download(offset, count);
      // The response exposes its fields as getters: copy them explicitly, never by spreading.
      const { contentType, etag, lastModified } = res;
      const contentLength = range ? Number(res.contentRange?.split('/')[1]) : res.contentLength;
      return { stream: res.readableStreamBody!, info: toInfo({ contentType, contentLength, etag, lastModified }) };
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw asStoreFailure(err);
    }
  }

  async head(name: string): Promise<ObjectInfo | null> {
    assertValidObjectName(name);
    try {
      return toInfo(await this.blob(name).getProperties());
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw asStoreFailure(err);
    }
  }

  async delete(name: string): Promise<void> {
    assertValidObjectName(name);
    await this.blob(name).deleteIfExists({ deleteSnapshots: 'include' }).catch((err: unknown) => {
      throw asStoreFailure(err);
    });
  }

  async *list(): AsyncIterable<string> {
    for await (const blob of this.container.listBlobsFlat()) yield blob.name;
  }

  urlOf(name: string): string {
    assertValidObjectName(name);
    return this.overrideBase ? `${this.overrideBase}/${name}` : publicBase(this.blob(name).url);
  }

  nameFromUrl(url: string): string | null {
    return (this.overrideBase && nameUnderBase(url, this.overrideBase)) || nameUnderBase(url, this.containerBase);
  }

  async check(): Promise<void> {
    // Bounded: with the SDK's default retries an unreachable endpoint takes ~16 s to fail.
    await this.container.getProperties({ abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) }).catch((err: unknown) => {
      throw new StorageUnavailableError(err);
    });
  }

  async close(): Promise<void> {}

  private blob(name: string): BlockBlobClient {
    return this.container.getBlockBlobClient(name);
  }
}

interface BlobProperties {
  contentType?: string;
  contentLength?: number;
  etag?: string;
  lastModified?: Date;
}

function toInfo(props: BlobProperties): ObjectInfo {
  return {
    contentType: props.contentType ?? 'application/octet-stream',
    size: props.contentLength ?? 0,
    etag: props.etag ?? '',
    lastModified: props.lastModified ?? new Date(0),
  };
}
