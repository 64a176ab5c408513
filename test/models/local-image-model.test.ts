import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ModelFailedError, ModelPromptError } from '../../src/models/image-model.js';
import { createImageModel } from '../../src/models/index.js';
import { DEFAULT_OFFLINE_LIMITS, LocalImageModel } from '../../src/models/local-image-model.js';
import { parsePrompt, PROMPT_HINTS, readPrompt } from '../../src/models/local-operations.js';
import { EXAMPLE_PROMPT } from '../../src/services/example-canvas.js';
import { channelMeans, checkerboard, difference, gradient, meanStdev, pixelAt, pixels, png, request, solid } from './images.js';

const model = new LocalImageModel();
let grad: Buffer; // 100×80 gradient

beforeAll(async () => {
  grad = await gradient(100, 80);
});

async function runWith(engine: LocalImageModel, prompt: string, inputs: Buffer[]) {
  const result = await engine.generate(request((inputs.length ? inputs : [grad]).map(png), prompt));
  expect(result.image?.mimeType).toBe('image/png');
  const meta = await sharp(result.image!.data).metadata();
  expect(meta.format).toBe('png');
  return { ...result, text: result.text ?? '', data: result.image!.data, width: meta.width, height: meta.height };
}

const run = (prompt: string, ...inputs: Buffer[]) => runWith(model, prompt, inputs);

describe('local image engine: single-image operations', () => {
  it('grayscale makes every pixel\'s channels equal', async () => {
    const out = await run('Make it grayscale please');
    const p = await pixels(out.data);
    for (let i = 0; i < p.data.length; i += p.channels) {
      expect(p.data[i]).toBe(p.data[i + 1]);
      expect(p.data[i + 1]).toBe(p.data[i + 2]);
    }
    expect(out.text).toBe('Offline image engine (not an AI model): applied grayscale.');
  });

  it('accepts greyscale, black and white and b&w too', async () => {
    for (const prompt of ['greyscale', 'Black and White', 'B&W']) {
      expect(parsePrompt(prompt)).toEqual([{ kind: 'grayscale' }]);
    }
  });

  it('invert gives channel means of about 255 minus the original', async () => {
    const before = await channelMeans(grad);
    const after = await channelMeans((await run('invert the colours')).data);
    for (let c = 0; c < 3; c++) expect(after[c]).toBeCloseTo(255 - before[c], 0);
  });

  it('sepia gives r >= g >= b on every pixel', async () => {
    const p = await pixels((await run('sepia')).data);
    for (let i = 0; i < p.data.length; i += p.channels) {
      expect(p.data[i]).toBeGreaterThanOrEqual(p.data[i + 1]);
      expect(p.data[i + 1]).toBeGreaterThanOrEqual(p.data[i + 2]);
    }
  });

  it('rotate 90 swaps width and height; "rotate" alone is 90', async () => {
    expect(await run('rotate 90 degrees')).toMatchObject({ width: 80, height: 100 });
    expect(await run('rotate it')).toMatchObject({ width: 80, height: 100, text: expect.stringContaining('rotate 90°') });
  });

  it('mirror flips left-right and flip flips top-bottom', async () => {
    const src = await pixels(grad);
    const mirrored = await pixels((await run('mirror')).data);
    expect(pixelAt(mirrored, 0, 10)).toEqual(pixelAt(src, 99, 10));
    const flipped = await pixels((await run('flip')).data);
    expect(pixelAt(flipped, 10, 0)).toEqual(pixelAt(src, 10, 79));
    const horizontal = await pixels((await run('flip horizontally')).data);
    expect(pixelAt(horizontal, 0, 10)).toEqual(pixelAt(src, 99, 10));
  });

  it('tint red raises the red mean and lowers blue', async () => {
    const [r0, , b0] = await channelMeans(grad);
    const [r1, , b1] = await channelMeans((await run('tint red')).data);
    expect(r1).toBeGreaterThan(r0 + 10);
    expect(b1).toBeLessThan(b0);
  });

  it('tint accepts #rrggbb', async () => {
    const [r0, g0] = await channelMeans(grad);
    const out = await run('tint #00ff00');
    const [r1, g1] = await channelMeans(out.data);
    expect(g1).toBeGreaterThan(g0);
    expect(r1).toBeLessThan(r0);
    expect(out.text).toContain('tint #00ff00');
  });

  it('blur lowers the standard deviation; sharpen raises it', async () => {
    const board = await checkerboard(64, 64);
    const before = await meanStdev(board);
    expect(await meanStdev((await run('blur 3', board)).data)).toBeLessThan(before * 0.8);
    const soft = (await run('blur 1', grad)).data;
    expect(await meanStdev((await run('sharpen', soft)).data)).toBeGreaterThan(await meanStdev(soft));
  });

  it('brighten, darken and contrast move the statistics the right way', async () => {
    const mean = async (b: Buffer) => (await channelMeans(b)).slice(0, 3).reduce((a, m) => a + m, 0) / 3;
    const m0 = await mean(grad);
    expect(await mean((await run('brighten')).data)).toBeGreaterThan(m0);
    expect(await mean((await run('darker')).data)).toBeLessThan(m0);
    expect(await meanStdev((await run('more contrast')).data)).toBeGreaterThan(await meanStdev(grad));
  });

  it('resize to 64 bounds the longest side; NxM and percentages work', async () => {
    expect(await run('resize to 64')).toMatchObject({ width: 64, height: 51 });
    expect(await run('resize to 30x20')).toMatchObject({ width: 30, height: 20 });
    expect(await run('scale by 50%')).toMatchObject({ width: 50, height: 40 });
  });

  it('square crop keeps the centre square', async () => {
    expect(await run('square crop')).toMatchObject({ width: 80, height: 80 });
    expect(await run('crop it to a square')).toMatchObject({ width: 80, height: 80 });
  });

  it('caps a huge resize at the maximum side', async () => {
    const out = await run('resize to 100000', await solid(20, 10, '#336699'));
    expect(Math.max(out.width, out.height)).toBe(DEFAULT_OFFLINE_LIMITS.maxSide);
    const scaled = await run('scale by 100000%', await solid(20, 10, '#336699'));
    expect(Math.max(scaled.width, scaled.height)).toBeLessThanOrEqual(DEFAULT_OFFLINE_LIMITS.maxSide);
  });
});

