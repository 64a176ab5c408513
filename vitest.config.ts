import { defineConfig } from 'vitest/config';

// The API suite runs twice: once with the service starting its own embedded PostgreSQL (no
// DATABASE_CONNECTION_STRING), once against an external server through DATABASE_CONNECTION_STRING
// (TEST_DATABASE_URL when given, else a second embedded server the harness starts to play that part).
const api = ['test/api/**/*.test.ts'];
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'test/{unit,net,models,storage}/**/*.test.ts'] } },
      { extends: true, test: { name: 'api:embedded-db', include: api, env: { TEST_DB_MODE: 'embedded' } } },
      {
        extends: true,
        test: {
          name: 'api:external-db',
          include: [...api, 'test/process/**/*.test.ts'],
          env: { TEST_DB_MODE: 'external' },
          globalSetup: ['test/helpers/global-postgres.ts'],
        },
      },
      // The web client in headless Chromium against the real service (the client is built once, first).
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: ['test/browser/global-setup.ts'] } },
    ],
  },
});
