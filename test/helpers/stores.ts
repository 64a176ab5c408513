// The object store a test's service runs on, by driver: the local folder (nothing to start), Azurite or s3rver
// started for it. `env` is what the service needs to use it; `stop()` stops what was started (safe to call twice).
import { startAzurite, type AzuriteHandle } from './azurite.js';
import { startS3Server, type S3ServerHandle } from './s3-server.js';

export type StoreDriver = 'local' | 'azure' | 's3';

export interface StoreUnderTest {
  env: Record<string, string>;
  azurite?: AzuriteHandle;
  s3?: S3ServerHandle;
  stop(): Promise<void>;
}

export async function startStore(driver: StoreDriver): Promise<StoreUnderTest> {
  if (driver === 'azure') {
    const azurite = await startAzurite();
    return { env: { OBJECT_STORAGE_CONNECTION_STRING: azurite.connectionString }, azurite, stop: () => azurite.stop() };
  }
  if (driver === 's3') {
    const s3 = await startS3Server();
    return { env: { OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString, OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl }, s3, stop: () => s3.stop() };
  }
  return { env: {}, stop: async () => {} };
}
