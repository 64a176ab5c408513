// Where new nodes go (issue 19, point 2): in the visible part of the canvas, at the spot asked for (the cursor,
// or the middle of the view) when that is free, else at the nearest free spot — never off-screen and never under
// what floats over the canvas (the minimap, the zoom controls). Everything is in flow coordinates; the editor
// measures the view and the floating panels (hooks/use-placement.ts). A node is planned at its kind's size
// (src/kinds/ `size`) until it is measured. No React and no DOM: unit-tested in test/unit/placement.test.ts.
import { sizeOf } from './kinds.js';

export { sizeOf } from './kinds.js';

export interface XY {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends XY, Size {}

/** How far apart image nodes added together are stacked (hooks/use-uploads.ts): an image node is ~330 tall. */
export const STACK_GAP = 340;

/** The size of a column of `count` new image nodes. */
export const columnSize = (count: number): Size => {
  const image = sizeOf('upload');
  return { width: image.width, height: (Math.max(1, count) - 1) * STACK_GAP + image.height };
};

/** Space kept between a new node and the nodes around it. */
export const NODE_MARGIN = 40;

export interface PlacementArea {
  /** The visible canvas (already shrunk by the margin to keep from its edges). */
  view: Rect;
  /** What floats over the canvas: a new node never goes under these. */
  obstacles: Rect[];
  /** Nodes a new node should not overlap (with `NODE_MARGIN` around them); none: overlapping is fine (a paste). */
  nodes?: Rect[];
}

/** What placing needs to know of a canvas node (an xyflow node). */
export interface PlacedNode {
  type?: string;
  position: XY;
  measured?: { width?: number; height?: number };
}

/** A node as the rectangle it is drawn in (measured once shown; a typical size before that). */
export function nodeRect(node: PlacedNode): Rect {
  const planned = sizeOf(node.type);
  return { x: node.position.x, y: node.position.y, width: node.measured?.width ?? planned.width, height: node.measured?.height ?? planned.height };
}

export const overlaps = (a: Rect, b: Rect, margin = 0) =>
  a.x < b.x + b.width + margin && b.x < a.x + a.width + margin && a.y < b.y + b.height + margin && b.y < a.y + a.height + margin;

const inside = (r: Rect, view: Rect) => r.x >= view.x && r.y >= view.y && r.x + r.width <= view.x + view.width && r.y + r.height <= view.y + view.height;

/** `at` moved the least so that a rectangle of `size` there lies inside `view` (its top-left edge when it is larger). */
export function clampInto(view: Rect, at: XY, size: Size): XY {
  const clamp = (value: number, min: number, length: number, span: number) => (length >= span ? min : Math.min(Math.max(value, min), min + span - length));
  return { x: clamp(at.x, view.x, size.width, view.width), y: clamp(at.y, view.y, size.height, view.height) };
}

/** How many rings of candidate spots the search looks at, at most (the step grows with the view instead). */
const RINGS = 80;

/**
 * The top-left corner for a rectangle of `size` wanted with its top-left at `want`: `want` itself when the
 * rectangle lies inside the view and overlaps no obstacle and no node, else the nearest spot that does (searched
 * ring by ring around `want`, in steps of 1/80 of the view). When no spot in view is free of nodes, overlapping
 * them is accepted; when not even that is possible (a view smaller than the rectangle), `want` is only brought
 * into the view.
 */
export function placeInView(want: XY, size: Size, area: PlacementArea): XY {
  const { view, obstacles } = area;
  const start = clampInto(view, want, size);
  const clearOf = (p: XY, nodes: Rect[]) => {
    const r = { ...p, ...size };
    return inside(r, view) && !obstacles.some((o) => overlaps(r, o)) && !nodes.some((n) => overlaps(r, n, NODE_MARGIN));
  };
  const step = Math.max(4, Math.max(view.width, view.height) / RINGS);
  const search = (nodes: Rect[]): XY | null => {
    if (clearOf(start, nodes)) return start;
    const distance = (p: XY) => Math.hypot(p.x - start.x, p.y - start.y);
    for (let ring = 1; ring <= RINGS; ring++) {
      const candidates: XY[] = [];
      for (let i = -ring; i <= ring; i++) {
        candidates.push({ x: start.x + i * step, y: start.y - ring * step }, { x: start.x + i * step, y: start.y + ring * step });
        if (i > -ring && i < ring) candidates.push({ x: start.x - ring * step, y: start.y + i * step }, { x: start.x + ring * step, y: start.y + i * step });
      }
      const found = candidates.sort((a, b) => distance(a) - distance(b)).find((p) => clearOf(p, nodes));
      if (found) return found;
    }
    return null;
  };
  // Only nodes that reach into the view can stand in the way.
  const nearby = (area.nodes ?? []).filter((n) => overlaps(n, view, NODE_MARGIN));
  return (nearby.length > 0 ? search(nearby) : null) ?? search([]) ?? start;
}

/** The top-left corner that puts the middle of a rectangle of `size` at `center`. */
export const centeredAt = (center: XY, size: Size): XY => ({ x: center.x - size.width / 2, y: center.y - size.height / 2 });
