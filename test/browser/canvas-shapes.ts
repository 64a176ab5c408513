// What the canvas browser tests share: nodes to save over REST, a node's element by id, boxes and their overlap,
// the ids on the canvas, and a point of empty canvas near a wanted one.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const upload = (id: string, x: number, y: number, image?: string) => ({ id, type: 'upload', position: { x, y }, data: { type: 'upload', ...(image ? { image } : {}) } });
export const generation = (id: string, x: number, y: number, prompt?: string) => ({
  id,
  type: 'generation',
  position: { x, y },
  data: { type: 'generation', ...(prompt ? { prompt } : {}) },
});

export const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
export const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
export const box = async (locator: Locator) => (await locator.boundingBox())!;
export const nodeIds = (page: Page) => page.locator('.react-flow__node').evaluateAll((els) => els.map((el) => el.getAttribute('data-id')!));

/** The point nearest to `want` (client coordinates) where the empty canvas is, not a node or a panel. */
export async function emptyPoint(page: Page, want: { x: number; y: number }): Promise<{ x: number; y: number }> {
  const found = await page.evaluate((w) => {
    for (let r = 0; r < 600; r += 10) {
      for (let a = 0; a < 360; a += r === 0 ? 360 : 15) {
        const x = w.x + r * Math.cos((a * Math.PI) / 180);
        const y = w.y + r * Math.sin((a * Math.PI) / 180);
        const el = document.elementFromPoint(x, y);
        const near = [-12, 12].every((dx) => document.elementFromPoint(x + dx, y + dx)?.classList.contains('react-flow__pane'));
        if (el?.classList.contains('react-flow__pane') && near) return { x, y };
      }
    }
    return null;
  }, want);
  expect(found).not.toBeNull();
  return found!;
}
