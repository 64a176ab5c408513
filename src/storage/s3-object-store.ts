// S3 and S3-compatible services. Objects are public through `publicUrl` (bucket policy, CDN or website
// endpoint: configured outside this service).
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { discardBody, limitBytes } from './byte-limit.js';
import { asStoreFailure, ObjectExistsError, StorageUnavailableError } from './errors.js';
import { assertValidObjectName, nameUnderBase, publicBase } from './object-name.js';
import type { ByteRange, ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';

const STORE_CONNECT_TIMEOUT_MS = 5_000;
const STORE_IDLE_TIMEOUT_MS = 30_000;

/**
 * `s3://<bucket>?region=…&endpoint=…&forcePathStyle=true`. Credentials come from the SDK's default chain
 * (AWS_* variables, shared config, instance roles). For testing and local development only, the query may
 * also carry `accessKeyId` and `secretAccessKey`.
 */
export function parseS3ConnectionString(connectionString: string): { bucket: string; client: S3ClientConfig } {
  const url = new URL(connectionString);
  const bucket = url.hostname;
  if (url.protocol !== 's3:' || !bucket || (url.pathname !== '' && url.pathname !== '/')) {
    throw new Error('S3 connection string must look like s3://<bucket>?region=…&endpoint=…');
  }
  const q = url.searchParams;
  const accessKeyId = q.get('accessKeyId');
  const secretAccessKey = q.get('secretAccessKey');
  return {
    bucket,
    client: {
      region: q.get('region') ?? undefined,
      endpoint: q.get('endpoint') ?? undefined,
      forcePathStyle: q.get('forcePathStyle') === 'true',
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      // Without these the SDK sends streamed bodies aws-chunked with trailing checksums, which S3-compatible
      // servers (s3rver among them) store framing and all.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that accepts connections and never answers would hold a request (and whatever waits on it: a
      // thumbnail, the deletion sweep's lock) forever: the SDK has no time-out of its own. Idle, not total: a large
      // upload that keeps moving is never cut.
      requestHandler: { connectionTimeout: STORE_CONNECT_TIMEOUT_MS, socketTimeout: STORE_IDLE_TIMEOUT_MS },
    },
  };
}

/** A readiness probe must answer quickly, whatever the SDK's retry policy. */
const CHECK_TIMEOUT_MS = 3_000;

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3';
  private readonly base: string;

  constructor(private readonly client: S3Client, private readonly bucket: string, publicUrl: string) {
    this.base = publicBase(publicUrl);
  }

  static fromConnectionString(connectionString: string, publicUrl: string): S3ObjectStore {
    const { bucket, client } = parseS3ConnectionString(connectionString);
    return new S3ObjectStore(new S3Client(client), bucket, publicUrl);
  }

  async init(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async put(name: string, body: NodeJS.ReadableStream | Buffer, opts: PutOptions): Promise<StoredObject> {
    let limited;
    try {
      assertValidObjectName(name);
      // S3 honours IfNoneMatch below; many S3-compatible servers ignore it, so look first as well.
      if (await this.head(name)) throw new ObjectExistsError(name);
      limited = limitBytes(body, opts.maxBytes);
    } catch (err) {
      discardBody(body);
      throw asStoreFailure(err);
    }
    // Bodies up to one part (5 MB) go in a single PutObject once the source has ended; larger ones go
    // multipart, and on any failure Upload aborts the multipart upload so no parts are left behind.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: name, Body: limited, ContentType: opts.contentType, IfNoneMatch: '*' },
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      limited.destroy();
      if (statusOf(err) === 412) throw new ObjectExistsError(name);
      throw asStoreFailure(limited.failure ?? err);
    }
    return { name, url: this.urlOf(name), size: limited.bytes };
  }

  async get(name: string, range?: ByteRange) {
    assertValidObjectName(name);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: name,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const { ContentType, ETag, LastModified } = res;
      const ContentLength = range ? Number(res.ContentRange?.split('/')[1]) : res.ContentLength;
      return { stream: res.Body as Readable, info: toInfo({ ContentType, ContentLength, ETag, LastModified }) };
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw asStoreFailure(err);
    }
  }

  async head(name: string): Promise<ObjectInfo | null> {
    assertValidObjectName(name);
    try {
      return toInfo(await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: name })));
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw asStoreFailure(err);
    }
  }

  async delete(name: string): Promise<void> {
    assertValidObjectName(name);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name })).catch((err: unknown) => {
      throw asStoreFailure(err);
    });
  }

  async *list(): AsyncIterable<string> {
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket })) {
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
    }
  }

  urlOf(name: string): string {
    assertValidObjectName(name);
    return `${this.base}/${name}`;
  }

  nameFromUrl(url: string): string | null {
    return nameUnderBase(url, this.base);
  }

  async check(): Promise<void> {
    await this.client
      .send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) })
      .catch((err: unknown) => {
        throw new StorageUnavailableError(err);
      });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

interface S3Properties {
  ContentType?: string;
  ContentLength?: number;
  ETag?: string;
  LastModified?: Date;
}

function toInfo(props: S3Properties): ObjectInfo {
  return {
    contentType: props.ContentType ?? 'application/octet-stream',
    size: props.ContentLength ?? 0,
    etag: props.ETag ?? '',
    lastModified: props.LastModified ?? new Date(0),
  };
}
