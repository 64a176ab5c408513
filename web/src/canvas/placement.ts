// Where new nodes go (issue 19 point 2, issue 34 points 2 and 3): one rule for everything that adds nodes
// (`placeInView`) — at the spot asked for (the cursor, the middle of the view, right of a new node's inputs) when
// that is free, else at the nearest free spot, never on top of another node and never under what floats over the
// canvas (the minimap, the zoom controls); in view when the view has room, else beside the nodes off screen (the
// editor then moves the view there). Several images added at once form a grid about as wide as tall, in the
// files' order. Everything is in flow coordinates; the editor measures the view and the floating panels
// (hooks/use-placement.ts). A node is planned at its kind's size (src/kinds/ `size`) until it is measured. No
// React and no DOM: unit-tested in test/unit/placement.test.ts.
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

/** Space kept between a new node and the nodes around it. */
export const NODE_MARGIN = 40;

export interface PlacementArea {
  /** The visible canvas (already shrunk by the margin to keep from its edges). */
  view: Rect;
  /** What floats over the canvas: a new node never goes under these. */
  obstacles: Rect[];
  /** The nodes on the canvas: a new node overlaps none of them (with `NODE_MARGIN` around them). */
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

/** Constraints on where a new node (or group) may go, beside the nodes it must keep clear of. */
export interface SpotRules extends PlacementArea {
  /** The least x its left edge may have (a node with inputs: right of them). */
  minX?: number;
  /** The greatest x its right edge may have (a node feeding others: left of them). */
  maxX?: number;
}

interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** A binary min-heap of [distance, i, j] (the candidate search below). */
class Heap {
  private items: Array<[number, number, number]> = [];
  get size() {
    return this.items.length;
  }
  push(item: [number, number, number]) {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (a[parent][0] <= a[i][0]) break;
      [a[parent], a[i]] = [a[i], a[parent]];
      i = parent;
    }
  }
  pop(): [number, number, number] | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l][0] < a[m][0]) m = l;
        if (r < a.length && a[r][0] < a[m][0]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

/** The values in `[min, max]`, without repeats, nearest to `to` first. */
const nearestFirst = (values: number[], to: number, min: number, max: number) =>
  [...new Set(values.filter((v) => v >= min && v <= max))].sort((a, b) => Math.abs(a - to) - Math.abs(b - to));

/**
 * The free top-left corner nearest to `want` for a rectangle of `size` inside `bounds`, overlapping none of
 * `blockers` (touching is fine); null when there is none. The nearest free spot has each coordinate either `want`'s
 * or against a blocker's (or the bounds') edge, so only those are tried, nearest first.
 */
function nearestFree(want: XY, size: Size, blockers: Rect[], bounds: Bounds): XY | null {
  const { minX, minY } = bounds;
  const maxX = bounds.maxX - size.width;
  const maxY = bounds.maxY - size.height;
  if (maxX < minX || maxY < minY) return null;
  const at = { x: Math.min(Math.max(want.x, minX), maxX), y: Math.min(Math.max(want.y, minY), maxY) };
  const xs = nearestFirst([at.x, minX, maxX, ...blockers.flatMap((b) => [b.x + b.width, b.x - size.width])], at.x, minX, maxX);
  const ys = nearestFirst([at.y, minY, maxY, ...blockers.flatMap((b) => [b.y + b.height, b.y - size.height])], at.y, minY, maxY);
  const free = (x: number, y: number) => !blockers.some((b) => x < b.x + b.width && b.x < x + size.width && y < b.y + b.height && b.y < y + size.height);
  const distance = (i: number, j: number) => Math.hypot(xs[i] - want.x, ys[j] - want.y);
  const heap = new Heap();
  for (let i = 0; i < xs.length; i++) heap.push([distance(i, 0), i, 0]);
  while (heap.size > 0) {
    const [, i, j] = heap.pop()!;
    if (free(xs[i], ys[j])) return { x: xs[i], y: ys[j] };
    if (j + 1 < ys.length) heap.push([distance(i, j + 1), i, j + 1]);
  }
  return null;
}

const grow = (r: Rect, margin: number): Rect => ({ x: r.x - margin, y: r.y - margin, width: r.width + 2 * margin, height: r.height + 2 * margin });

/**
 * The one placement rule (issue 34 point 2) for everything that adds nodes — toolbar buttons, menus, paste,
 * duplicate, dropped or pasted files, the phone: the top-left corner for a rectangle of `size` (a node, a pasted
 * group, a grid of images) wanted with its top-left at `want`. It never overlaps another node (`NODE_MARGIN` kept
 * around each) and keeps within `minX`/`maxX` (right of a new node's inputs, left of what it feeds). It is the
 * nearest such spot inside the view and clear of the floating panels when there is one; else the nearest such spot
 * anywhere (off screen: the editor then moves the view to it). With no nodes in view and `want` off screen, the
 * rectangle is brought into the view.
 */
export function placeInView(want: XY, size: Size, rules: SpotRules): XY {
  const { view, obstacles } = rules;
  const nodes = (rules.nodes ?? []).map((n) => grow(n, NODE_MARGIN));
  const minX = rules.minX ?? -Infinity;
  const maxX = rules.maxX !== undefined && rules.maxX - size.width >= minX ? rules.maxX : Infinity;
  const inView = nearestFree(
    want,
    size,
    [...nodes.filter((n) => overlaps(n, view)), ...obstacles.filter((o) => overlaps(o, view))],
    { minX: Math.max(view.x, minX), maxX: Math.min(view.x + view.width, maxX), minY: view.y, maxY: view.y + view.height },
  );
  if (inView) return inView;
  // Nowhere in view: the nearest free spot anywhere, not under a panel (one always exists: beyond every node).
  const anywhere = nearestFree(want, size, [...nodes, ...obstacles], { minX, maxX, minY: -Infinity, maxY: Infinity });
  return anywhere ?? { x: Number.isFinite(minX) ? minX : want.x, y: want.y };
}

/**
 * How far to move the view (flow units) so that `rect` lies inside `view` and clear of the floating panels, moving
 * it as little as possible (as a browser scrolls an element into view); null when it is shown already, or cannot
 * be shown at this zoom (larger than the view: the editor zooms out to it instead).
 */
export function revealShift(rect: Rect, view: Rect, obstacles: readonly Rect[] = []): XY | null {
  if (rect.width > view.width || rect.height > view.height) return null;
  const along = (start: number, length: number, min: number, span: number) => (start < min ? start - min : start + length > min + span ? start + length - (min + span) : 0);
  const shift = { x: along(rect.x, rect.width, view.x, view.width), y: along(rect.y, rect.height, view.y, view.height) };
  // The panels move with the view: one still over the rectangle is cleared by the shorter way towards the middle.
  const moved = { ...rect, x: rect.x - shift.x, y: rect.y - shift.y };
  for (const o of obstacles) {
    if (!overlaps(moved, o)) continue;
    const middle = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    const dx = o.x + o.width / 2 > middle.x ? moved.x + moved.width - o.x : moved.x - (o.x + o.width);
    const dy = o.y + o.height / 2 > middle.y ? moved.y + moved.height - o.y : moved.y - (o.y + o.height);
    // The shorter way when both fit beside the panel; else the one that fits (a tall node beside the minimap).
    const sideways = rect.width + o.width <= view.width;
    const upwards = rect.height + o.height <= view.height;
    if (sideways && (Math.abs(dx) <= Math.abs(dy) || !upwards)) shift.x += dx;
    else if (upwards) shift.y += dy;
    break;
  }
  return shift.x === 0 && shift.y === 0 ? null : shift;
}

/** Whether a rectangle lies outside `view`, in part or whole. */
export const offView = (rect: Rect, view: Rect) => !inside(rect, view);

/** The columns of a grid of `count` images: about square, as wide as it is tall (ceil(sqrt(count))). */
export const gridColumns = (count: number) => Math.max(1, Math.ceil(Math.sqrt(Math.max(1, count))));

/** The size of a grid of `count` new image nodes (`gridCells`). */
export function gridSize(count: number): Size {
  const image = sizeOf('upload');
  const columns = gridColumns(count);
  const rows = Math.ceil(Math.max(1, count) / columns);
  return { width: columns * image.width + (columns - 1) * NODE_MARGIN, height: rows * image.height + (rows - 1) * NODE_MARGIN };
}

/** The top-left corners of `count` image nodes in a grid with its top-left at `at`: row by row, in the files' order. */
export function gridCells(count: number, at: XY): XY[] {
  const image = sizeOf('upload');
  const columns = gridColumns(count);
  return Array.from({ length: count }, (_, i) => ({
    x: at.x + (i % columns) * (image.width + NODE_MARGIN),
    y: at.y + Math.floor(i / columns) * (image.height + NODE_MARGIN),
  }));
}

/** The top-left corner that puts the middle of a rectangle of `size` at `center`. */
export const centeredAt = (center: XY, size: Size): XY => ({ x: center.x - size.width / 2, y: center.y - size.height / 2 });
