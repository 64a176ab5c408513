// The web client's pure canvas modules read the node-kind registry (src/kinds/, issue 32 point 1): the model keeps
// a node's type as it is (a type no kind has is drawn as an unknown node, never taken for an image node), stores
// each kind's own data fields; the clipboard copies any kind with its fields (never a run's state, never an
// unknown node) and takes from a foreign clip only what the kind accepts; new and unmeasured nodes are planned at
// their kind's size; names use the kind's label; connections fit by port (web/src/canvas/kinds.ts); and the live
// session fits a text node's text to the limit as it does a prompt.
import { describe, expect, it } from 'vitest';
import { CLIP_TYPE, clipFromText, clipToText, copyNodes, pasteClip, type CopiedNode } from '../../web/src/canvas/clipboard.js';
import { connectionProblem, handleOf, keptData, linkPorts, NODE_SIZE, sizeOf } from '../../web/src/canvas/kinds.js';
import { fitElements, limitPatch } from '../../web/src/canvas/live-limits.js';
import { createNode, toFlowNodes, toSavedNode, type CanvasNode } from '../../web/src/canvas/model.js';
import { kindName, nodeNames, numberNewNodes } from '../../web/src/canvas/names.js';
import { nodeRect } from '../../web/src/canvas/placement.js';
import { generation } from '../../src/kinds/generation.js';
import { text } from '../../src/kinds/text.js';
import { upload } from '../../src/kinds/upload.js';

const at = { x: 10, y: 20 };
const newId = (prefix: string) => `${prefix}-new`;

describe('the web model reads the kind registry', () => {
  it('keeps every node’s type as it is: a kind’s, or one no kind has (drawn as an unknown node), without crashing on odd values', () => {
    const rendered: Record<string, unknown>[] = [
      { id: 't', type: 'text', position: at, data: { type: 'text', text: 'a fox' } },
      { id: 'l', type: 'llm', position: at, data: { type: 'llm', model: 'x', prompt: 'hi' } },
      { id: 'g', type: 'generation', position: at, data: { type: 'upload' } }, // SPEC: either data.type
      { id: 'd', position: at, data: { type: 'text', text: '' } }, // no type: its data's, when a kind has it
      { id: 'x', type: 42, position: 'nowhere', data: ['not', 'a', 'map'] },
      { id: 'y', type: '', data: null },
    ];
    const nodes = toFlowNodes(rendered, []);
    expect(nodes.map((n) => [n.id, n.type, n.data.type])).toEqual([
      ['t', 'text', 'text'],
      ['l', 'llm', 'llm'],
      ['g', 'generation', 'upload'],
      ['d', 'text', 'text'],
      ['x', 'Unknown', 'Unknown'],
      ['y', 'Unknown', 'Unknown'],
    ]);
    expect(nodes[1].data).toEqual({ type: 'llm', model: 'x', prompt: 'hi' }); // kept as it came
    expect(nodes[4].position).toEqual({ x: 0, y: 0 });
    // Unchanged values give back the same nodes.
    expect(toFlowNodes(rendered, nodes)).toBe(nodes);
  });

  it('stores a node’s kind fields: a text’s text (even empty), a generation’s model; never a false isGenerating or an empty prompt', () => {
    const t = createNode('text', at, { text: '' });
    expect(t.id).toMatch(/^text-/);
    expect(toSavedNode(t)).toEqual({ id: t.id, type: 'text', position: at, data: { type: 'text', text: '' } });
    const g: CanvasNode = { id: 'g', type: 'generation', position: at, data: { type: 'generation', prompt: '', model: 'local', isGenerating: false, job: { id: 'j' }, error: 'x' } };
    expect(toSavedNode(g).data).toEqual({ type: 'generation', model: 'local' });
    const u: CanvasNode = { id: 'u', type: 'upload', position: at, data: { type: 'upload', image: '/files/a.png', isGenerating: true } };
    expect(toSavedNode(u).data).toEqual({ type: 'upload', image: '/files/a.png', isGenerating: true });
  });

  it('names nodes by their kind’s label, and a node of no kind “Node”', () => {
    expect(kindName('text')).toBe('Text');
    expect(kindName('llm')).toBe('Node');
    const names = nodeNames([
      { id: 'a', type: 'upload' },
      { id: 'b', type: 'text' },
      { id: 'c', type: 'generation' },
      { id: 'd', type: 'text' },
      { id: 'e', type: 'llm' },
    ]);
    expect([...names.values()]).toEqual(['Image 1', 'Text 1', 'Generate 1', 'Text 2', 'Node 1']);
  });

  it('keeps a name with its node: stored numbers stay when others are deleted; new ones take the highest plus one', () => {
    type Added = { id: string; type: string; data: Record<string, unknown> };
    const added = numberNewNodes<Added>([], [
      { id: 'a', type: 'upload', data: { type: 'upload' } },
      { id: 'b', type: 'upload', data: { type: 'upload' } },
      { id: 'c', type: 'generation', data: { type: 'generation' } },
    ]);
    expect(added.map((n) => n.data.number)).toEqual([1, 2, 1]);
    // Image 1 deleted: Image 2 stays Image 2, and the next image is Image 3.
    const rest = added.slice(1);
    expect([...nodeNames(rest).values()]).toEqual(['Image 2', 'Generate 1']);
    const [next] = numberNewNodes<Added>(rest, [{ id: 'd', type: 'upload', data: { type: 'upload' } }]);
    expect(next.data.number).toBe(3);
    // A node already on the canvas keeps what it has.
    expect(numberNewNodes(rest, [rest[0]])[0]).toBe(rest[0]);
    // Nodes without a number (an older canvas) are numbered as before, around the numbers taken; a duplicate is renumbered.
    const mixed = nodeNames([
      { id: 'x', type: 'upload' },
      { id: 'y', type: 'upload', data: { number: 1 } },
      { id: 'z', type: 'upload' },
      { id: 'w', type: 'upload', data: { number: 1 } },
    ]);
    expect([...mixed.entries()]).toEqual(
      expect.arrayContaining([
        ['y', 'Image 1'],
        ['x', 'Image 2'],
        ['z', 'Image 3'],
        ['w', 'Image 4'],
      ]),
    );
  });

  it('plans an unmeasured node at its kind’s size (a default for a type no kind has)', () => {
    expect(nodeRect({ type: 'text', position: at })).toEqual({ ...at, ...text.size });
    expect(nodeRect({ type: 'generation', position: at })).toEqual({ ...at, ...generation.size });
    expect(nodeRect({ type: 'upload', position: at })).toEqual({ ...at, ...upload.size });
    expect(nodeRect({ type: 'llm', position: at })).toEqual({ ...at, ...NODE_SIZE });
    expect(nodeRect({ type: 'text', position: at, measured: { width: 300, height: 90 } })).toEqual({ ...at, width: 300, height: 90 });
    expect(sizeOf(undefined)).toEqual(NODE_SIZE);
  });
});

