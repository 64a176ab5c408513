// The image steps executor (src/imaging/steps.ts) on real images with sharp: a crop gives exactly its box's pixels,
// a resize follows its fit, grayscale gives equal channels, invert, blur and sepia change pixels as they should,
// steps run in the order given, the pixel limit holds for input and result; and a node of a steps kind runs in an
// image worker process (src/imaging/pool.ts).
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImageStep } from '../../../src/kinds/image-steps.js';
import { createImageWorkers, type ImageWorkers } from '../../../src/imaging/pool.js';
import { runKindSteps, runSteps } from '../../../src/imaging/steps.js';

/** A w×h RGB image whose pixel (x, y) is (x, y, (x + y) % 256): every pixel says where it is. */
async function coordinates(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([x, y, (x + y) % 256], (y * width + x) * 3);
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}
const solid = (width: number, height: number, background: { r: number; g: number; b: number; alpha?: number }) =>
  sharp({ create: { width, height, channels: 4, background: { alpha: 1, ...background } } }).png().toBuffer();

async function rgba(png: Uint8Array) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)] };
}

const run = async (input: Buffer, steps: ImageStep[], maxPixels = 1_000_000) => {
  const answer = await runSteps(input, () => ({ ok: true, steps }), maxPixels);
  if (!answer.ok) throw new Error(answer.message);
  expect((await sharp(answer.png).metadata()).format).toBe('png');
  return rgba(answer.png);
};

