// The one schema. `npm run db:generate` turns changes here into a new SQL migration under drizzle/.
import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  customType,
  check,
  index,
  integer,
  numeric,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    email: text('email').notNull(),
    name: text('name').notNull(),
    image: text('image').notNull().default(''),
    provider: text('provider').notNull(),
    providerSubject: text('provider_subject').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    isPro: boolean('is_pro').notNull().default(false),
    paymentsCustomerId: text('payments_customer_id'),
    subscriptionStatus: text('subscription_status'),
    /**
     * Until migration 0006: the provider's time of the last subscription event applied to this user (events were
     * ordered per user). No longer read or written; migration 0006 copied it into the user's pre-upgrade row of
     * `subscriptions`. Kept while instances of the previous release may still run (a rolling deploy writes it);
     * a later migration can drop it.
     */
    subscriptionEventAt: timestamp('subscription_event_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    uniqueIndex('users_provider_subject_key').on(t.provider, t.providerSubject),
  ],
);

export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('projects_user_created_idx').on(t.userId, t.createdAt.desc())],
);

export const canvases = pgTable(
  'canvases',
  {
    id: text('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /**
     * The canvas as saved before live documents (migration 0011); null once it has been moved into the project's
     * live document (collab_snapshots/collab_updates), which then holds the content (src/collab/).
     */
    nodes: json('nodes'),
    edges: json('edges'),
    /** Grows with every change of the live document, from any path (docs/api.md "Canvas versions"). */
    version: integer('version').notNull().default(1),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('canvases_project_key').on(t.projectId)],
);

export const generations = pgTable(
  'generations',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    userEmail: text('user_email').notNull(),
    prompt: text('prompt').notNull(),
    inputImages: jsonb('input_images').$type<string[]>().notNull(),
    outputImageUrl: text('output_image_url').notNull(),
    model: text('model').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // Lineage (DESIGN.md §10, docs/api.md "Lineage"), from migration 0016: null (or the default) on older rows.
    /** The generation job that made it (POST /api/generations); null for POST /api/image. */
    jobId: text('job_id'),
    /** The project and canvas node it was made into; the project goes null when the project is deleted. */
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'set null' }),
    nodeId: text('node_id'),
    /** The project's canvas version when the generation started (`canvases.version`); null without a project or canvas. */
    canvasVersion: integer('canvas_version'),
    /** The provider's model version when its answer states one, else the model's id; null on older rows. */
    modelVersion: text('model_version'),
    /** Each input as the model received it: its recorded URL, the SHA-256 (hex) and size of its bytes. */
    inputs: jsonb('inputs').$type<GenerationInput[]>(),
    outputSha256: text('output_sha256'),
    outputBytes: integer('output_bytes'),
    /** Milliseconds: waiting in the job queue, the model call, and from the start (queue included) to the record. */
    queuedMs: integer('queued_ms'),
    modelMs: integer('model_ms'),
    totalMs: integer('total_ms'),
    /** What the call cost: as the provider stated it, or the model's list price per image; null when neither is known. */
    cost: jsonb('cost').$type<GenerationCost>(),
    /** Generations (the user's own, or of the same project) whose output URL is one of this one's inputs. */
    parentIds: text('parent_ids').array().notNull().default(sql`'{}'::text[]`),
    /** The prompt is written into the output PNG's XMP (the user opted in). */
    promptInMetadata: boolean('prompt_in_metadata').notNull().default(false),
    /** What the model said beside the image (the offline engine: what it did, in words); null when it said nothing, and on older rows. */
    modelText: text('model_text'),
    /** A run's job (src/runs/, DESIGN.md §12 "Cache"): the job's cache key and seed; a later job of the same key in the project takes this output. Null otherwise. */
    cacheKey: text('cache_key'),
    seed: integer('seed'),
    /** The prompt's words for full-text search (config `simple`: any language, no stemming). */
    promptSearch: tsvector('prompt_search').generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, prompt)`),
  },
  (t) => [
    index('generations_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('generations_project_created_idx').on(t.projectId, t.createdAt.desc(), t.id.desc()).where(sql`project_id IS NOT NULL`),
    index('generations_output_url_idx').on(t.outputImageUrl),
    index('generations_prompt_search_idx').using('gin', t.promptSearch),
    index('generations_project_cache_key_idx').on(t.projectId, t.cacheKey).where(sql`cache_key IS NOT NULL`),
  ],
);

/** An input of a generation as its model received it (`generations.inputs`). */
export interface GenerationInput {
  url: string;
  sha256: string;
  bytes: number;
}

/** What a generation cost: as its provider stated it, or the model's list price per image. */
export interface GenerationCost {
  amount: number;
  currency: string;
  /** `provider`: stated by the provider for this call; `list price`: the model's published price per image. */
  basis?: 'provider' | 'list price';
}

export type UserRow = typeof users.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type CanvasRow = typeof canvases.$inferSelect;
/** A generation as read back (the search column stays in the database). */
export type GenerationRow = Omit<typeof generations.$inferSelect, 'promptSearch'>;

/**
 * Payment webhooks already received, by the provider's webhook id. Inserted in the same
 * transaction that applies the event: a replayed or duplicated delivery finds its id here and changes nothing.
 * Rows older than the retention window (PAYMENTS_WEBHOOK_RETENTION_DAYS) are pruned as webhooks arrive.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_events_received_idx').on(t.receivedAt)],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/**
 * The user's subscriptions at the payment provider, one row per subscription id (src/services/subscriptions.ts
 * has the rule). `users.is_pro` is derived from them in the transaction that changes them: a user is Pro when
 * one of their rows grants Pro. Rows exist for subscriptions seen with the Pro product (PAYMENTS_PRODUCT_ID);
 * a subscription changed to another product later keeps its row, which then no longer grants Pro.
 * Migration 0006 gave each user with subscription state a pre-upgrade row (`legacy:<user id>`, product null).
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    /** The provider's subscription id. */
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The subscription's product as of `changedAt`; null only on a pre-upgrade row. */
    productId: text('product_id'),
    /** The label shown as the user's `subscriptionStatus` (`active`, `wont-renew`, `past_due`, `revoked`, …). */
    status: text('status'),
    /** The provider gave access (`subscription.active`) and has not taken it back (`subscription.revoked`). */
    hasAccess: boolean('has_access').notNull(),
    /** `hasAccess` on the Pro product: this subscription makes its user Pro. */
    grantsPro: boolean('grants_pro').notNull(),
    /**
     * The provider's time of the state this row holds (the subscription's `modified_at`, else the event's
     * `timestamp`), at the microsecond precision the provider sends: an event older than this is skipped.
     * Kept as PostgreSQL parsed the provider's text (a string here, never a JS Date, which holds milliseconds).
     */
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'string' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('subscriptions_user_idx').on(t.userId)],
);

export type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Shared rate-limit counters (RATE_LIMIT_STORE=postgres), one row per limited key and window. */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    count: integer('count').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('rate_limits_reset_idx').on(t.resetAt)],
);

/**
 * Generation requests that a model answered but that recorded no generation (text only, a refusal, an answer
 * that could not be read, storing failed): with the free quota on, each uses its user's slot for 24 hours like
 * a recorded generation (docs/api.md "The free quota"). Rows older than a day no longer count and are pruned as
 * new ones are written (those with a cost once their month is over: the monthly free budget counts them).
 */
export const spentModelCalls = pgTable(
  'spent_model_calls',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * With the monthly free budget: what the call is taken to have cost (its model's list price, USD); such a row
     * counts against the month it was made in, so it is kept until that month is over.
     */
    costUsd: numeric('cost_usd', { precision: 12, scale: 6 }),
  },
  (t) => [index('spent_model_calls_user_created_idx').on(t.userId, t.createdAt), index('spent_model_calls_created_idx').on(t.createdAt)],
);

/**
 * Canvases published to everyone under a name (docs/api.md "Templates"). The author is the user who published
 * it; their name and picture are read from `users` when templates are listed (never stored here), and their
 * templates go with them (ON DELETE CASCADE, as their projects do). Nodes and edges are stored as the
 * validated JSON text, like a canvas's.
 */
export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nodes: json('nodes').notNull(),
    edges: json('edges').notNull(),
    /** `{ x, y, zoom }`. */
    viewport: json('viewport').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('templates_created_idx').on(t.createdAt.desc(), t.id.desc()), index('templates_user_idx').on(t.userId)],
);

export type TemplateRow = typeof templates.$inferSelect;

/**
 * Ended sessions (docs/api.md "Signing out"). A row with `session_id` revokes that one session (sign-out); a
 * row without revokes every session of the user that signed in before `revoked_at` ("sign out of all
 * devices"). `expires_at` is when the last token it could match expires anyway: the row is pruned after it.
 * Every instance reads new rows every few seconds (src/auth/revocations.ts).
 */
export const sessionRevocations = pgTable(
  'session_revocations',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sessionId: text('session_id'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('session_revocations_revoked_idx').on(t.revokedAt), index('session_revocations_expires_idx').on(t.expiresAt)],
);

export type SessionRevocationRow = typeof sessionRevocations.$inferSelect;

/**
 * People a project is shared with (docs/api.md "Sharing"), by the email they were invited with (lower-cased):
 * they see the project once signed in with that email. `editor` reads and writes the canvas, `viewer` reads it;
 * the owner (`projects.user_id`) has no row here. Rows go with their project (ON DELETE CASCADE).
 */
export const projectMembers = pgTable(
  'project_members',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<'editor' | 'viewer'>().notNull(),
    /** The user who invited (the owner); null once that user is gone. */
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'project_members_pkey', columns: [t.projectId, t.email] }),
    index('project_members_email_idx').on(t.email),
    check('project_members_role_check', sql`${t.role} IN ('editor', 'viewer')`),
    check('project_members_email_lower_check', sql`${t.email} = lower(${t.email})`),
  ],
);

export type ProjectMemberRow = typeof projectMembers.$inferSelect;

/**
 * A project's read-only link (docs/api.md "Sharing"): at most one per project. Only the SHA-256 of its token is
 * kept, so the token is shown once, when it is made; making a new one replaces the old, revoking deletes it.
 */
export const projectShareLinks = pgTable(
  'project_share_links',
  {
    projectId: uuid('project_id')
      .primaryKey()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token, hex. */
    tokenHash: text('token_hash').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('project_share_links_token_key').on(t.tokenHash)],
);

const bytea = customType<{ data: Uint8Array; driverData: Buffer }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
  fromDriver: (value) => new Uint8Array(value.buffer, value.byteOffset, value.byteLength),
});

/**
 * The live documents' append-only log (DESIGN.md §9, src/collab/): each Yjs update applied to a project's document,
 * stored before it is acknowledged to its sender. Compaction merges a project's rows into its snapshot and deletes
 * exactly the rows it merged.
 */
export const collabUpdates = pgTable(
  'collab_updates',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    update: bytea('update').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('collab_updates_project_idx').on(t.projectId, t.id)],
);

/** A live document's compacted state: its snapshot plus its remaining collab_updates rows are the document. */
export const collabSnapshots = pgTable('collab_snapshots', {
  projectId: uuid('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  state: bytea('state').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * History (docs/api.md "History"): restore points taken while a document changes (`auto`) and versions a person
 * named (`named`), each a full document state.
 */
export const collabVersions = pgTable(
  'collab_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'auto' | 'named'>().notNull(),
    name: text('name'),
    state: bytea('state').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('collab_versions_project_created_idx').on(t.projectId, t.createdAt.desc()),
    check('collab_versions_kind_check', sql`${t.kind} IN ('auto', 'named')`),
  ],
);

/** What a personal API token may do (docs/api.md "API tokens"; src/auth/api-tokens.ts maps routes to them). */
export type ApiTokenScope = 'read' | 'write' | 'generate' | 'billing';

/**
 * Personal API tokens (docs/api.md "API tokens"): a script sends one as `Authorization: Bearer ic_…` and acts as
 * its user within its scopes. Only the SHA-256 of the secret is kept (it is shown once, when made), with a short
 * prefix of it to recognise it by. Revoking deletes the row; tokens go with their user (ON DELETE CASCADE).
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the whole secret, hex. */
    tokenHash: text('token_hash').notNull(),
    /** The secret's first characters (`ic_` and 6 more): not enough to guess it, enough to recognise it. */
    prefix: text('prefix').notNull(),
    scopes: text('scopes').array().$type<ApiTokenScope[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** null: never expires. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** Updated at most about once a minute per token. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_key').on(t.tokenHash),
    index('api_tokens_user_created_idx').on(t.userId, t.createdAt),
    check('api_tokens_scopes_check', sql`cardinality(${t.scopes}) > 0 AND ${t.scopes} <@ ARRAY['read', 'write', 'generate', 'billing']::text[]`),
  ],
);

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/** A generation job's state (docs/api.md "Generation jobs"). */
export type GenerationJobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/**
 * Jobs (POST /api/generations, src/jobs/): the one record of each job's state, whatever its task (`task_kind`,
 * src/jobs/task.ts). pg-boss (schema `pgboss`) only carries the work to a runner (`boss_job_id`); a running job's
 * runner renews `heartbeat_at`, and a job whose heartbeat lapsed counts for no limit and is retried or failed
 * (src/jobs/runner.ts). The outcome is written here: the output URL and the generation's id, or the error as a
 * code (src/errors.ts) with its message and details — never an HTTP status (the API derives it). Jobs go with
 * their user.
 */
/** A running job's progress as its model reports it (src/models/image-model.ts ModelProgress). */
export interface JobProgress {
  queuePosition?: number;
  step?: { done: number; total: number };
  message?: string;
  /** The model's latest preview (OpenAI's partial images), made small: a `data:image/webp;base64,…` URL. */
  preview?: string;
}

export const generationJobs = pgTable(
  'generation_jobs',
  {
    id: text('id').primaryKey(),
    /** What the job runs: a task of the runner's list (src/jobs/task.ts), e.g. `generation`. */
    taskKind: text('task_kind').notNull().default('generation'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** As the request named them (checked when the job is created and again when it runs). */
    projectId: text('project_id'),
    nodeId: text('node_id'),
    prompt: text('prompt').notNull(),
    images: jsonb('images').$type<string[]>().notNull(),
    /**
     * The input port each of `images` reaches (parallel to it: an edit's `image` and `mask`, a composition's `images`
     * and `masks`; src/jobs/node-inputs.ts imagesByPort); null: every image at its kind's default port.
     */
    inputPorts: text('input_ports').array(),
    model: text('model'),
    /** The user opted in to the prompt in the output PNG's XMP (POST /api/generations `promptInMetadata`). */
    promptInMetadata: boolean('prompt_in_metadata').notNull().default(false),
    status: text('status').$type<GenerationJobStatus>().notNull().default('queued'),
    error: text('error'),
    errorDetails: text('error_details'),
    /** The error's code (src/errors.ts), its documented extra fields and Retry-After: POST /api/image answers the failure as it was thrown. */
    errorCode: text('error_code'),
    errorExtra: jsonb('error_extra').$type<Record<string, unknown>>(),
    errorRetryAfterSeconds: integer('error_retry_after_seconds'),
    outputUrl: text('output_url'),
    /** The model's text beside its image, when it gave one (POST /api/image answers it). */
    outputText: text('output_text'),
    generationId: text('generation_id'),
    /** What the model last said about its progress while the job runs (its provider's queue position, steps, a log line). */
    progress: jsonb('progress').$type<JobProgress>(),
    /** Runs started (2 after the runner retried a job whose instance died). */
    attempts: integer('attempts').notNull().default(0),
    bossJobId: text('boss_job_id'),
    /** Run where its request is held (POST /api/image's): never queued nor retried; failed once its heartbeat lapses. */
    held: boolean('held').notNull().default(false),
    /** While running: renewed by its runner every JOBS_HEARTBEAT_MS; older than JOBS_HEARTBEAT_LAPSE_MS, its runner is taken for dead. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    /**
     * With the free quota (docs/api.md "The free quota"): set while the job runs once its generation passed the quota
     * check, to what it holds of the monthly free budget (its model's list price in USD; 0 when not priced or with the
     * daily quota). Such a running job counts as one of the user's generations of the day, and this amount against
     * the month, until it ends or its heartbeat lapses (its instance died). Null: it holds nothing.
     */
    reservedUsd: numeric('reserved_usd', { precision: 12, scale: 6 }),
    /**
     * Its place in the fair order across users (the generation-jobs repository's `nextPriority`), as pg-boss's
     * priority (higher first, then oldest): 1 for a job its user queued with nothing else unfinished, else minus its round.
     */
    queuePriority: integer('queue_priority').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** A run's job (src/runs/): its run, cache key and seed; null for a job started alone. */
    runId: text('run_id'),
    cacheKey: text('cache_key'),
    seed: integer('seed'),
    /** The node's data the run's job runs with (its key's params), as planned: the image-steps task uses it instead of the node's data now. */
    params: jsonb('params').$type<Record<string, unknown>>(),
    /** A run's job that took an earlier output of the same key (no task ran, cost 0): `generation_id` is the generation it reuses. */
    cacheHit: boolean('cache_hit').notNull().default(false),
  },
  (t) => [
    index('generation_jobs_run_idx').on(t.runId).where(sql`run_id IS NOT NULL`),
    index('generation_jobs_project_cache_key_idx').on(t.projectId, t.cacheKey).where(sql`cache_key IS NOT NULL AND status IN ('queued', 'running')`),
    index('generation_jobs_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('generation_jobs_user_status_created_idx').on(t.userId, t.status, t.createdAt.desc(), t.id.desc()),
    index('generation_jobs_project_created_idx').on(t.projectId, t.createdAt.desc()).where(sql`project_id IS NOT NULL`),
    index('generation_jobs_queued_idx').on(t.createdAt, t.id).where(sql`status = 'queued'`),
    // The round being started (the repository's nextPriority) when nothing is queued: read from the running jobs.
    index('generation_jobs_running_priority_idx').on(t.queuePriority).where(sql`status = 'running'`),
    check('generation_jobs_status_check', sql`${t.status} IN ('queued', 'running', 'succeeded', 'failed', 'canceled')`),
  ],
);

export type GenerationJobRow = typeof generationJobs.$inferSelect;

/**
 * Every change of a generation job's state, as its owner sees it (GET /api/generations/events). Ids increase
 * per user in commit order: each is inserted under the user's job lock (generation-jobs repository), so a reader
 * that has seen id N never later meets a smaller one. Kept JOB_EVENTS_RETENTION_HOURS (at least 24 h).
 */
export const generationJobEvents = pgTable(
  'generation_job_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    jobId: text('job_id').notNull(),
    /** The job as GET /api/generations/:id answered it at that moment. */
    job: jsonb('job').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('generation_job_events_user_id_idx').on(t.userId, t.id), index('generation_job_events_created_idx').on(t.createdAt)],
);

export type GenerationJobEventRow = typeof generationJobEvents.$inferSelect;

/**
 * Objects of deleted projects waiting for the deletion sweep (src/services/object-sweep.ts, docs/deploy.md "Object
 * storage"): each name a deleted project's document, history, generations or jobs referenced, due once the grace
 * period (OBJECT_DELETE_GRACE_HOURS) has passed. A pass deletes a due object only when its name appears nowhere in
 * the database, and removes its row either way.
 */
export const objectDeletions = pgTable(
  'object_deletions',
  {
    name: text('name').primaryKey(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    /** The deleted project that referenced it (the latest one, when several did); for the log only. */
    projectId: uuid('project_id'),
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('object_deletions_due_idx').on(t.dueAt)],
);

/** A run's status (docs/api.md "Runs"). */
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'canceled';
/** A run's job's status: `waiting` until its inputs are ready (or another run makes the same key), then its job's. */
export type RunJobStatus = 'waiting' | 'queued' | 'running' | 'cached' | 'succeeded' | 'failed' | 'skipped' | 'canceled';

/**
 * Runs of a project's graph (DESIGN.md §12 "Runs", src/runs/): what was asked (`mode`, `node_ids`), the estimate made
 * before it started, and its status; its jobs are `run_jobs`. Its cost is the sum of its jobs' costs.
 */
export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mode: text('mode').notNull(),
    nodeIds: text('node_ids').array().notNull(),
    status: text('status').$type<RunStatus>().notNull().default('running'),
    estimate: jsonb('estimate').$type<Record<string, unknown>>().notNull(),
    costUsd: numeric('cost_usd', { precision: 12, scale: 6 }).notNull().default('0'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('runs_project_created_idx').on(t.projectId, t.createdAt.desc()),
    index('runs_running_idx').on(t.createdAt).where(sql`status = 'running'`),
    check('runs_status_check', sql`${t.status} IN ('running', 'succeeded', 'failed', 'canceled')`),
  ],
);

export type RunRow = typeof runs.$inferSelect;

/** The steps of a run's plan (src/kinds/graph.ts PlanStep), in topological order (`idx`), each one job. */
export const runJobs = pgTable(
  'run_jobs',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    idx: integer('idx').notNull(),
    nodeId: text('node_id').notNull(),
    instance: integer('instance').notNull(),
    /** Its job's id, chosen when planned (the job row exists once it is queued or taken from the cache). */
    jobId: text('job_id').notNull(),
    /** The node's type when planned (an image-steps job's kind). */
    nodeType: text('node_type').notNull(),
    key: text('key').notNull(),
    /** The node's key (its one job's key, or the hash of its jobs' keys): written as `data.resultKey` on success. */
    nodeKey: text('node_key').notNull(),
    seed: integer('seed'),
    taskKind: text('task_kind').notNull(),
    model: text('model'),
    params: jsonb('params').$type<Record<string, unknown>>().notNull(),
    /** The PlanStep's inputs (port, value, source, key). */
    inputs: jsonb('inputs').$type<unknown[]>().notNull(),
    /** `idx` of the steps it takes an input from. */
    deps: integer('deps').array().notNull(),
    status: text('status').$type<RunJobStatus>().notNull().default('waiting'),
    reason: text('reason'),
    costUsd: numeric('cost_usd', { precision: 12, scale: 6 }),
    imageUrl: text('image_url'),
  },
  (t) => [
    primaryKey({ name: 'run_jobs_pkey', columns: [t.runId, t.idx] }),
    uniqueIndex('run_jobs_job_id_key').on(t.jobId),
    check('run_jobs_status_check', sql`${t.status} IN ('waiting', 'queued', 'running', 'cached', 'succeeded', 'failed', 'skipped', 'canceled')`),
  ],
);

export type RunJobRow = typeof runJobs.$inferSelect;
