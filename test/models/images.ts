// Small test images made with sharp, and pixel helpers to judge results by statistics.
import sharp from 'sharp';
import type { GenerateRequest, ModelImage } from '../../src/models/image-model.js';

export const png = (data: Buffer): ModelImage => ({ data, mimeType: 'image/png' });

/** A colourful gradient: red grows left to right, green top to bottom, blue fixed. */
export async function gradient(width: number, height: number, blue = 96): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.round((x * 255) / Math.max(1, width - 1));
      raw[i + 1] = Math.round((y * 255) / Math.max(1, height - 1));
      raw[i + 2] = blue;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

export async function solid(width: number, height: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();
}

/** Black and white squares of `cell` px: lots of high-frequency detail for blur/sharpen checks. */
export async function checkerboard(width: number, height: number, cell = 4): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      raw.fill((Math.floor(x / cell) + Math.floor(y / cell)) % 2 ? 255 : 0, (y * width + x) * 3, (y * width + x + 1) * 3);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

export interface Pixels { data: Buffer; width: number; height: number; channels: number }

export async function pixels(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

export function pixelAt(p: Pixels, x: number, y: number): number[] {
  const i = (y * p.width + x) * p.channels;
  return [...p.data.subarray(i, i + p.channels)];
}

/** Mean absolute difference of each channel of two images of one size, and the largest difference of any. */
export function difference(a: Pixels, b: Pixels): { perChannel: number[]; max: number } {
  if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels) throw new Error('images differ in size');
  const sums = new Array<number>(a.channels).fill(0);
  let max = 0;
  for (let i = 0; i < a.data.length; i++) {
    const d = Math.abs(a.data[i] - b.data[i]);
    sums[i % a.channels] += d;
    max = Math.max(max, d);
  }
  return { perChannel: sums.map((s) => s / (a.width * a.height)), max };
}

export async function channelMeans(image: Buffer): Promise<number[]> {
  return (await sharp(image).stats()).channels.map((c) => c.mean);
}

export async function meanStdev(image: Buffer): Promise<number> {
  const { channels } = await sharp(image).stats();
  return channels.slice(0, 3).reduce((a, c) => a + c.stdev, 0) / 3;
}

export function request(images: ModelImage[], prompt: string, signal = new AbortController().signal): GenerateRequest {
  return { images, prompt, signal };
}
