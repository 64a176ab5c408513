// The `data` SPEC gives both of its node kinds, `upload` and `generation` (SPEC.md "Node"): an image, a prompt,
// whether it is generating, and (ours) the model a generation node uses. Either kind may carry any of them, and
// either `data.type`, as SPEC allowed; ./upload.ts and ./generation.ts share this table.
import type { DataFields, KindLimits } from './kind.js';
import { MODEL_ID_MAX_CHARS, booleanField, imageField, textField } from './values.js';

export const SPEC_TYPES = ['upload', 'generation'] as const;

export const specData = (limits: KindLimits): DataFields => ({
  image: imageField('invalid-image'),
  prompt: textField(limits.promptChars, 'invalid-prompt'),
  isGenerating: booleanField('invalid-is-generating'),
  model: textField(MODEL_ID_MAX_CHARS, 'invalid-model', { description: 'A generation node: the model it generates with (an id from GET /api/models); absent: the default' }),
});
