// The mask editor's pixel work and view maths (web/src/canvas/mask-paint.ts, issue 36 point 1): dabs with hardness,
// evenly spaced along a stroke; erase; invert, clear, feather; emptiness; undo and redo by rectangles within a byte
// budget; fit, zoom about a point and a two-finger pinch; the saved PNG's pixels and a loaded mask's.
import { describe, expect, it } from 'vitest';
import {
  clear,
  dabCover,
  dabsAlong,
  feather,
  fitView,
  invert,
  isEmpty,
  Mask,
  maskFromRgba,
  maskRgba,
  paintDab,
  pinchView,
  pressedSize,
  toImage,
  UndoStack,
  zoomAt,
} from '../../web/src/canvas/mask-paint.js';

const at = (m: Mask, x: number, y: number) => m.pixels[y * m.width + x];

describe('dabs', () => {
  it('covers fully inside the hard core, fades to nothing at the radius', () => {
    expect(dabCover(0, 10, 0.5)).toBe(1);
    expect(dabCover(5, 10, 0.5)).toBe(1);
    expect(dabCover(7.5, 10, 0.5)).toBeCloseTo(0.5);
    expect(dabCover(10, 10, 0.5)).toBe(0);
    expect(dabCover(9.99, 10, 1)).toBe(1);
    expect(dabCover(5, 10, 0)).toBeLessThan(1);
  });

  it('paints a hard dab white inside its circle only, and answers the rectangle it touched', () => {
    const m = new Mask(40, 30);
    const rect = paintDab(m, { x: 20, y: 15 }, 10, { mode: 'paint', hardness: 1 })!;
    expect(at(m, 20, 15)).toBe(255);
    expect(at(m, 16, 15)).toBe(255);
    expect(at(m, 26, 15)).toBe(0);
    expect(at(m, 20, 21)).toBe(0);
    expect(rect.x).toBeLessThanOrEqual(15);
    expect(rect.x + rect.width).toBeGreaterThanOrEqual(25);
    expect(m.pixels.filter((v) => v > 0).length).toBeGreaterThan(60); // ~π·5²
  });

  it('a soft dab grades its edge; erase takes it back; a dab off the image touches nothing', () => {
    const m = new Mask(40, 40);
    paintDab(m, { x: 20, y: 20 }, 20, { mode: 'paint', hardness: 0 });
    expect(at(m, 20, 20)).toBeGreaterThan(240);
    const edge = at(m, 27, 20);
    expect(edge).toBeGreaterThan(0);
    expect(edge).toBeLessThan(200);
    paintDab(m, { x: 20, y: 20 }, 30, { mode: 'erase', hardness: 1 });
    expect(isEmpty(m)).toBe(true);
    expect(paintDab(m, { x: -50, y: -50 }, 10, { mode: 'paint', hardness: 1 })).toBeNull();
  });

  it('spaces dabs evenly along a stroke whatever the pointer events', () => {
    const one = dabsAlong({ x: 0, y: 0 }, { x: 10, y: 0 }, 2, 0);
    expect(one.dabs.map((d) => d.x)).toEqual([2, 4, 6, 8, 10]);
    // The same line in uneven pieces gives the same dabs.
    let carry = 0;
    const xs: number[] = [];
    for (const [a, b] of [[0, 3], [3, 3.5], [3.5, 10]]) {
      const part = dabsAlong({ x: a, y: 0 }, { x: b, y: 0 }, 2, carry);
      carry = part.carry;
      xs.push(...part.dabs.map((d) => d.x));
    }
    expect(xs.map((x) => Math.round(x * 1000) / 1000)).toEqual([2, 4, 6, 8, 10]);
  });

  it('a pen’s pressure scales the brush; a mouse’s does not', () => {
    expect(pressedSize(50, 'mouse', 0.5)).toBe(50);
    expect(pressedSize(50, 'pen', 1)).toBe(50);
    expect(pressedSize(50, 'pen', 0.25)).toBe(20);
    expect(pressedSize(50, 'pen', 0)).toBe(50); // no pressure reported
  });
});

