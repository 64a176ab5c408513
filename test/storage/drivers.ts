// One harness per storage driver for the contract suite: a fresh backend, the store under test, and an
// inventory of everything the backend holds (temp files and uncommitted blobs included).
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createObjectStore } from '../../src/storage/index.js';
import type { ObjectStore } from '../../src/storage/object-store.js';
import { parseS3ConnectionString } from '../../src/storage/s3-object-store.js';
import { startAzurite } from '../helpers/azurite.js';
import { startS3Server } from '../helpers/s3-server.js';

export const APP_BASE_URL = 'http://localhost:3000';

export interface DriverHarness {
  store: ObjectStore;
  connectionString?: string;
  /** Every entry the backend holds, sorted. */
  inventory(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface DriverCase {
  kind: ObjectStore['kind'];
  start(): Promise<DriverHarness>;
}

async function listTree(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(`${path}/`, ...(await listTree(join(dir, entry.name), `${path}/`)));
    else out.push(path);
  }
  return out.sort();
}

export const localDriver: DriverCase = {
  kind: 'local',
  async start() {
    const dataDir = await mkdtemp(join(tmpdir(), 'local-store-'));
    const store = await createObjectStore({ dataDir, container: 'images', appBaseUrl: APP_BASE_URL });
    await store.init();
    return {
      store,
      inventory: () => listTree(join(dataDir, 'objects')),
      async stop() {
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
};

export const azureDriver: DriverCase = {
  kind: 'azure',
  async start() {
    const azurite = await startAzurite();
    const cfg = { connectionString: azurite.connectionString, dataDir: '/nonexistent', container: 'images' };
    const store = await createObjectStore({ ...cfg, appBaseUrl: APP_BASE_URL });
    await store.init();
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('images');
    return {
      store,
      connectionString: azurite.connectionString,
      async inventory() {
        const names: string[] = [];
        for await (const blob of container.listBlobsFlat({ includeUncommitedBlobs: true })) names.push(blob.name);
        return names.sort();
      },
      async stop() {
        await store.close();
        await azurite.stop();
      },
    };
  },
};

export const s3Driver: DriverCase = {
  kind: 's3',
  async start() {
    const s3 = await startS3Server();
    const cfg = { connectionString: s3.connectionString, publicUrl: s3.publicUrl, dataDir: '/nonexistent' };
    const store = await createObjectStore({ ...cfg, container: 'images', appBaseUrl: APP_BASE_URL });
    await store.init();
    const { bucket, client: clientConfig } = parseS3ConnectionString(s3.connectionString);
    const client = new S3Client(clientConfig);
    return {
      store,
      connectionString: s3.connectionString,
      // Objects only: s3rver implements neither ListMultipartUploads nor AbortMultipartUpload.
      async inventory() {
        const res = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
        return (res.Contents ?? []).map((object) => object.Key ?? '').sort();
      },
      async stop() {
        client.destroy();
        await store.close();
        await s3.stop();
      },
    };
  },
};
