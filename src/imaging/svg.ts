// SVG images (docs/api.md "Uploads and stored files"). file-type never detects SVG (it is text), so it is
// recognised here from its first bytes, conservatively; an SVG is never stored as such: it is rasterized to PNG
// with sharp (librsvg), bounded in pixels, bytes and time. librsvg, given a buffer (no base URL), loads no
// external resource: http(s), file: and relative references render as nothing (test/api/upload-svg.test.ts).
import sharp from 'sharp';
import { fileTooLarge, imageTooLarge, invalidImageFile } from '../errors.js';

export const SVG_TYPE = 'image/svg+xml';

/** A rasterization that takes longer is abandoned (a pathological drawing: huge blurs, deep nesting). */
const RASTERIZE_TIMEOUT_SECONDS = 10;

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** The index just past the `>` that ends a DOCTYPE whose body starts at `i`, or -1 when not in `s`. */
function doctypeEnd(s: string, i: number): number {
  let quote: string | undefined;
  let subset = false;
  for (; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' && !subset) subset = true;
    else if (c === ']' && subset) subset = false;
    else if (c === '>' && !subset) return i + 1;
  }
  return -1;
}

/**
 * Whether `head` (a file's first bytes) starts an SVG document: an optional UTF-8 byte order mark and
 * whitespace, an optional XML declaration, comments and at most one DOCTYPE (internal subset included), then an
 * `<svg` root start tag. Anything else is not, however much it mentions `<svg` (HTML, text, an SVG inside
 * something else), nor is an SVG whose root comes after `head` ends.
 */
export function looksLikeSvg(head: Buffer): boolean {
  // Only ASCII structure matters; latin1 maps each byte to one character.
  const s = head.toString('latin1');
  let i = s.startsWith('\xEF\xBB\xBF') ? 3 : 0;
  const skipSpace = () => {
    while (isSpace(s[i])) i++;
  };
  skipSpace();
  if (s.startsWith('<?xml', i) && (isSpace(s[i + 5]) || s[i + 5] === '?')) {
    const end = s.indexOf('?>', i + 5);
    if (end < 0) return false;
    i = end + 2;
  }
  let doctype = false;
  for (;;) {
    skipSpace();
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end < 0) return false;
      i = end + 3;
    } else if (!doctype && s.startsWith('<!DOCTYPE', i) && isSpace(s[i + 9])) {
      i = doctypeEnd(s, i + 9);
      if (i < 0) return false;
      doctype = true;
    } else break;
  }
  const after = s[i + 4];
  return s.startsWith('<svg', i) && (isSpace(after) || after === '>' || after === '/');
}

/** The library's reason, short and without its prefixes (it is about the client's own document). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/bad dimensions/.test(message)) return 'it has no usable width and height (nor viewBox)';
  if (/^timeout/.test(message)) return `rasterizing took longer than ${RASTERIZE_TIMEOUT_SECONDS} seconds`;
  const line = (message.split('\n')[0] ?? '').replace(/^Input buffer has corrupt header: /, '').replace(/^(glib|svgload_buffer): /, '');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || 'unreadable';
}

export interface RasterizeLimits {
  /** Width × height of the image (as the SVG declares it, at the default 72 dpi) at most. */
  maxPixels: number;
  /** The PNG at most (the upload limit). */
  maxBytes: number;
}

/** What drawing an SVG came to (plain data: it crosses from the image workers). */
export type SvgRender =
  | { ok: true; png: Buffer }
  | { ok: false; stage: 'read' | 'rasterize'; reason: string }
  | { ok: false; stage: 'size'; width: number; height: number }
  | { ok: false; stage: 'bytes' };

/**
 * Draws the SVG at its declared size when that is at most `maxPixels` (checked from its header before anything is
 * drawn). The heavy part of `rasterizeSvg`: the image workers run it (src/imaging). A PNG over `maxBytes` is not
 * answered (a small SVG can draw tens of MB of noise; it never crosses to the service's process).
 */
export async function renderSvg(svg: Buffer, maxPixels: number, maxBytes = Infinity): Promise<SvgRender> {
  let width: number;
  let height: number;
  try {
    // Reading the header draws nothing: no pixel limit is needed to learn the declared size.
    ({ width, height } = await sharp(svg, { limitInputPixels: false }).metadata());
  } catch (err) {
    return { ok: false, stage: 'read', reason: reasonOf(err) };
  }
  if (width * height > maxPixels) return { ok: false, stage: 'size', width, height };
  try {
    const png = await sharp(svg, { limitInputPixels: maxPixels }).timeout({ seconds: RASTERIZE_TIMEOUT_SECONDS }).png().toBuffer();
    return png.length > maxBytes ? { ok: false, stage: 'bytes' } : { ok: true, png };
  } catch (err) {
    return { ok: false, stage: 'rasterize', reason: reasonOf(err) };
  }
}

/**
 * The SVG as a PNG of its declared size, drawn by `render` (default: in this process). Refused: an SVG that
 * cannot be read (400 Invalid image), one larger than `maxPixels` (400 Image too large, checked from its header
 * before anything is drawn), a PNG over `maxBytes` (413 File too large).
 */
export async function rasterizeSvg(svg: Buffer, limits: RasterizeLimits, render: typeof renderSvg = renderSvg): Promise<Buffer> {
  const drawn = await render(svg, limits.maxPixels, limits.maxBytes);
  const tooManyBytes = () => fileTooLarge(`the SVG rasterized to PNG is over ${limits.maxBytes} bytes`);
  if (!drawn.ok) {
    if (drawn.stage === 'bytes') throw tooManyBytes();
    if (drawn.stage === 'size') {
      throw imageTooLarge(`the SVG is ${drawn.width}×${drawn.height} pixels; at most ${limits.maxPixels} pixels are rasterized`);
    }
    throw invalidImageFile(`the SVG could not be ${drawn.stage === 'read' ? 'read' : 'rasterized'}: ${drawn.reason}`);
  }
  if (drawn.png.length > limits.maxBytes) throw tooManyBytes();
  return drawn.png;
}