describe('the clipboard reads the kind registry', () => {
  const nodes: CopiedNode[] = [
    { id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'a red fox', note: 'not a field' } },
    { id: 'e', type: 'text', position: { x: 0, y: 300 }, data: { type: 'text', text: '' } },
    { id: 'g', type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', prompt: 'sepia', isGenerating: true } },
    { id: 'l', type: 'llm', position: { x: 800, y: 0 }, data: { type: 'llm', prompt: 'x' } },
  ];
  const edges = [
    { source: 't', target: 'g', targetHandle: 'prompt' },
    { source: 'l', target: 'g' },
  ];

  it('copies any kind with its own fields (an empty text too), its edges’ ports, and leaves nodes of no kind behind', () => {
    const clip = copyNodes(nodes, edges, new Set(['t', 'e', 'g', 'l']))!;
    expect(clip.nodes.map((n) => [n.id, n.type, n.data])).toEqual([
      ['t', 'text', { text: 'a red fox' }],
      ['e', 'text', { text: '' }],
      ['g', 'generation', { prompt: 'sepia' }],
    ]);
    expect(clip.nodes[0].rect).toEqual({ x: 0, y: 0, ...text.size });
    expect(clip.edges).toEqual([{ source: 't', target: 'g', targetHandle: 'prompt' }]);
    expect(copyNodes(nodes, edges, new Set(['l']))).toBeNull();
    const pasted = pasteClip(clipFromText(clipToText(clip))!, { x: 0, y: 0 }, newId);
    expect(pasted.nodes[0]).toEqual({ id: 'text-new', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'a red fox' } });
  });

  it('takes from a foreign clip only kinds it knows and values their kind accepts', () => {
    const foreign = JSON.stringify({
      type: CLIP_TYPE,
      version: 1,
      nodes: [
        { id: 'a', type: 'text', rect: { x: 0, y: 0, width: 1, height: 1 }, data: { text: 42, prompt: 'not a text field' } },
        { id: 'b', type: 'text', rect: { x: 0, y: 0, width: 1, height: 1 }, data: { text: 'bad\u0000' } },
        { id: 'c', type: 'llm', rect: { x: 0, y: 0, width: 1, height: 1 }, data: { prompt: 'x' } },
        { id: 'd', type: 'generation', rect: { x: 0, y: 0, width: 1, height: 1 }, data: { model: 'local', image: 'javascript:alert(1)' } },
      ],
      edges: [],
    });
    expect(clipFromText(foreign)!.nodes.map((n) => [n.id, n.data])).toEqual([
      ['a', {}],
      ['b', {}],
      ['d', { model: 'local' }],
    ]);
    expect(keptData('llm', { prompt: 'x' })).toBeUndefined();
  });

  it('a copy keeps a generation’s seed and count and a list’s items, never the run’s result key or results', () => {
    const data = { prompt: 'p', seed: 12, count: 3, resultKey: 'ab'.repeat(32), results: ['https://r/0.png', 'https://r/1.png'], isGenerating: false, run: { runId: 'r' } };
    expect(keptData('generation', data)).toEqual({ prompt: 'p', seed: 12, count: 3 });
    expect(keptData('adjust', { grayscale: true, resultKey: 'ab', results: ['https://r/0.png'] })).toEqual({ grayscale: true });
    expect(keptData('list', { items: ['red', 'green'], number: 2 })).toEqual({ items: ['red', 'green'] });
  });
});

