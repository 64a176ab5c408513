// Typed errors with stable codes. Services, guards and routes throw these through the factories below; the
// error handler (src/http/error-handler.ts) is the one place that decides an error's HTTP status (from its
// code) and its body, `{ error, details? }` plus the documented extras. Codes go to the logs and the metrics,
// never into a body. A 5xx never carries an internal message beyond `details` where the API documents one
// (generation failures). Every code, its status and its message: docs/errors.md.

/** Every error the service answers. Adding one: a factory below, a status in the handler's table, docs/errors.md. */
export const ERROR_CODES = [
  // 400
  'invalid_request', // schema validation: the API's fixed messages, or `Invalid <field>: <reason>`
  'invalid_json',
  'invalid_url_encoding',
  'invalid_path', // a path with a `..` segment (in any encoding) where files are served
  'bad_request', // what the HTTP parser or a library refuses, without more to say
  'invalid_cursor',
  'invalid_image',
  'unusable_image',
  'input_image_too_large',
  'no_file_provided',
  'unsupported_file_type',
  'invalid_image_file',
  'image_too_large',
  'invalid_node_image',
  'upload_interrupted',
  'no_subscription',
  'video_asset_id_required',
  'node_settings_unusable',
  'prompt_not_understood',
  'invalid_run',
  'too_many_jobs',
  // 401, 402, 403
  'unauthorized',
  'upgrade_required',
  'budget_exceeded',
  'forbidden',
  'invalid_signature',
  // 404, 406, 408, 409, 412
  'not_found',
  'project_not_found',
  'asset_not_found',
  'not_acceptable',
  'request_timeout',
  'canvas_conflict',
  'precondition_failed',
  // 413, 415, 416, 429, 431
  'body_too_large',
  'canvas_too_large',
  'psd_too_large',
  'file_too_large',
  'unsupported_content_type',
  'range_not_satisfiable',
  'too_many_requests',
  'too_many_generations',
  'image_model_busy',
  'header_too_large',
  // 500
  'internal',
  'model_key_missing',
  'no_image_generated',
  'image_model_failed',
  'generation_failed',
  'upload_failed',
  // 502, 503
  'payment_provider_unavailable',
  'video_provider_unavailable',
  'service_unavailable',
  'payments_not_configured',
  'video_not_configured',
  // 404 (templates)
  'template_not_found',
  // 404 (sharing)
  'member_not_found',
  // 404 (history)
  'version_not_found',
  // 403, 404 (API tokens)
  'insufficient_scope',
  'session_required',
  'token_not_found',
  // 404, 409, 500, 503 (jobs)
  'job_not_found',
  'job_finished',
  'node_busy',
  'node_not_found',
  'job_interrupted',
  'storage_unavailable',
  // 404 (project gallery)
  'generation_not_found',
  // 404, 409 (runs)
  'run_not_found',
  'run_finished',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface AppErrorOptions {
  /** The body's `details`: a short reason safe to show. */
  details?: string;
  /** Documented fields answered beside `error` (the canvas `version` of a 409, the model's `text`). */
  extra?: Record<string, unknown>;
  /** Answered as `Retry-After` (whole seconds, at least 1). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly details?: string;
  readonly extra?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: C,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.details = options.details;
    this.extra = options.extra;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const isAppError = (err: unknown, code?: ErrorCode): err is AppError =>
  err instanceof AppError && (code === undefined || err.code === code);

const shown = (url: string) => (url.length > 100 ? `${url.slice(0, 100)}…` : url);

// Requests
export const invalidRequest = (message: string) => new AppError('invalid_request', message);
export const invalidJson = () => new AppError('invalid_json', 'Invalid JSON');
export const invalidUrlEncoding = () => new AppError('invalid_url_encoding', 'Invalid URL encoding');
export const invalidPath = () => new AppError('invalid_path', 'Invalid path');
export const badRequest = () => new AppError('bad_request', 'Bad request');
export const notFound = () => new AppError('not_found', 'Not found');
export const requestTimeout = () => new AppError('request_timeout', 'Request timeout');
export const headerTooLarge = () => new AppError('header_too_large', 'Request header fields too large');
/** A body over a route's limit (a route whose limit is part of its contract names its own error). */
export const bodyTooLarge = () => new AppError('body_too_large', 'Request body too large');
export const unsupportedContentType = () => new AppError('unsupported_content_type', 'Unsupported content type');
export const tooManyRequests = (retryAfterSeconds: number) => new AppError('too_many_requests', 'Too many requests', { retryAfterSeconds });
export const serviceUnavailable = () => new AppError('service_unavailable', 'Service unavailable', { retryAfterSeconds: 5 });
export const internal = () => new AppError('internal', 'Internal server error');

// Sessions and access
export const unauthorized = () => new AppError('unauthorized', 'Unauthorized');
export const forbidden = () => new AppError('forbidden', 'Forbidden');

// Projects and canvases
export const projectNotFound = () => new AppError('project_not_found', 'Project not found');
export const canvasConflict = (version: number) => new AppError('canvas_conflict', 'Canvas was changed elsewhere', { extra: { version } });
export const canvasTooLarge = () => new AppError('canvas_too_large', 'Canvas too large');
/** A compose node's PSD would pass PSD_MAX_BYTES (or its pixels INPUT_IMAGE_MAX_PIXELS): `problem` names the size. */
export const psdTooLarge = (problem: string) => new AppError('psd_too_large', 'PSD too large', { details: problem });
/** A node's data: URL image that cannot be stored (docs/api.md "Canvas"); `details` says why. */
export const invalidNodeImage = (nodeId: string, reason: string) => new AppError('invalid_node_image', `Invalid image in node ${shown(nodeId)}`, { details: reason });

// Generation
export const invalidCursor = () => new AppError('invalid_cursor', 'Invalid cursor');
export const invalidImage = (url: string, reason?: string) => new AppError('invalid_image', `Invalid image: ${shown(url)}`, { details: reason });
/** An input image that was read but cannot be used (truncated, corrupt, too many pixels); `details` names the input. */
export const unusableImage = (problem: string, input: { index: number; url: string }) =>
  new AppError('unusable_image', `Invalid image: ${problem}`, { details: `images[${input.index}]: ${shown(input.url)}` });
/** A model refused input `index` (its size, its format): the input named by its place, not its address (which may be the service's own). */
export const modelRefusedImage = (problem: string, index: number) =>
  new AppError('unusable_image', `Invalid image: ${problem}`, { details: `images[${index}] (input image ${index + 1})` });
/** The inputs of one generation declare more pixels together than GENERATION_MAX_PIXELS (read from their headers). */
export const imagesOverPixelBudget = (total: number, limit: number, count: number) =>
  new AppError('unusable_image', `Invalid image: the ${count} images are ${total} pixels together, more than the ${limit}-pixel limit of one generation`, {
    details: 'images: all inputs together',
  });
/** How the message of `prompt_not_understood` starts (the web client offers the words the engine knows under it). */
export const PROMPT_NOT_UNDERSTOOD = 'Prompt not understood';
/** The model can do nothing with the prompt (the offline engine understands none of it): `details` says what it understands. */
export const promptNotUnderstood = (problem: string, understands: string) =>
  new AppError('prompt_not_understood', `${PROMPT_NOT_UNDERSTOOD}: ${problem}`, { details: understands });
export const inputImageTooLarge = (url: string) => new AppError('input_image_too_large', 'Input image too large', { details: shown(url) });
export const upgradeRequired = () => new AppError('upgrade_required', 'Upgrade required');
const usd = (amount: number) => `$${amount.toFixed(amount < 1 ? 3 : 2)}`;
/** The monthly free budget (FREE_BUDGET_USD_PER_MONTH) would be passed: SPEC's 402, with what is left in its details. */
export const budgetUsedUp = (budget: number, used: number, price: number) =>
  new AppError('upgrade_required', 'Upgrade required', {
    details: `this generation costs about ${usd(price)} and ${usd(Math.max(0, budget - used))} of your ${usd(budget)} free budget is left this month`,
  });
const dollars = (amount: number) => `$${amount.toFixed(2)}`;
/** A run whose estimate, with what the user spent today (UTC), would pass USER_DAILY_BUDGET_USD: 402 with the three numbers. */
export const budgetExceeded = (budgetUsd: number, spentTodayUsd: number, estimateUsd: number) =>
  new AppError(
    'budget_exceeded',
    `This run would cost about ${dollars(estimateUsd)}; with ${dollars(spentTodayUsd)} spent today it would pass your daily budget of ${dollars(budgetUsd)}`,
    { extra: { budgetUsd, spentTodayUsd, estimateUsd } },
  );
/** The user already has `limit` generations running (GENERATIONS_IN_FLIGHT_PER_USER, on all instances together). */
export const tooManyGenerations = (limit: number, retryAfterSeconds: number) =>
  new AppError('too_many_generations', 'Too many generations in flight', {
    details: `at most ${limit} of your generations run at once; wait for one to finish`,
    retryAfterSeconds,
  });
/** A generation names a model this deployment does not run (GET /api/models lists those it does). */
export const unknownModel = (id: string) => new AppError('invalid_request', `Unknown model: ${JSON.stringify(id)} is not one this service runs (GET /api/models lists them)`);
/** More input images than the chosen model accepts in one call. */
export const tooManyImagesFor = (label: string, max: number) => new AppError('invalid_request', `Too many images: ${label} accepts at most ${max}`);
export const modelKeyMissing = () =>
  new AppError('model_key_missing', 'IMAGE_MODEL_API_KEY is not set. Please add IMAGE_MODEL_API_KEY to your local environment file (.env).');
export const noImageGenerated = (text: string) => new AppError('no_image_generated', 'No image was generated', { extra: { text } });
export const imageModelBusy = (retryAfterSeconds: number, reason: string) =>
  new AppError('image_model_busy', 'Image model is busy', { details: reason, retryAfterSeconds });
/** The model call failed: `Failed to generate image`, with the reason in `details`. */
export const imageModelFailed = (reason: string) => new AppError('image_model_failed', 'Failed to generate image', { details: reason });
/** Anything after the model answered failed (reading or storing its image). */
export const generationFailed = (reason: string) => new AppError('generation_failed', 'Failed to generate image', { details: reason });

// Uploads
export const noFileProvided = (details?: string) => new AppError('no_file_provided', 'No file provided', { details });
export const unsupportedFileType = (details?: string) => new AppError('unsupported_file_type', 'Unsupported file type', { details });
export const fileTooLarge = (details?: string) => new AppError('file_too_large', 'File too large', { details });
/** An image of an accepted type that cannot be read (a malformed SVG); `details` says why. */
export const invalidImageFile = (reason: string) => new AppError('invalid_image_file', 'Invalid image', { details: reason });
/** An SVG declaring more pixels than SVG_MAX_PIXELS; `details` names its size and the limit. */
export const imageTooLarge = (details: string) => new AppError('image_too_large', 'Image too large', { details });
export const uploadInterrupted = () =>
  new AppError('upload_interrupted', 'Upload was interrupted', { details: 'the multipart body ended early or was malformed' });
export const uploadFailed = () => new AppError('upload_failed', 'Failed to upload file');

// Payments
export const paymentsNotConfigured = () => new AppError('payments_not_configured', 'Payments are not configured');
export const paymentProviderUnavailable = () => new AppError('payment_provider_unavailable', 'Payment provider unavailable');
export const invalidSignature = () => new AppError('invalid_signature', 'Invalid signature');
export const noSubscription = () => new AppError('no_subscription', 'No subscription found');

// Video
export const videoNotConfigured = () => new AppError('video_not_configured', 'Video is not configured');
export const videoProviderUnavailable = () => new AppError('video_provider_unavailable', 'Video provider unavailable');
export const videoAssetIdRequired = () => new AppError('video_asset_id_required', 'assetId or uploadId is required');
export const assetNotFound = () => new AppError('asset_not_found', 'Asset not found');

// Templates
export const templateNotFound = () => new AppError('template_not_found', 'Template not found');

// Sharing
export const memberNotFound = () => new AppError('member_not_found', 'Member not found');

// History
export const versionNotFound = () => new AppError('version_not_found', 'Version not found');

// API tokens
/** A Bearer request whose token lacks the scope its route needs (src/auth/api-tokens.ts `requiredScope`). */
export const insufficientScope = (scope: string) => new AppError('insufficient_scope', `Token lacks the ${scope} scope`);
/** A Bearer request to a route only a signed-in session may use (token management, signing out everywhere). */
export const sessionRequired = () => new AppError('session_required', 'This route needs a signed-in session, not an API token');
export const tokenNotFound = () => new AppError('token_not_found', 'Token not found');

// Generation jobs
export const jobNotFound = () => new AppError('job_not_found', 'Job not found');
/** A node with a queued or running job cannot be started again: `jobId` names that job. */
export const nodeBusy = (jobId: string, status: string) =>
  new AppError('node_busy', 'Node is already running', { details: `job ${jobId} is ${status} for this node; cancel it or wait for it to end`, extra: { jobId } });
/** A node start (`{ projectId, nodeId }`) naming a node the project's canvas does not have. */
/** A node's settings (its `data`) that cannot make a result from its input (a crop box outside the image, …). */
export const nodeSettingsUnusable = (problem: string, nodeId: string) =>
  new AppError('node_settings_unusable', `Unusable settings: ${problem}`, { details: `node ${JSON.stringify(nodeId.slice(0, 200))}` });
export const nodeNotFound = (nodeId: string) => new AppError('node_not_found', 'Node not found', { details: `the canvas has no node ${JSON.stringify(nodeId.slice(0, 200))}` });
/** The instance running a job stopped (its heartbeat lapsed): `details` says what became of it. */
export const jobInterrupted = (reason: string) => new AppError('job_interrupted', 'Failed to generate image', { details: reason });
/** The object store could not be reached (reading an input or storing a result): not the input's fault. */
export const storageUnavailable = (reason?: string) => new AppError('storage_unavailable', 'Storage unavailable', { details: reason, retryAfterSeconds: 5 });
export const jobFinished = (status: string) => new AppError('job_finished', 'Job already finished', { details: `the job is ${status}; only a queued or running job can be canceled` });

// Project gallery
export const generationNotFound = () => new AppError('generation_not_found', 'Generation not found');

// Runs (src/runs/, docs/api.md "Runs"): a plan's problem names its nodes (`nodeIds`); nothing is queued.
const planned = (nodeIds: readonly string[]) => ({ extra: { nodeIds: nodeIds.slice(0, 50).map((id) => id.slice(0, 200)) } });
/** A run that cannot be planned: a cycle, a node that does not run, a blocked node, a mode without its nodes, nothing to run. */
export const invalidRun = (message: string, nodeIds: readonly string[]) => new AppError('invalid_run', message, planned(nodeIds));
/** A run of more jobs than RUN_MAX_JOBS (its fan-out): the message says how many. */
export const tooManyJobs = (message: string, nodeIds: readonly string[]) => new AppError('too_many_jobs', message, planned(nodeIds));
/** A run naming a node the canvas does not have. */
export const runNodeNotFound = (message: string, nodeIds: readonly string[]) => new AppError('node_not_found', message, planned(nodeIds));
export const runNotFound = () => new AppError('run_not_found', 'Run not found');
export const runFinished = (status: string) => new AppError('run_finished', 'Run already finished', { details: `the run ${status}; only a running run can be canceled` });
