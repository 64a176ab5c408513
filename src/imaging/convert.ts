// Small image conversions shared by the service and its image workers (./worker.ts).
import sharp from 'sharp';

/** Bytes that crossed processes arrive as a Uint8Array (structured clone); sharp and the engine take Buffers. */
export const asBuffer = (data: Uint8Array): Buffer => (Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));

/** The image as PNG, or undefined when it cannot be read. */
export async function toPng(data: Buffer): Promise<Buffer | undefined> {
  try {
    return await sharp(data).png().toBuffer();
  } catch {
    return undefined;
  }
}

/** The longest side of a preview (a model's partial image as a job and its node show it). */
export const PREVIEW_SIZE = 256;

/** A preview of the image: at most PREVIEW_SIZE pixels a side, as a `data:image/webp;base64,…` URL; undefined when it cannot be read. */
export async function toPreview(data: Buffer): Promise<string | undefined> {
  try {
    const webp = await sharp(data, { limitInputPixels: 64_000_000 })
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 60 })
      .toBuffer();
    return `data:image/webp;base64,${webp.toString('base64')}`;
  } catch {
    return undefined;
  }
}
