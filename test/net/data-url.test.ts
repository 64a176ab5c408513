import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeDataUrl, ImageFetchError } from '../../src/net/safe-fetch.js';

// A 1×1 PNG.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ImageFetchError);
    return err as ImageFetchError;
  }
  throw new Error('expected a refusal');
};

describe('decodeDataUrl', () => {
  afterEach(() => vi.restoreAllMocks());

  it('decodes a PNG data URL byte for byte', () => {
    const data = decodeDataUrl(`data:image/png;base64,${PNG_BASE64}`, 1024);
    expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(data.toString('base64')).toBe(PNG_BASE64);
  });

  it('accepts unpadded base64 and an upper-case prefix', () => {
    expect(decodeDataUrl('DATA:image/jpeg;BASE64,AAEC', 3)).toEqual(Buffer.from([0, 1, 2]));
    expect(decodeDataUrl('data:image/gif;base64,AAE', 2)).toEqual(Buffer.from([0, 1]));
  });

  it.each([
    ['no base64 marker', `data:image/png,${PNG_BASE64}`],
    ['no comma', `data:image/png;base64${PNG_BASE64}`],
    ['no MIME type', `data:;base64,${PNG_BASE64}`],
    ['extra parameter', `data:image/png;charset=utf-8;base64,${PNG_BASE64}`],
    ['not a data URL', `http://example.test/a.png`],
    ['bad characters', 'data:image/png;base64,iVBORw0K*Ggo!'],
    ['whitespace', 'data:image/png;base64,iVBO Rw0K'],
    ['misplaced padding', 'data:image/png;base64,iV=BORw0'],
    ['impossible length', 'data:image/png;base64,iVBOR'],
    ['padding on a short group', 'data:image/png;base64,iVBOR='],
  ])('refuses a malformed URL: %s', (_case, url) => {
    expect(refusal(() => decodeDataUrl(url, 1 << 20)).reason).toBe('malformed data URL');
  });

  it('refuses an empty payload', () => {
    expect(refusal(() => decodeDataUrl('data:image/png;base64,', 1024)).reason).toBe('empty data URL');
  });

  it('refuses an oversized payload from its length, without decoding or even validating it', () => {
    const from = vi.spyOn(Buffer, 'from');
    // 4 MB of characters that are not base64: had it been validated first, the reason would be "malformed".
    const huge = `data:image/png;base64,${'!'.repeat(4 * 1024 * 1024)}`;
    const err = refusal(() => decodeDataUrl(huge, 1024 * 1024));
    expect(err.reason).toBe('too large');
    expect(from).not.toHaveBeenCalled();
    // The error never carries the whole payload.
    expect(err.url.length).toBeLessThan(100);
    expect(err.message.length).toBeLessThan(200);
  });

  it('refuses one byte over the limit', () => {
    expect(decodeDataUrl('data:image/png;base64,AAECAw==', 4)).toHaveLength(4);
    expect(refusal(() => decodeDataUrl('data:image/png;base64,AAECAw==', 3)).reason).toBe('too large');
  });
});