describe('local image engine: several images', () => {
  it('side by side of two 100×80 images is 200×80, in input order', async () => {
    const red = await solid(100, 80, '#ff0000');
    const blue = await solid(100, 80, '#0000ff');
    const out = await run('put them side by side', red, blue);
    expect(out).toMatchObject({ width: 200, height: 80 });
    const p = await pixels(out.data);
    expect(pixelAt(p, 10, 40).slice(0, 3)).toEqual([255, 0, 0]);
    expect(pixelAt(p, 190, 40).slice(0, 3)).toEqual([0, 0, 255]);
    expect(out.text).toBe('Offline image engine (not an AI model): applied side by side (2 images).');
  });

  it('side by side normalises heights to the smallest', async () => {
    const out = await run('side by side', await solid(100, 80, 'red'), await solid(50, 40, 'blue'));
    expect(out).toMatchObject({ width: 100, height: 40 });
  });

  it('stack puts images vertically', async () => {
    const out = await run('stack them vertically', await solid(100, 80, 'red'), await solid(100, 80, 'blue'));
    expect(out).toMatchObject({ width: 100, height: 160 });
  });

  it('a grid of 4 is 2×2; a grid of 3 leaves a transparent cell', async () => {
    const colours = ['red', 'green', 'blue', 'yellow'];
    const four = await Promise.all(colours.map((c) => solid(100, 80, c)));
    const grid = await run('make a grid', ...four);
    expect(grid).toMatchObject({ width: 200, height: 160, text: expect.stringContaining('grid 2×2 (4 images)') });
    const p = await pixels(grid.data);
    expect(pixelAt(p, 150, 120).slice(0, 3)).toEqual([255, 255, 0]);
    const three = await run('grid', ...four.slice(0, 3));
    const p3 = await pixels(three.data);
    expect(p3.channels).toBe(4);
    expect(pixelAt(p3, 150, 120)[3]).toBe(0);
  });

  it('defaults to side by side, after the per-image operations', async () => {
    const out = await run('grayscale', grad, grad);
    expect(out).toMatchObject({ width: 200, height: 80 });
    expect(out.text).toBe('Offline image engine (not an AI model): applied grayscale, side by side (2 images).');
  });

  it('applies operations before the layout word to each image, after it to the combination', async () => {
    expect(await run('rotate 90 then side by side', grad, grad)).toMatchObject({ width: 160, height: 100 });
    expect(await run('side by side, then rotate 90', grad, grad)).toMatchObject({ width: 80, height: 200 });
  });
});

