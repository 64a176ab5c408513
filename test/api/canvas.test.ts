// /api/user/project/canvas with its ownership rules and versions (docs/api.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
let bob: { client: HttpClient; id: string };
const node = (id: string, x = 0, extra: Record<string, unknown> = {}) => ({ id, type: 'upload', position: { x, y: 0 }, data: { type: 'upload', image: `http://img/${id}.png`, ...extra } });
const project = async (who: { client: HttpClient; id: string }, name = 'P') => (await who.client.post('/api/user/project', { userId: who.id, name })).json.id as string;

beforeAll(async () => {
  t = await startTestApp();
  [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
});
afterAll(() => t?.close());

describe('canvas', () => {
  it('answers null before the first save, then the saved canvas; the id is kept across saves', async () => {
    const projectId = await project(ada);
    expect(await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).toMatchObject({ status: 200, text: 'null' });
    const nodes = [node('a'), { id: 'g', type: 'generation', position: { x: 10.5, y: -3 }, data: { type: 'generation', prompt: 'grayscale', isGenerating: false } }];
    const edges = [{ id: 'e1', source: 'a', target: 'g', sourceHandle: null, targetHandle: 'images' }];
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    expect(saved.status).toBe(200);
    expect(saved.json).toEqual({ id: expect.any(String), projectId, nodes, edges, version: 1 });
    const read = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    expect(read.json).toEqual(saved.json);
    const resaved = await ada.client.post('/api/user/project/canvas', { id: 'something-else', projectId, nodes: [], edges: [] });
    expect(resaved.json).toEqual({ id: saved.json.id, projectId, nodes: [], edges: [], version: 2 });
  });

  it('creates a canvas from { projectId } alone, as the original client does: missing nodes and edges are empty', async () => {
    const projectId = await project(ada);
    const created = await ada.client.post('/api/user/project/canvas', { projectId });
    expect(created).toMatchObject({ status: 200, json: { id: expect.any(String), projectId, nodes: [], edges: [], version: 1 } });
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json).toEqual(created.json);
    // Either one may be missing; a later save without edges keeps none, with a version it is still checked.
    const withNodes = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], version: 1 });
    expect(withNodes).toMatchObject({ status: 200, json: { nodes: [node('a')], edges: [], version: 2 } });
    const withEdgesOnly = await ada.client.post('/api/user/project/canvas', { projectId, edges: [], version: 2 });
    expect(withEdgesOnly).toMatchObject({ status: 200, json: { nodes: [], edges: [], version: 3 } });
    expect(await ada.client.post('/api/user/project/canvas', { projectId, version: 1 })).toMatchObject({ status: 409, json: { version: 3 } });
    // Missing is not null: a null list is still a wrong type.
    expect(await ada.client.post('/api/user/project/canvas', { projectId, nodes: null })).toMatchObject({ status: 400, json: { error: expect.stringContaining('nodes') } });
    expect(await bob.client.post('/api/user/project/canvas', { projectId })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
  });

  it('uses a client-supplied id on creation, but never one that names another canvas', async () => {
    const p1 = await project(ada);
    const first = await ada.client.post('/api/user/project/canvas', { id: 'my-canvas-id', projectId: p1, nodes: [], edges: [] });
    expect(first.json.id).toBe('my-canvas-id');
    const p2 = await project(bob);
    const other = await bob.client.post('/api/user/project/canvas', { id: 'my-canvas-id', projectId: p2, nodes: [node('b')], edges: [] });
    expect(other.status).toBe(200);
    expect(other.json.id).not.toBe('my-canvas-id');
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${p1}`)).json.nodes).toEqual([]);
  });

  it('drops unknown fields before storing', async () => {
    const projectId = await project(ada);
    const saved = await ada.client.post('/api/user/project/canvas', {
      projectId,
      nodes: [{ ...node('a', 1, { secret: 'x' }), selected: true, measured: { width: 1 } }],
      edges: [],
      admin: true,
    });
    expect(saved.json.nodes).toEqual([node('a', 1)]);
    expect(saved.json).not.toHaveProperty('admin');
  });

  it('answers 400 Project ID is required, 401 without a session, 404 for a foreign, missing or malformed project', async () => {
    expect(await ada.client.get('/api/user/project/canvas')).toMatchObject({ status: 400, json: { error: 'Project ID is required' } });
    expect(await ada.client.post('/api/user/project/canvas', { nodes: [], edges: [] })).toMatchObject({ status: 400, json: { error: 'Project ID is required' } });
    const anon = t.client();
    expect(await anon.get('/api/user/project/canvas?projectId=x')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(await anon.post('/api/user/project/canvas', { projectId: 'x', nodes: [], edges: [] })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    const adas = await project(ada);
    await ada.client.post('/api/user/project/canvas', { projectId: adas, nodes: [node('secret')], edges: [] });
    for (const projectId of [adas, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect(await bob.client.get(`/api/user/project/canvas?projectId=${projectId}`)).toMatchObject({ status: 404, json: { error: 'Project not found' } });
      expect(await bob.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [] })).toMatchObject({ status: 404, json: { error: 'Project not found' } });
      expect(await bob.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], version: 1 })).toMatchObject({ status: 404 });
    }
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${adas}`)).json.nodes[0].id).toBe('secret');
  });

  it('refuses a stale versioned save with 409 and the current version; never loses the newer save', async () => {
    const projectId = await project(ada);
    const v0 = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a')], edges: [], version: 0 });
    expect(v0.json.version).toBe(1);
    const tabA = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a', 5)], edges: [], version: 1 });
    expect(tabA.json.version).toBe(2);
    const tabB = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('b')], edges: [], version: 1 });
    expect(tabB).toMatchObject({ status: 409, json: { error: 'Canvas was changed elsewhere', version: 2 } });
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes).toEqual([node('a', 5)]);
    // A second "first save" is stale too.
    expect(await ada.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], version: 0 })).toMatchObject({ status: 409, json: { version: 2 } });
    // No canvas yet and a version above 0: 409 with version 0.
    const fresh = await project(ada);
    expect(await ada.client.post('/api/user/project/canvas', { projectId: fresh, nodes: [], edges: [], version: 3 })).toMatchObject({ status: 409, json: { version: 0 } });
    // Without a version: plain upsert, last write wins.
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [] })).json.version).toBe(3);
  });

  it('lets exactly one of many concurrent saves of the same version win', async () => {
    const projectId = await project(ada);
    await ada.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], version: 0 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ada.client.post('/api/user/project/canvas', { projectId, nodes: [node(`n${i}`)], edges: [], version: 1 })),
    );
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json.nodes).toEqual(won[0].json.nodes);
  });

  it('validates structure: types, duplicate node ids, edges to unknown nodes', async () => {
    const projectId = await project(ada);
    const bad = async (body: Record<string, unknown>) => ada.client.post('/api/user/project/canvas', { projectId, nodes: [], edges: [], ...body });
    expect(await bad({ nodes: [{ ...node('a'), type: 'video' }] })).toMatchObject({ status: 400, json: { error: expect.stringContaining('nodes.0.type') } });
    expect(await bad({ nodes: [{ ...node('a'), position: { x: 'left', y: 0 } }] })).toMatchObject({ status: 400, json: { error: expect.stringContaining('nodes.0.position.x') } });
    expect(await bad({ nodes: 'many' })).toMatchObject({ status: 400, json: { error: expect.stringContaining('nodes') } });
    expect(await bad({ edges: null })).toMatchObject({ status: 400, json: { error: expect.stringContaining('edges') } });
    expect(await bad({ nodes: [node('a'), node('a')] })).toMatchObject({ status: 400, json: { error: 'Duplicate node id: a' } });
    expect(await bad({ nodes: [node('a')], edges: [{ id: 'e', source: 'a', target: 'ghost' }] })).toMatchObject({ status: 400, json: { error: 'Edge e references an unknown node' } });
    expect(await bad({ version: -1 })).toMatchObject({ status: 400, json: { error: expect.stringContaining('version') } });
    expect(await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).toMatchObject({ text: 'null' });
  });

  it('never shows a node generating after the generation has ended', async () => {
    const projectId = await project(ada);
    const generating = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p', isGenerating: true } };
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [generating], edges: [] });
    expect(saved.json.nodes[0].data.isGenerating).toBe(true); // stored as sent
    const read = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    expect(read.json.nodes[0].data).toEqual({ type: 'generation', prompt: 'p', isGenerating: false });
  });
});
