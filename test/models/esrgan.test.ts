// Offline super-resolution (src/models/esrgan-upscaler.ts): ESRGAN's slim models from npm on TensorFlow.js's
// WebAssembly backend, in this process. What is checked: the size and format of the result, alpha kept, tiles that
// meet without seams (the result stays close to a plain Lanczos enlargement everywhere, tile borders included),
// progress per tile, and the input limit.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { EsrganUpscaler, upscale } from '../../src/models/esrgan-upscaler.js';
import { ModelInputError } from '../../src/models/image-model.js';
import type { ModelProgress } from '../../src/models/image-model.js';

/** A picture with edges and gradients: a gradient background, a circle and a bar. */
const picture = (width: number, height: number, alpha = false) =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#1d4e89"/><stop offset="1" stop-color="#f4a259"/></linearGradient></defs>` +
        `<rect width="100%" height="100%" fill="url(#g)" ${alpha ? 'fill-opacity="0.5"' : ''}/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#e63946"/><rect x="4" y="${height - 12}" width="${width - 8}" height="6" fill="#fff"/></svg>`,
    ),
  )
    .png()
    .toBuffer();

/** Mean absolute difference per channel value (0–255) between two images of one size. */
async function meanDifference(a: Buffer, b: Buffer): Promise<number> {
  const [ra, rb] = await Promise.all([a, b].map((x) => sharp(x).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < ra.length; i++) sum += Math.abs(ra[i] - rb[i]);
  return sum / ra.length;
}

describe('ESRGAN upscaler', () => {
  it('upscales 2× across several tiles without seams, reporting each tile', async () => {
    const input = await picture(200, 150); // 2 × 2 tiles of 128 pixels
    const progress: ModelProgress[] = [];
    const result = await new EsrganUpscaler(2, { maxInputPixels: 512 * 512 }).generate({ images: [{ data: input, mimeType: 'image/png' }], prompt: 'ignored', signal: new AbortController().signal, onProgress: (p) => progress.push(p) });
    expect(result.model).toBe('esrgan-slim-2x');
    expect(result.text).toBe('Upscaled 2× to 400×300 with ESRGAN (offline super-resolution; the prompt is not used).');
    const meta = await sharp(result.image!.data).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 400, height: 300 });
    expect(progress.map((p) => p.step)).toEqual([1, 2, 3, 4].map((done) => ({ done, total: 4 })));
    // Close to a Lanczos enlargement overall, and along the tile borders (x = 256, y = 256 in the result) too.
    const lanczos = await sharp(input).resize(400, 300, { kernel: 'lanczos3' }).png().toBuffer();
    expect(await meanDifference(result.image!.data, lanczos)).toBeLessThan(12);
    const border = { left: 236, top: 0, width: 40, height: 300 };
    const [ours, theirs] = await Promise.all([result.image!.data, lanczos].map((x) => sharp(x).extract(border).png().toBuffer()));
    expect(await meanDifference(ours, theirs)).toBeLessThan(12);
  });

  it('upscales 4× and keeps an alpha channel', async () => {
    const made = await upscale(await picture(40, 30, true), 4, { maxInputPixels: 512 * 512 });
    expect(made).toMatchObject({ width: 160, height: 120 });
    expect(await sharp(made.png).metadata()).toMatchObject({ width: 160, height: 120, channels: 4, hasAlpha: true });
    const { data } = await sharp(made.png).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    expect(data.some((v) => v > 100 && v < 160)).toBe(true); // the half-transparent background stays half-transparent
  });

  it('refuses an input over its pixel limit as an input problem, before any work', async () => {
    const err = await upscale(await picture(64, 64), 2, { maxInputPixels: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelInputError);
    expect((err as Error).message).toBe('the image is 64 × 64 pixels (4,096); this upscaler takes images of at most 1,000 pixels');
  });
});
