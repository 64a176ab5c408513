// The metrics port: what services record (generations, model errors, uploads), and how a failure is
// classified, by its error code. The Prometheus driver and the GET /api/metrics route: src/http/metrics.ts.
import { isAppError } from './errors.js';

/**
 * How a generation ended. `quota`: the model provider answered 429; `upgrade_required`: the free daily
 * quota (402); `too_many_generations`: the user's generations in flight were at the limit (429); `error`:
 * anything else (storage, database, no model configured).
 */
export type GenerationResult = 'ok' | 'no_image' | 'model_error' | 'quota' | 'invalid_input' | 'upgrade_required' | 'too_many_generations' | 'error';
/**
 * How an upload ended (`interrupted`: the client's body ended early or was malformed; `invalid_image`: an SVG
 * that could not be rasterized or declares too many pixels).
 */
export type UploadResult = 'ok' | 'unsupported_type' | 'too_large' | 'invalid_image' | 'interrupted' | 'error';

/** How a compaction of a live document that came due ended: `skipped` while people edit and its log was small. */
export type CompactionResult = 'merged' | 'skipped' | 'failed';

/**
 * Whole-document work on a live document's stored bytes (src/collab/document-workers.ts): `merge` (a compaction, a
 * load, a catch-up), `render` (a read of a document not open here, a version's preview or restore), `json` (a
 * deleted project's documents and versions searched for its objects).
 */
export type DocumentTask = 'merge' | 'render' | 'json';

/** The live canvas as it is right now, read at each scrape. */
export interface LiveGauges {
  /** Documents held in memory by this instance. */
  openDocuments: number;
  /** Live connections (a browser tab's document, or the service's own). */
  connections: number;
  /** Changes applied in memory and not yet stored in PostgreSQL, in bytes. */
  unsavedBytes: number;
  /** Whether storing changes works (false while PostgreSQL refuses them and they are retried). */
  saving: boolean;
}

/** The job queue as its rows say (every instance reads the same), read at each scrape. */
export interface JobQueueGauges {
  queued: number;
  running: number;
  /** Seconds since the oldest queued job was created; 0 when none is queued. */
  oldestQueuedAgeSeconds: number;
}

export interface Metrics {
  /** One generation request handled by the service, and how long it took. */
  generation(result: GenerationResult, seconds: number): void;
  /** A model call failed (quota errors included); `model` is the model's id (`local`, `gpt-image-1`, …). */
  modelError(model: string): void;
  /** One upload handled by the service; `bytes` stored (0 when it failed). */
  upload(result: UploadResult, bytes: number): void;
  /** A compaction of a live document came due and ended so. */
  compaction(result: CompactionResult, seconds: number): void;
  /**
   * A live change refused for its content, before it was applied (src/collab/update-check.ts): `reason` is its close
   * reason (src/collab/protocol.ts REFUSED_CHANGE, `invalid-<field>`, `missing-<field>`, …), a bounded set.
   */
  refusedChange(reason: string): void;
  /**
   * A document task ran (`worker`: in a live documents' worker thread; `thread`: on the service's own, COLLAB_WORKERS=0)
   * and ended so, after this long (waiting for a thread included).
   */
  documentTask(task: DocumentTask, where: 'worker' | 'thread', result: 'ok' | 'failed', seconds: number): void;
  /**
   * A live document's whole canvas was rendered on the service's thread to measure its bytes for CANVAS_MAX_BYTES
   * (src/collab/update-check.ts): a document's first checked change, unless it was measured when loaded, and a
   * change that may pass the limit.
   */
  canvasMeasured(): void;
  /** A person's connection to a live document not open here, refused: the instance held LIVE_MAX_OPEN_DOCUMENTS. */
  refusedDocument(): void;
  /** Where the live canvas's gauges are read from (once the live documents exist). */
  watchLive(read: () => LiveGauges): void;
  /** A job whose run was lost (its instance stopped) was queued again for another attempt; `code` says why. */
  jobRetried(task: string, code: string): void;
  /** A job the runner gave up on: it failed (its error's code) and will not be retried. */
  jobDead(task: string, code: string): void;
  /** Where the job queue's gauges are read from (the job rows, at each scrape). */
  watchJobs(read: () => Promise<JobQueueGauges>): void;
  /** The link to Redis (COLLAB_REDIS_URL) is being made, went up or went down (src/collab/redis.ts); never called without Redis. */
  liveRedis(state: 'connecting' | 'up' | 'down'): void;
  /** A call to the object store failed because of the store (unreachable, timed out: `unavailable`; out of space: `full`). */
  storeFailure(result: 'unavailable' | 'full'): void;
  /** What the last readiness check found of the object store (GET /api/ready, its `storage` check). */
  storeReadiness(state: 'ok' | 'unavailable' | 'full'): void;
}

/** The result label of a failed generation, from the error's code. */
export function generationResult(err: unknown): GenerationResult {
  if (!isAppError(err)) return 'error';
  switch (err.code) {
    case 'image_model_busy':
      return 'quota';
    case 'image_model_failed':
      return 'model_error';
    case 'invalid_image':
    case 'unusable_image':
    case 'input_image_too_large':
    case 'prompt_not_understood':
      return 'invalid_input';
    case 'upgrade_required':
      return 'upgrade_required';
    case 'too_many_generations':
      return 'too_many_generations';
    case 'no_image_generated':
      return 'no_image';
    default:
      return 'error';
  }
}

/** The result label of a failed upload, from the error's code. */
export function uploadResult(err: unknown): UploadResult {
  if (!isAppError(err)) return 'error';
  switch (err.code) {
    case 'file_too_large':
      return 'too_large';
    case 'unsupported_file_type':
      return 'unsupported_type';
    case 'invalid_image_file':
    case 'image_too_large':
      return 'invalid_image';
    case 'upload_interrupted':
      return 'interrupted';
    default:
      return 'error';
  }
}
