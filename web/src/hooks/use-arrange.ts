// Tidy up, align and distribute (canvas/arrange.ts) on the canvas: the selected nodes (Tidy up with fewer than two
// selected: the whole canvas), moved as ONE undo step (one write of every position, as a drag's). A tidied
// selection then stands clear of the nodes around it (the placement rule, hooks/use-placement.ts), and the view
// follows it when it went off screen.
import { useCallback, type RefObject } from 'react';
import { align, boundsOf, distribute, tidy, type Alignment, type Axis } from '../canvas/arrange';
import type { LiveSession } from '../canvas/live-session';
import { nodeRect, type XY } from '../canvas/placement';
import type { FlowState } from './use-live-canvas';
import type { Placement } from './use-placement';

export type Arrangement = 'tidy' | Alignment | Axis;

/** `arrange(how, ids)`: arranges the nodes `ids` (default: the selection; Tidy up: else every node). */
export function useArrange(session: LiveSession, latest: RefObject<FlowState>, placement: Placement) {
  return useCallback(
    (how: Arrangement, ids?: string[]) => {
      const all = latest.current.nodes;
      let chosen = ids ?? all.filter((n) => n.selected).map((n) => n.id);
      if (how === 'tidy' && chosen.length < 2) chosen = all.map((n) => n.id);
      const set = new Set(chosen);
      const nodes = all.filter((n) => set.has(n.id)).map((n) => ({ id: n.id, rect: nodeRect(n) }));
      if (nodes.length < 2) return;
      let at: Map<string, XY>;
      if (how === 'tidy') {
        at = tidy(nodes, latest.current.edges);
        // Clear of the nodes left where they are: the tidied group moved to the nearest free spot.
        if (set.size < all.length) {
          const bounds = boundsOf(nodes.map((n) => ({ ...n.rect, ...at.get(n.id)! })));
          const spot = placement.placeGroup(bounds, bounds, { except: set });
          at = new Map([...at].map(([id, p]) => [id, { x: p.x + spot.x - bounds.x, y: p.y + spot.y - bounds.y }]));
        }
      } else if (how === 'horizontal' || how === 'vertical') at = distribute(nodes, how);
      else at = align(nodes, how);
      session.step();
      for (const [id, p] of at) session.queueMove(id, p);
      session.flushMoves();
    },
    [latest, placement, session],
  );
}