describe('image steps', () => {
  it('crops exactly the box: each pixel of the result is the input pixel at its place in the box', async () => {
    const out = await run(await coordinates(64, 48), [{ op: 'extract', left: 10, top: 7, width: 20, height: 30 }]);
    expect([out.width, out.height]).toEqual([20, 30]);
    for (let y = 0; y < 30; y++) for (let x = 0; x < 20; x++) expect(out.at(x, y)).toEqual([x + 10, y + 7, (x + 10 + y + 7) % 256, 255]);
  });

  it('crops the image people see: an EXIF-rotated input is turned upright first', async () => {
    // Stored 40×20 with orientation 6 (turn 90° clockwise): people see it 20×40.
    const rotated = await sharp(await coordinates(40, 20)).withMetadata({ orientation: 6 }).png().toBuffer();
    const seen: { width: number; height: number }[] = [];
    const answer = await runSteps(rotated, (size) => (seen.push(size), { ok: true, steps: [{ op: 'extract', left: 0, top: 0, width: 20, height: 40 }] }), 1_000_000);
    expect(seen).toEqual([{ width: 20, height: 40 }]);
    expect(answer.ok && [answer.width, answer.height]).toEqual([20, 40]);
  });

  it('resizes by fit: fill stretches, cover fills and cuts, contain fits inside with transparent bars', async () => {
    const red = await solid(100, 50, { r: 255, g: 0, b: 0 });
    const fill = await run(red, [{ op: 'resize', width: 30, height: 30, fit: 'fill' }]);
    expect([fill.width, fill.height, ...fill.at(0, 0)]).toEqual([30, 30, 255, 0, 0, 255]);
    const cover = await run(red, [{ op: 'resize', width: 30, height: 30, fit: 'cover' }]);
    expect([cover.width, cover.height, ...cover.at(0, 0)]).toEqual([30, 30, 255, 0, 0, 255]);
    const contain = await run(red, [{ op: 'resize', width: 30, height: 30, fit: 'contain' }]);
    expect([contain.width, contain.height]).toEqual([30, 30]);
    expect(contain.at(15, 0)[3]).toBe(0); // a bar above: transparent
    expect(contain.at(15, 15)).toEqual([255, 0, 0, 255]); // the image in the middle
    // cover keeps the middle: of a left-black/right-white image cut to a square, both halves show.
    const halves = await sharp(Buffer.concat(Array.from({ length: 10 }, () => Buffer.from([...Array(20).fill(0), ...Array(20).fill(255)]))), { raw: { width: 40, height: 10, channels: 1 } }).png().toBuffer();
    const mid = await run(halves, [{ op: 'resize', width: 10, height: 10, fit: 'cover' }]);
    expect([mid.at(0, 5)[0], mid.at(9, 5)[0]]).toEqual([0, 255]);
  });

  it('grayscale gives equal channels, invert inverts colours and keeps alpha, sepia tones', async () => {
    const colour = await solid(8, 8, { r: 200, g: 40, b: 90, alpha: 0.5 });
    const grey = await run(colour, [{ op: 'grayscale' }]);
    const [r, g, b, a] = grey.at(3, 3);
    expect(r).toBe(g);
    expect(g).toBe(b);
    expect(a).toBe(128);
    const inverted = await run(colour, [{ op: 'negate' }]);
    expect(inverted.at(3, 3)).toEqual([55, 215, 165, 128]);
    const sepia = await run(await solid(4, 4, { r: 100, g: 100, b: 100 }), [
      { op: 'recomb', matrix: [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]] },
    ]);
    const [sr, sg, sb] = sepia.at(1, 1);
    expect([sr, sg, sb]).toEqual([135, 120, 93]); // 100 × each row's sum (135.1, 120.3, 93.7), cut to whole values
  });

  it('blurs: a sharp edge becomes a ramp, a flat area stays flat', async () => {
    const edge = await sharp(Buffer.concat(Array.from({ length: 20 }, () => Buffer.from([...Array(20).fill(0), ...Array(20).fill(255)]))), { raw: { width: 40, height: 20, channels: 1 } }).png().toBuffer();
    const before = await run(edge, []);
    expect([before.at(19, 10)[0], before.at(20, 10)[0]]).toEqual([0, 255]);
    const blurred = await run(edge, [{ op: 'blur', sigma: 3 }]);
    const left = blurred.at(19, 10)[0];
    const right = blurred.at(20, 10)[0];
    expect(left).toBeGreaterThan(60);
    expect(right).toBeLessThan(195);
    expect(blurred.at(2, 10)[0]).toBe(0);
  });

  it('brightness and contrast: modulate and linear move pixel values the right way', async () => {
    const mid = await solid(4, 4, { r: 100, g: 100, b: 100 });
    const brighter = await run(mid, [{ op: 'modulate', brightness: 1.5, saturation: 1, hue: 0 }]);
    expect(brighter.at(0, 0)[0]).toBeGreaterThan(130);
    const contrast = await run(mid, [{ op: 'linear', a: 2, b: -128 }]);
    expect(contrast.at(0, 0).slice(0, 3)).toEqual([72, 72, 72]);
  });

  it('runs steps in the order given (a crop after a resize is not a resize after a crop)', async () => {
    const input = await coordinates(100, 100);
    const a = await run(input, [{ op: 'resize', width: 50, height: 50, fit: 'fill' }, { op: 'extract', left: 0, top: 0, width: 10, height: 10 }]);
    const b = await run(input, [{ op: 'extract', left: 0, top: 0, width: 10, height: 10 }, { op: 'resize', width: 50, height: 50, fit: 'fill' }]);
    expect([a.width, b.width]).toEqual([10, 50]);
    expect(a.at(9, 0)[0]).toBeGreaterThan(15); // the resized image's pixel 9 was input pixel ~19
  });

  it('holds the input and the result to the pixel limit, and answers a plan problem and an unreadable input', async () => {
    const input = await coordinates(20, 10);
    expect(await runSteps(input, () => ({ ok: true, steps: [] }), 199)).toEqual({ ok: false, kind: 'input', message: 'the input image has 20×10 pixels, more than the 199 allowed' });
    expect(await runSteps(input, () => ({ ok: true, steps: [{ op: 'resize', width: 30, height: 30, fit: 'fill' }] }), 800)).toEqual({
      ok: false,
      kind: 'settings',
      message: 'the result would have 30×30 pixels, more than the 800 allowed',
    });
    expect(await runSteps(input, () => ({ ok: false, problem: 'no' }), 800)).toEqual({ ok: false, kind: 'settings', message: 'no' });
    expect(await runSteps(Buffer.from('not an image'), () => ({ ok: true, steps: [] }), 800)).toEqual({ ok: false, kind: 'input', message: 'the input image could not be read' });
  });

  it("runs a node by its kind's plan: a crop outside its input is named, a kind without steps is refused", async () => {
    const input = await coordinates(20, 10);
    const inside = await runKindSteps('crop', { x: 5, y: 5, width: 5, height: 5 }, input, 1000);
    expect(inside.ok && [inside.width, inside.height]).toEqual([5, 5]);
    expect(await runKindSteps('crop', { x: 18, y: 0, width: 5, height: 5 }, input, 1000)).toEqual({
      ok: false,
      kind: 'settings',
      message: 'the crop box (5×5 at 18,0) does not lie inside the 20×10 input image',
    });
    expect(await runKindSteps('text', {}, input, 1000)).toEqual({ ok: false, kind: 'settings', message: 'a "text" node has no image steps' });
  });
});

describe('image steps in the image workers', () => {
  let workers: ImageWorkers | undefined;
  afterEach(async () => {
    await workers?.close();
    workers = undefined;
  });

  it('runs an adjust node in a worker process and answers its PNG', async () => {
    workers = createImageWorkers({ workers: 1, log: { warn: () => undefined } });
    const answer = await workers.runSteps({ type: 'adjust', data: { grayscale: true }, image: await solid(6, 4, { r: 200, g: 40, b: 90 }), maxPixels: 1000 });
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(Buffer.isBuffer(answer.png)).toBe(true);
    const out = await rgba(answer.png);
    const [r, g, b] = out.at(1, 1);
    expect([out.width, out.height, r === g && g === b]).toEqual([6, 4, true]);
  });
});
