// Picks the storage driver from configuration. Vendor SDKs load only when their driver is chosen.
import { join } from 'node:path';
import { LocalObjectStore } from './local-object-store.js';
import type { ObjectStore } from './object-store.js';

export type { ByteRange, ObjectInfo, ObjectStore, PutOptions, StoredObject } from './object-store.js';
export { ObjectExistsError, ObjectTooLargeError, StorageUnavailableError, storeFailure } from './errors.js';

export interface StorageConfig {
  /** OBJECT_STORAGE_CONNECTION_STRING; undefined selects the local folder. */
  connectionString?: string;
  /** The local driver stores under `${dataDir}/objects`. */
  dataDir: string;
  /** Azure container name, e.g. 'images'. */
  container: string;
  /** OBJECT_STORAGE_PUBLIC_URL: public base URL of the bucket (required for s3), optional override for azure. */
  publicUrl?: string;
  /** The app's own base URL; local objects are served at `${appBaseUrl}/files/<name>`. */
  appBaseUrl: string;
}

export type StorageKind = ObjectStore['kind'];

export function storageKind(connectionString: string | undefined): StorageKind {
  if (connectionString === undefined) return 'local';
  const value = connectionString.trim();
  if (
    value.startsWith('DefaultEndpointsProtocol=') ||
    value.startsWith('UseDevelopmentStorage=true') ||
    value.includes('BlobEndpoint=')
  ) {
    return 'azure';
  }
  if (value.startsWith('s3://')) return 's3';
  // Never echo the string: it usually carries a key.
  throw new Error(
    'Unsupported object storage connection string. Accepted forms: an Azure Blob connection string ' +
      '("DefaultEndpointsProtocol=…", "UseDevelopmentStorage=true" or one with "BlobEndpoint=…"), ' +
      'or "s3://<bucket>?region=…&endpoint=…&forcePathStyle=true".',
  );
}

/** Builds the configured driver (not yet initialised: call `init()`). */
export async function createObjectStore(cfg: StorageConfig): Promise<ObjectStore> {
  const kind = storageKind(cfg.connectionString);
  const connectionString = cfg.connectionString?.trim() ?? '';
  switch (kind) {
    case 'local':
      return new LocalObjectStore(join(cfg.dataDir, 'objects'), cfg.appBaseUrl);
    case 'azure': {
      const { AzureObjectStore } = await import('./azure-object-store.js');
      return AzureObjectStore.fromConnectionString(connectionString, cfg.container, cfg.publicUrl);
    }
    case 's3': {
      if (!cfg.publicUrl) throw new Error('OBJECT_STORAGE_PUBLIC_URL is required with S3 storage');
      const { S3ObjectStore } = await import('./s3-object-store.js');
      return S3ObjectStore.fromConnectionString(connectionString, cfg.publicUrl);
    }
  }
}
