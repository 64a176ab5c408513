// The typed client's API types (client/schema.d.ts, used by the web client) must be generated from the committed OpenAPI
// document: this fails when docs/openapi.json changed and `npm run web:types` was not run.
import fs from 'node:fs/promises';
import { expect, it } from 'vitest';
import { renderSchemaTypes, SCHEMA_TYPES_FILE } from '../../scripts/web-types.js';

it('client/schema.d.ts matches docs/openapi.json', async () => {
  const committed = await fs.readFile(SCHEMA_TYPES_FILE, 'utf8');
  expect(committed === (await renderSchemaTypes()), 'client/schema.d.ts is stale: run `npm run web:types`').toBe(true);
});
