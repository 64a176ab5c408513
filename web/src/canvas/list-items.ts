// A list node's text items (issue 35 point 4: `data.items`, typed one per line) and the text its box shows. A blank
// line is no item (it is kept in the box while typing, so the next line can be started). No React: unit-tested in
// test/unit/web-marks.test.ts.

/** The items a typed text holds: its lines, blank ones left out (an item keeps its own spaces). */
export function itemsOf(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}

/** The text a list's items show as: one per line. */
export function textOf(items: readonly string[]): string {
  return items.join('\n');
}

/** A node's items as stored: its `data.items`' texts (anything else in it is not an item). */
export function storedItems(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export const sameItems = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
