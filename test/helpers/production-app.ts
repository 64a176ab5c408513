// The whole service with NODE_ENV=production: every required value set (an OpenID Connect client at an issuer
// that is never contacted, s3rver as the store, a database of its own), so that production-only behaviour (the
// trusted proxies, HSTS, the pages' form-action) is tested on the real app. Nobody can sign in: the bundled
// identity provider never runs in production.
import type { BuildOptions } from '../../src/app.js';
import { startS3Server } from './s3-server.js';
import { createOwnDatabase, startTestApp, type TestApp } from './test-app.js';

export const PRODUCTION_ISSUER = 'https://idp.example.test';

export async function startProductionApp(env: Record<string, string> = {}, build: Omit<BuildOptions, 'serverFactory'> = {}): Promise<TestApp> {
  const s3 = await startS3Server();
  const database = await createOwnDatabase().catch(async (err: unknown) => {
    await s3.stop();
    throw err;
  });
  const cleanUp = async () => {
    await database.drop().catch(() => undefined);
    await s3.stop().catch(() => undefined);
  };
  let t: TestApp;
  try {
    t = await startTestApp(
      {
        NODE_ENV: 'production',
        AUTH_SECRET: 'production-test-secret-'.padEnd(48, 'x'),
        OAUTH_CLIENT_ID: 'production-client',
        OAUTH_CLIENT_SECRET: 'production-client-secret',
        OAUTH_ISSUER: PRODUCTION_ISSUER,
        OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString,
        OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
        DATABASE_CONNECTION_STRING: database.url,
        IMAGE_MODEL: 'local',
        ...env,
      },
      'embedded', // the database above is already the project's kind
      build,
    );
  } catch (err) {
    await cleanUp();
    throw err;
  }
  return {
    ...t,
    async close() {
      await t.close();
      await cleanUp();
    },
  };
}
