// The models this deployment runs (GET /api/models, docs/api.md "Models") and the model a generation calls for
// each. A provider's models are offered when its key is configured: its own variable (GEMINI_API_KEY, …), or
// IMAGE_MODEL_API_KEY for the default model's provider. The offline engine needs none. Each model is built on its
// first use (its SDK loads then) with the timeout and its own concurrency cap; the default model also with the
// configured fallback.
import type { ModelRole } from '../kinds/kind.js';
import { IMAGE_MODELS, MODEL_INFO, rolesOf, type ImageModelName, type ModelInfo, type Provider } from './catalogue.js';
import { DEFAULT_UPSCALE_MAX_INPUT_PIXELS, upscaleFactorOf } from './esrgan-upscaler.js';
import { HOSTED_UPSCALERS, hostedUpscaleMaxInputPixels } from './hosted-steps.js';
import type { ImageModel } from './image-model.js';
import { withFallback, withTimeoutAndLimit } from './wrappers.js';

export interface ModelSettings {
  model: ImageModelName;
  fallback?: ImageModelName;
  apiKey?: string;
  baseUrl?: string;
  providers: Record<Exclude<Provider, 'offline' | 'comfyui'>, { apiKey?: string; baseUrl?: string }>;
  /** A ComfyUI server and the images its workflow takes (COMFYUI_URL); absent: not offered. */
  comfyui?: { url: string; images: number };
  timeoutMs: number;
  maxConcurrent: number;
  /** OpenAI's partial images streamed as previews (OPENAI_PARTIAL_IMAGES); 0: gpt-image-1 shows no progress. */
  openaiPartialImages?: number;
  /** The most pixels the upscalers take in one input (UPSCALE_MAX_INPUT_PIXELS). */
  upscaleMaxInputPixels?: number;
}

/** How to reach a hosted model: its key, and a base URL when one is configured. */
export interface ModelAccess {
  apiKey?: string;
  baseUrl?: string;
}

/** One model of the catalogue as this deployment offers it. */
export interface CatalogueEntry extends Omit<ModelInfo, 'takesPrompt' | 'takesSeed' | 'does' | 'takesMask'> {
  /** The model a generation that names none runs. */
  default: boolean;
  /** Whether a generation with it needs a prompt (false: the upscalers, which use none). */
  takesPrompt: boolean;
  /** Whether a generation's seed reaches the model (the others ignore it). */
  takesSeed: boolean;
  /** What it does (the node kinds that offer it). */
  does: readonly ModelRole[];
  /** Whether a generation's mask reaches it (the models that do `inpaint`). */
  takesMask: boolean;
  /** The most pixels (width × height) one input image may have: the model's own limit or the service's, the lower. */
  maxInputPixels?: number;
}

export interface ModelRegistry {
  readonly defaultId: ImageModelName;
  /** The models this deployment runs, in catalogue order. */
  list(): CatalogueEntry[];
  /** The catalogue entry of a model this deployment runs; undefined for any other name. */
  find(id: string): CatalogueEntry | undefined;
  /**
   * The model to call for `id` (undefined: the default, with its fallback). undefined when `id` names no model
   * this deployment runs; null when it is the default and its provider has no key (SPEC: a 500 naming the key).
   */
  get(id?: string): Promise<ImageModel | null | undefined>;
}

export function createModelRegistry(
  settings: ModelSettings,
  /** Builds one model (the offline engine in the image workers; a provider's through its SDK). */
  build: (model: ImageModelName, access: ModelAccess) => Promise<ImageModel>,
  /** The service's own cap on the images of one generation (GENERATION_MAX_IMAGES). */
  maxImages: number,
  /** The service's own cap on the pixels of one input image (INPUT_IMAGE_MAX_PIXELS). */
  maxPixels?: number,
): ModelRegistry {
  const defaultProvider = MODEL_INFO[settings.model].provider;
  const access = (model: ImageModelName): ModelAccess | null => {
    const provider = MODEL_INFO[model].provider;
    if (provider === 'offline') return {};
    if (provider === 'comfyui') return settings.comfyui ? { baseUrl: settings.comfyui.url } : null;
    const own = settings.providers[provider];
    const shared = provider === defaultProvider;
    const apiKey = (model === settings.model ? settings.apiKey : undefined) ?? own.apiKey ?? (shared ? settings.apiKey : undefined);
    if (!apiKey) return null;
    return { apiKey, baseUrl: (model === settings.model ? settings.baseUrl : undefined) ?? own.baseUrl ?? (shared ? settings.baseUrl : undefined) };
  };
  const runnable = IMAGE_MODELS.filter((m) => access(m) !== null);
  const takes = (m: ImageModelName) => (m === 'comfyui' && settings.comfyui ? settings.comfyui.images : MODEL_INFO[m].maxInputs);
  const progress = (m: ImageModelName) => (m === 'gpt-image-1' && !settings.openaiPartialImages ? 'none' : MODEL_INFO[m].progress);
  const pixels = (m: ImageModelName) => {
    const hosted = HOSTED_UPSCALERS.has(m) && maxPixels !== undefined ? hostedUpscaleMaxInputPixels(maxPixels) : undefined; // its result within the limit
    const own = upscaleFactorOf(m) ? (settings.upscaleMaxInputPixels ?? DEFAULT_UPSCALE_MAX_INPUT_PIXELS) : hosted;
    const limits = [own, maxPixels].filter((n): n is number => n !== undefined);
    return limits.length > 0 ? { maxInputPixels: Math.min(...limits) } : {};
  };
  const entries = runnable.map(
    (m): CatalogueEntry => ({
      ...MODEL_INFO[m],
      maxInputs: Math.min(takes(m), maxImages),
      progress: progress(m),
      default: m === settings.model,
      takesPrompt: (MODEL_INFO[m] as ModelInfo).takesPrompt !== false,
      takesSeed: (MODEL_INFO[m] as ModelInfo).takesSeed === true,
      does: rolesOf(MODEL_INFO[m] as ModelInfo),
      takesMask: (MODEL_INFO[m] as ModelInfo).takesMask === true,
      ...pixels(m),
    }),
  );
  const byId = new Map(entries.map((e) => [e.id, e]));

  const limited = new Map<ImageModelName, Promise<ImageModel>>();
  const one = (model: ImageModelName): Promise<ImageModel> => {
    let made = limited.get(model);
    if (!made) {
      made = build(model, access(model)!).then((m) => withTimeoutAndLimit(m, { timeoutMs: settings.timeoutMs, maxConcurrent: settings.maxConcurrent }));
      made.catch(() => limited.delete(model)); // a failed build is tried again on the next use
      limited.set(model, made);
    }
    return made;
  };
  let chain: Promise<ImageModel> | undefined;
  const defaultChain = async (): Promise<ImageModel> => {
    const primary = await one(settings.model);
    const fallback = settings.fallback && access(settings.fallback) ? await one(settings.fallback) : null;
    return fallback ? withFallback(primary, fallback) : primary;
  };

  return {
    defaultId: settings.model,
    list: () => entries.map((e) => ({ ...e })),
    find: (id) => {
      const entry = byId.get(id);
      return entry && { ...entry };
    },
    async get(id) {
      if (id === undefined || id === settings.model) {
        if (!byId.has(settings.model)) return null; // a missing key is a configuration error to surface, not to route around
        if (!chain) {
          chain = defaultChain();
          chain.catch(() => (chain = undefined)); // a failed build is tried again on the next use
        }
        return chain;
      }
      if (!byId.has(id)) return undefined;
      return one(id as ImageModelName);
    },
  };
}
