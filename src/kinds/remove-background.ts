// `remove-background`: the image connected to it with its background made transparent, by a model whose catalogue
// entry `does` `remove-background` (src/models/catalogue.ts), chosen by `data.model`. It runs as a `generation` job
// with no prompt: the model, its result, lineage, variants and cost are a generation's.
import { GENERATION_TASK_KIND, defineKind } from './kind.js';
import { stepsRunData } from './steps-run-data.js';
import { MODEL_ID_MAX_CHARS, textField } from './values.js';

/** The model a node without `data.model` runs (set by the models that exist; see src/models/catalogue.ts). */
export const REMOVE_BACKGROUND_DEFAULT_MODEL: string | undefined = undefined;

export const removeBackground = defineKind({
  type: 'remove-background',
  label: 'Remove background',
  version: 1,
  data: () => ({
    model: textField(MODEL_ID_MAX_CHARS, 'invalid-model', { description: 'The model it cuts the subject out with: one that does remove-background (GET /api/models)' }),
    ...stepsRunData(),
  }),
  inputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  size: { width: 260, height: 400 },
  task: { kind: GENERATION_TASK_KIND, models: { role: 'remove-background', ...(REMOVE_BACKGROUND_DEFAULT_MODEL ? { default: REMOVE_BACKGROUND_DEFAULT_MODEL } : {}) } },
});
