// Where the editor puts new nodes (canvas/placement.ts): it measures the visible canvas and what floats over it
// (the minimap, the controls: every xyflow panel but the empty-canvas note) in flow coordinates, and follows the
// pointer over the canvas, so that an action from the keyboard (a paste) lands at the cursor when it is on the
// canvas, else in the middle of the view.
import { useReactFlow } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, type RefObject } from 'react';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { centeredAt, nodeRect, placeInView, type PlacementArea, type Rect, type Size, type XY } from '../canvas/placement';
import type { FlowState } from './use-live-canvas';

/** Screen pixels kept free between a new node and the canvas's edges or a floating panel. */
const EDGE_PX = 16;

export interface Placement {
  /** The flow position under the pointer while it is over the canvas, else null. */
  cursor: () => XY | null;
  /** The flow position at the middle of the visible canvas. */
  center: () => XY;
  /** The top-left corner for a new node (or column of nodes) of `size` centred on `at` (default: the middle of the view), clear of other nodes. */
  place: (size: Size, at?: XY) => XY;
  /** The top-left corner for pasted nodes of `size` (their bounds) with their top-left at `want`: only brought into view, overlaps allowed. */
  placeGroup: (size: Size, want: XY) => XY;
}

export function usePlacement(pane: RefObject<HTMLElement | null>, latest: RefObject<FlowState>): Placement {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const pointer = useRef<XY | null>(null);

  useEffect(() => {
    const element = pane.current;
    if (!element) return;
    const move = (event: PointerEvent) => {
      pointer.current = { x: event.clientX, y: event.clientY };
    };
    const leave = () => {
      pointer.current = null;
    };
    element.addEventListener('pointermove', move);
    element.addEventListener('pointerdown', move);
    element.addEventListener('pointerleave', leave);
    return () => {
      element.removeEventListener('pointermove', move);
      element.removeEventListener('pointerdown', move);
      element.removeEventListener('pointerleave', leave);
    };
  }, [pane]);

  const toFlowRect = useCallback(
    (left: number, top: number, right: number, bottom: number): Rect => {
      const a = flow.screenToFlowPosition({ x: left, y: top }, { snapToGrid: false });
      const b = flow.screenToFlowPosition({ x: right, y: bottom }, { snapToGrid: false });
      return { x: a.x, y: a.y, width: Math.max(0, b.x - a.x), height: Math.max(0, b.y - a.y) };
    },
    [flow],
  );

  const area = useCallback((): Omit<PlacementArea, 'nodes'> => {
    const element = pane.current;
    const r = element?.getBoundingClientRect();
    if (!element || !r) return { view: { x: 0, y: 0, width: 1000, height: 800 }, obstacles: [] };
    const view = toFlowRect(r.left + EDGE_PX, r.top + EDGE_PX, r.right - EDGE_PX, r.bottom - EDGE_PX);
    const obstacles = [...element.querySelectorAll('.react-flow__panel')]
      .filter((panel) => !panel.classList.contains('empty-canvas'))
      .map((panel) => panel.getBoundingClientRect())
      .filter((p) => p.width > 0 && p.height > 0)
      .map((p) => toFlowRect(p.left - EDGE_PX, p.top - EDGE_PX, p.right + EDGE_PX, p.bottom + EDGE_PX));
    return { view, obstacles };
  }, [pane, toFlowRect]);

  const cursor = useCallback(() => (pointer.current ? flow.screenToFlowPosition(pointer.current, { snapToGrid: false }) : null), [flow]);

  const center = useCallback(() => {
    const r = pane.current?.getBoundingClientRect();
    if (!r) return { x: 0, y: 0 };
    return flow.screenToFlowPosition({ x: r.left + r.width / 2, y: r.top + r.height / 2 }, { snapToGrid: false });
  }, [flow, pane]);

  const place = useCallback(
    (size: Size, at?: XY) => placeInView(centeredAt(at ?? center(), size), size, { ...area(), nodes: latest.current.nodes.map(nodeRect) }),
    [area, center, latest],
  );

  const placeGroup = useCallback((size: Size, want: XY) => placeInView(want, size, area()), [area]);

  return useMemo(() => ({ cursor, center, place, placeGroup }), [cursor, center, place, placeGroup]);
}
