// The stale marks of the canvas an editor (or a viewer) shows (canvas/marks.ts), kept in a small store that node
// frames read by id (components/node-mark.tsx), so a node redraws only when its own mark changes. Marks are
// recomputed when something they depend on changes — a node's data other than a running job's state, a node or an
// edge added or removed, an edge's ports — never for a move, a selection or a progress tick.
import { useLayoutEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { graphInputOf, MarkStore, marksOfCanvas, NO_MARKS, type GraphInput, type MarkInfo, type Marks } from '../canvas/marks';
import type { CanvasEdge, CanvasNode } from '../canvas/model';

/** Computes the canvas's marks into a store that lives as long as the component. */
export function useGraphMarks(nodes: CanvasNode[], edges: CanvasEdge[]): MarkStore {
  const store = useMemo(() => new MarkStore(), []);
  const input = useRef<GraphInput | undefined>(undefined);
  const marks = useRef<Marks | undefined>(undefined);
  const next = useMemo(() => (input.current = graphInputOf(nodes, edges, input.current)), [nodes, edges]);
  useLayoutEffect(() => {
    try {
      marks.current = marksOfCanvas(next, marks.current);
    } catch (error) {
      // A canvas the graph module cannot read must not take the editor down: no marks until it can.
      console.warn('Stale marks could not be computed', error);
      marks.current = NO_MARKS;
    }
    store.set(marks.current);
  }, [store, next]);
  return store;
}

/** The mark of one node (undefined: none known, e.g. outside an editor). */
export function useNodeMark(store: MarkStore | undefined, id: string): MarkInfo | undefined {
  return useSyncExternalStore(store?.subscribe ?? noSubscribe, () => store?.get(id));
}
const noSubscribe = () => () => undefined;
