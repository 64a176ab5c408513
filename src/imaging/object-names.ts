// Names of stored objects: `<timestamp>-<random>-<safe name>`, so that a stored object is never overwritten.
// The random part makes two uploads of one name in the same millisecond distinct; the safe part keeps only
// [A-Za-z0-9._-]. (Images stored from data: URLs are named by their content instead: ./uploads.ts.)
import { randomBytes } from 'node:crypto';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/heic': 'heic',
  'image/heif': 'heif',
};

/** Raster image types we store (detected from the bytes, never taken from the client). */
export const ACCEPTED_IMAGE_TYPES = new Set(Object.keys(EXTENSIONS));

/**
 * What an upload may be, as people know the types: each accepted type (detected from the bytes), its usual name
 * and the file extensions it comes with. SVG is accepted too, and stored as the PNG it draws (./svg.ts). The web
 * client reads this list (GET /api/client-config) to say which files it takes before sending one.
 */
export const UPLOAD_TYPES: ReadonlyArray<{ type: string; name: string; extensions: string[] }> = Object.freeze([
  { type: 'image/png', name: 'PNG', extensions: ['png'] },
  { type: 'image/jpeg', name: 'JPEG', extensions: ['jpg', 'jpeg', 'jfif'] },
  { type: 'image/webp', name: 'WebP', extensions: ['webp'] },
  { type: 'image/gif', name: 'GIF', extensions: ['gif'] },
  { type: 'image/avif', name: 'AVIF', extensions: ['avif'] },
  { type: 'image/heic', name: 'HEIC', extensions: ['heic'] },
  { type: 'image/heif', name: 'HEIF', extensions: ['heif'] },
  { type: 'image/bmp', name: 'BMP', extensions: ['bmp'] },
  { type: 'image/tiff', name: 'TIFF', extensions: ['tif', 'tiff'] },
  { type: 'image/svg+xml', name: 'SVG', extensions: ['svg'] },
]);

/** The file extension of a stored type (`bin` for one we do not store). */
export const extensionOf = (contentType: string): string => EXTENSIONS[contentType] ?? 'bin';

/**
 * The original name made safe: no folders, no control or non-ASCII characters, at most 100 characters, and
 * the extension replaced by the one of the detected type (a PNG named `x.svg` is stored as `x.png`).
 */
export function safeFileName(original: string, contentType: string): string {
  const base = original.split(/[\\/]/).pop() ?? '';
  const stem = base
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/^[.]+/, '');
  const ext = extensionOf(contentType);
  return `${(stem || 'image').slice(0, 100 - ext.length - 1)}.${ext}`;
}

export const uniquePrefix = (now = Date.now()) => `${now}-${randomBytes(6).toString('hex')}`;
