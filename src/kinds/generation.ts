// `generation` (SPEC): images + a prompt → an image, with a model per node. Its images come from the edges into
// `images` (SPEC's edges, which name no handle); texts connected to `prompt` are joined to its own prompt when it
// runs. It runs as a `generation` job (src/jobs/), with a seed and a count (./graph.ts).
import { GENERATION_TASK_KIND, defineKind, type DataFields } from './kind.js';
import { SPEC_TYPES, specData } from './spec-data.js';
import { runResultData } from './steps-run-data.js';
import { numberField } from './values.js';

/** The largest seed (2^31 − 1): every model that takes a seed takes a 32-bit signed one. */
export const SEED_MAX = 2_147_483_647;
/** The most times a node's `count` runs it (each with its own seed). */
export const COUNT_MAX = 8;

/** A seeded kind's seed and count (./kind.ts `seeded`): generation's, and any other kind whose model is not deterministic. */
export const seedData = (): DataFields => ({
  seed: numberField(0, SEED_MAX, 'invalid-seed', { integer: true, description: `The seed its model runs with, 0–${SEED_MAX} (absent: the service draws one when it first runs)` }),
  count: numberField(1, COUNT_MAX, 'invalid-count', { integer: true, description: `How many images it makes, 1–${COUNT_MAX}, with seeds seed, seed + 1, … (absent: 1)` }),
});

export const generation = defineKind({
  type: 'generation',
  label: 'Generate',
  version: 1,
  dataTypes: SPEC_TYPES,
  data: (limits) => ({
    ...specData(limits),
    ...seedData(),
    ...runResultData(),
  }),
  inputs: [
    { name: 'images', label: 'Images', value: 'image', list: true, default: true },
    { name: 'prompt', label: 'Prompt', value: 'text', list: true },
  ],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  size: { width: 260, height: 530 }, // as the editor draws it: with its prompt chips, model, seed and count, and hint
  task: { kind: GENERATION_TASK_KIND, models: { role: 'generate' } },
  seeded: true,
});