describe('ports and connections', () => {
  it('names no handle for a default port, the port’s name for another', () => {
    expect(handleOf(generation.inputs, 'images')).toBeUndefined();
    expect(handleOf(generation.inputs, null)).toBeUndefined();
    expect(handleOf(generation.inputs, 'prompt')).toBe('prompt');
    expect(handleOf(text.outputs, 'text')).toBeUndefined();
  });

  it('links through the first ports that fit, default ones first', () => {
    expect(linkPorts({ type: 'upload' }, { type: 'generation' })).toEqual({});
    expect(linkPorts({ type: 'text' }, { type: 'generation' })).toEqual({ targetHandle: 'prompt' });
    expect(linkPorts({ type: 'generation' }, { type: 'generation', handle: 'images' })).toEqual({});
    expect(linkPorts({ type: 'generation' }, { type: 'generation', handle: 'prompt' })).toBeNull();
    expect(linkPorts({ type: 'upload' }, { type: 'text' })).toBeNull();
    expect(linkPorts({ type: 'llm' }, { type: 'generation' })).toBeNull();
  });

  it('says why a connection does not fit, and nothing when it does', () => {
    const g = { type: 'generation', handle: null, name: 'Generate 1' };
    expect(connectionProblem({ type: 'text', handle: 'text' }, { ...g, handle: 'prompt' })).toBeUndefined();
    expect(connectionProblem({ type: 'upload', handle: null }, { ...g, handle: null })).toBeUndefined();
    expect(connectionProblem({ type: 'text', handle: 'text' }, { ...g, handle: 'images' })).toBe(
      'The Text (text) output does not fit the Images (images) input of Generate 1. Connect it to “Prompt” instead.',
    );
    expect(connectionProblem({ type: 'upload', handle: 'image' }, { ...g, handle: 'prompt' })).toBe(
      'The Image (image) output does not fit the Prompt (texts) input of Generate 1. Connect it to “Images” instead.',
    );
    expect(connectionProblem({ type: 'upload', handle: 'image' }, { type: 'text', handle: null, name: 'Text 1' })).toBe('Text 1 takes no inputs.');
    expect(connectionProblem({ type: 'llm', handle: null, name: 'Node 1' }, g)).toBe('Node 1 is of a kind this page does not know.');
    expect(connectionProblem({ type: 'upload', handle: null }, { ...g, handle: 'mask' })).toBe('Generate 1 has no input “mask”.');
    expect(connectionProblem({ type: 'generation', handle: null }, g, true)).toBe('A node cannot feed itself.');
  });
});

describe('the live session fits a text node by its kind', () => {
  const limits = { promptMaxChars: 100, maxNodes: 10, maxEdges: 10 };
  it('cuts a text to the prompt limit in a patch and an add, as it does a prompt', () => {
    expect(limitPatch({ text: 'x'.repeat(150) }, limits, 'text')).toEqual({ text: 'x'.repeat(100) });
    expect(limitPatch({ text: 'a\u0000b' }, limits, 'text')).toEqual({ text: 'a\ufffdb' });
    const added = fitElements({ nodes: [{ id: 't', type: 'text', position: at, data: { type: 'text', text: 'y'.repeat(300) } }] }, limits);
    expect(added.nodes[0].data).toEqual({ type: 'text', text: 'y'.repeat(100) });
  });
});
