import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('health and API documents', () => {
  it('answers /api/health and /api/ready', async () => {
    expect(await t.client().get('/api/health')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await t.client().get('/api/ready')).toMatchObject({ status: 200, json: { status: 'ok', checks: { database: 'ok' } } });
  });

  it('serves the OpenAPI document, identical to the committed docs/openapi.json', async () => {
    const served = await t.client().get('/api/openapi.json');
    expect(served.status).toBe(200);
    expect(Object.keys(served.json.paths)).toEqual(expect.arrayContaining(['/api/user', '/api/user/project', '/api/user/project/canvas', '/api/user/project/{projectId}', '/api/health', '/api/ready']));
    const committed = JSON.parse(await fs.readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(served.json, 'docs/openapi.json is stale: run `npm run openapi`').toEqual(committed);
    const docs = await t.client().get('/api/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('<html');
  });
});
