// A "More" button that opens a menu of actions (the menu button pattern): the compact editor toolbar keeps
// its less used actions here. Opening focuses the first item; ↑/↓, Home and End move between items; Escape,
// Tab, choosing an item or a click outside closes it, and Escape or a choice gives the focus back to the button.
// The header's account menu gives the button its own content and shows a summary above the items.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface MenuAction {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** Shown as the item's title (why it is disabled, its shortcut). */
  title?: string;
  /** A link's address: the item is a link (opens like any link). */
  href?: string;
}

interface Props {
  /** The menu's name, and the button's text unless `trigger` is given. */
  label?: string;
  actions: MenuAction[];
  children?: ReactNode;
  /** The button's content (its accessible name: make it hold the label). */
  trigger?: ReactNode;
  /** Shown above the items, outside the menu itself (the account menu's who and plan); read as the menu's description. */
  summary?: ReactNode;
  className?: string;
}

export function MoreMenu({ label = 'More', actions, children, trigger, summary, className }: Props) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const summaryId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const popup = useRef<HTMLDivElement>(null);

  // Disabled items are still reached (and read as unavailable), as the menu pattern has it.
  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    items()[0]?.focus();
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!popup.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    const all = items();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => {
      event.preventDefault();
      all[(i + all.length) % all.length]?.focus();
    };
    if (event.key === 'ArrowDown') go(at + 1);
    else if (event.key === 'ArrowUp') go(at - 1);
    else if (event.key === 'Home') go(0);
    else if (event.key === 'End') go(all.length - 1);
    else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') setOpen(false);
  };

  const choose = (action: MenuAction) => {
    if (action.disabled) return;
    close(!action.href);
    action.onSelect();
  };

  return (
    <div className={className ? `more-menu ${className}` : 'more-menu'}>
      <button
        ref={button}
        type="button"
        className="button ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        {trigger ?? label}
      </button>
      {open && (
        <div ref={popup} className="more-menu-list">
          {summary && (
            <div id={summaryId} className="more-menu-summary">
              {summary}
            </div>
          )}
          <div ref={menu} id={menuId} role="menu" aria-label={label} aria-describedby={summary ? summaryId : undefined} className="more-menu-items" onKeyDown={onKeyDown}>
            {actions.map((action) =>
              action.href ? (
                <a
                  key={action.label}
                  role="menuitem"
                  tabIndex={-1}
                  href={action.href}
                  title={action.title}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // a new tab, as any link
                    event.preventDefault();
                    choose(action);
                  }}
                >
                  {action.label}
                </a>
              ) : (
                <button
                  key={action.label}
                  type="button"
                  role="menuitem"
                  tabIndex={-1}
                  aria-disabled={action.disabled || undefined}
                  title={action.title}
                  onClick={() => choose(action)}
                >
                  {action.label}
                </button>
              ),
            )}
            {children}
          </div>
        </div>
      )}
    </div>
  );
}
