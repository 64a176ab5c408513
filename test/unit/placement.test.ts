// Where new nodes go (web/src/canvas/placement.ts): where asked when that spot is in view and free, else the
// nearest spot in view clear of the floating panels and of other nodes; overlapping nodes only when nothing in
// view is free; never off-screen.
import { describe, expect, it } from 'vitest';
import { centeredAt, clampInto, columnSize, NODE_MARGIN, overlaps, placeInView, type Rect } from '../../web/src/canvas/placement.js';

const view: Rect = { x: 0, y: 0, width: 1200, height: 700 };
const minimap: Rect = { x: 980, y: 520, width: 220, height: 180 };
const size = { width: 260, height: 400 };
const rectAt = (p: { x: number; y: number }) => ({ ...p, ...size });
const within = (r: Rect, outer: Rect) => r.x >= outer.x && r.y >= outer.y && r.x + r.width <= outer.x + outer.width && r.y + r.height <= outer.y + outer.height;

describe('placing new nodes in view', () => {
  it('keeps a free spot in view as it is', () => {
    expect(placeInView({ x: 100, y: 100 }, size, { view, obstacles: [minimap], nodes: [] })).toEqual({ x: 100, y: 100 });
    expect(centeredAt({ x: 600, y: 350 }, size)).toEqual({ x: 470, y: 150 });
  });

  it('brings a spot off-screen into view, and a rectangle larger than the view to its top-left', () => {
    expect(placeInView({ x: -5000, y: 9000 }, size, { view, obstacles: [] })).toEqual({ x: 0, y: 300 });
    expect(clampInto(view, { x: 500, y: 500 }, { width: 2000, height: 100 })).toEqual({ x: 0, y: 500 });
    expect(placeInView({ x: 500, y: 500 }, { width: 100, height: 5000 }, { view, obstacles: [] })).toEqual({ x: 500, y: 0 });
  });

  it('moves a node asked for under the minimap beside it, as little as it can', () => {
    const spot = placeInView({ x: 900, y: 250 }, size, { view, obstacles: [minimap], nodes: [] });
    expect(overlaps(rectAt(spot), minimap)).toBe(false);
    expect(within(rectAt(spot), view)).toBe(true);
    expect(Math.hypot(spot.x - 900, spot.y - 250)).toBeLessThan(200);
  });

  it('finds the nearest spot clear of other nodes, and overlaps them only when the view is full', () => {
    const node: Rect = { x: 400, y: 100, width: 260, height: 400 };
    const spot = placeInView({ x: 420, y: 120 }, size, { view, obstacles: [minimap], nodes: [node] });
    expect(overlaps(rectAt(spot), node, NODE_MARGIN)).toBe(false);
    expect(within(rectAt(spot), view)).toBe(true);
    expect(Math.hypot(spot.x - 420, spot.y - 120)).toBeLessThan(400);
    // Nodes far outside the view do not matter.
    expect(placeInView({ x: 100, y: 100 }, size, { view, obstacles: [], nodes: [{ x: 5000, y: 5000, width: 10, height: 10 }] })).toEqual({ x: 100, y: 100 });
    // A view covered with nodes: the spot overlaps them, but stays in view and off the minimap.
    const full: Rect = { x: -100, y: -100, width: 1400, height: 900 };
    const crowded = placeInView({ x: 1000, y: 400 }, size, { view, obstacles: [minimap], nodes: [full] });
    expect(within(rectAt(crowded), view)).toBe(true);
    expect(overlaps(rectAt(crowded), minimap)).toBe(false);
  });

  it('sizes a column of new images', () => {
    expect(columnSize(1)).toEqual({ width: 260, height: 330 });
    expect(columnSize(3)).toEqual({ width: 260, height: 1010 });
  });
});
