// Writes docs/openapi.json from the route schemas (a test fails when the committed file is stale).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-openapi-'));
const { config } = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(process.env.DATABASE_CONNECTION_STRING ? { DATABASE_CONNECTION_STRING: process.env.DATABASE_CONNECTION_STRING } : {}) });
const app = await buildApp(config);
try {
  await app.ready();
  const file = new URL('../docs/openapi.json', import.meta.url);
  await fs.writeFile(file, JSON.stringify(app.swagger(), null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), file.pathname)}`);
} finally {
  await app.close();
  await fs.rm(dataDir, { recursive: true, force: true });
}
