// Classical inpainting (the offline `inpaint-telea` and `inpaint-ns` models, src/models/catalogue.ts): OpenCV's
// `cv.inpaint` (Telea's fast marching method, or Navier–Stokes) through `@techstark/opencv-js` (Apache-2.0, a wasm
// build inside the npm package, nothing fetched). It fills the white of a mask from the pixels around it: good for
// small areas (a blemish, a wire, a logo), a smear over large ones; it is not AI and uses no prompt. It runs in the
// image workers (src/imaging/worker.ts `inpaint`): the wasm runtime starts once per process (~0.1–0.5 s) and every Mat made
// here is freed, since wasm memory is not garbage-collected. Colour is inpainted on RGB; the alpha channel is kept.
import { createRequire } from 'node:module';
import sharp from 'sharp';

export type InpaintMethod = 'telea' | 'ns';

/** How far around each masked pixel the fill looks (OpenCV's inpaintRadius, in pixels). */
export const INPAINT_RADIUS = 5;

/** The few parts of the opencv.js module used here. */
interface CvMat {
  data: Uint8Array;
  delete(): void;
}
interface Cv {
  Mat: new () => CvMat;
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): CvMat;
  inpaint(src: CvMat, mask: CvMat, dst: CvMat, radius: number, flags: number): void;
  CV_8UC1: number;
  CV_8UC3: number;
  INPAINT_TELEA: number;
  INPAINT_NS: number;
  onRuntimeInitialized?: () => void;
}

let ready: Promise<{ cv: Cv }> | undefined;

/**
 * The opencv.js runtime, started once per process. Its module is a thenable: it is handed on wrapped, never as a
 * promise's value itself, nor returned from an async function (a promise would adopt its `then` and never settle).
 */
function opencv(): Promise<{ cv: Cv }> {
  ready ??= new Promise<{ cv: Cv }>((resolve, reject) => {
    try {
      const cv = createRequire(import.meta.url)('@techstark/opencv-js') as Cv;
      if (typeof cv.inpaint === 'function') resolve({ cv });
      else cv.onRuntimeInitialized = () => resolve({ cv });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
  ready.catch(() => (ready = undefined));
  return ready;
}

export interface InpaintResult {
  png: Buffer;
  width: number;
  height: number;
  /** Pixels the mask had white (filled). */
  filled: number;
}

/**
 * Fills the white (≥ 128) of `mask` in `image` from its surroundings. The mask must have the image's size (the edit
 * task fits it first, src/imaging/edit-prepare.ts); a mask of another size or with no white is an error here.
 */
export async function inpaint(image: Buffer, mask: Buffer, method: InpaintMethod, maxPixels: number, radius = INPAINT_RADIUS): Promise<InpaintResult> {
  const decoded = await sharp(image, { limitInputPixels: maxPixels }).toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = decoded.info;
  const m = await sharp(mask, { limitInputPixels: maxPixels }).flatten({ background: '#000000' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  if (m.info.width !== width || m.info.height !== height) throw new Error(`the mask is ${m.info.width}×${m.info.height}, the image ${width}×${height}`);
  const pixels = width * height;
  const rgb = new Uint8Array(pixels * 3);
  const bits = new Uint8Array(pixels);
  let filled = 0;
  for (let i = 0; i < pixels; i++) {
    rgb[i * 3] = decoded.data[i * 4];
    rgb[i * 3 + 1] = decoded.data[i * 4 + 1];
    rgb[i * 3 + 2] = decoded.data[i * 4 + 2];
    if (m.data[i * m.info.channels] >= 128) {
      bits[i] = 255;
      filled++;
    }
  }
  if (filled === 0) throw new Error('the mask is empty');
  const { cv } = await opencv();
  const made: CvMat[] = [];
  try {
    const src = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
    made.push(src);
    const hole = cv.matFromArray(height, width, cv.CV_8UC1, bits);
    made.push(hole);
    const dst = new cv.Mat();
    made.push(dst);
    cv.inpaint(src, hole, dst, radius, method === 'ns' ? cv.INPAINT_NS : cv.INPAINT_TELEA);
    const out = Buffer.from(decoded.data); // RGBA: the colour from the fill, the alpha as it was
    const filledRgb = dst.data;
    for (let i = 0; i < pixels; i++) {
      if (bits[i] === 0) continue;
      out[i * 4] = filledRgb[i * 3];
      out[i * 4 + 1] = filledRgb[i * 3 + 1];
      out[i * 4 + 2] = filledRgb[i * 3 + 2];
    }
    const png = await sharp(out, { raw: { width, height, channels: 4 } }).png().toBuffer();
    return { png, width, height, filled };
  } finally {
    for (const mat of made) mat.delete();
  }
}
