// Arranging nodes (web/src/canvas/arrange.ts): Tidy up in columns by dependency with no overlaps; align and
// distribute as tldraw and Figma do.
import { describe, expect, it } from 'vitest';
import { align, boundsOf, COLUMN_GAP, distribute, tidy, type ArrangedNode } from '../../web/src/canvas/arrange.js';
import { overlaps, type Rect } from '../../web/src/canvas/placement.js';

const node = (id: string, x: number, y: number, width = 260, height = 330): ArrangedNode => ({ id, rect: { x, y, width, height } });
const moved = (nodes: ArrangedNode[], at: Map<string, { x: number; y: number }>): Rect[] => nodes.map((n) => ({ ...n.rect, ...at.get(n.id)! }));

describe('tidying up', () => {
  // Two images into a generation, whose result feeds a second generation; a text on its own; all piled up.
  const nodes = [node('g2', 10, 10, 260, 500), node('i1', 0, 0), node('g1', 20, 30, 260, 500), node('i2', 5, 5), node('t', 15, 15, 260, 180)];
  const links = [
    { source: 'i1', target: 'g1' },
    { source: 'i2', target: 'g1' },
    { source: 'g1', target: 'g2' },
    { source: 'elsewhere', target: 'g1' },
  ];

  it('puts sources left and each node one column right of its deepest input, with no overlaps', () => {
    const at = tidy(nodes, links);
    const x = (id: string) => at.get(id)!.x;
    expect(x('i1')).toBe(0);
    expect(x('i2')).toBe(0);
    expect(x('t')).toBe(0);
    expect(x('g1')).toBe(260 + COLUMN_GAP);
    expect(x('g2')).toBe(2 * (260 + COLUMN_GAP));
    const rects = moved(nodes, at);
    for (const a of rects) for (const b of rects) if (a !== b) expect(overlaps(a, b)).toBe(false);
    // Its top-left where the nodes' was; sources in their order top to bottom (i1 at y 0, i2 at 5, t at 15).
    expect(boundsOf(rects)).toMatchObject({ x: 0, y: 0 });
    expect(['i1', 'i2', 't'].map((id) => at.get(id)!.y)).toEqual([0, 370, 740]);
    // A generation level with the middle of its inputs.
    expect(at.get('g1')!.y + 250).toBeCloseTo((165 + 370 + 165) / 2);
  });

  it('cuts a cycle instead of looping', () => {
    const at = tidy([node('a', 0, 0), node('b', 0, 0)], [
      { source: 'a', target: 'b' },
      { source: 'b', target: 'a' },
    ]);
    expect(at.size).toBe(2);
    expect(overlaps({ ...at.get('a')!, width: 260, height: 330 }, { ...at.get('b')!, width: 260, height: 330 })).toBe(false);
  });
});

describe('aligning and distributing', () => {
  const nodes = [node('a', 0, 0, 100, 50), node('b', 300, 100, 200, 80), node('c', 900, 40, 100, 100)];

  it('lines edges, centres and middles up', () => {
    expect([...align(nodes, 'left').values()].map((p) => p.x)).toEqual([0, 0, 0]);
    expect([...align(nodes, 'right').values()].map((p) => p.x)).toEqual([900, 800, 900]);
    expect([...align(nodes, 'centre').values()].map((p) => p.x)).toEqual([450, 400, 450]);
    expect([...align(nodes, 'top').values()].map((p) => p.y)).toEqual([0, 0, 0]);
    expect([...align(nodes, 'bottom').values()].map((p) => p.y)).toEqual([130, 100, 80]);
    expect([...align(nodes, 'middle').values()].map((p) => p.y)).toEqual([65, 50, 40]);
    // Aligning moves along one axis only.
    expect([...align(nodes, 'left').values()].map((p) => p.y)).toEqual([0, 100, 40]);
  });

  it('makes the gaps equal, the first and last staying put; fewer than 3 stay where they are', () => {
    const h = distribute(nodes, 'horizontal');
    expect([h.get('a')!.x, h.get('b')!.x, h.get('c')!.x]).toEqual([0, 400, 900]); // gaps of 300
    const v = distribute(nodes, 'vertical');
    expect([v.get('a')!.y, v.get('c')!.y, v.get('b')!.y]).toEqual([0, 25, 100]); // by top edge: a, c, b; equal gaps (of −25: they overlap)
    expect(distribute(nodes.slice(0, 2), 'horizontal')).toEqual(new Map([['a', { x: 0, y: 0 }], ['b', { x: 300, y: 100 }]]));
  });
});
