// An edit's inputs made ready for its model (src/jobs/tasks/edit.ts), in the image workers (./worker.ts
// `editPrepare`): the image as a PNG and a mask of its size, white where the model draws, black where it keeps.
// Inpaint: the mask given, fitted — a mask of another size is resized to the image's (and the answer says so), its
// alpha flattened onto black, thresholded at half grey; a mask with no white is refused ("nothing to edit").
// Outpaint: the image extended by the pixels asked on each side (the new area opaque black), the new area the mask;
// all sides 0 is refused, and so is a result over the pixel limit — before any model is called.
import sharp from 'sharp';
import type { EditMode, OutpaintSides } from '../kinds/edit.js';

export interface EditPrepareTask {
  mode: EditMode;
  outpaint?: OutpaintSides;
  image: Uint8Array;
  /** The mask (inpaint); not used to outpaint. */
  mask?: Uint8Array;
  /** INPUT_IMAGE_MAX_PIXELS: the most pixels the image, the mask and the result may have. */
  maxPixels: number;
}

export type EditPrepareAnswer =
  | { ok: true; image: Uint8Array; mask: Uint8Array; width: number; height: number; note?: string }
  /** `settings`: the node's settings cannot make an edit (an empty mask, nothing to outpaint, too large); `input`: input `index` (0 image, 1 mask) cannot be read. */
  | { ok: false; kind: 'settings'; message: string }
  | { ok: false; kind: 'input'; index: 0 | 1; message: string };

const size = (w: number, h: number) => `${w}×${h}`;

async function decoded(data: Buffer, maxPixels: number) {
  const image = sharp(data, { limitInputPixels: maxPixels }).rotate(); // upright, as people see it
  return image.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
}

export async function prepareEdit(task: EditPrepareTask, bytes: (d: Uint8Array) => Buffer = (d) => Buffer.from(d)): Promise<EditPrepareAnswer> {
  let img;
  try {
    img = await decoded(bytes(task.image), task.maxPixels);
  } catch {
    return { ok: false, kind: 'input', index: 0, message: `the image could not be read (or it is over ${task.maxPixels} pixels)` };
  }
  const { width, height } = img.info;
  const raw = { raw: { width, height, channels: 4 as const } };

  if (task.mode === 'outpaint') {
    const s = task.outpaint ?? { top: 0, right: 0, bottom: 0, left: 0 };
    if (s.top + s.right + s.bottom + s.left === 0) return { ok: false, kind: 'settings', message: 'nothing to outpaint: every side of outpaint is 0' };
    const w = width + s.left + s.right;
    const h = height + s.top + s.bottom;
    if (w * h > task.maxPixels) return { ok: false, kind: 'settings', message: `the outpainted image would be ${size(w, h)}, over the ${task.maxPixels}-pixel limit` };
    const image = await sharp(img.data, raw).extend({ ...s, background: { r: 0, g: 0, b: 0, alpha: 1 } }).png().toBuffer();
    const bits = Buffer.alloc(w * h, 255);
    for (let y = 0; y < height; y++) bits.fill(0, (y + s.top) * w + s.left, (y + s.top) * w + s.left + width);
    const mask = await sharp(bits, { raw: { width: w, height: h, channels: 1 } }).png().toBuffer();
    return { ok: true, image, mask, width: w, height: h, note: `The image was extended from ${size(width, height)} to ${size(w, h)}` };
  }

  if (!task.mask) return { ok: false, kind: 'settings', message: 'no mask is connected to its mask input' };
  let m;
  try {
    m = await sharp(bytes(task.mask), { limitInputPixels: task.maxPixels }).rotate().flatten({ background: '#000000' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  } catch {
    return { ok: false, kind: 'input', index: 1, message: `the mask could not be read (or it is over ${task.maxPixels} pixels)` };
  }
  let note: string | undefined;
  let grey = m.data;
  let channels = m.info.channels;
  if (m.info.width !== width || m.info.height !== height) {
    note = `The mask was ${size(m.info.width, m.info.height)}; it was resized to the image's ${size(width, height)}`;
    const fitted = await sharp(m.data, { raw: { width: m.info.width, height: m.info.height, channels: m.info.channels } })
      .resize(width, height, { fit: 'fill', kernel: 'nearest' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    grey = fitted.data;
    channels = fitted.info.channels;
  }
  const bits = Buffer.alloc(width * height);
  let white = 0;
  for (let i = 0; i < bits.length; i++) {
    if (grey[i * channels] >= 128) {
      bits[i] = 255;
      white++;
    }
  }
  if (white === 0) return { ok: false, kind: 'settings', message: 'the mask is empty: nothing to edit (paint the area to change in white)' };
  const [image, mask] = await Promise.all([
    sharp(img.data, raw).png().toBuffer(),
    sharp(bits, { raw: { width, height, channels: 1 } }).png().toBuffer(),
  ]);
  return { ok: true, image, mask, width, height, ...(note ? { note } : {}) };
}
