// REST saves of crop, resize and adjust nodes (src/kinds/): their data as documented is stored and read back as
// sent; data their kind refuses is a 400 naming the node and the field, with nothing stored; their image ports
// take an upload's image and give one to a generation, and refuse a text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
const node = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, position: { x: 0, y: 0 }, data: { type, ...data } });
const upload = node('u', 'upload', { image: 'http://img/u.png' });

beforeAll(async () => {
  t = await startTestApp();
  ada = await t.user('ada@example.com');
});
afterAll(() => t?.close());

describe('crop, resize and adjust nodes over REST', () => {
  it('stores their documented data and edges from an upload, through each other, into a generation', async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id as string;
    const nodes = [
      upload,
      node('c', 'crop', { x: 0, y: 10, width: 64, height: 32 }),
      node('r', 'resize', { width: 128, fit: 'cover' }),
      node('a', 'adjust', { brightness: 1.2, contrast: 0.8, saturation: 0, hue: -90, grayscale: true, sepia: false, invert: true, blur: 1.5 }),
      node('g', 'generation', { prompt: 'x' }),
    ];
    const edges = [
      { id: 'e1', source: 'u', target: 'c' },
      { id: 'e2', source: 'c', target: 'r', sourceHandle: 'image', targetHandle: 'image' },
      { id: 'e3', source: 'r', target: 'a' },
      { id: 'e4', source: 'a', target: 'g' },
    ];
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    expect(saved).toMatchObject({ status: 200, json: { nodes, edges } });
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json).toMatchObject({ nodes, edges });
  });

  it('refuses data its kind refuses with a 400 naming the node and the field, storing nothing', async () => {
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'P' })).json.id as string;
    const refused: Array<[Record<string, unknown>, string]> = [
      [node('c', 'crop', { x: 0, y: 0, width: 10 }), 'nodes.1.data.height'],
      [node('c', 'crop', { x: -1, y: 0, width: 10, height: 10 }), 'nodes.1.data.x'],
      [node('c', 'crop', { x: 0, y: 0.5, width: 10, height: 10 }), 'nodes.1.data.y'],
      [node('c', 'crop', { x: 0, y: 0, width: 0, height: 10 }), 'nodes.1.data.width'],
      [node('c', 'crop', { x: 0, y: 0, width: 10, height: 65_536 }), 'nodes.1.data.height'],
      [node('r', 'resize', { width: 10 }), 'nodes.1.data.fit'],
      [node('r', 'resize', { width: 10, fit: 'inside' }), 'nodes.1.data.fit'],
      [node('r', 'resize', { width: '10', fit: 'fill' }), 'nodes.1.data.width'],
      [node('a', 'adjust', { brightness: 5 }), 'nodes.1.data.brightness'],
      [node('a', 'adjust', { contrast: -1 }), 'nodes.1.data.contrast'],
      [node('a', 'adjust', { hue: 12.5 }), 'nodes.1.data.hue'],
      [node('a', 'adjust', { grayscale: 'yes' }), 'nodes.1.data.grayscale'],
      [node('a', 'adjust', { blur: 1000 }), 'nodes.1.data.blur'],
    ];
    for (const [bad, field] of refused) {
      const answer = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [upload, bad], edges: [] });
      expect(answer, `${JSON.stringify(bad.data)}`).toMatchObject({ status: 400, json: { error: expect.stringContaining(field) } });
    }
    // A text does not fit their image input: the edge is refused, naming the port that would.
    const text = node('t', 'text', { text: 'words' });
    const wrong = await ada.client.post('/api/user/project/canvas', {
      projectId,
      nodes: [text, node('a', 'adjust', {})],
      edges: [{ id: 'e1', source: 't', target: 'a' }],
    });
    expect(wrong).toMatchObject({ status: 400, json: { error: expect.stringContaining('(edge "e1"): output "text" (text) of node "t" (text) does not fit input "image" (image) of node "a" (adjust)') } });
    expect(await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).toMatchObject({ status: 200, text: 'null' });
  });
});
