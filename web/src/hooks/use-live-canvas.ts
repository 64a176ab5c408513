// The nodes and edges xyflow draws, derived from the live document (every change, anyone's, shows at once),
// plus what only this browser holds about them (selected, measured, a drag in progress), and the handlers that
// turn a person's actions into small writes to the document: a drag sets the node's `position` (at most once
// per animation frame), a delete removes the entries, a connection adds an edge. The document is the only
// source of the canvas: nothing here is ever sent as a whole. A read-only canvas (a viewer) writes nothing.
import {
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type PointerEvent } from 'react';
import type { LiveSession } from '../canvas/live-session';
import { newId, toFlowEdges, toFlowNodes, type CanvasEdge, type CanvasNode } from '../canvas/model';

export interface FlowState {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

export function useLiveCanvas(session: LiveSession, readOnly: boolean) {
  const [nodes, setNodes] = useState<CanvasNode[]>(() => toFlowNodes(session.canvas.get().nodes, []));
  const [edges, setEdges] = useState<CanvasEdge[]>(() => {
    const { nodes: rendered, edges: renderedEdges } = session.canvas.get();
    return toFlowEdges(renderedEdges, [], new Set(rendered.map((n) => n.id as string)));
  });
  const latest = useRef<FlowState>({ nodes, edges });
  useLayoutEffect(() => {
    latest.current = { nodes, edges };
  }, [nodes, edges]);

  // Follow the document. The listener runs inside the transaction's event (a keystroke in a prompt), so the
  // new state renders in the same batch as the event that caused it: a controlled field never shows an old value.
  useEffect(() => {
    const follow = () => {
      const { nodes: rendered, edges: renderedEdges } = session.canvas.get();
      const ids = new Set(rendered.map((n) => n.id as string));
      setNodes((previous) => toFlowNodes(rendered, previous));
      setEdges((previous) => toFlowEdges(renderedEdges, previous, ids));
    };
    follow();
    return session.canvas.subscribe(follow);
  }, [session]);

  // Presence: what we have selected.
  useEffect(() => {
    session.setSelection(nodes.filter((n) => n.selected).map((n) => n.id));
  }, [session, nodes]);

  const dragging = useRef(false);

  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      const local: NodeChange<CanvasNode>[] = [];
      const removed: string[] = [];
      let moved = false;
      for (const change of changes) {
        if (change.type === 'remove') removed.push(change.id);
        else if (change.type !== 'add' && change.type !== 'replace') local.push(change); // the document adds and replaces
        if (change.type === 'position' && change.position && !readOnly) {
          session.queueMove(change.id, change.position);
          if (!change.dragging) {
            // The end of a drag (part of its step), or a keyboard nudge (nudges close together are one step).
            if (!dragging.current) session.step('keyboard-move');
            moved = true;
          }
        }
      }
      if (moved) session.flushMoves();
      if (removed.length > 0 && !readOnly) {
        session.step();
        session.remove({ nodes: removed });
      }
      if (local.length > 0) setNodes((all) => applyNodeChanges(local, all));
    },
    [session, readOnly],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<CanvasEdge>[]) => {
      const removed = changes.flatMap((c) => (c.type === 'remove' ? [c.id] : []));
      const local = changes.filter((c) => c.type === 'select');
      if (removed.length > 0 && !readOnly) {
        session.step();
        session.remove({ edges: removed });
      }
      if (local.length > 0) setEdges((all) => applyEdgeChanges(local, all));
    },
    [session, readOnly],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      if (readOnly) return;
      session.step();
      session.add({
        edges: [
          {
            id: newId('edge'),
            source: connection.source,
            target: connection.target,
            ...(connection.sourceHandle ? { sourceHandle: connection.sourceHandle } : {}),
            ...(connection.targetHandle ? { targetHandle: connection.targetHandle } : {}),
          },
        ],
      });
    },
    [session, readOnly],
  );

  // A drag (of a node or of a selection) is one undo step, however long it takes.
  const onDragStart = useCallback(() => {
    dragging.current = true;
    session.step();
  }, [session]);
  const onDragStop = useCallback(() => {
    session.flushMoves();
    dragging.current = false;
  }, [session]);

  /** Selects exactly these nodes (new ones are selected as soon as the document shows them). */
  const select = useCallback((ids: string[]) => {
    const wanted = new Set(ids);
    setNodes((all) => all.map((n) => (!!n.selected === wanted.has(n.id) ? n : { ...n, selected: wanted.has(n.id) })));
    setEdges((all) => all.map((e) => (e.selected ? { ...e, selected: false } : e)));
  }, []);

  // Presence: our pointer, in flow coordinates.
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const pointer = {
    onPointerMove: (event: PointerEvent) => session.setCursor(flow.screenToFlowPosition({ x: event.clientX, y: event.clientY })),
    onPointerLeave: () => session.setCursor(null),
  };

  return { nodes, edges, latest, onNodesChange, onEdgesChange, onConnect, onDragStart, onDragStop, select, pointer };
}
