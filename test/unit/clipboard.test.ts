// Copying nodes (web/src/canvas/clipboard.ts): the selected nodes and the edges between them as a marked JSON
// text, never the state of a run; anything else on the clipboard is not a clip; a paste makes new ids. On the
// canvas it was copied from, a copy keeps its inputs from outside nodes (issue 34 point 7); elsewhere it does not.
import { describe, expect, it } from 'vitest';
import { clipBounds, clipFromText, clipToText, copyNodes, inputsMinX, keptInputs, pasteClip, CLIP_TYPE, type CopiedEdge, type CopiedNode } from '../../web/src/canvas/clipboard.js';

const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;

const nodes: CopiedNode[] = [
  { id: 'u', type: 'upload', position: { x: 0, y: 0 }, measured: { width: 260, height: 320 }, data: { type: 'upload', image: '/files/a.png' } },
  {
    id: 'g',
    type: 'generation',
    position: { x: 400, y: 100 },
    data: { type: 'generation', prompt: 'grayscale', model: 'offline', isGenerating: true, job: { id: 'j1', status: 'running' }, error: 'boom' },
  },
  { id: 'other', type: 'upload', position: { x: 900, y: 0 }, data: { type: 'upload' } },
];
const edges: Array<CopiedEdge & { id: string }> = [
  { id: 'e1', source: 'u', target: 'g' },
  { id: 'e2', source: 'other', target: 'g' },
];

