// A node this tab adds (a toolbar button; an image from the toolbar's file picker once its file is stored, through
// focusWhenShown) takes the keyboard focus once xyflow has drawn it: a keyboard or
// screen-reader user lands on it ("Generate 2, node") and can go on into it with Tab.
import { useCallback, type RefObject } from 'react';
import type { LiveSession } from '../canvas/live-session';

const ids = (session: LiveSession) => session.canvas.get().nodes.map((n) => n.id as string);

/**
 * Focuses the node wrapper of `id` under `root` as soon as it can take the focus: xyflow draws a node a render
 * later, hidden until it has measured it.
 */
export function focusWhenShown(root: HTMLElement, id: string): void {
  const tryFocus = () => {
    const el = root.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    if (!el || getComputedStyle(el).visibility === 'hidden') return false;
    el.focus({ preventScroll: true }); // xyflow pans to a node focused from the keyboard
    return document.activeElement === el;
  };
  if (tryFocus()) return;
  const observer = new MutationObserver(() => {
    if (tryFocus()) stop();
  });
  const timer = setTimeout(() => observer.disconnect(), 5000); // not shown by then: removed meanwhile
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['style', 'class'] });
}

/**
 * `withFocus(add)` runs `add` (which adds nodes to the document at once) and focuses the first node it added.
 */
export function useFocusNewNodes(session: LiveSession, root: RefObject<HTMLElement | null>) {
  return useCallback(
    (add: () => void) => {
      const before = new Set(ids(session));
      add();
      const added = ids(session).find((id) => !before.has(id));
      if (added && root.current) focusWhenShown(root.current, added);
    },
    [session, root],
  );
}
