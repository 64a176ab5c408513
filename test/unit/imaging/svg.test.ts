// SVG recognition from a file's first bytes (conservative: only a document whose root is <svg>) and its
// rasterization to PNG, bounded in pixels and bytes (src/imaging/svg.ts).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { looksLikeSvg, rasterizeSvg } from '../../../src/imaging/svg.js';
import { failure } from '../../helpers/app-error.js';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const svg = (w: number | string, h: number | string, body = '<rect width="10" height="10" fill="#c00"/>') => `<svg ${NS} width="${w}" height="${h}">${body}</svg>`;
const is = (text: string | Buffer) => looksLikeSvg(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('looksLikeSvg', () => {
  it('recognises an <svg> root after a BOM, whitespace, an XML declaration, comments and a DOCTYPE', () => {
    for (const text of [
      svg(10, 10),
      `<svg>`,
      `<svg/>`,
      `\n\t  <svg\n${NS}/>`,
      `\uFEFF${svg(1, 1)}`,
      `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n${svg(1, 1)}`,
      `<?xml version="1.0"?><!-- Generator: an editor --><!-- two --> ${svg(1, 1)}`,
      `<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n${svg(1, 1)}`,
      `<!DOCTYPE svg [\n  <!ENTITY ns_svg "http://www.w3.org/2000/svg">\n  <!ENTITY a "]>">\n]>\n<!-- after -->\n${svg(1, 1)}`,
      `<!-- <html> in a comment --><svg ${NS}/>`,
    ]) expect(is(text), text).toBe(true);
  });

  it('refuses everything else, however much it mentions <svg', () => {
    for (const text of [
      '',
      'hello <svg> world',
      '<!doctype html><html><body><svg></svg></body></html>',
      '<html><svg/></html>',
      '<svgfoo/>',
      '<SVG/>',
      '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
      '<?xml version="1.0"?><root><svg/></root>',
      '<?xml version="1.0"?>',
      '<?xml-stylesheet href="x.css"?><svg/>',
      '<!-- a comment that never ends <svg/>',
      '<!DOCTYPE svg [ <!ENTITY x "y"> <svg/>',
      '<!DOCTYPE svg><!DOCTYPE svg><svg/>',
      'x<svg/>',
      '{"svg": "<svg/>"}',
    ]) expect(is(text), text).toBe(false);
    // Binary formats never look like one.
    expect(is(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(false);
    // UTF-16 is not recognised (conservative).
    expect(is(Buffer.from(`\uFEFF${svg(1, 1)}`, 'utf16le'))).toBe(false);
    // The root must be within the bytes looked at.
    expect(is(`<!-- ${'x'.repeat(5000)} -->`)).toBe(false);
  });
});

describe('rasterizeSvg', () => {
  const limits = { maxPixels: 1_000_000, maxBytes: 1024 * 1024 };

  it('draws an SVG at its declared size as a PNG (viewBox alone gives the size too)', async () => {
    const png = await rasterizeSvg(Buffer.from(svg(40, 30)), limits);
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 40, height: 30 });
    const viewBox = await rasterizeSvg(Buffer.from(`<svg ${NS} viewBox="0 0 120 80"/>`), limits);
    expect(await sharp(viewBox).metadata()).toMatchObject({ width: 120, height: 80 });
  });

  it('refuses an SVG over the pixel limit before drawing it (400 Image too large naming the limit)', async () => {
    const err = await failure(rasterizeSvg(Buffer.from(svg(100000, 100000)), limits));
    expect(err).toMatchObject({ code: 'image_too_large', message: 'Image too large' });
    expect(err.details).toBe('the SVG is 100000×100000 pixels; at most 1000000 pixels are rasterized');
    expect((await failure(rasterizeSvg(Buffer.from(svg(1001, 1000)), limits))).code).toBe('image_too_large');
    await expect(rasterizeSvg(Buffer.from(svg(1000, 1000)), limits)).resolves.toBeInstanceOf(Buffer);
  });

  it('answers 400 Invalid image for an SVG that cannot be read, saying why', async () => {
    const malformed = await failure(rasterizeSvg(Buffer.from(`<svg ${NS} width="10" height="10"><g></svg>`), limits));
    expect(malformed).toMatchObject({ code: 'invalid_image_file', message: 'Invalid image' });
    expect(malformed.details).toMatch(/^the SVG could not be read: .*tag mismatch/);
    const sizeless = await failure(rasterizeSvg(Buffer.from(`<svg ${NS}><script>alert(1)</script></svg>`), limits));
    expect(sizeless.details).toBe('the SVG could not be read: it has no usable width and height (nor viewBox)');
    expect((await failure(rasterizeSvg(Buffer.from('<svg'), limits))).code).toBe('invalid_image_file');
  });

  it('refuses a PNG over the byte limit (413 File too large)', async () => {
    const noisy = Array.from({ length: 400 }, (_, i) => `<rect x="${i % 20}" y="${Math.floor(i / 20)}" width="1" height="1" fill="#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}"/>`).join('');
    const err = await failure(rasterizeSvg(Buffer.from(svg(20, 20, noisy)), { maxPixels: 1_000_000, maxBytes: 100 }));
    expect(err).toMatchObject({ code: 'file_too_large', details: 'the SVG rasterized to PNG is over 100 bytes' });
  });
});
