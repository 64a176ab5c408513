// What each model we can drive is (docs/api.md "Models"): the facts GET /api/models publishes, before any SDK
// is loaded. Which of them a deployment can run depends on its keys (./registry.ts).
import type { ModelRole } from '../kinds/kind.js';
import { PROMPT_HINTS } from './local-operations.js';

/** Who runs the model: our own offline engine, or a hosted provider reached with its key. */
export const PROVIDERS = ['offline', 'gemini', 'openai', 'fal', 'replicate', 'comfyui'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** What a model reports while it works: nothing, steps done of a total, or preview images. */
export type ProgressKind = 'none' | 'steps' | 'previews';

export interface ModelInfo {
  id: string;
  provider: Provider;
  label: string;
  /** Input images one call accepts (at most; the service's GENERATION_MAX_IMAGES may lower it). */
  maxInputs: number;
  progress: ProgressKind;
  /** What one image costs, in US dollars, when the provider publishes a price per image. */
  costPerImageUsd?: number;
  /** Runs on this machine, without sending anything anywhere (and without a key). */
  offline: boolean;
  /** Short prompts the model is known to understand, when it understands only some words (the offline engine). */
  promptHints?: readonly string[];
  /** false: the model does not use a prompt (the upscalers), so a generation with it needs none; absent: it does. */
  takesPrompt?: false;
  /** What the provider publishes the model costs, and where (absent: no published figure we can use, an estimate counts it unpriced). */
  price?: ModelPrice;
  /** true: a generation's `seed` reaches the model (fal, Replicate, ComfyUI's sampler); absent: the model takes none and ignores it. */
  takesSeed?: true;
  /**
   * What it does (the node kinds that offer it: a kind's `task.models.role`, src/kinds/kind.ts); absent: `generate`.
   * The upscalers do `upscale` and `generate` (generation nodes have always offered them).
   */
  does?: readonly ModelRole[];
  /**
   * true: a generation's `mask` (GenerateRequest.mask: white edits, black keeps, the size of the first image) reaches
   * the model, which redraws only the masked area. Every model that does `inpaint` takes one; no other does.
   */
  takesMask?: true;
}

/** What a model does (its `does`, `generate` when absent). */
export const rolesOf = (info: Pick<ModelInfo, 'does'>): readonly ModelRole[] => info.does ?? ['generate'];

/**
 * A model's published price in US dollars (DESIGN.md §12 "Prices"): per output image, per second of video, or per
 * 1,000 tokens, with the page it was read from and when. 0 for what runs on our own machines.
 */
export interface ModelPrice {
  perImageUsd?: number;
  perSecondUsd?: number;
  /** Per 1,000 output tokens (OpenAI's image models bill images as tokens). */
  per1kTokensUsd?: number;
  /** With `per1kTokensUsd`: the output tokens one image is taken to take, for an estimate (see the model). */
  tokensPerImage?: number;
  /** The provider's pricing page and the month it was read (`https://… (read 2026-11)`), or `self-hosted` / `offline`. */
  source: string;
}

const READ = '(read 2026-11)';
const OFFLINE_PRICE: ModelPrice = { perImageUsd: 0, source: 'offline: runs on this service' };
const GEMINI_PRICES = `https://ai.google.dev/gemini-api/docs/pricing ${READ}`;
/**
 * gpt-image-1's image output tokens ($40 per million: $0.04 per 1,000). A 1024×1024 image at medium quality is 1,056
 * output tokens in OpenAI's own table (low 272, high 4,160), so the estimate takes $0.04224 per image; the input
 * text and images are billed as input tokens besides, which the estimate leaves out.
 */
const GPT_IMAGE_1_TOKENS_PER_IMAGE = 1056;

/**
 * Every model a deployment may configure, in the order the catalogue lists them. Prices are the providers' list
 * prices per output image (Gemini: 1,290 output tokens at $30 per million for the Flash image models; $0.134 per
 * 1K/2K image for Gemini 3 Pro Image); gpt-image-1 is billed by tokens, which vary with the inputs and the
 * quality it picks, so it has no `costPerImageUsd` (what a generation records and the free budget holds) and its
 * `price` is per 1,000 tokens, with the tokens one image is taken to take for a run's estimate. The Qwen editors
 * are priced per megapixel (fal) or by GPU time (Replicate): no figure per image, so no `price`. ComfyUI runs on
 * the operator's own server (`self-hosted`, 0). The catalogue holds no video models yet, so no price per second.
 * `takesSeed`: the request carries a generation's seed (fal's `seed` input, Replicate's on the Kontext and Qwen
 * editors, the ComfyUI workflow's `{{seed}}`); Gemini, OpenAI, Nano Banana on Replicate (its input has no seed) and
 * the offline engine take none and ignore it.
 */
export const MODEL_INFO = {
  local: {
    id: 'local',
    provider: 'offline',
    label: 'Offline image engine (not AI: applies the operations a prompt names)',
    maxInputs: 16,
    progress: 'none',
    offline: true,
    promptHints: PROMPT_HINTS,
    price: OFFLINE_PRICE,
  },
  // Offline super-resolution (src/models/esrgan-upscaler.ts): machine learning, run in the image workers; one image,
  // the prompt is not used.
  'esrgan-slim-2x': {
    id: 'esrgan-slim-2x',
    provider: 'offline',
    label: 'Upscale 2× with ESRGAN (offline machine learning; the prompt is not used)',
    maxInputs: 1,
    progress: 'none',
    offline: true,
    takesPrompt: false,
    does: ['generate', 'upscale'],
    price: OFFLINE_PRICE,
  },
  'esrgan-slim-4x': {
    id: 'esrgan-slim-4x',
    provider: 'offline',
    label: 'Upscale 4× with ESRGAN (offline machine learning; the prompt is not used)',
    maxInputs: 1,
    progress: 'none',
    offline: true,
    takesPrompt: false,
    does: ['generate', 'upscale'],
    price: OFFLINE_PRICE,
  },
  // Offline classical inpainting (src/models/classical-inpaint.ts: OpenCV through opencv.js), run in the image workers; the
  // image and the mask of an edit node, the prompt is not used.
  'inpaint-telea': {
    id: 'inpaint-telea',
    provider: 'offline',
    label: 'Fill from surroundings (offline, classical inpainting — not AI: good for small areas; the prompt is not used)',
    maxInputs: 1,
    progress: 'none',
    offline: true,
    takesPrompt: false,
    does: ['inpaint'],
    takesMask: true,
    price: OFFLINE_PRICE,
  },
  'inpaint-ns': {
    id: 'inpaint-ns',
    provider: 'offline',
    label: 'Fill from surroundings, Navier–Stokes (offline, classical inpainting — not AI: good for small areas; the prompt is not used)',
    maxInputs: 1,
    progress: 'none',
    offline: true,
    takesPrompt: false,
    does: ['inpaint'],
    takesMask: true,
    price: OFFLINE_PRICE,
  },
  'gemini-2.5-flash-image': {
    id: 'gemini-2.5-flash-image',
    provider: 'gemini',
    label: 'Gemini 2.5 Flash Image',
    maxInputs: 3,
    progress: 'none',
    costPerImageUsd: 0.039,
    offline: false,
    price: { perImageUsd: 0.039, source: GEMINI_PRICES },
  },
  'gemini-3-pro-image-preview': {
    id: 'gemini-3-pro-image-preview',
    provider: 'gemini',
    label: 'Gemini 3 Pro Image (preview)',
    maxInputs: 14,
    progress: 'none',
    costPerImageUsd: 0.134,
    offline: false,
    price: { perImageUsd: 0.134, source: GEMINI_PRICES },
  },
  'gemini-2.5-flash-image-preview': {
    id: 'gemini-2.5-flash-image-preview',
    provider: 'gemini',
    label: 'Gemini 2.5 Flash Image (preview)',
    maxInputs: 3,
    progress: 'none',
    costPerImageUsd: 0.039,
    offline: false,
    price: { perImageUsd: 0.039, source: GEMINI_PRICES },
  },
  'gpt-image-1': {
    id: 'gpt-image-1',
    provider: 'openai',
    label: 'OpenAI GPT Image 1',
    maxInputs: 16,
    progress: 'previews', // its partial images, when OPENAI_PARTIAL_IMAGES is not 0
    offline: false,
    price: { per1kTokensUsd: 0.04, tokensPerImage: GPT_IMAGE_1_TOKENS_PER_IMAGE, source: `https://platform.openai.com/docs/pricing ${READ}` },
  },
  // fal's queue API (docs/research/model-providers.md): image-edit endpoints, ids as fal names them. Prices are fal's
  // per image; Qwen's is per megapixel, so it has none.
  'fal-ai/nano-banana/edit': {
    id: 'fal-ai/nano-banana/edit',
    provider: 'fal',
    label: 'Nano Banana edit (Gemini 2.5 Flash Image) on fal',
    maxInputs: 3,
    progress: 'none',
    costPerImageUsd: 0.039,
    offline: false,
    price: { perImageUsd: 0.039, source: `https://fal.ai/models/fal-ai/nano-banana/edit ${READ}` },
    takesSeed: true,
  },
  'fal-ai/flux-pro/kontext': {
    id: 'fal-ai/flux-pro/kontext',
    provider: 'fal',
    label: 'FLUX.1 Kontext [pro] on fal',
    maxInputs: 1,
    progress: 'none',
    costPerImageUsd: 0.04,
    offline: false,
    price: { perImageUsd: 0.04, source: `https://fal.ai/models/fal-ai/flux-pro/kontext ${READ}` },
    takesSeed: true,
  },
  'fal-ai/qwen-image-edit': {
    id: 'fal-ai/qwen-image-edit',
    provider: 'fal',
    label: 'Qwen Image Edit on fal',
    maxInputs: 1,
    progress: 'none',
    offline: false,
    takesSeed: true,
  },
  // Replicate's predictions API: image editors by their owner/name. Prices are Replicate's per output image; Qwen's
  // is not stated per image, so it has none.
  'google/nano-banana': {
    id: 'google/nano-banana',
    provider: 'replicate',
    label: 'Nano Banana (Gemini 2.5 Flash Image) on Replicate',
    maxInputs: 3,
    progress: 'none',
    costPerImageUsd: 0.039,
    offline: false,
    price: { perImageUsd: 0.039, source: `https://replicate.com/google/nano-banana ${READ}` },
  },
  'black-forest-labs/flux-kontext-pro': {
    id: 'black-forest-labs/flux-kontext-pro',
    provider: 'replicate',
    label: 'FLUX.1 Kontext [pro] on Replicate',
    maxInputs: 1,
    progress: 'none',
    costPerImageUsd: 0.04,
    offline: false,
    price: { perImageUsd: 0.04, source: `https://replicate.com/black-forest-labs/flux-kontext-pro ${READ}` },
    takesSeed: true,
  },
  'qwen/qwen-image-edit': {
    id: 'qwen/qwen-image-edit',
    provider: 'replicate',
    label: 'Qwen Image Edit on Replicate',
    maxInputs: 1,
    progress: 'steps',
    offline: false,
    takesSeed: true,
  },
  // The operator's own ComfyUI server (COMFYUI_URL) running a workflow (COMFYUI_WORKFLOW, or the shipped
  // Qwen-Image-Edit one); it takes as many images as the workflow has placeholders for (the registry says so).
  comfyui: {
    id: 'comfyui',
    provider: 'comfyui',
    label: 'ComfyUI workflow on your server',
    maxInputs: 16,
    progress: 'steps',
    offline: false,
    price: { perImageUsd: 0, source: 'self-hosted' },
    takesSeed: true, // the workflow's {{seed}} placeholder (the shipped one's KSampler)
  },
} as const satisfies Record<string, ModelInfo>;

export type ImageModelName = keyof typeof MODEL_INFO;

export const IMAGE_MODELS = Object.keys(MODEL_INFO) as [ImageModelName, ...ImageModelName[]];

export function isImageModelName(value: string): value is ImageModelName {
  return Object.hasOwn(MODEL_INFO, value);
}

export function modelInfo(id: ImageModelName): ModelInfo {
  return MODEL_INFO[id];
}