describe('whole-mask changes', () => {
  it('inverts, clears and tells empty', () => {
    const m = new Mask(4, 4);
    expect(isEmpty(m)).toBe(true);
    invert(m);
    expect([...m.pixels].every((v) => v === 255)).toBe(true);
    expect(isEmpty(m)).toBe(false);
    clear(m);
    expect(isEmpty(m)).toBe(true);
  });

  it('feathers a hard edge into a ramp about the radius wide, leaving the far inside and outside', () => {
    const m = new Mask(100, 10);
    for (let y = 0; y < 10; y++) for (let x = 50; x < 100; x++) m.pixels[y * 100 + x] = 255;
    expect(feather(m, 0)).toBeNull();
    feather(m, 8);
    const row = [...m.pixels.subarray(500, 600)];
    expect(row[10]).toBe(0);
    expect(row[90]).toBe(255);
    expect(row[50]).toBeGreaterThan(100);
    expect(row[50]).toBeLessThan(200);
    expect(row[44]).toBeGreaterThan(0);
    expect(row[44]).toBeLessThan(row[50]);
    for (let x = 1; x < 100; x++) expect(row[x]).toBeGreaterThanOrEqual(row[x - 1]); // monotone
  });
});

describe('undo stack', () => {
  it('undoes and redoes a change by its rectangle; a new change drops the redo', () => {
    const m = new Mask(20, 20);
    const undo = new UndoStack();
    let before = m.pixels.slice();
    undo.record(m, paintDab(m, { x: 5, y: 5 }, 4, { mode: 'paint', hardness: 1 }), before);
    const painted = m.pixels.slice();
    before = m.pixels.slice();
    undo.record(m, invert(m), before);
    expect(undo.depth).toBe(2);
    undo.undo(m);
    expect(m.pixels).toEqual(painted);
    undo.undo(m);
    expect(isEmpty(m)).toBe(true);
    expect(undo.undo(m)).toBeNull();
    expect(undo.redo(m)).not.toBeNull();
    expect(m.pixels).toEqual(painted);
    expect(undo.canRedo).toBe(true);
    before = m.pixels.slice();
    undo.record(m, clear(m), before);
    expect(undo.canRedo).toBe(false);
  });

  it('drops the oldest changes past its byte budget', () => {
    const m = new Mask(10, 10); // a whole change is 200 bytes kept
    const undo = new UndoStack(500);
    for (let i = 0; i < 5; i++) {
      const before = m.pixels.slice();
      undo.record(m, invert(m), before);
    }
    expect(undo.depth).toBe(2);
  });
});

describe('view', () => {
  it('fits the image centred, never past its real size', () => {
    expect(fitView({ width: 100, height: 50 }, { width: 1000, height: 800 })).toEqual({ scale: 1, x: 450, y: 375 });
    const v = fitView({ width: 2000, height: 1000 }, { width: 1032, height: 532 });
    expect(v.scale).toBe(0.5);
    expect(v).toEqual({ scale: 0.5, x: 16, y: 16 });
  });

  it('zooms about a point, which stays over the same image point', () => {
    const v = { scale: 1, x: 10, y: 20 };
    const p = { x: 110, y: 70 };
    const z = zoomAt(v, 2, p);
    expect(z.scale).toBe(2);
    expect(toImage(z, p)).toEqual(toImage(v, p));
    expect(zoomAt(v, 1e6, p).scale).toBe(32);
  });

  it('pinches: the image under the fingers follows them and scales with their spread', () => {
    const start = { scale: 1, x: 0, y: 0 };
    const v = pinchView(start, { x: 100, y: 100 }, { x: 200, y: 100 }, { x: 80, y: 120 }, { x: 280, y: 120 });
    expect(v.scale).toBe(2);
    expect(toImage(v, { x: 180, y: 120 })).toEqual({ x: 150, y: 100 });
  });
});

describe('pixels in and out', () => {
  it('saves opaque grey (white edits) and reads back luminance, transparent as black', () => {
    const m = new Mask(2, 1, Uint8Array.from([255, 0]));
    expect([...maskRgba(m)]).toEqual([255, 255, 255, 255, 0, 0, 0, 255]);
    const back = maskFromRgba(Uint8Array.from([255, 255, 255, 255, 255, 255, 255, 0]), 2, 1);
    expect([...back.pixels]).toEqual([255, 0]);
  });
});
