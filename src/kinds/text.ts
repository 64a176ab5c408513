// `text`: a text someone writes. Its output is the text, which a generation's `prompt` port takes (joined to that
// node's own prompt), so it is held to the prompt's limit (PROMPT_MAX_CHARS).
import { defineKind } from './kind.js';
import { textField } from './values.js';

export const text = defineKind({
  type: 'text',
  label: 'Text',
  version: 1,
  data: (limits) => ({ text: textField(limits.promptChars, 'invalid-text', { required: true, description: 'the text (may be empty)' }) }),
  inputs: [],
  outputs: [{ name: 'text', label: 'Text', value: 'text', list: false, default: true }],
  gives: (data) => ({ text: [{ text: typeof data.text === 'string' ? data.text : '' }] }),
  size: { width: 260, height: 180 },
});
