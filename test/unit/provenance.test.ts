// Provenance XMP in generated PNGs (src/imaging/provenance.ts): written into real PNGs made by sharp, then read
// back out of the bytes by this test's own chunk walker (and by libvips through sharp), never by the module.
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ALGORITHMICALLY_ENHANCED, editSourceType, PROVENANCE_NS, TRAINED_ALGORITHMIC_MEDIA, withProvenance } from '../../src/imaging/provenance.js';

interface Chunk {
  type: string;
  data: Buffer;
  crcOk: boolean;
}

/** Every chunk of a PNG, checking the signature, the lengths and each CRC. */
function chunks(png: Buffer): Chunk[] {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const out: Chunk[] = [];
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    out.push({ type, data, crcOk: crc === crc32(png.subarray(at + 4, at + 8 + length)) });
    at += 12 + length;
  }
  expect(at).toBe(png.length);
  return out;
}

/** The XMP packets of a PNG: iTXt chunks with keyword `XML:com.adobe.xmp`, uncompressed, as UTF-8 text. */
function xmpPackets(png: Buffer): string[] {
  return chunks(png)
    .filter((c) => c.type === 'iTXt')
    .flatMap((c) => {
      const keywordEnd = c.data.indexOf(0);
      if (c.data.subarray(0, keywordEnd).toString('latin1') !== 'XML:com.adobe.xmp') return [];
      expect([c.data[keywordEnd + 1], c.data[keywordEnd + 2]]).toEqual([0, 0]); // not compressed
      const languageEnd = c.data.indexOf(0, keywordEnd + 3);
      const translatedEnd = c.data.indexOf(0, languageEnd + 1);
      return [c.data.subarray(translatedEnd + 1).toString('utf8')];
    });
}

const unescape = (v: string) =>
  v.replace(/&(#x[0-9A-Fa-f]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) =>
    e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : e === 'apos' ? "'" : String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : Number(e.slice(1))),
  );

/** The attributes of the packet's rdf:Description (our writer puts every property there), unescaped. */
function properties(xmp: string): Record<string, string> {
  const description = /<rdf:Description\b([^>]*)\/>/.exec(xmp);
  expect(description, xmp).not.toBeNull();
  const props: Record<string, string> = {};
  for (const m of description![1].matchAll(/([\w:]+)="([^"]*)"/g)) props[m[1]] = unescape(m[2]);
  return props;
}

const image = () => sharp({ create: { width: 16, height: 8, channels: 3, background: '#36c' } }).png().toBuffer();

