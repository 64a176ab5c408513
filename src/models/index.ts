// Builds the configured image model. Provider SDKs load only when their model is chosen.
import { type ImageModel, ModelConfigError } from './image-model.js';
import { isImageModelName, MODEL_INFO, type ImageModelName } from './catalogue.js';
import type { Workflow } from './comfyui-workflow.js';
import { DEFAULT_UPSCALE_MAX_INPUT_PIXELS, upscaleFactorOf } from './esrgan-upscaler.js';
import { inpaintMethodOf } from './inpainter.js';
import type { OutputFetcher } from './driver-support.js';
import type { FalEndpoint } from './fal-image-model.js';
import { HOSTED_UPSCALERS, withUpscaleLimit } from './hosted-steps.js';
import type { ReplicateModel } from './replicate-image-model.js';
import type { OfflineLimits } from './local-image-model.js';

export * from './image-model.js';
export { IMAGE_MODELS, isImageModelName, MODEL_INFO, modelInfo, PROVIDERS, rolesOf, type ImageModelName, type ModelInfo, type ProgressKind, type Provider } from './catalogue.js';
export { withFallback, withTimeoutAndLimit, type TimeoutAndLimit } from './wrappers.js';

export { DEFAULT_UPSCALE_MAX_INPUT_PIXELS };
/** The most pixels classical inpainting takes when no limit is given (INPUT_IMAGE_MAX_PIXELS's default). */
const DEFAULT_INPAINT_MAX_PIXELS = 40_000_000;

export interface ModelConfig {
  model: ImageModelName;
  apiKey?: string;
  /** Provider base URL override, used by tests and proxies (OpenAI: including `/v1`). */
  baseUrl?: string;
  timeoutMs: number;
  /** ESRGAN super-resolution: the most input pixels (UPSCALE_MAX_INPUT_PIXELS). */
  upscaleMaxInputPixels?: number;
  /** Classical inpainting: the most pixels of its image (INPUT_IMAGE_MAX_PIXELS). */
  inpaintMaxPixels?: number;
  /** OpenAI: partial images streamed as previews before the final one (0–3; default 0, one plain request). */
  partialImages?: number;
  /** What a prompt may ask of the offline engine (`local`); defaults for what is left out. */
  offline?: Partial<OfflineLimits>;
  /** The ComfyUI workflow (`comfyui`, whose server is `baseUrl`). */
  workflow?: Workflow;
  /** The ComfyUI inpainting workflow (`comfyui-inpaint`: COMFYUI_INPAINT_WORKFLOW or the shipped one). */
  inpaintWorkflow?: Workflow;
  /** The largest output image (MODEL_OUTPUT_MAX_BYTES), read or fetched. */
  maxOutputBytes?: number;
  /** How a hosted model's output given as a URL is fetched: the service's SSRF guard (./driver-support.ts). */
  outputFetcher?: OutputFetcher;
  /** INPUT_IMAGE_MAX_PIXELS: a hosted upscaler refuses an input whose result would be larger (./hosted-steps.ts). */
  maxResultPixels?: number;
}

/** A hosted upscaler held to the result limit (./hosted-steps.ts); any other model as it is. */
function limitUpscale(model: ImageModel, cfg: ModelConfig): ImageModel {
  if (cfg.maxResultPixels === undefined || !HOSTED_UPSCALERS.has(cfg.model)) return model;
  return withUpscaleLimit(model, cfg.maxResultPixels);
}

export async function createImageModel(cfg: ModelConfig): Promise<ImageModel> {
  if (cfg.model === 'local') {
    const { LocalImageModel } = await import('./local-image-model.js');
    return new LocalImageModel(cfg.offline);
  }
  if (!isImageModelName(cfg.model)) throw new ModelConfigError(`Unknown image model: ${String(cfg.model)}`);
  const scale = upscaleFactorOf(cfg.model);
  if (scale) {
    const { EsrganUpscaler } = await import('./esrgan-upscaler.js');
    return new EsrganUpscaler(scale, { maxInputPixels: cfg.upscaleMaxInputPixels ?? DEFAULT_UPSCALE_MAX_INPUT_PIXELS });
  }
  const inpaint = inpaintMethodOf(cfg.model);
  if (inpaint) {
    const { ClassicalInpainter } = await import('./inpainter.js');
    return new ClassicalInpainter(inpaint, cfg.inpaintMaxPixels ?? DEFAULT_INPAINT_MAX_PIXELS);
  }
  if (cfg.model === 'comfyui') {
    if (!cfg.baseUrl || !cfg.workflow) throw new ModelConfigError('The ComfyUI model needs COMFYUI_URL and a workflow');
    const { ComfyUIImageModel } = await import('./comfyui-image-model.js');
    return new ComfyUIImageModel({ baseUrl: cfg.baseUrl, workflow: cfg.workflow, maxOutputBytes: cfg.maxOutputBytes });
  }
  if (cfg.model === 'comfyui-inpaint') {
    if (!cfg.baseUrl || !cfg.inpaintWorkflow) throw new ModelConfigError('The ComfyUI inpainting model needs COMFYUI_URL and an inpainting workflow');
    const { ComfyUIImageModel } = await import('./comfyui-image-model.js');
    return new ComfyUIImageModel({ id: 'comfyui-inpaint', baseUrl: cfg.baseUrl, workflow: cfg.inpaintWorkflow, maxOutputBytes: cfg.maxOutputBytes });
  }
  if (!cfg.apiKey) throw new ModelConfigError(`Image model ${cfg.model} needs an API key`);
  const { apiKey, baseUrl, timeoutMs, maxOutputBytes, outputFetcher } = cfg;
  if (MODEL_INFO[cfg.model].provider === 'replicate') {
    const { ReplicateImageModel } = await import('./replicate-image-model.js');
    return limitUpscale(new ReplicateImageModel({ model: cfg.model as ReplicateModel, apiKey, baseUrl, maxOutputBytes, outputFetcher }), cfg);
  }
  if (MODEL_INFO[cfg.model].provider === 'fal') {
    const { FalImageModel } = await import('./fal-image-model.js');
    return limitUpscale(new FalImageModel({ endpoint: cfg.model as FalEndpoint, apiKey, baseUrl, maxOutputBytes, outputFetcher }), cfg);
  }
  if (cfg.model === 'gpt-image-1') {
    const { OpenAIImageModel } = await import('./openai-image-model.js');
    return new OpenAIImageModel({ apiKey, baseUrl, timeoutMs, partialImages: cfg.partialImages });
  }
  const { GeminiImageModel } = await import('./gemini-image-model.js');
  return new GeminiImageModel({ model: cfg.model, apiKey, baseUrl, timeoutMs });
}
