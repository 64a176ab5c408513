// GET /api/node-kinds (docs/api.md "Node kinds") and the kinds on REST saves: a text node is stored and read back
// exactly, its text reaches a generation's prompt port by an edge that names the port, and refusals name the node
// (or edge) and the field. The table of hostile cases is ./hostile-node-kinds.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../src/kinds/index.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
const project = async () => (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Kinds' })).json.id as string;
const canvasOf = async (projectId: string) => (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;

beforeAll(async () => {
  t = await startTestApp({ PROMPT_MAX_CHARS: '300' });
  ada = await t.user('ada@example.com');
});
afterAll(() => t?.close());

describe('node kinds', () => {
  it('lists every kind with its ports and the JSON Schema of its data, without a session', async () => {
    const res = await t.client().get('/api/node-kinds');
    expect(res.status).toBe(200);
    const kinds = res.json.kinds as Array<{ type: string; data: { properties: Record<string, { maxLength?: number }>; required: string[] } }>;
    expect(kinds.map((k) => k.type)).toEqual(NODE_TYPES);
    expect(kinds.map((k) => k.type).slice(0, 3)).toEqual(['upload', 'generation', 'text']);
    expect(kinds[0]).toMatchObject({ type: 'upload', label: 'Image', version: 1, inputs: [], outputs: [{ name: 'image', value: 'image', list: false, default: true }], task: null });
    expect(kinds[1]).toMatchObject({
      type: 'generation',
      task: 'generation',
      inputs: [
        { name: 'images', value: 'image', list: true, default: true },
        { name: 'prompt', value: 'text', list: true, default: false },
      ],
      outputs: [{ name: 'image', value: 'image', list: false, default: true }],
    });
    expect(Object.keys(kinds[1].data.properties)).toEqual(['type', 'image', 'prompt', 'isGenerating', 'model', 'seed', 'count', 'resultKey', 'results']);
    // The data schema follows the configuration: a text is held to the prompt limit.
    expect(kinds[2]).toMatchObject({ type: 'text', label: 'Text', task: null, inputs: [], outputs: [{ name: 'text', value: 'text', list: false, default: true }] });
    expect(kinds[2].data).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['type', 'text'] });
    expect(kinds[2].data.properties).toMatchObject({ type: { const: 'text' }, text: { type: 'string', maxLength: 300 } });
  });

  it('stores a text node and an edge into the prompt port, and reads them back exactly', async () => {
    const projectId = await project();
    const nodes = [
      { id: 'words', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'a lighthouse at dusk, 🌅 in "oil"' } },
      { id: 'empty', type: 'text', position: { x: 0, y: 200 }, data: { type: 'text', text: '' } },
      { id: 'pic', type: 'upload', position: { x: 0, y: 400 }, data: { type: 'upload', image: 'https://img.example/a.png' } },
      { id: 'gen', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: 'sepia' } },
    ];
    const edges = [
      { id: 'e1', source: 'words', target: 'gen', sourceHandle: 'text', targetHandle: 'prompt' },
      { id: 'e2', source: 'empty', target: 'gen', targetHandle: 'prompt' },
      { id: 'e3', source: 'pic', target: 'gen' },
      { id: 'e4', source: 'pic', target: 'gen', sourceHandle: null, targetHandle: null },
    ];
    const saved = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    expect(saved).toMatchObject({ status: 200, json: { projectId, nodes, edges, version: 1 } });
    expect(await canvasOf(projectId)).toEqual(saved.json);

    // Keys a kind does not name are dropped, as for SPEC's kinds; the text stays.
    const extra = { ...nodes[0], measured: { width: 1 }, data: { ...nodes[0].data, image: 'https://img.example/b.png', label: 'x' } };
    const resaved = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [extra], edges: [] });
    expect(resaved.json.nodes).toEqual([nodes[0]]);
  });

  it('publishes a template with a text node and lists it back exactly', async () => {
    const canvas = {
      nodes: [
        { id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'hello' } },
        { id: 'g', type: 'generation', position: { x: 300, y: 0 }, data: { type: 'generation' } },
      ],
      edges: [{ id: 'e', source: 't', target: 'g', targetHandle: 'prompt' }],
      viewport: { x: 0, y: 0, zoom: 1 },
    };
    const published = await ada.client.post('/api/upload/templates', { templateName: 'With text', canvas });
    expect(published).toMatchObject({ status: 200, json: { success: true } });
    const listed = (await t.client().get('/api/upload/templates')).json.find((x: { id: string }) => x.id === published.json.id);
    expect(listed.canvas).toEqual(canvas);
  });

  it('refuses bad input with 400 naming the node or edge and the field, and stores nothing', async () => {
    const projectId = await project();
    const good = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation' } };
    await ada.client.post('/api/user/project/canvas', { projectId, nodes: [good], edges: [] });
    const before = await canvasOf(projectId);
    const save = (nodes: unknown[], edges: unknown[] = []) => ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });

    expect((await save([good, { id: 'v', type: 'video', position: { x: 0, y: 0 }, data: { type: 'video' } }])).json.error).toBe(
      `Invalid nodes.1.type (node "v"): Invalid discriminator value. Expected ${NODE_TYPES.map((t) => `'${t}'`).join(' | ')}`,
    );
    expect((await save([{ id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'x'.repeat(301) } }])).json.error).toBe(
      'Invalid nodes.0.data.text (node "t"): Too big: expected string to have <=300 characters',
    );
    expect((await save([{ id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text' } }])).json.error).toBe(
      'Invalid nodes.0.data.text (node "t"): Invalid input: expected string, received undefined',
    );
    const text = { id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'hi' } };
    expect((await save([text, good], [{ id: 'e', source: 't', target: 'g' }])).json.error).toBe(
      'Invalid edges.0.targetHandle (edge "e"): output "text" (text) of node "t" (text) does not fit input "images" (image) of node "g" (generation); this input fits: "prompt"',
    );
    expect((await save([text, good], [{ id: 'e', source: 't', target: 'g', targetHandle: 'in' }])).json.error).toBe(
      'Invalid edges.0.targetHandle (edge "e"): node "g" (generation) has no input "in"; its inputs: "images", "prompt"',
    );
    expect(await canvasOf(projectId)).toEqual(before);
  });
});
