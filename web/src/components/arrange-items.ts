// The canvas menu's items that arrange nodes (hooks/use-arrange.ts): Tidy up, and the "Align and distribute"
// menu opened from the selection's menu.
import type { Arrangement } from '../hooks/use-arrange';
import type { MenuItem } from './context-menu';

const ALIGNMENTS: ReadonlyArray<[Arrangement, string]> = [
  ['left', 'Align left edges'],
  ['centre', 'Align centres'],
  ['right', 'Align right edges'],
  ['top', 'Align top edges'],
  ['middle', 'Align middles'],
  ['bottom', 'Align bottom edges'],
];

/** Align (2 or more nodes) and distribute (3 or more) the nodes `ids`. */
export function arrangeItems(ids: string[], arrange: (how: Arrangement, ids?: string[]) => void): MenuItem[] {
  return [
    ...ALIGNMENTS.map(([how, label]) => ({ label, onSelect: () => arrange(how, ids) })),
    { label: 'Distribute horizontally', disabled: ids.length < 3, onSelect: () => arrange('horizontal', ids) },
    { label: 'Distribute vertically', disabled: ids.length < 3, onSelect: () => arrange('vertical', ids) },
  ];
}
