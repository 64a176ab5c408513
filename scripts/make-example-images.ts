// Draws the two images of the example canvas (src/services/example-canvas.ts) with sharp, from SVG written here:
// our own pictures, no third-party images. Run once after changing a drawing, and commit the PNGs:
//   npx tsx scripts/make-example-images.ts
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';

const SIZE = 320;

/** Hills under a morning sky, with a sun. */
const hills = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 320 320">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7ec8f2"/><stop offset="1" stop-color="#fbe3b4"/></linearGradient>
  </defs>
  <rect width="320" height="320" fill="url(#sky)"/>
  <circle cx="236" cy="92" r="38" fill="#ffd45a"/>
  <path d="M0 220 Q 80 150 170 210 T 320 190 V 320 H 0 Z" fill="#5fa85b"/>
  <path d="M0 260 Q 110 200 210 255 T 320 245 V 320 H 0 Z" fill="#3f8a46"/>
  <path d="M0 300 Q 140 260 320 296 V 320 H 0 Z" fill="#2f6e37"/>
</svg>`;

/** A small boat on a lake at dusk. */
const boat = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 320 320">
  <defs>
    <linearGradient id="dusk" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b3f8f"/><stop offset="1" stop-color="#f08a5d"/></linearGradient>
    <linearGradient id="lake" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2d6f9e"/><stop offset="1" stop-color="#173e63"/></linearGradient>
  </defs>
  <rect width="320" height="190" fill="url(#dusk)"/>
  <rect y="190" width="320" height="130" fill="url(#lake)"/>
  <path d="M110 232 H 220 L 200 256 H 130 Z" fill="#8a4b2a"/>
  <path d="M162 228 V 140 L 212 226 Z" fill="#f4efe6"/>
  <path d="M158 228 V 160 L 122 226 Z" fill="#e2d9c8"/>
  <path d="M40 278 H 100 M 220 292 H 290 M 120 300 H 170" stroke="#6fa7cf" stroke-width="3" stroke-linecap="round"/>
</svg>`;

const out = new URL('../src/assets/example-canvas/', import.meta.url);
for (const [name, svg] of [['hills.png', hills], ['boat.png', boat]] as const) {
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9, palette: true, quality: 90 }).toBuffer();
  await writeFile(new URL(name, out), png);
  console.log(`${name}: ${png.length} bytes`);
}
