// Where new nodes go (web/src/canvas/placement.ts): where asked when that spot is in view and free, else the
// nearest spot in view clear of the floating panels and of other nodes; when nothing in view is free, the nearest
// free spot off screen — never on top of another node; right of a new node's inputs; images added together as a
// grid in the files' order.
import { describe, expect, it } from 'vitest';
import { centeredAt, clampInto, gridCells, gridSize, NODE_MARGIN, overlaps, placeInView, revealShift, type Rect } from '../../web/src/canvas/placement.js';

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

  it('brings a spot off-screen into view; a rectangle larger than the view stays where asked (the view then zooms out)', () => {
    expect(placeInView({ x: -5000, y: 9000 }, size, { view, obstacles: [] })).toEqual({ x: 0, y: 300 });
    expect(clampInto(view, { x: 500, y: 500 }, { width: 2000, height: 100 })).toEqual({ x: 0, y: 500 });
    expect(placeInView({ x: 500, y: 500 }, { width: 100, height: 5000 }, { view, obstacles: [] })).toEqual({ x: 500, y: 500 });
  });

  it('moves a node asked for under the minimap beside it, as little as it can', () => {
    const spot = placeInView({ x: 900, y: 250 }, size, { view, obstacles: [minimap], nodes: [] });
    expect(overlaps(rectAt(spot), minimap)).toBe(false);
    expect(within(rectAt(spot), view)).toBe(true);
    expect(Math.hypot(spot.x - 900, spot.y - 250)).toBeLessThan(200);
  });

  it('finds the nearest spot clear of other nodes; with no room in view, the nearest one off screen, never on top', () => {
    const node: Rect = { x: 400, y: 100, width: 260, height: 400 };
    const spot = placeInView({ x: 420, y: 120 }, size, { view, obstacles: [minimap], nodes: [node] });
    expect(overlaps(rectAt(spot), node, NODE_MARGIN)).toBe(false);
    expect(within(rectAt(spot), view)).toBe(true);
    expect(Math.hypot(spot.x - 420, spot.y - 120)).toBeLessThan(400);
    // Nodes far outside the view do not matter.
    expect(placeInView({ x: 100, y: 100 }, size, { view, obstacles: [], nodes: [{ x: 5000, y: 5000, width: 10, height: 10 }] })).toEqual({ x: 100, y: 100 });
    // A view covered with nodes (images fitted into view): beside them, off screen, the nearest side.
    const full: Rect = { x: -100, y: -100, width: 1400, height: 900 };
    const crowded = placeInView({ x: 1000, y: 400 }, size, { view, obstacles: [minimap], nodes: [full] });
    expect(overlaps(rectAt(crowded), full)).toBe(false);
    expect(crowded).toEqual({ x: full.x + full.width + NODE_MARGIN, y: 400 });
    // Many nodes in a row filling the view (a phone): still clear of every one.
    const row: Rect[] = Array.from({ length: 12 }, (_, i) => ({ x: i * 300, y: 0, width: 260, height: 330 }));
    const narrow: Rect = { x: 0, y: 0, width: 360, height: 600 };
    const beside = placeInView({ x: 50, y: 100 }, size, { view: narrow, obstacles: [], nodes: row });
    for (const r of row) expect(overlaps(rectAt(beside), r, NODE_MARGIN - 1)).toBe(false);
  });

  it('keeps a new node right of its inputs (and left of what it feeds), even when that spot is taken', () => {
    const input: Rect = { x: 0, y: 0, width: 260, height: 330 };
    const blocker: Rect = { x: 380, y: 0, width: 260, height: 500 };
    const minX = input.x + input.width + 80;
    const spot = placeInView({ x: minX, y: 0 }, size, { view, obstacles: [], nodes: [input, blocker], minX });
    expect(spot.x).toBeGreaterThanOrEqual(minX);
    expect(overlaps(rectAt(spot), blocker, NODE_MARGIN)).toBe(false);
    expect(overlaps(rectAt(spot), input, NODE_MARGIN)).toBe(false);
    // Asked for left of the inputs (a connection let go there): moved right of them.
    const left = placeInView({ x: -600, y: 0 }, size, { view: { x: -800, y: -100, width: 2000, height: 900 }, obstacles: [], nodes: [input], minX });
    expect(left.x).toBeGreaterThanOrEqual(minX);
    // Feeding a node: its right edge left of it.
    const target: Rect = { x: 600, y: 0, width: 260, height: 500 };
    const feeder = placeInView({ x: 700, y: 0 }, size, { view, obstacles: [], nodes: [target], maxX: target.x - 80 });
    expect(feeder.x + size.width).toBeLessThanOrEqual(target.x - 80);
  });

  it('lays several images out as a grid about as wide as tall, row by row in the files’ order', () => {
    expect(gridSize(1)).toEqual({ width: 260, height: 330 });
    expect(gridSize(6)).toEqual({ width: 3 * 260 + 2 * NODE_MARGIN, height: 2 * 330 + NODE_MARGIN });
    expect(gridCells(6, { x: 10, y: 20 })).toEqual([
      { x: 10, y: 20 },
      { x: 310, y: 20 },
      { x: 610, y: 20 },
      { x: 10, y: 390 },
      { x: 310, y: 390 },
      { x: 610, y: 390 },
    ]);
    // 60 images: 8 columns, 8 rows (not a tower of 60).
    const sixty = gridSize(60);
    expect(sixty.width / sixty.height).toBeGreaterThan(0.7);
    expect(new Set(gridCells(60, { x: 0, y: 0 }).map((c) => c.x)).size).toBe(8);
  });

  it('finds a spot among hundreds of nodes quickly', () => {
    const many: Rect[] = Array.from({ length: 500 }, (_, i) => ({ x: (i % 25) * 300, y: Math.floor(i / 25) * 400, width: 260, height: 330 }));
    const started = performance.now();
    const spot = placeInView({ x: 3000, y: 3000 }, size, { view: { x: 2500, y: 2500, width: 1200, height: 700 }, obstacles: [], nodes: many });
    const took = performance.now() - started;
    for (const r of many) expect(overlaps(rectAt(spot), r, NODE_MARGIN - 1)).toBe(false);
    expect(took).toBeLessThan(2000); // measured ~20 ms; a bound, not a timing the test waits on
  });

  it('moves the view as little as it must to show what was added, clear of the minimap', () => {
    expect(revealShift({ x: 100, y: 100, width: 260, height: 400 }, view, [minimap])).toBeNull(); // shown already
    expect(revealShift({ x: 1100, y: 100, width: 260, height: 400 }, view, [minimap])).toEqual({ x: 160, y: 0 });
    expect(revealShift({ x: -300, y: -50, width: 260, height: 400 }, view, [minimap])).toEqual({ x: -300, y: -50 });
    // Below the view on the right: brought up, then clear of the minimap (moved left, the shorter way).
    const shift = revealShift({ x: 900, y: 800, width: 260, height: 300 }, view, [minimap])!;
    const shown = { x: 900 - shift.x, y: 800 - shift.y, width: 260, height: 300 };
    expect(within(shown, view)).toBe(true);
    expect(overlaps(shown, minimap)).toBe(false);
    expect(revealShift({ x: 0, y: 0, width: 5000, height: 100 }, view)).toBeNull(); // larger than the view: zoomed out to instead
    // Too tall to go above the minimap: moved beside it instead, whichever way is shorter.
    const tall = { x: view.x + view.width - 300, y: view.y + 10, width: 260, height: view.height - 20 };
    const aside = revealShift(tall, view, [minimap])!;
    const placed = { ...tall, x: tall.x - aside.x, y: tall.y - aside.y };
    expect(within(placed, view)).toBe(true);
    expect(overlaps(placed, minimap)).toBe(false);
  });
});
