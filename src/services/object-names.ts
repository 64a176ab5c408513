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
