// Inline (data: URL) images of nodes, stored as files by the upload rules and named by their content
// (src/services/canvas-images.ts, uploads.prepareContent), on the local store in a temp folder.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCanvasImages, hasInlineImages, type CanvasImages } from '../../../src/services/canvas-images.js';
import { createUploadsService, type UploadsService } from '../../../src/services/uploads.js';
import { createObjectStore, type ObjectStore } from '../../../src/storage/index.js';
import { failure } from '../../helpers/app-error.js';

const MAX = 64 * 1024;
const png = (side = 6, background = '#06c') => sharp({ create: { width: side, height: side, channels: 3, background } }).png().toBuffer();
const dataUrl = (bytes: Buffer | string, type = 'image/png') => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
const node = (id: string, image?: string, extra: Record<string, unknown> = {}) => ({ id, type: 'upload', position: { x: 1, y: 2 }, data: { type: 'upload', ...(image === undefined ? {} : { image }), ...extra } });

let dir: string;
let store: ObjectStore;
let uploads: UploadsService;
let prepared: number;
let images: CanvasImages;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'canvas-images-unit-'));
  store = await createObjectStore({ dataDir: dir, container: 'images', appBaseUrl: 'http://app.test' });
  await store.init();
  uploads = createUploadsService({ store, maxBytes: MAX, svgMaxPixels: 250_000, log: { error: () => undefined } });
  prepared = 0;
  const counted: Pick<UploadsService, 'prepareContent'> = {
    prepareContent: (data, scope) => {
      prepared++;
      return uploads.prepareContent(data, scope);
    },
  };
  images = createCanvasImages({ uploads: counted, maxBytes: MAX });
});
afterEach(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const objects = async () => (await fs.readdir(path.join(dir, 'objects'))).filter((f) => !f.startsWith('.')).sort();

describe('inline images', () => {
  it('tells whether any node carries a data: URL image', () => {
    expect(hasInlineImages([node('a', 'https://x/y.png'), node('b')])).toBe(false);
    expect(hasInlineImages([node('a', 'https://x/y.png'), node('b', 'DATA:image/png;base64,AAAA')])).toBe(true);
  });

  it('replaces each data: URL by its file URL, writes nothing before store(), and leaves other nodes as they are', async () => {
    const bytes = await png();
    const other = node('url', 'https://img.example/a.png');
    const plain = node('plain');
    const inline = node('inline', dataUrl(bytes), { prompt: 'kept' });
    const result = await images.inline([other, inline, plain], 'user-1');
    expect(result.nodes[0]).toBe(other);
    expect(result.nodes[2]).toBe(plain);
    expect(result.nodes[1]).toEqual({ ...inline, data: { type: 'upload', image: expect.stringMatching(/^http:\/\/app\.test\/files\/content-[0-9a-f]{64}\.png$/), prompt: 'kept' } });
    expect(Object.keys(result.nodes[1].data)).toEqual(['type', 'image', 'prompt']); // key order kept
    expect(inline.data.image).toMatch(/^data:/); // the input is not changed
    expect(result.newFiles).toBe(1);
    expect(await objects()).toEqual([]);
    await result.store();
    const name = result.nodes[1].data.image!.split('/').pop()!;
    expect(await objects()).toEqual([name]);
    const stored = await store.get(name);
    expect(stored?.info.contentType).toBe('image/png');
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('decodes and checks each distinct image once per call, and never writes a stored one again', async () => {
    const a = dataUrl(await png(5, '#a00'));
    const b = dataUrl(await png(5, '#0a0'));
    const first = await images.inline([node('1', a), node('2', b), node('3', a), node('4', a)], 'user-1');
    expect(prepared).toBe(2);
    expect(first.nodes[0].data.image).toBe(first.nodes[2].data.image);
    expect(first.newFiles).toBe(2);
    await first.store();
    for (let i = 0; i < 5; i++) {
      const again = await images.inline([node('1', a), node('2', b)], 'user-1');
      expect(again.newFiles).toBe(0);
      expect(again.nodes.map((n) => n.data.image)).toEqual([first.nodes[0].data.image, first.nodes[1].data.image]);
      await again.store();
    }
    expect(await objects()).toHaveLength(2);
    // A fresh service (another instance, a restart) finds the stored file instead of writing it again.
    const fresh = createCanvasImages({ uploads: createUploadsService({ store, maxBytes: MAX, svgMaxPixels: 250_000, log: { error: () => undefined } }), maxBytes: MAX });
    expect((await fresh.inline([node('1', a)], 'user-1')).newFiles).toBe(0);
  });

  it('names files per owner and by content: the declared type does not matter, the bytes do', async () => {
    const bytes = await png();
    const [ada1, ada2, bob] = await Promise.all([
      images.inline([node('n', dataUrl(bytes))], 'ada'),
      images.inline([node('n', dataUrl(bytes, 'image/jpeg'))], 'ada'),
      images.inline([node('n', dataUrl(bytes))], 'bob'),
    ]);
    expect(ada2.nodes[0].data.image).toBe(ada1.nodes[0].data.image);
    expect(bob.nodes[0].data.image).not.toBe(ada1.nodes[0].data.image);
  });

  it('stores an SVG as the PNG it rasterizes to', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><circle cx="10" cy="10" r="8" fill="#fc0"/></svg>';
    const result = await images.inline([node('s', dataUrl(svg, 'image/svg+xml'))], 'user-1');
    await result.store();
    const name = result.nodes[0].data.image!.split('/').pop()!;
    expect(name).toMatch(/^content-[0-9a-f]{64}\.png$/);
    const stored = await store.get(name);
    expect(stored?.info.contentType).toBe('image/png');
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.stream) chunks.push(chunk as Buffer);
    expect(await sharp(Buffer.concat(chunks)).metadata()).toMatchObject({ format: 'png', width: 30, height: 20 });
  });

  it('refuses a bad image with 400 naming the first bad node and the reason; nothing is written', async () => {
    const good = dataUrl(await png());
    const cases: Array<[string, string | RegExp]> = [
      ['data:image/png,rawbytes', 'not a base64 data URL (data:<type>;base64,<data>)'],
      ['data:image/svg+xml;utf8,<svg/>', 'not a base64 data URL (data:<type>;base64,<data>)'],
      ['data:image/png;base64,', 'the data URL is empty'],
      ['data:image/png;base64,@@@@', 'malformed data URL: not valid base64'],
      ['data:;base64,AAAA', 'malformed data URL: expected data:<type>/<subtype>;base64,'],
      [dataUrl(Buffer.alloc(MAX + 1)), `the image is larger than ${MAX} bytes (the upload limit)`],
      [dataUrl('just some text', 'image/png'), 'Unsupported file type: the file is not a recognised raster image'],
      [dataUrl('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n'), 'Unsupported file type: application/pdf is not an accepted image type'],
      [dataUrl('<!doctype html><svg></svg>'), 'Unsupported file type: the file is not a recognised raster image'],
      [dataUrl('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g></svg>'), /^Invalid image: the SVG could not be read: /],
      [dataUrl('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"/>'), 'Image too large: the SVG is 1000×1000 pixels; at most 250000 pixels are rasterized'],
    ];
    for (const [image, reason] of cases) {
      const err = await failure(images.inline([node('fine', good), node('bad one', image), node('later', '@@')], 'user-1'));
      expect(err.code, image.slice(0, 40)).toBe('invalid_node_image');
      expect(err.message).toBe('Invalid image in node bad one');
      if (typeof reason === 'string') expect(err.details, image.slice(0, 40)).toBe(reason);
      else expect(err.details).toMatch(reason);
    }
    expect(await objects()).toEqual([]);
  });
});
