// Vitest global setup: one PostgreSQL server for the "external database" runs. TEST_DATABASE_URL (an admin
// URL of a real server) is used when set. Otherwise the system's PostgreSQL (Debian's `postgresql` package,
// which .ci/run installs) is started in a temp folder, so the external runs cover a second build and major
// version (with lz4) beside the embedded one; without it a second embedded server stands in, and with CI=true
// that is a failure, as a missing browser is.
import { existsSync, readdirSync } from 'node:fs';
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

const SYSTEM_ROOT = '/usr/lib/postgresql';

/** The newest system PostgreSQL's bin folder, if one is installed. */
export function systemPostgresBinDir(): string | undefined {
  if (!existsSync(SYSTEM_ROOT)) return undefined;
  const versions = readdirSync(SYSTEM_ROOT)
    .filter((v) => /^\d+$/.test(v) && existsSync(path.join(SYSTEM_ROOT, v, 'bin', 'postgres')) && existsSync(path.join(SYSTEM_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(SYSTEM_ROOT, versions[0], 'bin') : undefined;
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
    return;
  }
  const binDir = systemPostgresBinDir();
  if (!binDir) {
    const message = `No system PostgreSQL under ${SYSTEM_ROOT} (apt-get install postgresql): the external-database tests run on a second embedded server.`;
    if (process.env.CI === 'true') throw new Error(`${message} With CI=true that is a failure.`);
    console.warn(`\n*** ${message}\n`);
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-pg-'));
  await fs.chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), password: 'test-password', database: 'postgres', log: () => {}, binDir });
  project.provide('postgresAdminUrl', server.url);
  return async () => {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
