// `resize`: the image connected to it at a new size. With both `width` and `height`, `fit` says how: `contain`
// (all of it inside the box, transparent bars), `cover` (the box filled, the rest cut, centred) or `fill`
// (stretched). With only one of them the other follows the input's aspect ratio; with neither the job fails.
import { IMAGE_SIDE_MAX, IMAGE_STEPS_PORTS, IMAGE_STEPS_TASK, RESIZE_FITS, type ResizeFit } from './image-steps.js';
import { stepsRunData } from './steps-run-data.js';
import { defineKind } from './kind.js';
import { choiceField, numberField } from './values.js';

const side = (reason: string, what: string) =>
  numberField(1, IMAGE_SIDE_MAX, reason, { integer: true, description: `the ${what} in pixels (1–${IMAGE_SIDE_MAX}); absent: from the input's aspect ratio` });

export const resize = defineKind({
  type: 'resize',
  label: 'Resize',
  version: 1,
  size: { width: 260, height: 420 },
  data: () => ({
    width: side('invalid-width', 'width'),
    height: side('invalid-height', 'height'),
    fit: choiceField(RESIZE_FITS as [ResizeFit, ...ResizeFit[]], 'invalid-fit', {
      required: true,
      description: 'contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched',
    }),
    ...stepsRunData(),
  }),
  ...IMAGE_STEPS_PORTS,
  task: {
    kind: IMAGE_STEPS_TASK,
    plan: (data, input) => {
      const { width, height, fit } = data as { width?: number; height?: number; fit: ResizeFit };
      if (width === undefined && height === undefined) return { ok: false, problem: 'a resize needs a width, a height or both' };
      // One side given: the other keeps the input's aspect ratio (at least 1 pixel, at most IMAGE_SIDE_MAX).
      const other = (given: number, from: number, to: number) => Math.min(IMAGE_SIDE_MAX, Math.max(1, Math.round((given * to) / from)));
      const w = width ?? other(height as number, input.height, input.width);
      const h = height ?? other(width as number, input.width, input.height);
      return { ok: true, steps: [{ op: 'resize', width: w, height: h, fit: width !== undefined && height !== undefined ? fit : 'fill' }] };
    },
  },
});
