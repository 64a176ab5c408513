// Two fingers zoom the canvas wherever they are: xyflow zooms on a pinch over the empty canvas, but a finger on a
// node starts that node's drag, which keeps the touches to itself. A pinch that starts over a node is taken
// here instead (before the node sees it: capture phase) and zooms the view about the point between the
// fingers, as xyflow's own does. The page never zooms over the canvas (touch-action: none, canvas-extras.css).
import { useReactFlow, useStoreApi } from '@xyflow/react';
import { useEffect, type RefObject } from 'react';

interface Pinch {
  distance: number;
  mid: { x: number; y: number };
  viewport: { x: number; y: number; zoom: number };
}

export function usePinchOverNodes(root: RefObject<HTMLElement | null>) {
  const flow = useReactFlow();
  const store = useStoreApi();
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let pinch: Pinch | null = null;
    const measure = (event: TouchEvent) => {
      const [a, b] = [event.touches[0], event.touches[1]];
      const rect = el.getBoundingClientRect();
      return {
        distance: Math.max(1, Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY)),
        mid: { x: (a.clientX + b.clientX) / 2 - rect.left, y: (a.clientY + b.clientY) / 2 - rect.top },
      };
    };
    const onStart = (event: TouchEvent) => {
      if (event.touches.length !== 2 || !(event.target instanceof Element) || !event.target.closest('.react-flow__node')) return;
      event.stopPropagation();
      pinch = { ...measure(event), viewport: flow.getViewport() };
    };
    const onMove = (event: TouchEvent) => {
      if (!pinch) return;
      event.stopPropagation(); // the node's drag does not move it meanwhile
      if (event.cancelable) event.preventDefault();
      if (event.touches.length < 2) return;
      const now = measure(event);
      const { minZoom, maxZoom } = store.getState();
      const zoom = Math.min(maxZoom, Math.max(minZoom, (pinch.viewport.zoom * now.distance) / pinch.distance));
      const ratio = zoom / pinch.viewport.zoom;
      // The canvas point that was between the fingers stays between them.
      void flow.setViewport({ x: now.mid.x - (pinch.mid.x - pinch.viewport.x) * ratio, y: now.mid.y - (pinch.mid.y - pinch.viewport.y) * ratio, zoom });
    };
    const onEnd = (event: TouchEvent) => {
      if (pinch && event.touches.length < 2) pinch = null;
    };
    el.addEventListener('touchstart', onStart, { capture: true });
    el.addEventListener('touchmove', onMove, { capture: true, passive: false });
    el.addEventListener('touchend', onEnd, { capture: true });
    el.addEventListener('touchcancel', onEnd, { capture: true });
    return () => {
      el.removeEventListener('touchstart', onStart, { capture: true });
      el.removeEventListener('touchmove', onMove, { capture: true });
      el.removeEventListener('touchend', onEnd, { capture: true });
      el.removeEventListener('touchcancel', onEnd, { capture: true });
    };
  }, [root, flow, store]);
}
