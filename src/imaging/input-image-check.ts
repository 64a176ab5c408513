// What an input image of a generation must pass before any model sees it (docs/api.md "Image generation"): its
// header declares at most INPUT_IMAGE_MAX_PIXELS, and its data decodes to the end. The header comes first (sharp's
// metadata reads only the header), so a file declaring 100000×100000 pixels is refused without decoding
// anything. The decode then runs under the same pixel limit, streaming into a small thumbnail (JPEG and WebP
// shrink while decoding), so its cost is bounded by the limit (measured: a 40-megapixel PNG ~0.1 s, JPEG ~0.2 s,
// WebP ~1.3 s on one core). Warnings (an odd colour profile, bytes after the end) do not refuse an image.
// The generation service reads every input's header first (the per-input limit and the total of one request),
// then decodes them in the image workers (src/imaging), off the process that serves requests.
import sharp, { type Metadata } from 'sharp';

/** This build of sharp (libvips) has no BMP decoder: such inputs go to the model as they are. */
const NOT_DECODABLE = new Set(['image/bmp']);
const THUMBNAIL_SIDE = 32;

/** What an input's header declares: its size (one frame), or the problem that makes it unusable. */
export type InputHeader =
  | { problem: string }
  | {
      width: number;
      /** One frame's height (an animation's frames are decoded one at a time). */
      frameHeight: number;
      /** False for formats this build cannot decode (BMP, HEVC HEIC): they go to the model as they are. */
      decodable: boolean;
    };

/** Reads only the header of `data` (of the detected type `mimeType`): cheap, nothing is decoded. */
export async function readInputHeader(data: Buffer, mimeType: string): Promise<InputHeader> {
  if (NOT_DECODABLE.has(mimeType)) return { width: 0, frameHeight: 0, decodable: false };
  let header: Metadata;
  try {
    header = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    return { problem: unreadable(data, mimeType) };
  }
  const { width, height } = header;
  if (!width || !height) return { problem: unreadable(data, mimeType) };
  // HEIC (HEVC) has no decoder in this build either; its header was read, the model decodes it.
  const decodable = !(header.format === 'heif' && header.compression !== 'av1');
  return { width, frameHeight: header.pageHeight ?? height, decodable };
}

/** The problem of an input whose header declares more than `maxPixels`, worded to follow `Invalid image: `. */
export function pixelProblem(header: { width: number; frameHeight: number }, maxPixels: number): string | undefined {
  const { width, frameHeight } = header;
  return width * frameHeight > maxPixels ? `${width}×${frameHeight} is more than the ${maxPixels}-pixel limit` : undefined;
}

/**
 * Decodes `data` to the end under the pixel limit (the heavy part: run in the image workers); the problem,
 * worded to follow `Invalid image: `, or undefined when it decodes.
 */
export async function decodeProblem(data: Buffer, mimeType: string, maxPixels: number): Promise<string | undefined> {
  try {
    await sharp(data, { failOn: 'error', limitInputPixels: maxPixels, sequentialRead: true })
      .resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch {
    return unreadable(data, mimeType);
  }
  return undefined;
}

const PNG_END = Buffer.from('0000000049454e44ae426082', 'hex'); // the IEND chunk: length 0, type, CRC
const JPEG_END = Buffer.from([0xff, 0xd9]); // EOI
const GIF_END = 0x3b; // trailer

/**
 * Why a file that does not decode cannot be read: "truncated" when the file ends before its format's end marker
 * (PNG's IEND chunk, JPEG's EOI, GIF's trailer, the size WebP's RIFF header declares), else "corrupt".
 */
function unreadable(data: Buffer, mimeType: string): string {
  return endsEarly(data, mimeType) ? 'the image is truncated' : 'the image is corrupt';
}

function endsEarly(data: Buffer, mimeType: string): boolean {
  switch (mimeType) {
    case 'image/png':
      return !data.includes(PNG_END);
    case 'image/jpeg':
      return !data.subarray(-2).equals(JPEG_END);
    case 'image/gif':
      return data[data.length - 1] !== GIF_END;
    case 'image/webp':
      return data.length < 12 || data.readUInt32LE(4) + 8 > data.length;
    default:
      return false;
  }
}
