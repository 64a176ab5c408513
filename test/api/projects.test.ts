// /api/user/project with its ownership rules (docs/api.md, "Ownership"), and rename and delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string; email: string };
let bob: { client: HttpClient; id: string; email: string };
beforeAll(async () => {
  t = await startTestApp();
  [ada, bob] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')]);
});
afterAll(() => t?.close());

describe('projects', () => {
  it('creates a project for the session user and lists them in creation order, oldest first (as the original system did)', async () => {
    const first = await ada.client.post('/api/user/project', { userId: ada.id, name: '  First  ' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), userId: ada.id, name: 'First', createdDate: expect.any(String) });
    expect(new Date(first.json.createdDate).toISOString()).toBe(first.json.createdDate);
    const second = await ada.client.post('/api/user/project', { userId: ada.email, name: 'Second' }); // email accepted
    expect(second.status).toBe(200);
    const list = await ada.client.get(`/api/user/project?userId=${ada.id}`);
    expect(list.status).toBe(200);
    expect(list.json.map((p: { name: string }) => p.name)).toEqual(['First', 'Second']);
    expect((await ada.client.get(`/api/user/project?userId=${encodeURIComponent(ada.email.toUpperCase())}`)).json).toHaveLength(2);
  });

  it('breaks ties of creation time by id, so the order is always the same', async () => {
    const carol = await t.user('carol@example.com', 'Carol');
    const made = [];
    for (const name of ['One', 'Two', 'Three']) made.push((await carol.client.post('/api/user/project', { userId: carol.id, name })).json);
    await t.pool.query(`UPDATE projects SET created_at = '2026-01-01T00:00:00Z' WHERE user_id = $1`, [carol.id]);
    const list = await carol.client.get(`/api/user/project?userId=${carol.id}`);
    expect(list.json.map((p: { id: string }) => p.id)).toEqual(made.map((p: { id: string }) => p.id).sort());
  });

  it('answers the documented errors: 400 User ID is required, 401 Unauthorized', async () => {
    expect(await ada.client.get('/api/user/project')).toMatchObject({ status: 400, json: { error: 'User ID is required' } });
    expect(await ada.client.get('/api/user/project?userId=')).toMatchObject({ status: 400, json: { error: 'User ID is required' } });
    expect(await ada.client.post('/api/user/project', { name: 'x' })).toMatchObject({ status: 400, json: { error: 'User ID is required' } });
    const anon = t.client();
    expect(await anon.get(`/api/user/project?userId=${ada.id}`)).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await anon.get('/api/user/project')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await anon.post('/api/user/project', { userId: ada.id, name: 'x' })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await anon.get('/api/user')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
  });

  it('refuses another user id with 403 Forbidden and stores nothing', async () => {
    const before = await countRows(t, 'projects');
    expect(await bob.client.post('/api/user/project', { userId: ada.id, name: 'Hijack' })).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await bob.client.get(`/api/user/project?userId=${ada.id}`)).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await bob.client.get(`/api/user/project?userId=${ada.email}`)).toMatchObject({ status: 403 });
    expect(await countRows(t, 'projects')).toBe(before);
    expect((await bob.client.get(`/api/user/project?userId=${bob.id}`)).json).toEqual([]);
  });

  it('validates the name: 400 Invalid project name', async () => {
    for (const name of ['', '   ', 'x'.repeat(201), 42, null]) {
      expect(await ada.client.post('/api/user/project', { userId: ada.id, name })).toMatchObject({ status: 400, json: { error: 'Invalid project name' } });
    }
    expect((await ada.client.post('/api/user/project', { userId: ada.id, name: 'x'.repeat(200) })).status).toBe(200);
  });

  it('renames and deletes, owner only; deleting removes the canvas', async () => {
    const p = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Doomed' })).json;
    await ada.client.post('/api/user/project/canvas', { projectId: p.id, nodes: [], edges: [] });
    expect(await bob.client.request(`/api/user/project/${p.id}`, { method: 'PATCH', json: { name: 'Mine now' } })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await bob.client.request(`/api/user/project/${p.id}`, { method: 'DELETE' })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    const renamed = await ada.client.request(`/api/user/project/${p.id}`, { method: 'PATCH', json: { name: 'Renamed' } });
    expect(renamed).toMatchObject({ status: 200, json: { id: p.id, name: 'Renamed', userId: ada.id } });
    expect((await ada.client.request(`/api/user/project/${p.id}`, { method: 'PATCH', json: { name: '' } })).json.error).toBe('Invalid project name');
    const canvases = await countRows(t, 'canvases');
    expect((await ada.client.request(`/api/user/project/${p.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await countRows(t, 'canvases')).toBe(canvases - 1);
    expect(await ada.client.get(`/api/user/project/canvas?projectId=${p.id}`)).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect((await ada.client.request(`/api/user/project/${p.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await ada.client.request('/api/user/project/not-a-uuid', { method: 'DELETE' })).status).toBe(404);
  });
});