describe('local image engine: text, determinism, limits', () => {
  it('lists the operations it applied in prompt order', async () => {
    const out = await run('First sepia, then blur 2, then mirror it, rotate 180 and resize to 50');
    expect(out.text).toBe(
      'Offline image engine (not an AI model): applied sepia, blur 2, mirror (horizontal), rotate 180°, resize to max 50 px.',
    );
  });

  it('is deterministic: the same inputs and prompt give identical bytes', async () => {
    const prompt = 'sepia, blur 2, rotate 33, tint purple, side by side, more contrast';
    const a = await run(prompt, grad, await solid(60, 60, 'orange'));
    const b = await run(prompt, grad, await solid(60, 60, 'orange'));
    expect(a.data.equals(b.data)).toBe(true);
  });

  it('fails a prompt it can do nothing with, naming what it understands, and never answers the input unchanged', async () => {
    // Before: "watercolor tiger" answered the input unchanged, as a success.
    const refused = model.generate(request([png(grad)], 'watercolor tiger'));
    await expect(refused).rejects.toBeInstanceOf(ModelPromptError);
    await expect(refused).rejects.toMatchObject({
      problem: 'the offline engine is not an AI model and did not understand “watercolor tiger”',
      understands: expect.stringMatching(/^It understands: grayscale \(black and white, b&w\), sepia, .*side by side, stack \(vertically\), grid\.$/),
    });
    // Only a layout, with one image: nothing it can do either.
    await expect(model.generate(request([png(grad)], 'put them side by side'))).rejects.toMatchObject({
      name: 'ModelPromptError',
      problem: expect.stringMatching(/^“side by side” arranges several images, and there is one/),
    });
    // Checked before any input is read: an unreadable input does not hide it.
    await expect(model.generate(request([png(Buffer.from('not an image'))], 'tiger'))).rejects.toBeInstanceOf(ModelPromptError);
    // A long prompt is quoted shortened.
    const long = await model.generate(request([png(grad)], 'a '.repeat(10) + 'x'.repeat(200))).catch((err: ModelPromptError) => err);
    expect((long as ModelPromptError).problem).toMatch(/“a a a a a a a a a a x+…”$/);
  });

  it('with several images and nothing recognised, combines them by default and says what it ignored', async () => {
    const combined = await run('something artistic', grad, grad);
    expect(combined).toMatchObject({ width: 200, height: 80 });
    expect(combined.text).toMatch(/^Offline image engine \(not an AI model\): no operation was recognised in the prompt, so the images were combined side by side \(2 images\) by default\. Not understood, so ignored: “something artistic”\. Words it understands: grayscale/);
  });

  it('a partly understood prompt succeeds and says what was applied and what was ignored', async () => {
    const out = await run('Watercolor tiger, grayscale and then a van Gogh sky, blur 2 please');
    expect(out.text).toBe('Offline image engine (not an AI model): applied grayscale, blur 2. Not understood, so ignored: “Watercolor tiger”, “van Gogh sky”.');
    // A layout of one image is skipped, and the text says so.
    const one = await run('sepia side by side');
    expect(one.text).toBe('Offline image engine (not an AI model): applied sepia. “side by side” was skipped: it arranges several images, and there is one.');
  });

  it('reads which parts of a prompt are no operation, leaving out filler words at their ends', () => {
    expect(readPrompt('Make it grayscale please')).toEqual({ ops: [{ kind: 'grayscale' }], ignored: [] });
    expect(readPrompt('watercolor tiger')).toEqual({ ops: [], ignored: ['watercolor tiger'] });
    expect(readPrompt('make it look like a Van Gogh painting, then mirror it')).toEqual({ ops: [{ kind: 'mirror' }], ignored: ['look like a Van Gogh painting'] });
    expect(readPrompt('First sepia, then blur 2, then mirror it, rotate 180 and resize to 50').ignored).toEqual([]);
    for (const hint of PROMPT_HINTS) expect(readPrompt(hint).ignored, hint).toEqual([]);
    // The example canvas's prompt, whole: nothing of it is said to be ignored.
    expect(readPrompt(EXAMPLE_PROMPT)).toEqual({ ops: [{ kind: 'layout', layout: 'side-by-side' }, { kind: 'sepia' }], ignored: [] });
  });

  it('offers prompt hints that are each one distinct operation it recognises', () => {
    const kinds = PROMPT_HINTS.map((hint) => {
      const ops = parsePrompt(hint);
      expect(ops, hint).toHaveLength(1);
      return JSON.stringify(ops[0]);
    });
    expect(new Set(kinds).size).toBe(PROMPT_HINTS.length);
  });

  it('does not mistake words inside other words', () => {
    expect(parsePrompt('grayscale')).toEqual([{ kind: 'grayscale' }]);
    expect(parsePrompt('flip it vertically then stack them vertically')).toEqual([
      { kind: 'flip' },
      { kind: 'layout', layout: 'stack' },
    ]);
    expect(parsePrompt('a warm red tint and scale to 300 by 200')).toEqual([
      { kind: 'tint', colour: [255, 0, 0], name: 'red' },
      { kind: 'resize-exact', width: 300, height: 200 },
    ]);
    expect(parsePrompt('tint it slightly')).toEqual([]);
  });

  it('keeps transparency of RGBA inputs and drops the alpha band for opaque ones', async () => {
    const rgba = await sharp({ create: { width: 10, height: 10, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toBuffer();
    expect((await pixels((await run('invert', rgba)).data)).channels).toBe(4);
    expect((await pixels((await run('invert')).data)).channels).toBe(3);
  });

  it('reads JPEG inputs and refuses bytes that are not an image', async () => {
    const jpeg = await sharp(grad).jpeg().toBuffer();
    const out = await model.generate(request([{ data: jpeg, mimeType: 'image/jpeg' }], 'mirror'));
    expect(out.image?.mimeType).toBe('image/png');
    // An input it cannot decode is the request's fault (400 naming the input), not the engine's.
    await expect(model.generate(request([png(grad), png(Buffer.from('not an image'))], 'mirror'))).rejects.toMatchObject({ name: 'ModelInputError', index: 1 });
  });

  it('stops when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(model.generate(request([png(grad)], 'blur', controller.signal))).rejects.toBeInstanceOf(ModelFailedError);
  });
});

describe('local image engine: what a prompt can ask of it is bounded', () => {
  const PREFIX = 'Offline image engine (not an AI model)';

  it('an abusive request (ten 4096² inputs, "blur 100" thirty times) stays within the limits', async () => {
    const { maxOperations, maxBlur, maxSide, workingPixels } = DEFAULT_OFFLINE_LIMITS;
    const flat = await solid(4096, 4096, '#336699');
    const rssBefore = process.memoryUsage().rss;
    let rssGrowth = 0;
    const sampler = setInterval(() => { rssGrowth = Math.max(rssGrowth, process.memoryUsage().rss - rssBefore); }, 10);
    const out = await run('blur 100 '.repeat(30), ...Array.from({ length: 10 }, () => flat)).finally(() => clearInterval(sampler));
    expect(Math.max(out.width, out.height)).toBeLessThanOrEqual(maxSide);
    expect(out.width * out.height).toBeLessThanOrEqual(workingPixels);
    expect(out.text.match(/blur 100 \(limited to 50\)/g)).toHaveLength(maxOperations);
    expect(maxBlur).toBe(50);
    expect(out.text).toContain('side by side (10 images) (20 further operations ignored: the engine applies at most 10).');
    expect(out.text).toMatch(/ The inputs were scaled down to fit the engine's 16\.8-megapixel working budget\.$/);
    // Without the working budget, every step held ten 4096² RGBA images: the process peaked at 2.5 GB (~0.3 GB now).
    expect(rssGrowth).toBeLessThan(1024 ** 3);
  });

  it('honours custom limits: operations, blur, working pixels (shared in proportion) and side', async () => {
    const small = new LocalImageModel({ maxSide: 256, workingPixels: 100 * 100, maxOperations: 2, maxBlur: 5 });
    const one = await runWith(small, 'blur 9, mirror and grayscale', [await gradient(400, 300)]);
    // 120,000 px scaled by √(10,000 / 120,000), rounded down: the aspect ratio is kept.
    expect(one).toMatchObject({ width: 115, height: 86 });
    expect(one.text).toBe(
      `${PREFIX}: applied blur 9 (limited to 5), mirror (horizontal) (1 further operation ignored: the engine applies at most 2).` +
        " The input was scaled down to fit the engine's 10000-pixel working budget.",
    );
    // Two inputs of 20,000 and 10,000 px share the budget in proportion: both are scaled by √(1/3).
    const two = await runWith(small, 'side by side', [await solid(200, 100, 'red'), await solid(100, 100, 'blue')]);
    expect(two).toMatchObject({ width: 115 + 57, height: 57 });
    // A step may not take the images past the budget either, nor an image past the side.
    const resized = await runWith(small, 'resize to 1000', [await solid(40, 30, 'red')]);
    expect(resized).toMatchObject({ width: 115, height: 86 });
    expect(resized.text).toBe(`${PREFIX}: applied resize to max 1000 px (scaled down to fit the 10000-pixel working budget).`);
    const rotated = await runWith(small, 'rotate 45', [await solid(100, 100, 'red')]);
    expect(rotated.width * rotated.height).toBeLessThanOrEqual(100 * 100);
    const wide = await runWith(small, 'side by side', Array.from({ length: 10 }, () => grad));
    expect(wide.width).toBeLessThanOrEqual(256);
    expect(wide.width * wide.height).toBeLessThanOrEqual(100 * 100);
  });

  it('keeps every step within the working budget: ten small inputs resized to 4096', async () => {
    const { workingPixels } = DEFAULT_OFFLINE_LIMITS;
    const tiny = await solid(20, 10, 'red');
    const out = await run('resize to 4096 and stack them', ...Array.from({ length: 10 }, () => tiny));
    expect(out.text).toBe(
      `${PREFIX}: applied resize to max 4096 px (scaled down to fit the 16.8-megapixel working budget), stack (10 images).`,
    );
    expect(out.width * out.height).toBeLessThanOrEqual(workingPixels);
  });

  it('createImageModel passes the limits on to the offline engine', async () => {
    const local = await createImageModel({ model: 'local', timeoutMs: 5000, offline: { maxOperations: 1 } });
    const out = await local.generate(request([png(grad)], 'mirror and flip'));
    expect(out.text).toBe(`${PREFIX}: applied mirror (horizontal) (1 further operation ignored: the engine applies at most 1).`);
  });

  it('a large blur, run on a shrunk copy, looks like a direct blur of the whole image', async () => {
    // Sharp black and white edges: the hardest case for a blur made at a lower resolution.
    const board = await checkerboard(2048, 2048, 256);
    const engine = new LocalImageModel({ maxBlur: 100 });
    for (const sigma of [50, 100]) {
      const out = await runWith(engine, `blur ${sigma}`, [board]);
      const direct = await sharp(board).blur(sigma).png().toBuffer();
      const { perChannel, max } = difference(await pixels(out.data), await pixels(direct));
      // Measured here: 0.8–0.9 of 255 on average per channel, 6 at most on one pixel (4096²: ~1.1 and 6).
      for (const mean of perChannel) expect(mean).toBeLessThan(1.5);
      expect(max).toBeLessThanOrEqual(10);
    }
  });
});
