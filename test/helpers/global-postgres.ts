// Vitest global setup: one PostgreSQL server for the "external database" runs. TEST_DATABASE_URL (an admin
// URL of a real server) is used when set; otherwise an embedded server is started in a temp folder.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
    return;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-pg-'));
  await fs.chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), password: 'test-password', database: 'postgres', log: () => {} });
  project.provide('postgresAdminUrl', server.url);
  return async () => {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
