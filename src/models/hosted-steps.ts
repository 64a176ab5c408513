// The hosted upscalers and background removers (catalogue.ts: `does` upscale / remove-background): what each one's
// request carries. One image in (a data URI, as the editors' inputs go), no prompt and no seed; the upscalers at 2×,
// as their labels say. fal's answer one `image` (not a list); Replicate's a URL, as the editors' do.
import sharp from 'sharp';
import { type GenerateRequest, type ImageModel, ModelInputError } from './image-model.js';
import { dataUri } from './driver-support.js';
import { tooLargeToUpscale } from './esrgan-upscaler.js';

/** The upscale factor the hosted upscalers are asked for (their catalogue labels say 2×). */
export const HOSTED_UPSCALE_FACTOR = 2;

export const FAL_STEP_ENDPOINTS = ['fal-ai/clarity-upscaler', 'fal-ai/bria/background/remove'] as const;
export type FalStepEndpoint = (typeof FAL_STEP_ENDPOINTS)[number];

export const isFalStepEndpoint = (id: string): id is FalStepEndpoint => (FAL_STEP_ENDPOINTS as readonly string[]).includes(id);

/** fal's input for an upscaler or background remover: the image, the output inline (sync_mode), the scale. */
export function falStepInput(endpoint: FalStepEndpoint, req: GenerateRequest): Record<string, unknown> {
  const common = { image_url: dataUri(req.images[0]), sync_mode: true };
  if (endpoint === 'fal-ai/clarity-upscaler') return { ...common, upscale_factor: HOSTED_UPSCALE_FACTOR };
  return common;
}

export const REPLICATE_STEP_MODELS = ['nightmareai/real-esrgan', 'bria/remove-background'] as const;
export type ReplicateStepModel = (typeof REPLICATE_STEP_MODELS)[number];

export const isReplicateStepModel = (id: string): id is ReplicateStepModel => (REPLICATE_STEP_MODELS as readonly string[]).includes(id);

/**
 * Community models on Replicate run by a version, not by name: the driver asks for the model's latest version
 * (GET /v1/models/{owner}/{name}) and creates the prediction with it. Official ones (Bria) run by name.
 */
export const REPLICATE_COMMUNITY_MODELS: ReadonlySet<string> = new Set<ReplicateStepModel>(['nightmareai/real-esrgan']);

/** Replicate's input for an upscaler or background remover. */
export function replicateStepInput(model: ReplicateStepModel, req: GenerateRequest): Record<string, unknown> {
  const image = dataUri(req.images[0]);
  if (model === 'nightmareai/real-esrgan') return { image, scale: HOSTED_UPSCALE_FACTOR, face_enhance: false };
  return { image };
}

/** The hosted upscalers (their results are HOSTED_UPSCALE_FACTOR² times their input's pixels). */
export const HOSTED_UPSCALERS: ReadonlySet<string> = new Set(['fal-ai/clarity-upscaler', 'nightmareai/real-esrgan']);

/** The most pixels a hosted upscaler's input may have for its result to stay within `maxResultPixels`. */
export const hostedUpscaleMaxInputPixels = (maxResultPixels: number): number => Math.floor(maxResultPixels / HOSTED_UPSCALE_FACTOR ** 2);

/**
 * A hosted upscaler that refuses, before any call, an input whose result would pass `maxResultPixels`
 * (INPUT_IMAGE_MAX_PIXELS: every result is held to it), as the offline ones refuse theirs (only the header is read).
 */
export function withUpscaleLimit(model: ImageModel, maxResultPixels: number): ImageModel {
  const maxInput = hostedUpscaleMaxInputPixels(maxResultPixels);
  return {
    id: model.id,
    async generate(req) {
      const first = req.images[0];
      // Only the header (sharp's metadata decodes nothing); one the service could not read never got this far.
      const header = first ? await sharp(first.data, { limitInputPixels: false }).metadata().catch(() => undefined) : undefined;
      const width = header?.width ?? 0;
      const height = header?.pageHeight ?? header?.height ?? 0;
      if (width * height > maxInput) throw new ModelInputError(0, tooLargeToUpscale(width, height, maxInput));
      return model.generate(req);
    },
  };
}
