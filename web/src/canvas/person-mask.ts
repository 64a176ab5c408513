// "Select person" of the mask editor (issue 36 point 1, an automatic mask): MediaPipe's selfie segmentation
// (@mediapipe/selfie_segmentation, Apache-2.0 code and model; the general 256×256 model) run in the page on the
// editor's image, offline — its loader scripts, WebAssembly and model are files of our own build (Vite's `?url`
// assets, never inlined: web/vite.config.ts), so no request leaves our origin. Loaded only when asked for (the
// editor imports this module dynamically). It finds people only; its confidence is thresholded at one half and
// scaled to the image's pixel size: one byte per pixel, 255 where a person is.
import graphUrl from '@mediapipe/selfie_segmentation/selfie_segmentation.binarypb?url';
import modelUrl from '@mediapipe/selfie_segmentation/selfie_segmentation.tflite?url';
import solutionUrl from '@mediapipe/selfie_segmentation/selfie_segmentation.js?url';
import landscapeUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_landscape.tflite?url';
import simdDataUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_solution_simd_wasm_bin.data?url';
import simdJsUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_solution_simd_wasm_bin.js?url';
import simdWasmUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_solution_simd_wasm_bin.wasm?url';
import jsUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_solution_wasm_bin.js?url';
import wasmUrl from '@mediapipe/selfie_segmentation/selfie_segmentation_solution_wasm_bin.wasm?url';
import type { Results, SelfieSegmentation as Segmenter } from '@mediapipe/selfie_segmentation';

/** Each file the solution asks for, by its name, at the address our build serves it from. */
const FILES: Record<string, string> = {
  'selfie_segmentation.binarypb': graphUrl,
  'selfie_segmentation.tflite': modelUrl,
  'selfie_segmentation_landscape.tflite': landscapeUrl,
  'selfie_segmentation_solution_simd_wasm_bin.data': simdDataUrl,
  'selfie_segmentation_solution_simd_wasm_bin.js': simdJsUrl,
  'selfie_segmentation_solution_simd_wasm_bin.wasm': simdWasmUrl,
  'selfie_segmentation_solution_wasm_bin.data': simdDataUrl,
  'selfie_segmentation_solution_wasm_bin.js': jsUrl,
  'selfie_segmentation_solution_wasm_bin.wasm': wasmUrl,
};

/** A confidence of at least this much is a person. */
export const PERSON_THRESHOLD = 0.5;

function locateFile(file: string): string {
  const name = file.split('/').pop() ?? file;
  const url = FILES[name];
  // Never the solution's default (a CDN): a file we do not ship fails here, loudly.
  if (!url) throw new Error(`the person finder asked for a file it does not ship (${name})`);
  return url;
}

type SegmenterClass = new (config: { locateFile: (file: string) => string }) => Segmenter;

/**
 * The class, from the package's script run as a script tag of our own origin (it is not an ES module: it sets a
 * global, and its package says it has no side effects, so a bundler would drop a plain import of it).
 */
async function segmenterClass(): Promise<SegmenterClass> {
  const global = globalThis as { SelfieSegmentation?: SegmenterClass };
  if (!global.SelfieSegmentation) {
    await new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = solutionUrl;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error('its script could not be loaded'));
      document.head.append(script);
    });
  }
  if (!global.SelfieSegmentation) throw new Error('the person finder did not load');
  return global.SelfieSegmentation;
}

interface Runner {
  segmenter: Segmenter;
  /** The listener of the one run under way (the solution has a single results callback). */
  pending: ((results: Results) => void) | null;
}

// One solution per page: its WebAssembly runtime and GL context are made once and kept (closing and making it again
// in the same page is known to break it).
let runner: Promise<Runner> | null = null;

function getRunner(): Promise<Runner> {
  runner ??= (async () => {
    const Segmentation = await segmenterClass();
    const segmenter = new Segmentation({ locateFile });
    segmenter.setOptions({ modelSelection: 0, selfieMode: false });
    const made: Runner = { segmenter, pending: null };
    segmenter.onResults((results) => made.pending?.(results));
    await segmenter.initialize();
    return made;
  })();
  runner.catch(() => {
    runner = null; // a failed load may be tried again
  });
  return runner;
}

export interface PersonMask {
  /** One byte per image pixel: 255 where a person is, 0 elsewhere. */
  pixels: Uint8Array;
  /** How many pixels are a person. */
  count: number;
  /** Milliseconds spent loading the model (0 when it was already loaded) and running it. */
  loadMs: number;
  runMs: number;
}

/** Reads the pixels of a drawable into RGBA at a size. */
function rgbaOf(source: CanvasImageSource, width: number, height: number): Uint8ClampedArray {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, width, height);
  return ctx.getImageData(0, 0, width, height).data;
}

/**
 * Finds the people in `image` (decoded pixels of the editor's image) and answers a mask of `width`×`height`: white
 * where the model's confidence is at least PERSON_THRESHOLD (smoothly scaled from its output, then thresholded).
 */
export async function findPerson(image: ImageBitmap, width: number, height: number): Promise<PersonMask> {
  const started = performance.now();
  const made = await getRunner();
  const loaded = performance.now();
  // The solution takes an image, video or canvas element: the image drawn onto a canvas.
  const input = document.createElement('canvas');
  input.width = image.width;
  input.height = image.height;
  input.getContext('2d')!.drawImage(image, 0, 0);
  const rgba = await new Promise<Uint8ClampedArray>((resolve, reject) => {
    made.pending = (results) => {
      made.pending = null;
      try {
        resolve(rgbaOf(results.segmentationMask, width, height));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    made.segmenter.send({ image: input }).catch((error: unknown) => {
      made.pending = null;
      reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
  // The confidence is in the mask's alpha (its colour channels carry it too on some builds): take whichever varies.
  let alphaVaries = false;
  for (let i = 3; i < rgba.length; i += 4) {
    if (rgba[i] !== 255) {
      alphaVaries = true;
      break;
    }
  }
  const channel = alphaVaries ? 3 : 0;
  const cut = Math.round(PERSON_THRESHOLD * 255);
  const pixels = new Uint8Array(width * height);
  let count = 0;
  for (let i = 0; i < pixels.length; i++) {
    if (rgba[i * 4 + channel] >= cut) {
      pixels[i] = 255;
      count++;
    }
  }
  return { pixels, count, loadMs: loaded - started, runMs: performance.now() - loaded };
}
