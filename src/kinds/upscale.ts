// `upscale`: the image connected to it made larger by a model whose catalogue entry `does` `upscale` (the offline
// ESRGAN models, hosted upscalers; src/models/catalogue.ts), chosen by `data.model`. It runs as a `generation` job
// with no prompt: the model, its result, lineage, variants and cost are a generation's.
import { GENERATION_TASK_KIND, defineKind } from './kind.js';
import { stepsRunData } from './steps-run-data.js';
import { MODEL_ID_MAX_CHARS, textField } from './values.js';

export const UPSCALE_DEFAULT_MODEL = 'esrgan-slim-2x';

export const upscale = defineKind({
  type: 'upscale',
  label: 'Upscale',
  version: 1,
  data: () => ({
    model: textField(MODEL_ID_MAX_CHARS, 'invalid-model', { description: `The model it upscales with: one that does upscale (GET /api/models); absent: ${UPSCALE_DEFAULT_MODEL}` }),
    ...stepsRunData(),
  }),
  inputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  size: { width: 260, height: 400 },
  task: { kind: GENERATION_TASK_KIND, models: { role: 'upscale', default: UPSCALE_DEFAULT_MODEL } },
});
