// A context menu (WAI-ARIA menu pattern): opened at a point, kept inside the window, its first item focused;
// ArrowUp/ArrowDown (and Home/End) move between the items, Enter or Space chooses one, Escape or Tab closes it, as
// does a click anywhere else. On closing, focus goes back where it was.
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import './canvas-conventions.css';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** The keys that do the same, as shown (e.g. "Ctrl+D"). */
  shortcut?: string;
}

interface Props {
  /** Where it opens, in client (window) coordinates. */
  at: { x: number; y: number };
  /** The menu's accessible name (e.g. "Image node"). */
  label: string;
  items: MenuItem[];
  onClose: () => void;
}

const MARGIN = 8;

export function ContextMenu({ at, label, items, onClose }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [position, setPosition] = useState(at);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  // Kept inside the window; the first item takes focus (and the element that had it gets it back on close).
  useLayoutEffect(() => {
    const menu = ref.current;
    if (!menu) return;
    const { width, height } = menu.getBoundingClientRect();
    setPosition({
      x: Math.max(MARGIN, Math.min(at.x, window.innerWidth - width - MARGIN)),
      y: Math.max(MARGIN, Math.min(at.y, window.innerHeight - height - MARGIN)),
    });
    const before = document.activeElement as HTMLElement | null;
    menu.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus();
    return () => {
      if (before?.isConnected && (document.activeElement === document.body || !document.activeElement)) before.focus({ preventScroll: true });
    };
  }, [at]);

  // A press anywhere else, leaving the window or resizing it closes the menu.
  useEffect(() => {
    const outside = (event: Event) => {
      if (!ref.current?.contains(event.target as Node)) closeRef.current();
    };
    const close = () => closeRef.current();
    document.addEventListener('pointerdown', outside, true);
    document.addEventListener('wheel', outside, true);
    window.addEventListener('blur', close);
    window.addEventListener('resize', close);
    return () => {
      document.removeEventListener('pointerdown', outside, true);
      document.removeEventListener('wheel', outside, true);
      window.removeEventListener('blur', close);
      window.removeEventListener('resize', close);
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    event.stopPropagation(); // the canvas's own keys (Delete, shortcuts) do not act behind the menu
    const buttons = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not(:disabled)') ?? [])];
    const current = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const focus = (i: number) => buttons[(i + buttons.length) % buttons.length]?.focus();
    if (event.key === 'ArrowDown') focus(current + 1);
    else if (event.key === 'ArrowUp') focus(current - 1);
    else if (event.key === 'Home') focus(0);
    else if (event.key === 'End') focus(buttons.length - 1);
    else if (event.key === 'Escape' || event.key === 'Tab') onClose();
    else return;
    event.preventDefault();
  };

  return createPortal(
    <div
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={label}
      style={{ left: position.x, top: position.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          disabled={item.disabled}
          onClick={() => {
            onClose();
            item.onSelect();
          }}
        >
          <span>{item.label}</span>
          {item.shortcut && <kbd aria-hidden="true">{item.shortcut}</kbd>}
        </button>
      ))}
    </div>,
    document.body,
  );
}
