// Image steps: what a kind that edits an image (`crop`, `resize`, `adjust`, …) asks the image workers to do, as
// plain data. Such a kind's task is `image-steps` and its `plan` turns the node's data and its input image's size
// into a list of steps (or a problem, when the data does not fit that image); the image workers run a list with
// sharp, one whitelisted operation per step, in order (src/imaging/steps.ts). So a new steps kind is its own module
// and nothing else: no task, no worker code. Pure TypeScript, no I/O: the web client imports it too.

/** The task kind every steps kind names (src/jobs/tasks/image-steps.ts runs it). */
export const IMAGE_STEPS_TASK = 'image-steps';

/**
 * The longest side a step may ask for (a crop's box, a resize's width or height), in pixels. The pixels of a
 * step's result are bounded by the configuration at run time (INPUT_IMAGE_MAX_PIXELS: what a result is, the input
 * of the next node).
 */
export const IMAGE_SIDE_MAX = 65_535;

/** The one image in and the one image out of every steps kind (crop, resize, adjust). */
export const IMAGE_STEPS_PORTS = {
  inputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
} as const;

export type ResizeFit = 'contain' | 'cover' | 'fill';
export const RESIZE_FITS: readonly ResizeFit[] = ['contain', 'cover', 'fill'];

/** One operation of the image workers (sharp's of the same name). */
export type ImageStep =
  /** The box `left`, `top`, `width` × `height` of the image (inside it). */
  | { op: 'extract'; left: number; top: number; width: number; height: number }
  /** To `width` × `height`: `contain` fits it inside (transparent bars), `cover` fills it and cuts the rest (centred), `fill` stretches. */
  | { op: 'resize'; width: number; height: number; fit: ResizeFit }
  /** Brightness and saturation as multipliers (1 = unchanged), hue turned by degrees. */
  | { op: 'modulate'; brightness: number; saturation: number; hue: number }
  /** Each colour channel c → a·c + b (contrast around the middle grey: a = contrast, b = 128·(1 − a)). */
  | { op: 'linear'; a: number; b: number }
  | { op: 'grayscale' }
  /** Colour channels through a 3×3 matrix (rows: output red, green, blue). */
  | { op: 'recomb'; matrix: [[number, number, number], [number, number, number], [number, number, number]] }
  /** Colour channels inverted (alpha kept). */
  | { op: 'negate' }
  /** Gaussian blur of this sigma (pixels). */
  | { op: 'blur'; sigma: number };

export const IMAGE_STEP_OPS: readonly ImageStep['op'][] = ['extract', 'resize', 'modulate', 'linear', 'grayscale', 'recomb', 'negate', 'blur'];

/** A size in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/** A plan: the steps, or why the node's data does not fit its input (the job fails with this message). */
export type StepsPlan = { ok: true; steps: ImageStep[] } | { ok: false; problem: string };

/** What a steps kind's task says (`task: { kind: IMAGE_STEPS_TASK, plan }`). */
export type PlanSteps = (data: Readonly<Record<string, unknown>>, input: ImageSize) => StepsPlan;

/** The size after the steps, from the input's (so a plan's result can be held to a pixel limit before it is made). */
export function sizeAfter(steps: readonly ImageStep[], input: ImageSize): ImageSize {
  let size = input;
  for (const step of steps) {
    if (step.op === 'extract' || step.op === 'resize') size = { width: step.width, height: step.height };
  }
  return size;
}
