// Writes client/schema.d.ts (the API types of the typed client in client/, which the web client and the example
// scripts use) from docs/openapi.json with openapi-typescript. `npm run web:types` after `npm run openapi`;
// test/unit/web-types.test.ts fails when the file is stale.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
export const OPENAPI_FILE = path.join(root, 'docs/openapi.json');
export const SCHEMA_TYPES_FILE = path.join(root, 'client/schema.d.ts');

const HEADER = '// Generated from docs/openapi.json by `npm run web:types` (openapi-typescript). Do not edit.\n\n';

/** The text schema.d.ts must hold for the OpenAPI document now in docs/openapi.json. */
export async function renderSchemaTypes(): Promise<string> {
  const document = JSON.parse(await fs.readFile(OPENAPI_FILE, 'utf8')) as OpenAPI3;
  const ast = await openapiTS(document, { alphabetize: false });
  return HEADER + astToString(ast);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await fs.writeFile(SCHEMA_TYPES_FILE, await renderSchemaTypes());
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_TYPES_FILE)}`);
}
