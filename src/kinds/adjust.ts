// `adjust`: the image connected to it with its colours adjusted — brightness, contrast and saturation as
// multipliers (1 = unchanged), hue turned by degrees, grayscale, sepia, invert (each on or off) and a blur (its
// sigma in pixels) — applied in that order. Absent fields change nothing.
import { IMAGE_STEPS_PORTS, IMAGE_STEPS_TASK, type ImageStep } from './image-steps.js';
import { stepsRunData } from './steps-run-data.js';
import { defineKind } from './kind.js';
import { booleanField, numberField } from './values.js';

/** The most a multiplier may be (4: four times brighter, more contrast, more saturated). */
export const ADJUST_FACTOR_MAX = 4;
/** The largest blur sigma, in pixels. */
export const ADJUST_BLUR_MAX = 100;

const factor = (reason: string, what: string) =>
  numberField(0, ADJUST_FACTOR_MAX, reason, { description: `${what} as a multiplier, 0–${ADJUST_FACTOR_MAX} (1 = unchanged)` });

/** Sepia tone (the matrix CSS's sepia(1) uses). */
const SEPIA: [[number, number, number], [number, number, number], [number, number, number]] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

interface AdjustData {
  brightness?: number;
  contrast?: number;
  saturation?: number;
  hue?: number;
  grayscale?: boolean;
  sepia?: boolean;
  invert?: boolean;
  blur?: number;
}

export const adjust = defineKind({
  type: 'adjust',
  label: 'Adjust',
  version: 1,
  size: { width: 260, height: 560 },
  data: () => ({
    brightness: factor('invalid-brightness', 'brightness'),
    contrast: factor('invalid-contrast', 'contrast'),
    saturation: factor('invalid-saturation', 'saturation'),
    hue: numberField(-360, 360, 'invalid-hue', { integer: true, description: 'hue turned by this many whole degrees, −360–360' }),
    grayscale: booleanField('invalid-grayscale', { description: 'in shades of grey' }),
    sepia: booleanField('invalid-sepia', { description: 'in sepia tones' }),
    invert: booleanField('invalid-invert', { description: 'colours inverted' }),
    blur: numberField(0, ADJUST_BLUR_MAX, 'invalid-blur', { description: `Gaussian blur of this sigma in pixels, 0–${ADJUST_BLUR_MAX} (0 = none)` }),
    ...stepsRunData(),
  }),
  ...IMAGE_STEPS_PORTS,
  task: {
    kind: IMAGE_STEPS_TASK,
    plan: (data) => {
      const d = data as AdjustData;
      const steps: ImageStep[] = [];
      const brightness = d.brightness ?? 1;
      const saturation = d.saturation ?? 1;
      const hue = d.hue ?? 0;
      if (brightness !== 1 || saturation !== 1 || hue !== 0) steps.push({ op: 'modulate', brightness, saturation, hue });
      if (d.contrast !== undefined && d.contrast !== 1) steps.push({ op: 'linear', a: d.contrast, b: 128 * (1 - d.contrast) });
      if (d.grayscale) steps.push({ op: 'grayscale' });
      if (d.sepia) steps.push({ op: 'recomb', matrix: SEPIA });
      if (d.invert) steps.push({ op: 'negate' });
      // sharp's blur takes a sigma of at least 0.3; less is no visible blur.
      if (d.blur !== undefined && d.blur >= 0.3) steps.push({ op: 'blur', sigma: d.blur });
      return { ok: true, steps };
    },
  },
});
