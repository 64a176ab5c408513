// Builds the configured image model. Provider SDKs load only when their model is chosen.
import { type ImageModel, ModelConfigError } from './image-model.js';
import type { OfflineLimits } from './local-image-model.js';

export * from './image-model.js';
export { withFallback, withTimeoutAndLimit, type TimeoutAndLimit } from './wrappers.js';

export const IMAGE_MODELS = [
  'local',
  'gemini-2.5-flash-image',
  'gemini-3-pro-image-preview',
  'gemini-2.5-flash-image-preview',
  'gpt-image-1',
] as const;

export type ImageModelName = (typeof IMAGE_MODELS)[number];

export interface ModelConfig {
  model: ImageModelName;
  apiKey?: string;
  /** Provider base URL override, used by tests and proxies (OpenAI: including `/v1`). */
  baseUrl?: string;
  timeoutMs: number;
  /** What a prompt may ask of the offline engine (`local`); defaults for what is left out. */
  offline?: Partial<OfflineLimits>;
}

function isImageModelName(value: string): value is ImageModelName {
  return (IMAGE_MODELS as readonly string[]).includes(value);
}

export async function createImageModel(cfg: ModelConfig): Promise<ImageModel> {
  if (cfg.model === 'local') {
    const { LocalImageModel } = await import('./local-image-model.js');
    return new LocalImageModel(cfg.offline);
  }
  if (!isImageModelName(cfg.model)) throw new ModelConfigError(`Unknown image model: ${String(cfg.model)}`);
  if (!cfg.apiKey) throw new ModelConfigError(`Image model ${cfg.model} needs an API key`);
  const { apiKey, baseUrl, timeoutMs } = cfg;
  if (cfg.model === 'gpt-image-1') {
    const { OpenAIImageModel } = await import('./openai-image-model.js');
    return new OpenAIImageModel({ apiKey, baseUrl, timeoutMs });
  }
  const { GeminiImageModel } = await import('./gemini-image-model.js');
  return new GeminiImageModel({ model: cfg.model, apiKey, baseUrl, timeoutMs });
}
