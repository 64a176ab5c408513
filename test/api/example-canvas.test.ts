// POST /api/user/project/:id/example (docs/api.md "Example canvas"): the example canvas goes into an empty
// project, once; its pictures are stored as the user's own images (once per user, whatever the number of calls);
// a canvas with anything on it is left as it is; viewers get 403, anyone else 404.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROMPT } from '../../src/services/example-canvas.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let ada: Who;
let bob: Who;

const project = async (who: Who, name = 'First') => (await who.client.post('/api/user/project', { userId: who.id, name })).json.id as string;
const seed = (who: Who | HttpClient, id: string) => ('client' in who ? who.client : who).request(`/api/user/project/${id}/example`, { method: 'POST' });
const canvas = async (who: Who, id: string) => (await who.client.get(`/api/user/project/canvas?projectId=${id}`)).json;
const storedFiles = async () => (await fs.readdir(path.join(t.dataDir, 'objects'), { recursive: true }).catch(() => [])).filter((f) => !f.endsWith('.json')).sort();

beforeAll(async () => {
  t = await startTestApp();
  [ada, bob] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')]);
});
afterAll(() => t?.close());

describe('the example canvas', () => {
  it('puts two stored pictures and a generation node connected to both into an empty project', async () => {
    const id = await project(ada);
    const res = await seed(ada, id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ seeded: true, version: expect.any(Number) });

    const seeded = await canvas(ada, id);
    expect(seeded.version).toBe(res.json.version);
    const pictures = seeded.nodes.filter((n: { type: string }) => n.type === 'upload');
    const generation = seeded.nodes.find((n: { type: string }) => n.type === 'generation');
    expect(pictures).toHaveLength(2);
    expect(generation.data).toEqual({ type: 'generation', prompt: EXAMPLE_PROMPT, example: true });
    expect(seeded.edges.map((e: { source: string; target: string }) => [e.source, e.target]).sort()).toEqual(pictures.map((p: { id: string }) => [p.id, generation.id]).sort());

    // The pictures are the user's stored images, readable at their URLs as PNGs.
    for (const picture of pictures) {
      expect(picture.data.example).toBe(true);
      const file = await fetch(picture.data.image);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');
    }
  });

  it('the prompt runs on the offline engine with the two pictures', async () => {
    const id = await project(ada, 'Run it');
    await seed(ada, id);
    const { nodes } = await canvas(ada, id);
    const images = nodes.filter((n: { type: string }) => n.type === 'upload').map((n: { data: { image: string } }) => n.data.image);
    const generated = await ada.client.post('/api/image', { images, prompt: EXAMPLE_PROMPT });
    expect(generated.status).toBe(200);
    expect(generated.json.text).toMatch(/side by side/);
    expect(generated.json.text).toMatch(/sepia/);
  });

  it('is idempotent and bounded: a second call, or a canvas with anything on it, changes nothing; pictures are stored once per user', async () => {
    const id = await project(ada, 'Twice');
    const filesBefore = await storedFiles();
    expect((await seed(ada, id)).json.seeded).toBe(true);
    const once = await canvas(ada, id);
    const again = await seed(ada, id);
    expect(again).toMatchObject({ status: 200, json: { seeded: false, version: once.version } });
    expect(await canvas(ada, id)).toEqual(once);
    // Ada's pictures were stored by the first test already: nothing new.
    expect(await storedFiles()).toEqual(filesBefore);

    const drawn = await project(ada, 'Drawn on');
    const saved = await ada.client.post('/api/user/project/canvas', { projectId: drawn, nodes: [{ id: 'mine', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload' } }], edges: [] });
    expect(await seed(ada, drawn)).toMatchObject({ status: 200, json: { seeded: false, version: saved.json.version } });
    expect((await canvas(ada, drawn)).nodes.map((n: { id: string }) => n.id)).toEqual(['mine']);

    // Concurrent calls on one empty project: one example.
    const racing = await project(ada, 'Racing');
    const answers = await Promise.all([seed(ada, racing), seed(ada, racing), seed(ada, racing)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.filter((a) => a.json.seeded)).toHaveLength(1);
    expect((await canvas(ada, racing)).nodes).toHaveLength(3);
  });

  it('refuses a viewer (403) and anyone without a role (404), and a signed-out caller (401); an editor may', async () => {
    const id = await project(ada, 'Shared');
    await ada.client.post(`/api/user/project/${id}/members`, { email: bob.email, role: 'viewer' });
    expect(await seed(bob, id)).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    const other = await project(ada, 'Not shared');
    expect(await seed(bob, other)).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await seed(bob, 'not-a-uuid')).toMatchObject({ status: 404, json: { error: 'Project not found' } });
    expect(await seed(t.client(), id)).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect((await canvas(ada, id))).toBeNull();

    await ada.client.post(`/api/user/project/${id}/members`, { email: bob.email, role: 'editor' });
    expect(await seed(bob, id)).toMatchObject({ status: 200, json: { seeded: true } });
  });

  it('leaves the original create route as it was: a new project is empty', async () => {
    const created = await ada.client.post('/api/user/project', { userId: ada.id, name: 'Plain' });
    expect(Object.keys(created.json).sort()).toEqual(['createdDate', 'id', 'name', 'userId']);
    expect(await canvas(ada, created.json.id)).toBeNull();
  });
});
