// Malformed input images for the generation tests: a header that declares a huge image, truncated files of
// each common format, and garbage behind a valid header. Each comes with the data URL a client would send.
import { crc32, deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A well-formed PNG header (signature and IHDR, 8-bit RGB) declaring `width`×`height`. */
export function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr)]);
}

/** A PNG with valid chunks and checksums whose header declares `width`×`height` (a few hundred bytes). */
export function pngDeclaring(width: number, height: number): Buffer {
  return Buffer.concat([pngHeader(width, height), pngChunk('IDAT', deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

/** Noise compresses badly, so a cut lands in the middle of the pixel data. */
function noise(width: number, height: number): Sharp {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7919 + (i >> 5) * 104729) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

export interface BadImages {
  hugePng: Buffer;
  hugeJpeg: Buffer;
  truncatedPng: Buffer;
  truncatedJpeg: Buffer;
  truncatedWebp: Buffer;
  truncatedGif: Buffer;
  /** Complete, but with its pixel data overwritten half-way (the chunk's checksum no longer matches). */
  corruptPng: Buffer;
  pngHeaderOnly: Buffer;
  garbageAfterPngHeader: Buffer;
  garbageAfterJpegHeader: Buffer;
  zeroBytes: Buffer;
}

export async function badImages(): Promise<BadImages> {
  const [png, jpeg, webp, gif] = await Promise.all([
    noise(120, 80).png().toBuffer(),
    noise(120, 80).jpeg().toBuffer(),
    noise(120, 80).webp().toBuffer(),
    noise(60, 40).gif().toBuffer(),
  ]);
  const half = (b: Buffer) => b.subarray(0, Math.floor(b.length / 2));
  // JPEG's frame header (SOF0: FF C0, length, precision, height, width) declaring 60000×60000.
  const hugeJpeg = Buffer.from(jpeg);
  const sof = hugeJpeg.indexOf(Buffer.from([0xff, 0xc0]));
  hugeJpeg.writeUInt16BE(60_000, sof + 5);
  hugeJpeg.writeUInt16BE(60_000, sof + 7);
  const jpegHeaderEnd = jpeg.indexOf(Buffer.from([0xff, 0xda])); // start of scan: everything before is header
  return {
    hugePng: pngDeclaring(100_000, 100_000),
    hugeJpeg,
    truncatedPng: half(png),
    truncatedJpeg: half(jpeg),
    truncatedWebp: half(webp),
    truncatedGif: half(gif),
    corruptPng: Buffer.concat([png.subarray(0, png.length >> 1), Buffer.alloc(64, 0x5a), png.subarray((png.length >> 1) + 64)]),
    pngHeaderOnly: pngHeader(120, 80),
    garbageAfterPngHeader: Buffer.concat([pngHeader(120, 80), Buffer.alloc(4000, 0x41)]),
    garbageAfterJpegHeader: Buffer.concat([jpeg.subarray(0, jpegHeaderEnd + 2), Buffer.alloc(4000, 0x41)]),
    zeroBytes: Buffer.alloc(0),
  };
}

export const asDataUrl = (data: Buffer, mime = 'image/png') => `data:${mime};base64,${data.toString('base64')}`;
