// The pointer gestures of the canvas beyond xyflow's own (issue 19, point 1): which context menu is open
// (components/canvas-menu.tsx) — a node's (or the selection's), the canvas's, or the one offered where a
// connection was let go on empty canvas: dragged from an output (a node to feed), or back from an input (something
// to feed it), each naming the port it came from —, a double-click on empty canvas adding a
// generation node there, and a click on the minimap moving the view there. A long press on a touch screen opens the
// node's or the canvas's menu as a right-click does (hooks/use-long-press.ts).
import { useReactFlow, type FinalConnectionState } from '@xyflow/react';
import { useCallback, useMemo, useState, type MouseEvent as ReactMouseEvent } from 'react';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import type { XY } from '../canvas/placement';
import type { CanvasMenuState } from '../components/canvas-menu';
import type { CanvasCommands } from './use-canvas-commands';

const isEmptyCanvas = (target: EventTarget | null) => target instanceof Element && target.classList.contains('react-flow__pane');

/**
 * Where a menu opened by a pointer or the keyboard goes: the pointer, or for the keyboard (Shift+F10, the menu key:
 * a point outside the element, often 0,0) the top-left corner of the element it is about.
 */
function menuPoint(event: ReactMouseEvent | MouseEvent, element: Element | null): XY {
  const rect = element?.getBoundingClientRect();
  const inside = rect && event.clientX >= rect.left && event.clientX <= rect.right && event.clientY >= rect.top && event.clientY <= rect.bottom;
  if (!rect || inside || (event.clientX !== 0 && event.clientY !== 0 && event.button === 2)) return { x: event.clientX, y: event.clientY };
  return { x: rect.left + 16, y: rect.top + 16 };
}

export function useCanvasMenus(select: (ids: string[]) => void, commands: CanvasCommands) {
  const flow = useReactFlow<CanvasNode, CanvasEdge>();
  const [menu, setMenu] = useState<CanvasMenuState>(null);

  const close = useCallback(() => setMenu(null), []);

  const onNodeContextMenu = useCallback(
    (event: ReactMouseEvent, node: CanvasNode) => {
      event.preventDefault();
      // A node outside the selection becomes the selection (the menu acts on what is selected).
      if (!node.selected) select([node.id]);
      setMenu({ kind: 'node', nodeId: node.id, at: menuPoint(event, event.currentTarget) });
    },
    [select],
  );

  // A long press on a touch screen (hooks/use-long-press.ts): the same menus, at the finger.
  const onNodeLongPress = useCallback(
    (nodeId: string, at: XY) => {
      if (!flow.getNode(nodeId)?.selected) select([nodeId]);
      setMenu({ kind: 'node', nodeId, at });
    },
    [flow, select],
  );
  const onPaneLongPress = useCallback((at: XY) => setMenu({ kind: 'pane', at }), []);

  const onSelectionContextMenu = useCallback((event: ReactMouseEvent, nodes: CanvasNode[]) => {
    event.preventDefault();
    if (nodes.length > 0) setMenu({ kind: 'node', nodeId: nodes[0].id, at: { x: event.clientX, y: event.clientY } });
  }, []);

  const onPaneContextMenu = useCallback((event: ReactMouseEvent | MouseEvent) => {
    event.preventDefault();
    setMenu({ kind: 'pane', at: { x: event.clientX, y: event.clientY } });
  }, []);

  // A connection let go on empty canvas: from an output, offer nodes it can feed there; dragged back from an input,
  // offer what can feed it there (components/canvas-menu.tsx; the port is the handle's).
  const onConnectEnd = useCallback((event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
    if (state.isValid || state.toNode || !state.fromNode || !state.fromHandle) return;
    const point = 'changedTouches' in event ? event.changedTouches[0] : event;
    if (!point || !isEmptyCanvas(document.elementFromPoint(point.clientX, point.clientY))) return;
    const at = { x: point.clientX, y: point.clientY };
    const handle = state.fromHandle.id ?? null;
    if (state.fromHandle.type === 'source') setMenu({ kind: 'connection', fromNodeId: state.fromNode.id, handle, at });
    else setMenu({ kind: 'input', toNodeId: state.fromNode.id, handle, at });
  }, []);

  const onDoubleClick = useCallback(
    (event: ReactMouseEvent) => {
      if (!isEmptyCanvas(event.target)) return;
      commands.addGeneration(flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }, { snapToGrid: false }));
    },
    [commands, flow],
  );

  const onMiniMapClick = useCallback((_event: ReactMouseEvent, position: XY) => commands.centerOn(position), [commands]);

  return useMemo(
    () => ({ menu, open: setMenu, close, onNodeContextMenu, onSelectionContextMenu, onPaneContextMenu, onConnectEnd, onDoubleClick, onMiniMapClick, onNodeLongPress, onPaneLongPress }),
    [menu, close, onNodeContextMenu, onSelectionContextMenu, onPaneContextMenu, onConnectEnd, onDoubleClick, onMiniMapClick, onNodeLongPress, onPaneLongPress],
  );
}
