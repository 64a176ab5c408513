// Prompt presets for a generation node's model: for a model that understands only some words (the offline engine,
// whose `promptHints` GET /api/models lists), those words, each added to the prompt; for a hosted model, a few
// whole prompts that replace it.
import type { ImageModelInfo } from '../api/client';

export interface PromptPresets {
  /** `words`: each is added to the prompt (the engine applies them in order); `prompts`: each replaces it. */
  kind: 'words' | 'prompts';
  items: readonly string[];
}

/** What a hosted image model is commonly asked: whole prompts that work with one or several inputs. */
export const HOSTED_PRESETS: readonly string[] = [
  'Combine the images into one natural scene',
  'Turn it into a watercolour painting',
  'Remove the background, keep the subject',
  'Make it golden hour, with warm soft light',
  'Upscale and sharpen, keep every detail',
];

/** The presets for the model a run uses; undefined while it is unknown. */
export function promptPresets(model: ImageModelInfo | undefined): PromptPresets | undefined {
  if (!model) return undefined;
  if (model.promptHints && model.promptHints.length > 0) return { kind: 'words', items: model.promptHints };
  if (model.offline) return undefined;
  return { kind: 'prompts', items: HOSTED_PRESETS };
}

/** The prompt with a preset applied: a word added after what is there ("grayscale, blur 4"), or a prompt instead. */
export function applyPreset(prompt: string, preset: string, kind: PromptPresets['kind']): string {
  if (kind === 'prompts') return preset;
  const before = prompt.trimEnd().replace(/,$/, '');
  return before === '' ? preset : `${before}, ${preset}`;
}
