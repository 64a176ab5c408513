// `edit`: an image changed inside a mask by a model that takes one (`inpaint`: the white of the mask is redrawn from
// the prompt and its surroundings), or the image extended by some pixels on each side with the new area drawn
// (`outpaint`: the new area is the mask; no mask input is needed). Its inputs are the image, the mask and texts joined
// to its own prompt (as a generation's); its model (`data.model`) is one whose catalogue entry `does` `inpaint`
// (src/models/catalogue.ts); the offline one fills small regions from their surroundings (classical inpainting, not
// AI). It runs as an `edit` job (src/jobs/tasks/edit.ts) with a seed and a count, as a generation does.
import { z } from 'zod';
import { defineKind } from './kind.js';
import { seedData } from './generation.js';
import { stepsRunData } from './steps-run-data.js';
import { MODEL_ID_MAX_CHARS, choiceField, field, textField } from './values.js';

/** The task an edit node's jobs run. */
export const EDIT_TASK = 'edit';
export type EditMode = 'inpaint' | 'outpaint';
export const EDIT_MODES: readonly EditMode[] = ['inpaint', 'outpaint'];
/** The most pixels an outpaint adds on one side (the result is also held to INPUT_IMAGE_MAX_PIXELS when it runs). */
export const OUTPAINT_SIDE_MAX = 4096;
/** The model an edit node without `data.model` runs: offline classical inpainting (src/models/catalogue.ts). */
export const EDIT_DEFAULT_MODEL = 'inpaint-telea';

export interface OutpaintSides {
  top: number;
  right: number;
  bottom: number;
  left: number;
}
const SIDES = ['top', 'right', 'bottom', 'left'] as const;
const isSide = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= OUTPAINT_SIDE_MAX;

export const edit = defineKind({
  type: 'edit',
  label: 'Edit',
  version: 1,
  data: (limits) => ({
    prompt: textField(limits.promptChars, 'invalid-prompt', { description: 'What to draw in the masked (or added) area; texts wired to its prompt input are joined after it' }),
    model: textField(MODEL_ID_MAX_CHARS, 'invalid-model', { description: `The model it edits with: one that does inpaint (GET /api/models); absent: ${EDIT_DEFAULT_MODEL}` }),
    mode: choiceField(EDIT_MODES as [EditMode, ...EditMode[]], 'invalid-mode', {
      required: true,
      description: 'inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area',
    }),
    outpaint: field(
      z.strictObject(Object.fromEntries(SIDES.map((s) => [s, z.number().int().min(0).max(OUTPAINT_SIDE_MAX)])) as Record<(typeof SIDES)[number], z.ZodNumber>),
      (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 4 && SIDES.every((s) => isSide((v as Record<string, unknown>)[s])),
      'invalid-outpaint',
      false,
      `outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–${OUTPAINT_SIDE_MAX}`,
    ),
    ...seedData(),
    ...stepsRunData(),
  }),
  inputs: [
    { name: 'image', label: 'Image', value: 'image', list: false, default: true },
    { name: 'mask', label: 'Mask', value: 'mask', list: false },
    { name: 'prompt', label: 'Prompt', value: 'text', list: true },
  ],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  requires: (data) => (data.mode === 'outpaint' ? [] : ['mask']),
  size: { width: 260, height: 560 },
  task: { kind: EDIT_TASK, models: { role: 'inpaint', default: EDIT_DEFAULT_MODEL } },
  seeded: true,
});
