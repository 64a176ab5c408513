import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { dbMode, startTestApp, type TestApp } from '../helpers/test-app.js';

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

  // Needs a server the test can administer: the external-database run.
  if (dbMode() === 'external') it('answers 503 while the database refuses connections, and recovers by itself', async () => {
    const ada = await t.user('ada@example.com');
    const name = new URL(t.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: t.databaseUrl.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      expect(await t.client().get('/api/ready')).toMatchObject({ status: 503, json: { status: 'unavailable', checks: { database: 'unavailable' } } });
      const res = await ada.client.get(`/api/user/project?userId=${ada.id}`);
      expect(res).toMatchObject({ status: 503, json: { error: 'Service unavailable' } });
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    expect((await t.client().get('/api/ready')).status).toBe(200);
    expect((await ada.client.get(`/api/user/project?userId=${ada.id}`)).status).toBe(200);
  });
});
