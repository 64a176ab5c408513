// The port every image-generation driver implements. Routes depend on this file only.

export interface ModelImage {
  data: Buffer;
  mimeType: string;
}

export interface GenerateRequest {
  images: ModelImage[];
  prompt: string;
  signal: AbortSignal;
  /**
   * Called by a provider driver as soon as the provider has answered the call itself — an image, text only, a
   * refusal, or an answer that cannot be read — and not for HTTP errors, timeouts or connection failures. The
   * caller counts such a call as spent (the free quota, docs/api.md "The free quota"), whatever comes of it.
   */
  onAnswered?: () => void;
  /** Who asks (the user's id): shared capacity, such as the image workers, is split fairly between owners. */
  owner?: string;
  /** What the provider says while it works (its queue position, a log line, steps done): as often as it says it. */
  onProgress?: (progress: ModelProgress) => void;
  /**
   * The generation's seed (a node's `data.seed`, 0..2^31-1): the models that take one (`takesSeed` in the catalogue:
   * fal's, Replicate's Kontext and Qwen, ComfyUI's sampler) send it; the others ignore it. Absent: the provider's own.
   */
  seed?: number;
  /**
   * An edit's mask (the models with `takesMask` in the catalogue): a PNG the size of `images[0]`, white where the model
   * redraws the image and black where it keeps it (already fitted to the image and checked not empty by the caller).
   */
  mask?: ModelImage;
}

/** One report of a model's progress; each field only when the provider gives it. */
export interface ModelProgress {
  /** 1 = next to start, in the provider's own queue. */
  queuePosition?: number;
  /** Steps done of a total (a diffusion's sampling steps). */
  step?: { done: number; total: number };
  /** A short line from the provider's log. */
  message?: string;
  /** An early, rough version of the image (OpenAI's partial images). */
  preview?: ModelImage;
}

export interface GenerateResult {
  /** Absent when the model answered but produced no image (the route answers `No image was generated`). */
  image?: ModelImage;
  text?: string;
  /** Id of the model that produced this result (differs from the primary's id after a fallback). */
  model?: string;
  /** The provider's own version of the model, when its answer states one (recorded in the generation's lineage). */
  modelVersion?: string;
  /** What the provider says the call cost, when it says so (none of our providers does today). */
  cost?: { amount: number; currency: string };
}

export interface ImageModel {
  readonly id: string;
  generate(req: GenerateRequest): Promise<GenerateResult>;
}

/** The provider answered HTTP 429. */
export class ModelQuotaError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ModelQuotaError';
  }
}

/** Anything else: network, 5xx, malformed answer, timeout. The message is a short reason, never a stack or key. */
export class ModelFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelFailedError';
  }
}

/** The model cannot use input image `index` (e.g. a format its decoder lacks): the request's fault, answered 400. */
export class ModelInputError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
    this.name = 'ModelInputError';
  }
}

/**
 * The model can do nothing with the prompt (the offline engine, which is no AI model, understands none of its
 * words): the request's fault, answered 400. `problem` says what it could not act on, `understands` what it can.
 */
export class ModelPromptError extends Error {
  constructor(
    readonly problem: string,
    readonly understands: string,
  ) {
    super(problem);
    this.name = 'ModelPromptError';
  }
}

/** The model cannot be built from its configuration (e.g. a provider model without an API key). */
export class ModelConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}
