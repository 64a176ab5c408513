// `list`: texts typed one per line (`data.items`; blank lines are kept but are no items), or the images connected to it. It does not run: a node it feeds
// runs once per item, in item order (./graph.ts "fan-out"), so a list of prompts into a generation's prompt port
// makes one image per prompt, and a list of images into a crop crops each.
import { defineKind } from './kind.js';
import { textListField } from './values.js';

/** The most items (lines) a list holds. */
export const LIST_MAX_ITEMS = 500;

/** The items a list gives: its lines that are not blank (a blank line, kept as typed, is no item). */
export const listItems = (lines: readonly unknown[]): string[] => lines.filter((item): item is string => typeof item === 'string' && item.trim().length > 0);

export const list = defineKind({
  type: 'list',
  label: 'List',
  version: 1,
  data: (limits) => ({
    items: textListField(LIST_MAX_ITEMS, limits.promptChars, 'invalid-items', {
      required: true,
      description: `its texts, at most ${LIST_MAX_ITEMS}, each at most as long as a prompt (may be empty)`,
    }),
  }),
  inputs: [{ name: 'images', label: 'Images', value: 'image', list: true, default: true }],
  outputs: [
    { name: 'texts', label: 'Texts', value: 'text', list: true, default: true },
    { name: 'images', label: 'Images', value: 'image', list: true },
  ],
  gives: (data) => ({
    texts: Array.isArray(data.items) ? listItems(data.items).map((text) => ({ text })) : [],
    images: { from: 'images' },
  }),
  size: { width: 260, height: 260 },
});
