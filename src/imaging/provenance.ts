// Provenance in a generated PNG (DESIGN.md §10, docs/api.md "Lineage"): an XMP packet saying the image is model
// output (IPTC Digital Source Type `trainedAlgorithmicMedia`), which generation made it and with which model — and
// the prompt only when the user opted in. It goes into the PNG as the standard `iTXt` chunk with the keyword
// `XML:com.adobe.xmp` (XMP Specification Part 3), written here byte by byte right after `IHDR`: sharp's `withXmp`
// would decode and encode the whole image again (~60 ms for 1024², and the model's pixels re-compressed), where
// a chunk costs a copy. An XMP packet the model's PNG already carried (in any text chunk) is dropped, so the file
// has exactly one: ours.
import { crc32 } from 'node:zlib';

/** The IPTC Digital Source Type of images made by a trained model. */
export const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** The IPTC Digital Source Type of an image changed only by a classical algorithm (crop, resize, colour adjustments). */
export const ALGORITHMICALLY_ENHANCED = 'http://cv.iptc.org/newscodes/digitalsourcetype/algorithmicallyEnhanced';
/** Our XMP namespace: the generation id, the model, the prompt. */
export const PROVENANCE_NS = 'https://image-canvas.dev/ns/1.0/';
const IPTC_EXT_NS = 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/';
const XMP_KEYWORD = 'XML:com.adobe.xmp';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface Provenance {
  generationId: string;
  model: string;
  /** Written only when given (the user opted in). */
  prompt?: string;
  /** The IPTC Digital Source Type; model output (TRAINED_ALGORITHMIC_MEDIA) unless said otherwise. */
  sourceType?: string;
}

/**
 * The Digital Source Type of a classical edit (crop, resize, adjust) of `input`: still model output when the input
 * says it is one (its metadata names IPTC's `trainedAlgorithmicMedia` or `compositeWithTrainedAlgorithmicMedia`, as
 * every image our generations store does), else `algorithmicallyEnhanced` — an edit never launders a model's image
 * into a plain one, nor claims a model made a photo it only cropped.
 */
export function editSourceType(input: Uint8Array): string {
  return Buffer.from(input.buffer, input.byteOffset, input.byteLength).includes('rainedAlgorithmicMedia', 0, 'latin1') ? TRAINED_ALGORITHMIC_MEDIA : ALGORITHMICALLY_ENHANCED;
}

/**
 * Text as an XML attribute value: the five special characters as entities, tab and line breaks as character
 * references (an attribute would turn them into spaces), and characters XML 1.0 cannot carry at all (other
 * control characters, lone surrogates, U+FFFE/U+FFFF) left out.
 */
export function xmlAttribute(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&apos;';
    else if (code === 0x9 || code === 0xa || code === 0xd) out += `&#x${code.toString(16).toUpperCase()};`;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) continue;
    else out += ch;
  }
  return out;
}

/** The XMP packet (UTF-8 text) of a generation. */
export function provenanceXmp({ generationId, model, prompt, sourceType = TRAINED_ALGORITHMIC_MEDIA }: Provenance): string {
  const prop = (name: string, value: string) => `\n    ${name}="${xmlAttribute(value)}"`;
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n' +
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    `  <rdf:Description rdf:about=""\n    xmlns:Iptc4xmpExt="${IPTC_EXT_NS}"\n    xmlns:ic="${PROVENANCE_NS}"` +
    prop('Iptc4xmpExt:DigitalSourceType', sourceType) +
    prop('ic:GenerationId', generationId) +
    prop('ic:Model', model) +
    (prompt === undefined ? '' : prop('ic:Prompt', prompt)) +
    '/>\n' +
    ' </rdf:RDF>\n' +
    '</x:xmpmeta>\n' +
    '<?xpacket end="r"?>'
  );
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** The `iTXt` chunk of an XMP packet: keyword, no compression, no language, the packet as UTF-8. */
function xmpChunk(xmp: string): Buffer {
  return chunk('iTXt', Buffer.concat([Buffer.from(`${XMP_KEYWORD}\0\0\0\0\0`, 'latin1'), Buffer.from(xmp, 'utf8')]));
}

/**
 * Whether a chunk is an XMP packet: a text chunk with XMP's keyword — `iTXt` as the standard says, or `zTXt`/`tEXt`
 * as some writers do (libvips writes `zTXt`).
 */
const isXmp = (type: string, data: Buffer) =>
  (type === 'iTXt' || type === 'zTXt' || type === 'tEXt') && data.subarray(0, XMP_KEYWORD.length + 1).toString('latin1') === `${XMP_KEYWORD}\0`;

/**
 * The PNG with the generation's XMP packet right after its header chunk (any XMP packet it had is dropped; every
 * other byte is kept). Throws on data that is not a well-formed PNG chunk sequence starting with `IHDR`.
 */
export function withProvenance(png: Buffer, provenance: Provenance): Buffer {
  if (png.length < 8 + 12 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  const parts: Buffer[] = [PNG_SIGNATURE];
  let at = 8;
  let first = true;
  while (at < png.length) {
    if (at + 12 > png.length) throw new Error('truncated PNG chunk');
    const length = png.readUInt32BE(at);
    const end = at + 12 + length;
    if (end > png.length) throw new Error('truncated PNG chunk');
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    if (first && type !== 'IHDR') throw new Error('PNG does not start with IHDR');
    if (!isXmp(type, png.subarray(at + 8, at + 8 + length))) parts.push(png.subarray(at, end));
    if (first) parts.push(xmpChunk(provenanceXmp(provenance)));
    first = false;
    at = end;
  }
  return Buffer.concat(parts);
}
