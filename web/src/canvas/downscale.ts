// Makes an image that is over the upload limit small enough, in the browser: decoded (createImageBitmap, its EXIF
// orientation applied), drawn smaller on a canvas (OffscreenCanvas where there is one) and encoded again, until
// the file fits. A photo becomes a JPEG; an image that may be transparent (PNG, WebP, GIF) stays a PNG while that
// fits in a few tries, then becomes a WebP (transparency kept) or, where the browser cannot encode WebP, a JPEG.

/** Tries at most; each shrinks by what the last one missed by, with a margin. */
const MAX_TRIES = 8;
/** Smaller than this a side and the image is not worth sending. */
const MIN_SIDE = 16;
const QUALITY = 0.9;

type Surface = { canvas: OffscreenCanvas | HTMLCanvasElement; encode: (type: string) => Promise<Blob> };

function surface(width: number, height: number): Surface {
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, encode: (type) => canvas.convertToBlob({ type, quality: QUALITY }) };
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return {
    canvas,
    encode: (type) => new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the image could not be encoded'))), type, QUALITY)),
  };
}

async function draw(bitmap: ImageBitmap, scale: number, type: string): Promise<Blob> {
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const { canvas, encode } = surface(width, height);
  const context = canvas.getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
  if (!context) throw new Error('this browser cannot draw images');
  context.imageSmoothingQuality = 'high';
  if (type === 'image/jpeg') {
    // JPEG has no transparency: transparent pixels would turn black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
  }
  context.drawImage(bitmap, 0, 0, width, height);
  return encode(type);
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** The file's name with the extension of `type`. */
const renamed = (name: string, type: string) => `${(name || 'image').replace(/\.[^.]*$/, '')}.${EXTENSIONS[type] ?? 'png'}`;

/** A smaller copy of `file` of at most `maxBytes`; rejects when the browser cannot read it or it will not fit. */
export async function downscaleImage(file: File, maxBytes: number): Promise<File> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error('this browser cannot read the image');
  }
  try {
    const mayBeTransparent = ['image/png', 'image/webp', 'image/gif'].includes(file.type) || /\.(png|webp|gif)$/i.test(file.name);
    let type = mayBeTransparent ? 'image/png' : 'image/jpeg';
    // The first guess: pixels in proportion to bytes, with a margin.
    let scale = Math.min(1, Math.sqrt(maxBytes / file.size) * 0.9);
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      if (Math.min(bitmap.width, bitmap.height) * scale < MIN_SIDE) break;
      const blob = await draw(bitmap, scale, type);
      if (blob.size <= maxBytes) return new File([blob], renamed(file.name, blob.type), { type: blob.type, lastModified: Date.now() });
      if (type === 'image/png' && attempt >= 2) {
        // Still too large as a PNG (a photo saved as PNG): WebP keeps transparency and is far smaller.
        const webp = await draw(bitmap, scale, 'image/webp');
        type = webp.type === 'image/webp' ? 'image/webp' : 'image/jpeg';
        continue;
      }
      scale *= Math.sqrt(maxBytes / blob.size) * 0.9;
    }
    throw new Error('it does not get small enough');
  } finally {
    bitmap.close();
  }
}
