// `npm run bench:upscale`: the offline ESRGAN upscaler (src/models/esrgan-upscaler.ts) in this process, against a
// plain Lanczos enlargement by sharp of the same image measured in the same run (the baseline). Prints one table:
// median and slowest of BENCH_UPSCALE_RUNS runs (default 3) after one warm-up run per case (the warm-up loads
// TensorFlow.js and the model).
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { upscale, type UpscaleFactor } from '../src/models/esrgan-upscaler.js';

const runs = Math.max(1, Number(process.env.BENCH_UPSCALE_RUNS ?? 3));

/** A photo-like test picture: a gradient with noise and a few shapes. */
async function picture(size: number): Promise<Buffer> {
  const noise = Buffer.alloc(size * size * 3);
  for (let p = 0; p < noise.length; p++) noise[p] = ((p % (size * 3)) / (size / 60) + ((p * 7919) % 29)) & 0xff;
  const shapes = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#e63946"/><rect x="${size / 8}" y="${size / 8}" width="${size / 3}" height="${size / 12}" fill="#fff"/></svg>`);
  return sharp(noise, { raw: { width: size, height: size, channels: 3 } }).composite([{ input: shapes }]).png().toBuffer();
}

async function time(fn: () => Promise<unknown>): Promise<{ median: number; max: number }> {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
}

const cases: Array<{ size: number; scale: UpscaleFactor }> = [
  { size: 256, scale: 4 },
  { size: 512, scale: 2 },
];
const rows: string[][] = [];
for (const { size, scale } of cases) {
  const input = await picture(size);
  const out = size * scale;
  const lanczos = await time(() => sharp(input).resize(out, out, { kernel: 'lanczos3' }).png().toBuffer());
  const esrgan = await time(() => upscale(input, scale, { maxInputPixels: size * size }));
  rows.push([`Lanczos (sharp) ${size}→${out}`, lanczos.median.toFixed(0), lanczos.max.toFixed(0), 'baseline']);
  rows.push([`ESRGAN ${scale}× ${size}→${out} (${Math.ceil(size / 128) ** 2} tiles)`, esrgan.median.toFixed(0), esrgan.max.toFixed(0), `${(esrgan.median / lanczos.median).toFixed(0)}× the baseline's time`]);
}
const header = ['case', 'median ms', 'max ms', 'ratio'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (c: string[]) => `| ${c.map((v, i) => (i === 1 || i === 2 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
console.log([line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
console.log(`${runs} run(s) per case after a warm-up; TensorFlow.js WebAssembly backend, one process.`);
