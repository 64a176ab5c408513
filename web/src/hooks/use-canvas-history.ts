// The editor's nodes and edges with undo/redo. Call `checkpoint()` just before an undoable change (add,
// delete, connect, move, edit, result); selection, measuring and the frames of a drag are not steps. Several
// checkpoints in one event (a node and its edges deleted together) make one step, and checkpoints with the
// same key close together (typing a prompt, nudging with arrow keys) coalesce into one.
import { useCallback, useLayoutEffect, useReducer, useRef, useState } from 'react';
import type { CanvasEdge, CanvasNode } from '../canvas/model';

interface Snapshot {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

const LIMIT = 200;
const COALESCE_MS = 1500;

const freeze = (s: Snapshot): Snapshot => ({
  nodes: s.nodes.map((n) => ({ ...n, selected: false, dragging: false })),
  edges: s.edges.map((e) => ({ ...e, selected: false })),
});

export function useCanvasHistory(initial: Snapshot, opts: { restoreNode?: (node: CanvasNode) => CanvasNode } = {}) {
  const [nodes, setNodes] = useState(initial.nodes);
  const [edges, setEdges] = useState(initial.edges);
  const latest = useRef<Snapshot>(initial);
  useLayoutEffect(() => {
    latest.current = { nodes, edges };
  }, [nodes, edges]);

  const past = useRef<Snapshot[]>([]);
  const future = useRef<Snapshot[]>([]);
  const last = useRef({ key: '', at: 0, sameEvent: false });
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const restoreNode = useRef(opts.restoreNode);
  restoreNode.current = opts.restoreNode;

  const checkpoint = useCallback((key = '') => {
    const now = Date.now();
    if (last.current.sameEvent) return;
    if (key && key === last.current.key && now - last.current.at < COALESCE_MS) {
      last.current.at = now;
      return;
    }
    past.current.push(freeze(latest.current));
    if (past.current.length > LIMIT) past.current.shift();
    future.current = [];
    last.current = { key, at: now, sameEvent: true };
    queueMicrotask(() => {
      last.current.sameEvent = false;
    });
    rerender();
  }, []);

  const apply = useCallback((snapshot: Snapshot) => {
    const restore = restoreNode.current;
    setNodes(restore ? snapshot.nodes.map(restore) : snapshot.nodes);
    setEdges(snapshot.edges);
    last.current = { key: '', at: 0, sameEvent: false };
    rerender();
  }, []);

  const undo = useCallback(() => {
    const previous = past.current.pop();
    if (!previous) return;
    future.current.push(freeze(latest.current));
    apply(previous);
  }, [apply]);

  const redo = useCallback(() => {
    const next = future.current.pop();
    if (!next) return;
    past.current.push(freeze(latest.current));
    apply(next);
  }, [apply]);

  return {
    nodes,
    edges,
    setNodes,
    setEdges,
    /** The latest committed state (for event handlers and async completions). */
    latest,
    checkpoint,
    undo,
    redo,
    canUndo: past.current.length > 0,
    canRedo: future.current.length > 0,
  };
}
