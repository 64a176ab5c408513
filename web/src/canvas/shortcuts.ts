// Every keyboard and pointer shortcut of the canvas, in one list: the shortcut sheet (`?`) shows it, and
// hooks/use-canvas-shortcuts.ts implements the keys (README.md "The web client" lists them too). `Mod` is ⌘ on a
// Mac and Ctrl elsewhere.

export interface Shortcut {
  /** Alternatives, each a combination of keys (or a pointer gesture) as shown to people. */
  keys: string[][];
  action: string;
}

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? '⌘' : 'Ctrl';

export const SHORTCUT_GROUPS: ReadonlyArray<{ title: string; shortcuts: Shortcut[] }> = [
  {
    title: 'Select',
    shortcuts: [
      { keys: [['Click']], action: 'Select a node' },
      { keys: [['Shift', 'Click'], [MOD, 'Click']], action: 'Add a node to the selection, or take it out' },
      { keys: [['Drag on empty canvas']], action: 'Select the nodes in a rectangle' },
      { keys: [[MOD, 'A']], action: 'Select all nodes' },
    ],
  },
  {
    title: 'Edit',
    shortcuts: [
      { keys: [[MOD, 'C']], action: 'Copy the selected nodes' },
      { keys: [[MOD, 'X']], action: 'Cut the selected nodes' },
      { keys: [[MOD, 'V']], action: 'Paste nodes (at the pointer), or images' },
      { keys: [[MOD, 'D']], action: 'Duplicate the selected nodes' },
      { keys: [['Delete'], ['Backspace']], action: 'Delete the selection' },
      { keys: [[MOD, 'Z']], action: 'Undo your last change' },
      { keys: [[MOD, 'Shift', 'Z'], ['Ctrl', 'Y']], action: 'Redo' },
      { keys: [['Double-click on empty canvas']], action: 'Add a generation node there' },
      { keys: [['Drag from an output into empty canvas']], action: 'Offer a new generation node there, connected' },
      { keys: [['Right-click'], ['Shift', 'F10']], action: 'Menu of the node or of the canvas' },
    ],
  },
  {
    title: 'View',
    shortcuts: [
      { keys: [[MOD, '+'], ['+']], action: 'Zoom in' },
      { keys: [[MOD, '−'], ['−']], action: 'Zoom out' },
      { keys: [['Shift', '1']], action: 'Fit the whole canvas' },
      { keys: [['Shift', '2']], action: 'Zoom to the selection' },
      { keys: [['Shift', '0']], action: 'Zoom to 100%' },
      { keys: [['Scroll'], ['Space', 'Drag'], ['Middle-drag'], ['Right-drag']], action: 'Move around the canvas' },
      { keys: [[MOD, 'Scroll'], ['Pinch']], action: 'Zoom at the pointer' },
      { keys: [['?']], action: 'Show these shortcuts' },
    ],
  },
];
