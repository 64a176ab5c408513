// Drawing a canvas thumbnail (src/services/thumbnails.ts lays it out): a PNG of the nodes' boxes and the edges
// between them, drawn from SVG, with each box's image (when one was read) scaled to cover it. An image that
// cannot be decoded leaves its box as a plain box. Runs in the image workers (./worker.ts).
import sharp, { type OverlayOptions } from 'sharp';

export interface ThumbnailBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** `runs`: a node whose kind runs (a generation, …), drawn tinted; `plain`: any other. */
  look: 'plain' | 'runs';
  /** Index into the images passed with the plan: the box is covered by that image. */
  image?: number;
}

export interface ThumbnailLine {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** What to draw, in thumbnail pixels. */
export interface ThumbnailPlan {
  width: number;
  height: number;
  boxes: ThumbnailBox[];
  lines: ThumbnailLine[];
  /** Pixels an image may declare before decoding; larger ones are left as boxes. */
  maxImagePixels: number;
}

const BACKGROUND = '#eef0f5';
const STYLE: Record<ThumbnailBox['look'], { fill: string; stroke: string }> = {
  plain: { fill: '#ffffff', stroke: '#b9bfcf' },
  runs: { fill: '#e3e6ff', stroke: '#7c83e6' },
};
const EDGE = '#8b91a5';

const n = (v: number) => (Math.round(v * 10) / 10).toString();

function svgOf(plan: ThumbnailPlan): string {
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${plan.width}" height="${plan.height}">`, `<rect width="100%" height="100%" fill="${BACKGROUND}"/>`];
  if (plan.boxes.length === 0) {
    // The empty canvas: a dashed frame where nodes would be.
    const inset = Math.round(Math.min(plan.width, plan.height) * 0.2);
    parts.push(
      `<rect x="${inset}" y="${inset}" width="${plan.width - 2 * inset}" height="${plan.height - 2 * inset}" rx="8" fill="none" stroke="#c3c8d6" stroke-width="2" stroke-dasharray="6 5"/>`,
    );
  }
  for (const l of plan.lines) parts.push(`<line x1="${n(l.x1)}" y1="${n(l.y1)}" x2="${n(l.x2)}" y2="${n(l.y2)}" stroke="${EDGE}" stroke-width="1.5"/>`);
  for (const b of plan.boxes) {
    const { fill, stroke } = STYLE[b.look];
    const r = Math.min(4, b.width / 4, b.height / 4);
    parts.push(`<rect x="${n(b.x)}" y="${n(b.y)}" width="${n(b.width)}" height="${n(b.height)}" rx="${n(r)}" fill="${fill}" stroke="${stroke}" stroke-width="1"/>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The image scaled to cover a box of `width` × `height` pixels, or null when it cannot be read. */
async function cover(data: Uint8Array, width: number, height: number, maxPixels: number): Promise<Buffer | null> {
  try {
    return await sharp(data, { limitInputPixels: maxPixels, failOn: 'error' }).rotate().resize(width, height, { fit: 'cover' }).png().toBuffer();
  } catch {
    return null;
  }
}

/** The thumbnail as PNG. */
export async function drawThumbnail(plan: ThumbnailPlan, images: readonly Uint8Array[]): Promise<Buffer> {
  const overlays: OverlayOptions[] = [];
  for (const box of plan.boxes) {
    const data = box.image === undefined ? undefined : images[box.image];
    if (!data) continue;
    // Inside the box's border, within the thumbnail.
    const left = Math.max(0, Math.ceil(box.x + 1));
    const top = Math.max(0, Math.ceil(box.y + 1));
    const width = Math.min(plan.width - left, Math.floor(box.x + box.width - 1) - left);
    const height = Math.min(plan.height - top, Math.floor(box.y + box.height - 1) - top);
    if (width < 2 || height < 2) continue;
    const input = await cover(data, width, height, plan.maxImagePixels);
    if (input) overlays.push({ input, left, top });
  }
  const base = sharp(Buffer.from(svgOf(plan)));
  return (overlays.length > 0 ? sharp(await base.png().toBuffer()).composite(overlays) : base).png({ compressionLevel: 6 }).toBuffer();
}
