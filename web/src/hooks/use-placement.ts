// Where the editor puts new nodes (canvas/placement.ts): it measures the visible canvas and what floats over it
// (the minimap, the controls: every xyflow panel but the empty-canvas note) in flow coordinates, and follows the
// pointer over the canvas, so that an action from the keyboard (a paste) lands at the cursor when it is on the
// canvas, else in the middle of the view. Every spot it gives is clear of the canvas's nodes (their measured
// sizes); when that spot is off screen, the view moves to show it (at the same zoom when it fits, else zoomed out).
import { useReactFlow } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, type RefObject } from 'react';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { centeredAt, nodeRect, offView, placeInView, revealShift, type PlacementArea, type Rect, type Size, type XY } from '../canvas/placement';
import type { FlowState } from './use-live-canvas';

/** Screen pixels kept free between a new node and the canvas's edges or a floating panel. */
const EDGE_PX = 16;

export interface Placement {
  /** The flow position under the pointer while it is over the canvas, else null. */
  cursor: () => XY | null;
  /** The flow position at the middle of the visible canvas. */
  center: () => XY;
  /**
   * The top-left corner for a new node (or grid of nodes) of `size` centred on `at` (default: the middle of the
   * view), clear of other nodes and within `limits` (canvas/placement.ts `placeInView`); the view follows it.
   */
  place: (size: Size, at?: XY, limits?: Limits) => XY;
  /** The same for nodes of `size` (their bounds, a paste or a duplicate) wanted with their top-left at `want`. */
  placeGroup: (size: Size, want: XY, limits?: Limits) => XY;
}

/** Bounds on a new node's left edge (right of its inputs) and right edge (left of what it feeds). */
export interface Limits {
  minX?: number;
  maxX?: number;
  /** Nodes that do not count (the ones being placed: a tidied selection). */
  except?: ReadonlySet<string>;
}

/** How long the view takes to move to what was added (none when the person prefers reduced motion). */
const revealDuration = () => (window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 200);

export function usePlacement(pane: RefObject<HTMLElement | null>, latest: RefObject<FlowState>, onViewMoved?: () => void): Placement {
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

  /**
   * Moves the view to `rect` when part of it is off screen or under a panel: as little as it must at the same zoom
   * when it fits, else zoomed out to it.
   */
  const reveal = useCallback(
    (rect: Rect, { view, obstacles }: Omit<PlacementArea, 'nodes'>) => {
      const shift = revealShift(rect, view, obstacles);
      const tooLarge = rect.width > view.width || rect.height > view.height;
      if (!shift && !(tooLarge && offView(rect, view))) return;
      onViewMoved?.();
      const duration = revealDuration();
      if (shift) {
        void flow.setCenter(view.x + view.width / 2 + shift.x, view.y + view.height / 2 + shift.y, { zoom: flow.getZoom(), duration });
      } else {
        void flow.fitBounds(rect, { padding: 0.1, duration });
      }
    },
    [flow, onViewMoved],
  );

  const placeGroup = useCallback(
    (size: Size, want: XY, { except, ...limits }: Limits = {}) => {
      const where = area();
      const nodes = latest.current.nodes.filter((n) => !except?.has(n.id)).map(nodeRect);
      const at = placeInView(want, size, { ...where, ...limits, nodes });
      reveal({ ...at, width: size.width, height: size.height }, where); // `size` may be a rectangle (a clip's bounds)
      return at;
    },
    [area, latest, reveal],
  );

  const place = useCallback((size: Size, at?: XY, limits?: Limits) => placeGroup(size, centeredAt(at ?? center(), size), limits), [placeGroup, center]);

  return useMemo(() => ({ cursor, center, place, placeGroup }), [cursor, center, place, placeGroup]);
}
