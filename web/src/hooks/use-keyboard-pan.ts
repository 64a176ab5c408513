// The canvas itself is a stop in the Tab order (between the toolbar and the nodes): while it has the focus, the
// arrow keys pan the view (Shift: a larger step). Keys pressed in a node or a panel are theirs.
import { useReactFlow } from '@xyflow/react';
import { useCallback, type KeyboardEvent } from 'react';

const STEP = 60;
const DIRECTIONS: Record<string, [number, number]> = { ArrowLeft: [1, 0], ArrowRight: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

export function useKeyboardPan() {
  const flow = useReactFlow();
  return useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      const direction = DIRECTIONS[event.key];
      if (!direction || event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      const step = event.shiftKey ? STEP * 4 : STEP;
      const { x, y, zoom } = flow.getViewport();
      void flow.setViewport({ x: x + direction[0] * step, y: y + direction[1] * step, zoom });
    },
    [flow],
  );
}
