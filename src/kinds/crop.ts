// `crop`: the box `{ x, y, width, height }` (pixels of its input image) of the image connected to it. Its input's
// size is known only when it runs, so a box that does not lie inside the input fails the job, saying so.
import { IMAGE_SIDE_MAX, IMAGE_STEPS_PORTS, IMAGE_STEPS_TASK } from './image-steps.js';
import { stepsRunData } from './steps-run-data.js';
import { defineKind } from './kind.js';
import { numberField } from './values.js';

const px = (reason: string, min: number, description: string) =>
  numberField(min, IMAGE_SIDE_MAX, reason, { integer: true, required: true, description: `${description} (pixels of the input, ${min}–${IMAGE_SIDE_MAX})` });

export const crop = defineKind({
  type: 'crop',
  label: 'Crop',
  version: 1,
  size: { width: 260, height: 440 },
  data: () => ({
    x: px('invalid-x', 0, 'the box’s left edge'),
    y: px('invalid-y', 0, 'the box’s top edge'),
    width: px('invalid-width', 1, 'the box’s width'),
    height: px('invalid-height', 1, 'the box’s height'),
    ...stepsRunData(),
  }),
  ...IMAGE_STEPS_PORTS,
  task: {
    kind: IMAGE_STEPS_TASK,
    plan: (data, input) => {
      const { x, y, width, height } = data as { x: number; y: number; width: number; height: number };
      if (x + width > input.width || y + height > input.height) {
        return {
          ok: false,
          problem: `the crop box (${width}×${height} at ${x},${y}) does not lie inside the ${input.width}×${input.height} input image`,
        };
      }
      return { ok: true, steps: [{ op: 'extract', left: x, top: y, width, height }] };
    },
  },
});
