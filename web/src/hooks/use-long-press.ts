// A long press with one finger (pointer events of pointerType `touch`, held about LONG_PRESS_MS without moving more
// than SLOP pixels) opens the context menu a right-click opens on a desktop (hooks/use-canvas-menus.ts): on a
// node, the node's menu (Duplicate, Copy, Open image…); on the empty canvas, the canvas's. A second finger (a
// pinch, hooks/use-pinch-over-nodes.ts), a move (a drag of the node or a pan), lifting the finger or the browser
// taking the touch over cancels it. Not on a text field (the phone's own text selection stays), nor on the
// toolbar or controls. When the finger lifts after the menu opened, the browser's compatibility mouse events
// (mousedown, click) are cancelled (its touchend's default): they would start a mouse drag of the node that never
// ends, or choose what is under the finger.
import { useEffect, type RefObject } from 'react';
import type { XY } from '../canvas/placement';
import '../components/touch-menus.css';

/** How long a finger is held: about what iOS and Android take for a long press. */
export const LONG_PRESS_MS = 500;
/** How far a finger may wander (CSS pixels) and still be pressing. */
const SLOP = 10;

const EDITABLE = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]';

export interface LongPressTargets {
  onNode: (nodeId: string, at: XY) => void;
  onPane: (at: XY) => void;
}

export function useLongPress(root: RefObject<HTMLElement | null>, targets: LongPressTargets, enabled = true) {
  const { onNode, onPane } = targets;
  useEffect(() => {
    const el = root.current;
    if (!el || !enabled) return;
    const fingers = new Set<number>();
    let press: { pointerId: number; at: XY; timer: ReturnType<typeof setTimeout> } | null = null;
    /** The press opened a menu: the mouse events that follow its touch are not the person's. */
    let opened = false;

    const cancel = () => {
      if (press) clearTimeout(press.timer);
      press = null;
    };
    const onDown = (event: PointerEvent) => {
      opened = false;
      if (event.pointerType !== 'touch') return;
      fingers.add(event.pointerId);
      cancel();
      if (fingers.size > 1 || !(event.target instanceof Element) || event.target.closest(EDITABLE)) return;
      const node = event.target.closest<HTMLElement>('.react-flow__node');
      const pane = !node && event.target.closest('.react-flow__pane');
      if (!node && !pane) return; // the toolbar, the controls, a handle's button outside a node…
      const at = { x: event.clientX, y: event.clientY };
      const nodeId = node?.dataset.id;
      press = {
        pointerId: event.pointerId,
        at,
        timer: setTimeout(() => {
          press = null;
          opened = true;
          if (nodeId) onNode(nodeId, at);
          else onPane(at);
        }, LONG_PRESS_MS),
      };
    };
    const onMove = (event: PointerEvent) => {
      if (press?.pointerId === event.pointerId && Math.hypot(event.clientX - press.at.x, event.clientY - press.at.y) > SLOP) cancel();
    };
    const onUp = (event: PointerEvent) => {
      fingers.delete(event.pointerId);
      if (press?.pointerId === event.pointerId) cancel();
    };
    const onTouchEnd = (event: TouchEvent) => {
      if (opened && event.cancelable) event.preventDefault(); // no mousedown or click after the long press
    };
    const onClick = (event: MouseEvent) => {
      if (!opened) return;
      opened = false;
      event.preventDefault();
      event.stopPropagation();
    };
    el.addEventListener('pointerdown', onDown, { capture: true });
    el.addEventListener('pointermove', onMove, { capture: true });
    el.addEventListener('pointerup', onUp, { capture: true });
    el.addEventListener('pointercancel', onUp, { capture: true });
    el.addEventListener('touchend', onTouchEnd, { capture: true, passive: false });
    el.addEventListener('click', onClick, { capture: true });
    return () => {
      cancel();
      el.removeEventListener('pointerdown', onDown, { capture: true });
      el.removeEventListener('pointermove', onMove, { capture: true });
      el.removeEventListener('pointerup', onUp, { capture: true });
      el.removeEventListener('pointercancel', onUp, { capture: true });
      el.removeEventListener('touchend', onTouchEnd, { capture: true });
      el.removeEventListener('click', onClick, { capture: true });
    };
  }, [root, onNode, onPane, enabled]);
}
