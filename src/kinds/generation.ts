// `generation` (SPEC): images + a prompt → an image, with a model per node. Its images come from the edges into
// `images` (SPEC's edges, which name no handle); texts connected to `prompt` are joined to its own prompt when it
// runs. It runs as a `generation` job (src/jobs/).
import { defineKind } from './kind.js';
import { SPEC_TYPES, specData } from './spec-data.js';

export const generation = defineKind({
  type: 'generation',
  label: 'Generate',
  version: 1,
  dataTypes: SPEC_TYPES,
  data: specData,
  inputs: [
    { name: 'images', label: 'Images', value: 'image', list: true, default: true },
    { name: 'prompt', label: 'Prompt', value: 'text', list: true },
  ],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  size: { width: 260, height: 500 }, // with its prompt chips, model and hint
  task: { kind: 'generation' },
});
