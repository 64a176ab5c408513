// Driver selection and configuration errors; no backend is contacted.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src/storage/errors.js';
import { createObjectStore, storageKind, type StorageConfig } from '../../src/storage/index.js';
import { parseS3ConnectionString } from '../../src/storage/s3-object-store.js';

const base: StorageConfig = { dataDir: '/unused', container: 'images', appBaseUrl: 'http://localhost:3000' };
const AZURE_KEY = 'c2VjcmV0LWtleS10aGF0LW11c3Qtbm90LWxlYWs=';

describe('storageKind', () => {
  it.each([
    [undefined, 'local'],
    [`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${AZURE_KEY};EndpointSuffix=core.windows.net`, 'azure'],
    ['UseDevelopmentStorage=true', 'azure'],
    ['BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig=abc', 'azure'],
    ['AccountName=acct;AccountKey=abc;BlobEndpoint=https://acct.blob.core.windows.net/', 'azure'],
    ['s3://images?region=eu-west-1', 's3'],
  ])('%s → %s', (connectionString, kind) => {
    expect(storageKind(connectionString)).toBe(kind);
  });

  it.each(['', 'postgres://user:hunter2@db/app', `AccountName=acct;AccountKey=${AZURE_KEY}`, 'https://bucket.s3.amazonaws.com'])(
    'refuses %j, naming the accepted forms without echoing it',
    (connectionString) => {
      const error = (() => {
        try {
          storageKind(connectionString);
        } catch (err) {
          return err as Error;
        }
        throw new Error('expected a refusal');
      })();
      expect(error.message).toMatch(/DefaultEndpointsProtocol=.*s3:\/\//s);
      expect(error.message).not.toContain('hunter2');
      expect(error.message).not.toContain(AZURE_KEY);
    },
  );
});

describe('createObjectStore', () => {
  it('builds the local store under <dataDir>/objects with URLs on the app', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'factory-'));
    try {
      const store = await createObjectStore({ ...base, dataDir, appBaseUrl: 'http://localhost:3000/' });
      expect(store.kind).toBe('local');
      await store.init();
      expect((await stat(join(dataDir, 'objects'))).isDirectory()).toBe(true);
      const { url } = await store.put('a.png', Buffer.from('x'), { contentType: 'image/png', maxBytes: 1 });
      expect(url).toBe('http://localhost:3000/files/a.png');
      await store.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('fails the local readiness probe when the folder is gone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'factory-'));
    const store = await createObjectStore({ ...base, dataDir });
    await store.init();
    await expect(store.check()).resolves.toBeUndefined();
    await rm(dataDir, { recursive: true, force: true });
    await expect(store.check()).rejects.toMatchObject({ code: 'storage_unavailable' });
    await expect(store.check()).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('never publishes a SAS token in Azure URLs', async () => {
    const store = await createObjectStore({
      ...base,
      connectionString: 'BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig=SECRET',
    });
    expect(store.kind).toBe('azure');
    expect(store.nameFromUrl('https://acct.blob.core.windows.net/images/a.png')).toBe('a.png');
    expect(store.nameFromUrl('https://acct.blob.core.windows.net/images/a.png?sv=2022-11-02&sig=SECRET')).toBeNull();
    expect(store.nameFromUrl('https://acct.blob.core.windows.net/other/a.png')).toBeNull();
  });

  it('accepts an Azure public URL override and still recognises blob URLs', async () => {
    const store = await createObjectStore({
      ...base,
      connectionString: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${AZURE_KEY};EndpointSuffix=core.windows.net`,
      publicUrl: 'https://cdn.example.com/img/',
    });
    expect(store.nameFromUrl('https://cdn.example.com/img/a.png')).toBe('a.png');
    expect(store.nameFromUrl('https://acct.blob.core.windows.net/images/a.png')).toBe('a.png');
    expect(store.nameFromUrl('https://cdn.example.com/a.png')).toBeNull();
  });

  it('requires a public URL for S3', async () => {
    await expect(createObjectStore({ ...base, connectionString: 's3://images?region=eu-west-1' })).rejects.toThrow(
      /OBJECT_STORAGE_PUBLIC_URL/,
    );
    const store = await createObjectStore({
      ...base,
      connectionString: 's3://images?region=eu-west-1',
      publicUrl: 'https://images.s3.eu-west-1.amazonaws.com',
    });
    expect(store.kind).toBe('s3');
    expect(store.nameFromUrl('https://images.s3.eu-west-1.amazonaws.com/a.png')).toBe('a.png');
    await store.close();
  });
});

describe('parseS3ConnectionString', () => {
  it('reads bucket, region, endpoint and path style, with the checksum settings S3-compatible servers need', () => {
    const { bucket, client } = parseS3ConnectionString(
      's3://my-bucket?region=eu-west-1&endpoint=http://127.0.0.1:9000&forcePathStyle=true',
    );
    expect(bucket).toBe('my-bucket');
    expect(client).toMatchObject({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    expect(client.credentials).toBeUndefined(); // left to the SDK's default chain
  });

  it('takes explicit credentials only when both are given', () => {
    expect(parseS3ConnectionString('s3://b?accessKeyId=a&secretAccessKey=s').client.credentials).toEqual({
      accessKeyId: 'a',
      secretAccessKey: 's',
    });
    expect(parseS3ConnectionString('s3://b?accessKeyId=a').client.credentials).toBeUndefined();
  });

  it.each(['s3://', 's3:///x', 's3://bucket/prefix', 's3://bucket/prefix/'])('refuses %s', (connectionString) => {
    expect(() => parseS3ConnectionString(connectionString)).toThrow(/s3:\/\/<bucket>/);
  });
});
