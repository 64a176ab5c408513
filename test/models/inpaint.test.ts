// Offline classical inpainting (src/models/inpainter.ts, src/models/classical-inpaint.ts: OpenCV's Telea and Navier–Stokes
// through opencv.js), in this process; and an edit's inputs made ready (src/imaging/edit-prepare.ts: the mask fitted,
// an empty one refused, the image extended to outpaint within the pixel limit).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareEdit } from '../../src/imaging/edit-prepare.js';
import { ModelFailedError } from '../../src/models/image-model.js';
import { ClassicalInpainter } from '../../src/models/inpainter.js';

const W = 256;
const H = 256;
const signal = new AbortController().signal;

/** A horizontal gradient (red rises left to right, blue falls), fully opaque, with a 64×64 magenta hole in its middle. */
async function gradientWithHole(): Promise<{ whole: Buffer; holed: Buffer }> {
  const px = Buffer.alloc(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      px[i] = x;
      px[i + 1] = 120;
      px[i + 2] = 255 - x;
      px[i + 3] = 255;
    }
  const whole = Buffer.from(px);
  for (let y = 96; y < 160; y++)
    for (let x = 96; x < 160; x++) {
      const i = (y * W + x) * 4;
      px[i] = 255;
      px[i + 1] = 0;
      px[i + 2] = 255;
    }
  const raw = { raw: { width: W, height: H, channels: 4 as const } };
  return { whole, holed: await sharp(px, raw).png().toBuffer() };
}

/** White where x, y are in [from, to) (a square), black elsewhere; of size `size`. */
const squareMask = (size: number, from: number, to: number) =>
  sharp({ create: { width: size, height: size, channels: 3, background: '#000' } })
    .composite([{ input: { create: { width: to - from, height: to - from, channels: 3, background: '#fff' } }, left: from, top: from }])
    .png()
    .toBuffer();

describe('classical inpainting', () => {
  for (const method of ['telea', 'ns'] as const) {
    it(`${method}: fills a 64×64 hole in a gradient close to its surroundings, alpha kept`, async () => {
      const { whole, holed } = await gradientWithHole();
      const mask = await squareMask(W, 92, 164); // a little wider than the hole
      const result = await new ClassicalInpainter(method, 1e7).generate({ images: [{ data: holed, mimeType: 'image/png' }], mask: { data: mask, mimeType: 'image/png' }, prompt: '', signal });
      expect(result.model).toBe(`inpaint-${method}`);
      const { data, info } = await sharp(result.image!.data).raw().toBuffer({ resolveWithObject: true });
      expect(info).toMatchObject({ width: W, height: H, channels: 4 });
      let worst = 0;
      let sum = 0;
      let n = 0;
      for (let y = 96; y < 160; y++)
        for (let x = 96; x < 160; x++) {
          const i = (y * W + x) * 4;
          for (let c = 0; c < 3; c++) {
            const d = Math.abs(data[i + c] - whole[i + c]);
            worst = Math.max(worst, d);
            sum += d;
            n++;
          }
          expect(data[i + 3]).toBe(255);
        }
      // No magenta is left, and the fill is near the gradient it was cut from (Telea smooths a gradient's middle).
      expect(sum / n).toBeLessThan(16);
      expect(worst).toBeLessThan(70);
      // Outside the mask nothing changed.
      expect([data[0], data[1], data[2]]).toEqual([0, 120, 255]);
    });
  }

  it('refuses a call without a mask', async () => {
    const { holed } = await gradientWithHole();
    const err = await new ClassicalInpainter('telea', 1e7).generate({ images: [{ data: holed, mimeType: 'image/png' }], prompt: '', signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelFailedError);
    expect((err as Error).message).toBe('inpaint-telea needs a mask: run it from an edit node');
  });
});

describe('an edit made ready', () => {
  it('resizes a mask of another size to the image and says so', async () => {
    const { holed } = await gradientWithHole();
    const answer = await prepareEdit({ mode: 'inpaint', image: holed, mask: await squareMask(64, 24, 40), maxPixels: 1e7 });
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.note).toBe("The mask was 64×64; it was resized to the image's 256×256");
    const m = await sharp(answer.mask).raw().toBuffer({ resolveWithObject: true });
    expect(m.info).toMatchObject({ width: 256, height: 256 });
    expect(m.data[(128 * 256 + 128) * m.info.channels]).toBe(255);
    expect(m.data[0]).toBe(0);
  });

  it('refuses an empty mask', async () => {
    const { holed } = await gradientWithHole();
    const black = await sharp({ create: { width: W, height: H, channels: 3, background: '#000' } }).png().toBuffer();
    expect(await prepareEdit({ mode: 'inpaint', image: holed, mask: black, maxPixels: 1e7 })).toEqual({ ok: false, kind: 'settings', message: 'the mask is empty: nothing to edit (paint the area to change in white)' });
  });

  it('extends the image to outpaint, the new area the mask; refuses nothing to do and too many pixels', async () => {
    const { holed } = await gradientWithHole();
    const answer = await prepareEdit({ mode: 'outpaint', outpaint: { top: 10, right: 20, bottom: 0, left: 4 }, image: holed, maxPixels: 1e7 });
    if (!answer.ok) throw new Error(answer.message);
    expect([answer.width, answer.height]).toEqual([280, 266]);
    const m = await sharp(answer.mask).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => m.data[(y * 280 + x) * m.info.channels];
    expect([at(0, 0), at(3, 20), at(4, 10), at(259, 265), at(260, 100)]).toEqual([255, 255, 0, 0, 255]);
    expect(await prepareEdit({ mode: 'outpaint', outpaint: { top: 0, right: 0, bottom: 0, left: 0 }, image: holed, maxPixels: 1e7 })).toMatchObject({ ok: false, kind: 'settings', message: 'nothing to outpaint: every side of outpaint is 0' });
    expect(await prepareEdit({ mode: 'outpaint', outpaint: { top: 0, right: 100, bottom: 0, left: 0 }, image: holed, maxPixels: 70_000 })).toEqual({ ok: false, kind: 'settings', message: 'the outpainted image would be 356×256, over the 70000-pixel limit' });
  });

  it('answers a broken mask as an input problem', async () => {
    const { holed } = await gradientWithHole();
    const broken = Buffer.concat([(await squareMask(64, 0, 8)).subarray(0, 60), Buffer.alloc(40)]);
    expect(await prepareEdit({ mode: 'inpaint', image: holed, mask: broken, maxPixels: 1e7 })).toMatchObject({ ok: false, kind: 'input', index: 1 });
  });
});
