// Hostile node kinds and ports on REST (issue 32 "Bad input"): a node of a kind that does not exist, data its kind
// refuses, a handle naming a port its node does not have, an edge between ports whose values do not fit. Each is
// sent as a canvas save and as a template, and must be a 400 naming the node (or edge) and the field, with nothing
// stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let ada: { client: HttpClient; id: string };
let projectId: string;

type Json = Record<string, unknown>;
const at = { x: 0, y: 0 };
const gen = { id: 'g', type: 'generation', position: at, data: { type: 'generation', prompt: 'p' } };
const pic = { id: 'u', type: 'upload', position: at, data: { type: 'upload', image: 'https://img.example/u.png' } };
const txt = { id: 't', type: 'text', position: at, data: { type: 'text', text: 'hello' } };
/** A node `n` of `type` with `data` (its `data.type` is `type` unless `data` says). */
const node = (type: unknown, data: unknown = { type }) => ({ id: 'n', type, position: at, data });
const edge = (source: string, target: string, handles: Json = {}) => ({ id: 'e', source, target, ...handles });

interface Case {
  name: string;
  nodes: Json[];
  edges?: Json[];
  /** Where the refusal points: the field's path and the entry it names, e.g. `nodes.1.type (node "n")`. */
  where: string;
}

const P = 'x'.repeat(201); // over the prompt limit set below
const cases: Case[] = [
  // A kind that does not exist.
  ...['video', '', 'Text', ' text', 'upload ', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'generation\u0000'].map((type) => ({
    name: `kind ${JSON.stringify(type)}`,
    nodes: [gen, node(type, { type: 'upload' })],
    where: 'nodes.1.type (node "n")',
  })),
  { name: 'kind null', nodes: [gen, node(null, { type: 'upload' })], where: 'nodes.1.type (node "n")' },
  { name: 'kind a number', nodes: [gen, node(7, { type: 'upload' })], where: 'nodes.1.type (node "n")' },
  { name: 'kind an object', nodes: [gen, node({ type: 'text' }, { type: 'text', text: '' })], where: 'nodes.1.type (node "n")' },
  { name: 'kind missing', nodes: [gen, { id: 'n', position: at, data: { type: 'text', text: '' } }], where: 'nodes.1.type (node "n")' },
  // data.type that is not the kind's.
  { name: 'text node with data.type upload', nodes: [gen, node('text', { type: 'upload', text: '' })], where: 'nodes.1.data.type (node "n")' },
  { name: 'upload node with data.type text', nodes: [gen, node('upload', { type: 'text', text: '' })], where: 'nodes.1.data.type (node "n")' },
  { name: 'generation node with data.type video', nodes: [gen, node('generation', { type: 'video' })], where: 'nodes.1.data.type (node "n")' },
  { name: 'text node without data.type', nodes: [gen, node('text', { text: '' })], where: 'nodes.1.data.type (node "n")' },
  // Data of the wrong shape, per kind.
  { name: 'text: no text', nodes: [gen, node('text')], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text null', nodes: [gen, node('text', { type: 'text', text: null })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text a number', nodes: [gen, node('text', { type: 'text', text: 1 })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text an array', nodes: [gen, node('text', { type: 'text', text: ['a'] })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text an object', nodes: [gen, node('text', { type: 'text', text: { a: 1 } })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text over the limit', nodes: [gen, node('text', { type: 'text', text: P })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text with NUL', nodes: [gen, node('text', { type: 'text', text: 'a\u0000b' })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: text with a lone surrogate', nodes: [gen, node('text', { type: 'text', text: 'a\ud800b' })], where: 'nodes.1.data.text (node "n")' },
  { name: 'text: data null', nodes: [gen, node('text', null)], where: 'nodes.1.data (node "n")' },
  { name: 'text: data an array', nodes: [gen, node('text', ['text'])], where: 'nodes.1.data (node "n")' },
  { name: 'text: data a string', nodes: [gen, node('text', 'hello')], where: 'nodes.1.data (node "n")' },
  { name: 'upload: image a number', nodes: [gen, node('upload', { type: 'upload', image: 1 })], where: 'nodes.1.data.image (node "n")' },
  { name: 'upload: javascript: image', nodes: [gen, node('upload', { type: 'upload', image: 'javascript:alert(1)' })], where: 'nodes.1.data.image (node "n")' },
  { name: 'upload: prompt over the limit', nodes: [gen, node('upload', { type: 'upload', prompt: P })], where: 'nodes.1.data.prompt (node "n")' },
  { name: 'generation: isGenerating a string', nodes: [gen, node('generation', { type: 'generation', isGenerating: 'yes' })], where: 'nodes.1.data.isGenerating (node "n")' },
  { name: 'generation: model over 100 characters', nodes: [gen, node('generation', { type: 'generation', model: 'm'.repeat(101) })], where: 'nodes.1.data.model (node "n")' },
  { name: 'generation: prompt an object', nodes: [gen, node('generation', { type: 'generation', prompt: { text: 'x' } })], where: 'nodes.1.data.prompt (node "n")' },
  { name: 'position missing', nodes: [gen, { id: 'n', type: 'text', data: { type: 'text', text: '' } }], where: 'nodes.1.position (node "n")' },
  // Ports that do not exist.
  { name: 'source handle "out" on an upload', nodes: [pic, gen], edges: [edge('u', 'g', { sourceHandle: 'out' })], where: 'edges.0.sourceHandle (edge "e")' },
  { name: 'target handle "in" on a generation', nodes: [pic, gen], edges: [edge('u', 'g', { targetHandle: 'in' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an output port named as the target', nodes: [pic, gen], edges: [edge('u', 'g', { targetHandle: 'image' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an input port named as the source', nodes: [gen, { ...gen, id: 'h' }], edges: [edge('g', 'h', { sourceHandle: 'images' })], where: 'edges.0.sourceHandle (edge "e")' },
  { name: 'an empty handle', nodes: [pic, gen], edges: [edge('u', 'g', { targetHandle: '' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'handle "__proto__"', nodes: [pic, gen], edges: [edge('u', 'g', { sourceHandle: '__proto__' })], where: 'edges.0.sourceHandle (edge "e")' },
  { name: 'handle "constructor"', nodes: [pic, gen], edges: [edge('u', 'g', { targetHandle: 'constructor' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'a handle with another case', nodes: [txt, gen], edges: [edge('t', 'g', { targetHandle: 'Prompt' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an edge into an upload (no inputs)', nodes: [pic, { ...pic, id: 'v' }], edges: [edge('u', 'v')], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an edge into a text (no inputs)', nodes: [txt, { ...txt, id: 's' }], edges: [edge('t', 's')], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an edge into a text from an image', nodes: [pic, txt], edges: [edge('u', 't')], where: 'edges.0.targetHandle (edge "e")' },
  // Ports that do not fit.
  { name: 'text into the default (image) input', nodes: [txt, gen], edges: [edge('t', 'g')], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'text into "images" by name', nodes: [txt, gen], edges: [edge('t', 'g', { sourceHandle: 'text', targetHandle: 'images' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'an image into the prompt', nodes: [pic, gen], edges: [edge('u', 'g', { targetHandle: 'prompt' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: "a generation's image into another's prompt", nodes: [gen, { ...gen, id: 'h' }], edges: [edge('g', 'h', { targetHandle: 'prompt' })], where: 'edges.0.targetHandle (edge "e")' },
  { name: 'a refused edge after a good one', nodes: [pic, txt, gen], edges: [edge('u', 'g'), { ...edge('t', 'g'), id: 'e2' }], where: 'edges.1.targetHandle (edge "e2")' },
];

beforeAll(async () => {
  t = await startTestApp({ PROMPT_MAX_CHARS: '200', RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '0' });
  ada = await t.user('ada@example.com');
  projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Hostile kinds' })).json.id as string;
  const first = await ada.client.post('/api/user/project/canvas', { projectId, nodes: [pic, txt, gen], edges: [edge('u', 'g'), { ...edge('t', 'g', { targetHandle: 'prompt' }), id: 'e2' }] });
  expect(first.status).toBe(200);
});
afterAll(() => t?.close());

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const templateCount = async () => (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates')).rows[0].n;

describe('hostile node kinds and ports (REST)', () => {
  it.each(cases)('canvas save: $name → 400 naming it, nothing stored', async ({ nodes, edges = [], where }) => {
    const before = await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`);
    const res = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(new RegExp(`^Invalid ${escape(where)}: `));
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json).toEqual(before.json);
  });

  it.each(cases)('template: $name → 400 naming it, nothing stored', async ({ nodes, edges = [], where }) => {
    const count = await templateCount();
    const res = await ada.client.post('/api/upload/templates', { templateName: 'Hostile', canvas: { nodes, edges } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(new RegExp(`^Invalid canvas\\.${escape(where)}: `));
    expect(await templateCount()).toBe(count);
  });

  it('still takes every SPEC edge: no handles, null handles, and the default ports named', async () => {
    const nodes = [pic, gen, { ...gen, id: 'h' }];
    const edges = [
      edge('u', 'g'),
      { ...edge('u', 'h', { sourceHandle: null, targetHandle: null }), id: 'e2' },
      { ...edge('g', 'h', { sourceHandle: 'image', targetHandle: 'images' }), id: 'e3' },
    ];
    const res = await ada.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    expect(res).toMatchObject({ status: 200, json: { nodes, edges } });
  });
});
