// The canvas's keyboard shortcuts (canvas/shortcuts.ts lists them for the shortcut sheet): Ctrl/Cmd+A selects
// every node (never the page's text), Ctrl/Cmd+C/X/V copy, cut and paste nodes through the system clipboard (the
// copy and paste events, so the browser's own Edit menu works too; a paste that is not ours is left to the image
// paste, hooks/use-paste-images.ts), Ctrl/Cmd+D duplicates, + and − (with or without Ctrl/Cmd) zoom, Shift+1 fits,
// Shift+2 zooms to the selection, Shift+0 zooms to 100%, and `?` opens the sheet. Delete/Backspace (xyflow's) and
// undo/redo (hooks/use-undo-shortcuts.ts) live elsewhere. None of them acts while someone types in a field, uses a
// menu, or has a dialog open.
import { useEffect, useRef } from 'react';
import { clipFromText } from '../canvas/clipboard';
import type { CanvasCommands } from './use-canvas-commands';

/** Whether a key press belongs to something else: a text field, a menu, an open dialog. */
export function isElsewhere(target: EventTarget | null): boolean {
  if (document.querySelector('dialog[open]')) return true;
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('[role="menu"]') !== null;
}

export function useCanvasShortcuts(commands: CanvasCommands, openSheet: () => void): void {
  const current = useRef({ commands, openSheet });
  current.current = { commands, openSheet };

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || isElsewhere(event.target)) return;
      const { commands: c, openSheet: sheet } = current.current;
      const key = event.key.toLowerCase();
      let action: (() => void) | undefined;
      if (event.ctrlKey || event.metaKey) {
        if (key === 'a' && !event.shiftKey) action = c.selectAll;
        else if (key === 'd' && !event.shiftKey) action = () => c.duplicate();
        else if (key === '=' || key === '+') action = c.zoomIn;
        else if (key === '-' || key === '_') action = c.zoomOut;
      } else if (event.shiftKey && event.code === 'Digit1') action = c.fit;
      else if (event.shiftKey && event.code === 'Digit2') action = c.zoomToSelection;
      else if (event.shiftKey && event.code === 'Digit0') action = c.zoomTo100;
      else if (key === '=' || key === '+') action = c.zoomIn;
      else if (key === '-') action = c.zoomOut;
      else if (key === '?') action = sheet;
      if (!action) return;
      event.preventDefault();
      action();
    };

    // Copy and cut take the selected nodes when there are any (else the browser copies what it would).
    const onCopy = (event: ClipboardEvent, cut: boolean) => {
      if (isElsewhere(event.target) || !event.clipboardData) return;
      const { commands: c } = current.current;
      const ids = c.selectedIds();
      const text = ids.length > 0 ? c.copy(ids) : null;
      if (!text) return;
      event.preventDefault();
      event.clipboardData.setData('text/plain', text);
      if (cut) c.remove(ids);
    };
    const copy = (event: ClipboardEvent) => onCopy(event, false);
    const cut = (event: ClipboardEvent) => onCopy(event, true);
    const paste = (event: ClipboardEvent) => {
      if (isElsewhere(event.target)) return;
      const clip = clipFromText(event.clipboardData?.getData('text/plain') ?? '');
      if (!clip) return;
      event.preventDefault();
      current.current.commands.paste(clip);
    };

    window.addEventListener('keydown', onKeyDown);
    document.addEventListener('copy', copy);
    document.addEventListener('cut', cut);
    document.addEventListener('paste', paste);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('copy', copy);
      document.removeEventListener('cut', cut);
      document.removeEventListener('paste', paste);
    };
  }, []);
}
