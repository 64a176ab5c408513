// `upload` (SPEC): an image someone put on the canvas. No inputs; its image is its output.
import { defineKind } from './kind.js';
import { SPEC_TYPES, specData } from './spec-data.js';

export const upload = defineKind({
  type: 'upload',
  label: 'Image',
  version: 1,
  dataTypes: SPEC_TYPES,
  data: specData,
  inputs: [],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  gives: (data) => ({ image: typeof data.image === 'string' && data.image.length > 0 ? [{ image: data.image }] : [] }),
  size: { width: 260, height: 330 }, // as the editor draws it: with its image and buttons
});
