// Starts s3rver (a fake S3 server, no access control) on a free loopback port with one bucket.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

// s3rver is CommonJS without type declarations.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

export interface S3ServerHandle {
  /** `s3://bucket?…` including the fixed test credentials s3rver expects. */
  connectionString: string;
  /** Path-style public base URL of the bucket. */
  publicUrl: string;
  env: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'images'): Promise<S3ServerHandle> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0, // the kernel picks a free port; s3rver reports it back
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const env = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const endpoint = `http://127.0.0.1:${port}`;
  const query = new URLSearchParams({ region: 'us-east-1', endpoint, forcePathStyle: 'true', ...env });
  return {
    connectionString: `s3://${bucket}?${query}`,
    publicUrl: `${endpoint}/${bucket}`,
    env,
    async stop() {
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
