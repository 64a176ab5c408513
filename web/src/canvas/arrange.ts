// Arranging nodes already on the canvas (issue 34 point 2), as tldraw and Figma do: *Tidy up* lays nodes out in
// columns by dependency — the sources on the left, each node one column right of its deepest input, each column's
// nodes one under the other with no overlap, each as level with its inputs as the column allows —; *Align* lines
// their left edges, centres, right edges, top edges, middles or bottom edges up; *Distribute* (3 or more) makes the
// gaps between them equal, the first and last staying put. Each gives the new top-left corners by id; the editor
// writes them as one undo step (hooks/use-arrange.ts). No React and no DOM: unit-tested in test/unit/arrange.test.ts.
import { NODE_MARGIN, type Rect, type XY } from './placement.js';

export interface ArrangedNode {
  id: string;
  rect: Rect;
}

export interface Link {
  source: string;
  target: string;
}

/** Space between two columns of a tidied layout (room for the edges between them). */
export const COLUMN_GAP = 2 * NODE_MARGIN;
/** Space between two nodes of a column. */
export const ROW_GAP = NODE_MARGIN;

export type Alignment = 'left' | 'centre' | 'right' | 'top' | 'middle' | 'bottom';
export type Axis = 'horizontal' | 'vertical';

/** The rectangle around `rects`. */
export function boundsOf(rects: readonly Rect[]): Rect {
  const left = Math.min(...rects.map((r) => r.x));
  const top = Math.min(...rects.map((r) => r.y));
  return { x: left, y: top, width: Math.max(...rects.map((r) => r.x + r.width)) - left, height: Math.max(...rects.map((r) => r.y + r.height)) - top };
}

/**
 * The tidied layout of `nodes` (edges between them from `links`; others ignored), its top-left where theirs is:
 * column = the length of the longest chain of inputs into the node (a cycle is cut where it is found); within a
 * column, nodes in the order of their inputs' rows (sources: in their current order, top to bottom).
 */
export function tidy(nodes: readonly ArrangedNode[], links: readonly Link[]): Map<string, XY> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const inputs = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  for (const l of links) if (byId.has(l.source) && byId.has(l.target) && l.source !== l.target) inputs.get(l.target)!.push(l.source);

  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0; // a cycle: cut here
    visiting.add(id);
    const d = Math.max(-1, ...inputs.get(id)!.map(depthOf)) + 1;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  const columns: ArrangedNode[][] = [];
  for (const n of nodes) (columns[depthOf(n.id)] ??= []).push(n);

  const origin = boundsOf(nodes.map((n) => n.rect));
  const placed = new Map<string, XY>();
  const centreY = (id: string) => placed.get(id)!.y + byId.get(id)!.rect.height / 2;
  let x = origin.x;
  for (const column of columns) {
    if (!column) continue;
    // Where each node would like to be: level with the middle of its inputs (already placed, columns to the left),
    // a source where it is now relative to the others.
    const wanted = new Map(
      column.map((n) => {
        const from = inputs.get(n.id)!.filter((id) => placed.has(id));
        const y = from.length > 0 ? from.reduce((sum, id) => sum + centreY(id), 0) / from.length - n.rect.height / 2 : n.rect.y;
        return [n.id, y] as const;
      }),
    );
    const ordered = [...column].sort((a, b) => wanted.get(a.id)! - wanted.get(b.id)! || a.rect.x - b.rect.x || (a.id < b.id ? -1 : 1));
    let y = origin.y;
    for (const n of ordered) {
      // Sources stack from the top; later columns as level with their inputs as the nodes above allow.
      const at = inputs.get(n.id)!.length > 0 ? Math.max(y, wanted.get(n.id)!) : y;
      placed.set(n.id, { x, y: at });
      y = at + n.rect.height + ROW_GAP;
    }
    x += Math.max(...column.map((n) => n.rect.width)) + COLUMN_GAP;
  }
  return placed;
}

/** The nodes lined up by `how`: their left edges at the leftmost one's, their centres at the middle of their bounds, … */
export function align(nodes: readonly ArrangedNode[], how: Alignment): Map<string, XY> {
  const b = boundsOf(nodes.map((n) => n.rect));
  const at = (r: Rect): XY => {
    switch (how) {
      case 'left':
        return { x: b.x, y: r.y };
      case 'centre':
        return { x: b.x + b.width / 2 - r.width / 2, y: r.y };
      case 'right':
        return { x: b.x + b.width - r.width, y: r.y };
      case 'top':
        return { x: r.x, y: b.y };
      case 'middle':
        return { x: r.x, y: b.y + b.height / 2 - r.height / 2 };
      case 'bottom':
        return { x: r.x, y: b.y + b.height - r.height };
    }
  };
  return new Map(nodes.map((n) => [n.id, at(n.rect)]));
}

/**
 * The nodes spaced evenly along `axis`: in the order of their left (top) edges, the first and last where they
 * are, equal gaps between neighbours. Fewer than 3 nodes stay where they are.
 */
export function distribute(nodes: readonly ArrangedNode[], axis: Axis): Map<string, XY> {
  const result = new Map(nodes.map((n) => [n.id, { x: n.rect.x, y: n.rect.y }]));
  if (nodes.length < 3) return result;
  const start = (r: Rect) => (axis === 'horizontal' ? r.x : r.y);
  const length = (r: Rect) => (axis === 'horizontal' ? r.width : r.height);
  const sorted = [...nodes].sort((a, b) => start(a.rect) - start(b.rect) || (a.id < b.id ? -1 : 1));
  const first = start(sorted[0].rect);
  const end = Math.max(...sorted.map((n) => start(n.rect) + length(n.rect)));
  const gap = (end - first - sorted.reduce((sum, n) => sum + length(n.rect), 0)) / (sorted.length - 1);
  let at = first;
  for (const n of sorted) {
    result.set(n.id, axis === 'horizontal' ? { x: at, y: n.rect.y } : { x: n.rect.x, y: at });
    at += length(n.rect) + gap;
  }
  return result;
}