describe('copying nodes', () => {
  it('keeps the nodes, their kind, image, prompt and model, and only the edges between them', () => {
    const clip = copyNodes(nodes, edges, new Set(['u', 'g']))!;
    expect(clip.nodes.map((n) => n.id)).toEqual(['u', 'g']);
    expect(clip.nodes[0]).toEqual({ id: 'u', type: 'upload', rect: { x: 0, y: 0, width: 260, height: 320 }, data: { image: '/files/a.png' } });
    expect(clip.nodes[1].data).toEqual({ prompt: 'grayscale', model: 'offline' }); // no isGenerating, job or error
    expect(clip.nodes[1].rect).toEqual({ x: 400, y: 100, width: 260, height: 530 }); // not measured yet: the planned size
    expect(clip.edges).toEqual([{ source: 'u', target: 'g' }]);
    expect(copyNodes(nodes, edges, new Set(['nothing']))).toBeNull();
  });

  it('reads back its own text, and nothing else', () => {
    const clip = copyNodes(nodes, edges, new Set(['u', 'g']))!;
    const text = clipToText(clip);
    expect(JSON.parse(text)).toMatchObject({ type: CLIP_TYPE, version: 1 });
    expect(clipFromText(text)).toEqual(clip);
    for (const other of ['', 'hello', '{"type":"something else"}', `{"type":"${CLIP_TYPE}"`, `{"type":"${CLIP_TYPE}","version":2,"nodes":[],"edges":[]}`, `{"type":"${CLIP_TYPE}","version":1,"nodes":[],"edges":[]}`]) {
      expect(clipFromText(other)).toBeNull();
    }
  });

  it('takes from someone else’s clip only well-formed nodes, known data, edges between them, within bounds', () => {
    const text = JSON.stringify({
      type: CLIP_TYPE,
      version: 1,
      nodes: [
        { id: 'a', type: 'generation', rect: { x: 1, y: 2, width: 3, height: 4 }, data: { prompt: 'p', job: { id: 'x' }, isGenerating: true, image: 42 } },
        { id: 'a', type: 'upload', rect: { x: 0, y: 0, width: 1, height: 1 }, data: {} }, // a second "a"
        { id: 'b', type: 'script', rect: { x: 0, y: 0, width: 1, height: 1 }, data: {} },
        { id: 'c', type: 'upload', rect: { x: 'left', y: 0, width: 1, height: 1 }, data: {} },
        'not a node',
      ],
      edges: [{ source: 'a', target: 'a' }, { source: 'a', target: 'b' }, { source: 7, target: 'a' }],
    });
    expect(clipFromText(text)).toEqual({
      nodes: [{ id: 'a', type: 'generation', rect: { x: 1, y: 2, width: 3, height: 4 }, data: { prompt: 'p' } }],
      edges: [{ source: 'a', target: 'a' }],
    });
    const many = JSON.stringify({ type: CLIP_TYPE, version: 1, nodes: Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'upload', rect: { x: 0, y: 0, width: 1, height: 1 }, data: {} })), edges: [] });
    expect(clipFromText(many)).toBeNull();
  });

  it('pastes under new ids, keeping the layout, with its top-left corner where asked', () => {
    const clip = copyNodes(nodes, edges, new Set(['u', 'g']))!;
    expect(clipBounds(clip)).toEqual({ x: 0, y: 0, width: 660, height: 630 });
    const pasted = pasteClip(clip, { x: 1000, y: 2000 }, newId);
    expect(pasted.nodes.map((n) => n.position)).toEqual([{ x: 1000, y: 2000 }, { x: 1400, y: 2100 }]);
    expect(pasted.nodes.map((n) => n.data)).toEqual([{ type: 'upload', image: '/files/a.png' }, { type: 'generation', prompt: 'grayscale', model: 'offline' }]);
    const [u, g] = pasted.nodes.map((n) => n.id);
    expect(u).toMatch(/^upload-/);
    expect(g).toMatch(/^generation-/);
    expect(pasted.edges).toEqual([{ id: expect.stringMatching(/^edge-/), source: u, target: g }]);
    const again = pasteClip(clip, { x: 0, y: 0 }, newId);
    expect(again.nodes.map((n) => n.id)).not.toContain(u);
  });

  it('keeps the inputs from outside nodes on the canvas it came from, right of them, and only there', () => {
    // g alone: its input from u (outside the copy) and from other; on canvas "p1".
    const clip = copyNodes(nodes, edges, new Set(['g']), 'p1')!;
    expect(clip.edges).toEqual([]);
    expect(clip.inputs).toEqual([
      { source: 'u', target: 'g' },
      { source: 'other', target: 'g' },
    ]);
    const back = clipFromText(clipToText(clip))!;
    expect(back).toEqual(clip);
    const rects = new Map(nodes.map((n) => [n.id, { x: n.position.x, y: n.position.y, width: 260, height: 320 }]));
    const here = (id: string) => (id === 'other' ? undefined : rects.get(id)); // "other" deleted meanwhile
    const kept = keptInputs(back, 'p1', here);
    expect(kept).toEqual([{ source: 'u', target: 'g' }]);
    expect(keptInputs(back, 'p2', here)).toEqual([]); // another canvas: only edges inside the copy
    expect(keptInputs({ ...back, canvas: undefined }, 'p1', here)).toEqual([]);
    const pasted = pasteClip(back, { x: 0, y: 700 }, newId, kept);
    expect(pasted.edges).toEqual([{ id: expect.stringMatching(/^edge-/), source: 'u', target: pasted.nodes[0].id }]);
    // Right of its input (u ends at 260): the copy's left edge at least 80 further.
    expect(inputsMinX(back, kept, here, 80)).toBe(340);
    expect(inputsMinX(back, [], here, 80)).toBeUndefined();

    // Both copied: the edge between them is remapped, nothing kept from outside but "other".
    const both = copyNodes(nodes, edges, new Set(['u', 'g']), 'p1')!;
    expect(both.edges).toEqual([{ source: 'u', target: 'g' }]);
    expect(both.inputs).toEqual([{ source: 'other', target: 'g' }]);

    // Someone else's inputs: never from a node inside the clip, never into one outside it.
    const text = JSON.stringify({
      type: CLIP_TYPE,
      version: 1,
      canvas: 'p1',
      nodes: [{ id: 'a', type: 'generation', rect: { x: 0, y: 0, width: 1, height: 1 }, data: {} }],
      edges: [],
      inputs: [{ source: 'a', target: 'a' }, { source: 'x', target: 'y' }, { source: 'x', target: 'a', targetHandle: 'images' }, { source: 3, target: 'a' }],
    });
    expect(clipFromText(text)?.inputs).toEqual([{ source: 'x', target: 'a', targetHandle: 'images' }]);
  });
});
