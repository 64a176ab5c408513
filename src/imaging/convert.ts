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
