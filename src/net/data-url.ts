import { ImageFetchError } from './errors.js';

export { isDataUrl } from './data-scheme.js';

const HEADER = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+);base64$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes `data:<mime>;base64,<data>`; the size is judged from the encoded length before decoding. */
export function decodeDataUrl(url: string, maxBytes: number): Buffer {
  // A data URL can be megabytes long: never echo it whole in an error.
  const shown = url.length > 64 ? `${url.slice(0, 64)}…` : url;
  const refuse = (reason: string) => new ImageFetchError(shown, reason);
  const comma = url.indexOf(',');
  if (comma < 0 || comma > 256 || !HEADER.test(url.slice(0, comma))) throw refuse('malformed data URL');
  const encodedLength = url.length - comma - 1;
  if (Math.floor((encodedLength * 3) / 4) - 2 > maxBytes) throw refuse('too large');
  const data = url.slice(comma + 1);
  if (data.length === 0) throw refuse('empty data URL');
  if (!BASE64.test(data) || data.length % 4 === 1) throw refuse('malformed data URL');
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if (padding > 0 && data.length % 4 !== 0) throw refuse('malformed data URL');
  if (Math.floor((data.length * 3) / 4) - padding > maxBytes) throw refuse('too large');
  return Buffer.from(data, 'base64');
}