describe('provenance XMP in a PNG', () => {
  it('goes right after IHDR with the digital source type, the generation id and the model, and no prompt by default', async () => {
    const original = await image();
    const png = withProvenance(original, { generationId: 'gen-1700000000000-abcdef012345', model: 'gemini-2.5-flash-image' });
    const list = chunks(png);
    expect(list.map((c) => c.type).slice(0, 2)).toEqual(['IHDR', 'iTXt']);
    expect(list.every((c) => c.crcOk)).toBe(true);
    // Every chunk of the original is kept as it was.
    expect(list.filter((c) => c.type !== 'iTXt').map((c) => c.data.toString('hex'))).toEqual(chunks(original).map((c) => c.data.toString('hex')));

    const [xmp, ...more] = xmpPackets(png);
    expect(more).toEqual([]);
    expect(xmp).toMatch(/^<\?xpacket begin="\uFEFF"/);
    expect(xmp).toContain(`xmlns:ic="${PROVENANCE_NS}"`);
    expect(xmp).toContain('xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"');
    expect(properties(xmp)).toEqual({
      'rdf:about': '',
      'xmlns:Iptc4xmpExt': 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/',
      'xmlns:ic': PROVENANCE_NS,
      'Iptc4xmpExt:DigitalSourceType': TRAINED_ALGORITHMIC_MEDIA,
      'ic:GenerationId': 'gen-1700000000000-abcdef012345',
      'ic:Model': 'gemini-2.5-flash-image',
    });
    expect(TRAINED_ALGORITHMIC_MEDIA).toBe('http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia');
    expect(xmp).not.toContain('Prompt');

    // libvips reads the same packet, and the image is unchanged.
    const meta = await sharp(png).metadata();
    expect(meta.xmp?.toString('utf8')).toBe(xmp);
    expect(await sharp(png).raw().toBuffer()).toEqual(await sharp(original).raw().toBuffer());
  });

  it("says a classical edit is model output only when its input was (crop, resize and adjust results)", async () => {
    const plain = await image();
    expect(editSourceType(plain)).toBe(ALGORITHMICALLY_ENHANCED);
    expect(ALGORITHMICALLY_ENHANCED).toBe('http://cv.iptc.org/newscodes/digitalsourcetype/algorithmicallyEnhanced');
    // A generation's output says it came from a model, and so does every edit of it, in a subarray too.
    const generated = withProvenance(plain, { generationId: 'gen-1-aa', model: 'gemini-2.5-flash-image' });
    expect(editSourceType(generated)).toBe(TRAINED_ALGORITHMIC_MEDIA);
    expect(editSourceType(new Uint8Array(Buffer.concat([Buffer.alloc(3), generated])).subarray(3))).toBe(TRAINED_ALGORITHMIC_MEDIA);
    // So does a composite with model output written by another tool.
    expect(editSourceType(Buffer.from('…DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia"…'))).toBe(TRAINED_ALGORITHMIC_MEDIA);
    const edited = withProvenance(plain, { generationId: 'gen-2-bb', model: 'crop', sourceType: editSourceType(plain) });
    expect(properties(xmpPackets(edited)[0])['Iptc4xmpExt:DigitalSourceType']).toBe(ALGORITHMICALLY_ENHANCED);
  });

  it('carries the prompt when opted in, escaped so that any text round-trips', async () => {
    const prompt = `a "red" <cat> & 'dog' </rdf:Description> ]]> \t line\nbreak\r\n ünïcødé 猫 🐈 &amp;`;
    const png = withProvenance(await image(), { generationId: 'gen-1-aa', model: 'local', prompt });
    const [xmp] = xmpPackets(png);
    expect(properties(xmp)['ic:Prompt']).toBe(prompt);
    expect(xmp).not.toContain('<cat>');
    expect((await sharp(png).metadata()).xmp?.toString('utf8')).toBe(xmp);
  });

  it('leaves out characters XML cannot carry', async () => {
    const png = withProvenance(await image(), { generationId: 'gen-1-aa', model: 'm\u0001\u001b', prompt: 'a\u0000b\u0008c\ud800d\uffff' });
    const props = properties(xmpPackets(png)[0]);
    expect(props['ic:Model']).toBe('m');
    expect(props['ic:Prompt']).toBe('abcd');
  });

  it("replaces an XMP packet the model's PNG carried (libvips writes it as zTXt): exactly one, ours", async () => {
    const forged = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:ic="https://image-canvas.dev/ns/1.0/" ic:GenerationId="forged"/></rdf:RDF></x:xmpmeta>';
    const theirs = await sharp(await image()).withXmp(forged).png().toBuffer();
    const xmpChunks = (png: Buffer) => chunks(png).filter((c) => ['iTXt', 'zTXt', 'tEXt'].includes(c.type) && c.data.subarray(0, 18).toString('latin1') === 'XML:com.adobe.xmp\0');
    expect(xmpChunks(theirs)).toHaveLength(1);
    const png = withProvenance(theirs, { generationId: 'gen-2-bb', model: 'local' });
    expect(xmpChunks(png).map((c) => c.type)).toEqual(['iTXt']);
    expect(properties(xmpPackets(png)[0])['ic:GenerationId']).toBe('gen-2-bb');
    expect((await sharp(png).metadata()).xmp?.toString('utf8')).not.toContain('forged');
  });

  it('refuses bytes that are not a PNG, or a truncated one', async () => {
    const png = await image();
    expect(() => withProvenance(Buffer.from('GIF89a not a png at all'), { generationId: 'g', model: 'm' })).toThrow('not a PNG');
    expect(() => withProvenance(png.subarray(0, png.length - 5), { generationId: 'g', model: 'm' })).toThrow('truncated');
  });
});
