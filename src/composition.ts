// The composition root: from the config and the started runtime (database, object store) it builds the
// repositories, the drivers chosen by configuration (image model chain, payments, video, safe fetcher) and the
// services, each given only the slices it uses. src/app.ts registers plugins and routes with what it makes.
import { startAccessSweep } from './auth/access-sweep.js';
import { createTokenVerifier, type TokenVerifier } from './auth/api-tokens.js';
import { createProjectAccess } from './auth/project-access.js';
import type { SessionRevocations } from './auth/revocations.js';
import type { SessionVerifier } from './auth/session.js';
import { createLiveDocuments, type LiveDocuments } from './collab/live-documents.js';
import type { RedisRelay } from './collab/redis.js';
import type { Config } from './config.js';
import { clientAddressOf } from './net/trusted-proxies.js';
import { createImageWorkers, type ImageWorkers } from './imaging/pool.js';
import { databaseIdentity } from './db/identity.js';
import { createAccessChecksRepository, createGenerationJobsRepository, createRepositories, type RateLimitsRepository } from './db/repositories/index.js';
import { createEventStreams, type EventStreams } from './http/event-streams.js';
import type { Metrics } from './metrics.js';
import { countedStore } from './storage/counted.js';
import { createImageModel, type ImageModel, type ImageModelName } from './models/index.js';
import { createModelRegistry, type ModelAccess, type ModelRegistry } from './models/registry.js';
import { upscaleFactorOf } from './models/esrgan-upscaler.js';
import { inpaintMethodOf } from './models/inpainter.js';
import { createEditTask } from './jobs/tasks/edit.js';
import { EDIT_DEFAULT_MODEL } from './kinds/edit.js';
import { withTimeoutAndLimit } from './models/wrappers.js';
import { createSafeFetcher, publicInternet, type Network, type SafeFetcher } from './net/safe-fetch.js';
import { createPayments } from './payments/index.js';
import type { Runtime } from './runtime.js';
import { createApiTokensService, type ApiTokensService } from './services/api-tokens.js';
import { createBillingService, type BillingService } from './services/billing.js';
import { createCanvasService, type CanvasService } from './services/canvas.js';
import { createCanvasImages } from './services/canvas-images.js';
import { createGenerationService, type GenerationService } from './services/generation.js';
import { createProjectGenerationsService, type ProjectGenerationsService } from './services/project-generations.js';
import { loadExampleImages } from './assets/example-canvas.js';
import { createExampleCanvasService, type ExampleCanvasService } from './services/example-canvas.js';
import { createProjectsService, type ProjectsService } from './services/projects.js';
import { createObjectSweep, type ObjectSweep } from './services/object-sweep.js';
import { createObjectDeletionsRepository } from './db/repositories/object-deletions.js';
import { createThumbnailsService, type ThumbnailsService } from './services/thumbnails.js';
import { createSharingService, type SharingService } from './services/sharing.js';
import { createTemplatesService, type TemplatesService } from './services/templates.js';
import { createUploadsService, type UploadsService } from './services/uploads.js';
import { createUsersService, type UsersService } from './services/users.js';
import { createVersionsService, VERSIONS_LISTED, type VersionsService } from './services/versions.js';
import { createVideoService, type VideoService } from './services/video.js';
import { createVideoProvider } from './video/index.js';
import { presentTemplateCanvasJson, presentTemplateParts, presentTemplateSummaryParts } from './http/presenters.js';
import { createGenerationJobs, type GenerationJobs } from './jobs/runner.js';
import { createGenerationTask } from './jobs/tasks/generation.js';
import { createImageStepsTask } from './jobs/tasks/image-steps.js';
import { createComposeTask } from './jobs/tasks/compose.js';
import { createComposePsdService, type ComposePsdService } from './jobs/compose-psd.js';
import { createNodeRunState } from './jobs/node-state.js';
import type { Task } from './jobs/task.js';
import { createJobEvents } from './jobs/job-events.js';
import { createBudget, type Budget } from './runs/budget.js';
import { createSpendService, type SpendService } from './services/spend.js';
import { createRuns, type Runs } from './runs/coordinator.js';
import { createRunDocument } from './runs/run-state.js';
import { createRunsRepository } from './db/repositories/runs.js';
import { estimateOf } from './runs/prices.js';

/** The structured logger the services write to (the app's pino logger). */
export interface ServiceLog {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}

export interface Services {
  users: UsersService;
  projects: ProjectsService;
  canvas: CanvasService;
  generation: GenerationService;
  uploads: UploadsService;
  billing: BillingService;
  video: VideoService;
  templates: TemplatesService;
  sharing: SharingService;
  versions: VersionsService;
  apiTokens: ApiTokensService;
  projectGenerations: ProjectGenerationsService;
  thumbnails: ThumbnailsService;
  exampleCanvas: ExampleCanvasService;
  /** Spend per person and project (GET /api/user/spend, GET /api/projects/:id/spend). */
  spend: SpendService;
  /** The daily budget of a person's runs (USER_DAILY_BUDGET_USD): the runs service checks a run's estimate against it. */
  budget: Budget;
}

export interface Composition {
  services: Services;
  /** The live canvas documents (src/collab/): app.ts mounts their socket on the HTTP server. */
  live: LiveDocuments;
  /** The shared rate-limit counters (RATE_LIMIT_STORE=postgres). */
  rateLimits: RateLimitsRepository;
  /** Who a personal API token (`Authorization: Bearer`) belongs to, for the request guards (src/http/guards.ts). */
  tokens: TokenVerifier;
  /** Generation jobs (src/jobs/): app.ts resumes them at boot and stops them before closing. */
  jobs: GenerationJobs;
  /** Runs of a project's graph (src/runs/), on the job runner. */
  runs: Runs;
  /** A compose node's result as a layered PSD (src/jobs/compose-psd.ts). */
  composePsd: ComposePsdService;
  /** The models this deployment runs (GET /api/models; a generation's `model`). */
  models: ModelRegistry;
  /** The job event streams open here (GET /api/generations/events): capped per user, ended by revocation. */
  streams: EventStreams;
  /** The deletion sweep of deleted projects' objects (src/services/object-sweep.ts). */
  objectSweep: ObjectSweep;
  /** /api/ready's `live`: `degraded` while the link to Redis is down (editors on other instances do not see changes made here). */
  liveLink(): 'ok' | 'degraded';
  /** Releases what the composition opened (the fetcher's connections); the runtime is closed by its owner. */
  close(): Promise<void>;
}

export interface CompositionOptions {
  log: ServiceLog;
  /** The metrics recorders; undefined when metrics are off. */
  metrics?: Metrics;
  /** This image model instead of the configured chain (benchmarks: an instant in-process model). */
  imageModel?: ImageModel;
  /** Tasks the job runner runs beside the built-in ones (src/jobs/task.ts), by their kind. */
  tasks?: Task[];
  /** Who is signed in, for the live canvas's socket. */
  sessions: SessionVerifier;
  /**
   * The network that URLs from outside are fetched from through the SSRF guard (input images named by URL, a hosted
   * model's output named by URL); default the public internet. Tests name their loopback fakes' addresses here.
   */
  network?: Network;
  /** Signed-out sessions: after each read, open sockets and streams are checked again (src/auth/access-sweep.ts). */
  revocations: Pick<SessionRevocations, 'isRevoked' | 'onRead'>;
}

export async function compose(runtime: Runtime, { log, metrics, imageModel, tasks = [], sessions, network = publicInternet, revocations }: CompositionOptions): Promise<Composition> {
  const { config, database } = runtime;
  // The store's own failures are counted as they reach a caller (image_canvas_store_failures_total).
  const store = metrics ? countedStore(runtime.store, (result) => metrics.storeFailure(result)) : runtime.store;
  // A running job counts (a canvas read's `isGenerating`, the free quota) while its heartbeat lives.
  const repositories = createRepositories(database.db, { heartbeatLapseMs: config.jobs.heartbeatLapseMs });
  const { users, projects, canvases, generations, subscriptions, webhookReceipts, templates, transactions } = repositories;

  const payments = await createPayments(config.payments);
  const videoProvider = await createVideoProvider(config.video);
  const imageWorkers = createImageWorkers({ workers: config.model.imageWorkers, log });
  // Output images a provider names by URL: through the same guard, bounded while read (MODEL_OUTPUT_MAX_BYTES).
  const outputFetcher = createSafeFetcher({ maxBytes: config.model.outputMaxBytes, timeoutMs: config.model.timeoutMs, maxRedirects: 3, network });
  const models = buildModels(config, imageWorkers, outputFetcher, imageModel);
  const fetcher = createSafeFetcher({ maxBytes: config.limits.inputImageBytes, timeoutMs: 20_000, maxRedirects: 3, network });
  const uploads = createUploadsService({
    store,
    maxBytes: config.limits.uploadBytes,
    svgMaxPixels: config.limits.svgPixels,
    renderSvg: imageWorkers.renderSvg,
    log,
    metrics,
  });
  const canvasImages = createCanvasImages({ uploads, maxBytes: config.limits.uploadBytes });

  // Personal API tokens: checked on each request (and on the live socket) against the database, so a revoked one
  // stops working at once on every instance.
  const tokens = createTokenVerifier({ tokens: repositories.apiTokens, log });
  // The one project-access rule: every service, the live socket and the sweep ask it (src/auth/project-access.ts).
  const access = createProjectAccess({ sharing: repositories.sharing });
  // Instances share live documents through Redis only when configured (the module loads the Redis client).
  const relay = config.collab.redisUrl ? await startRelay(config.collab.redisUrl, config.collab.redisPrefix, database.pool, log, metrics) : undefined;
  const extensions = relay ? [relay] : [];
  const live = createLiveDocuments({
    collab: repositories.collab,
    accessOf: access.accessOf,
    sessions,
    tokens,
    origin: new URL(config.baseUrl).origin,
    limits: { ...config.collab, nodes: config.limits.canvasNodes, edges: config.limits.canvasEdges, canvasBytes: config.limits.canvasBytes, promptChars: config.limits.promptChars },
    log,
    extensions,
    relay,
    metrics,
    clientAddress: clientAddressOf(config.http.trustedProxies),
  });
  metrics?.watchLive(() => live.gauges());
  // Revocation reaches what is open: live sockets and event streams are checked after every read of revocations.
  const streams = createEventStreams({ perUser: config.limits.eventStreamsPerUser });
  const accessSweep = startAccessSweep({ revocations, checks: createAccessChecksRepository(database.db), sources: [() => live.connections(), () => streams.open()], log });
  const objectSweep = createObjectSweep({
    deletions: createObjectDeletionsRepository(database.db),
    store,
    live,
    graceHours: config.storage.deleteGraceHours,
    batch: config.storage.sweepBatch,
    log,
  });
  objectSweep.start(config.storage.sweepIntervalMinutes);
  const canvas = createCanvasService({ canvases, live, images: canvasImages, maxBytes: config.limits.canvasBytes });
  const services: Services = {
    users: createUsersService({ users }),
    projects: createProjectsService({ projects, access, accessChanged: live.revalidate, deleting: (projectId) => objectSweep.projectDeleting(projectId) }),
    canvas,
    generation: createGenerationService({
      users,
      generations,
      transactions,
      store,
      fetcher,
      models,
      maxBytes: config.limits.inputImageBytes,
      maxPixels: config.limits.inputImagePixels,
      maxTotalPixels: config.limits.generationPixels,
      decodeProblem: imageWorkers.decodeProblem,
      toPng: imageWorkers.toPng,
      outputMaxBytes: config.model.outputMaxBytes,
      log,
      metrics,
      quota:
        config.payments.freeBudgetUsdPerMonth > 0
          ? { usdPerMonth: config.payments.freeBudgetUsdPerMonth }
          : config.payments.freeGenerationsPerDay > 0
            ? { perDay: config.payments.freeGenerationsPerDay }
            : undefined,
      access, // who may generate into a canvas node
    }),
    uploads,
    billing: createBillingService({ users, subscriptions, webhookReceipts, transactions, payments, baseUrl: config.baseUrl, settings: config.payments, log }),
    video: createVideoService({ provider: videoProvider, log }),
    templates: createTemplatesService({
      templates,
      transactions,
      images: canvasImages,
      render: { parts: presentTemplateParts, summaryParts: presentTemplateSummaryParts, canvasJson: presentTemplateCanvasJson },
      maxListed: config.limits.templatesListMax,
      maxListBytes: config.limits.templatesListBytes,
      maxPerUser: config.limits.templatesPerUser,
      maxBytes: config.limits.canvasBytes,
    }),
    sharing: createSharingService({ sharing: repositories.sharing, access, transactions, canvas, maxMembers: config.limits.projectMembers, accessChanged: live.revalidate }),
    versions: createVersionsService({ versions: repositories.versions, access, canvases, live, maxListed: VERSIONS_LISTED, maxNamed: config.limits.versionsNamed }),
    apiTokens: createApiTokensService({ tokens: repositories.apiTokens, transactions, maxPerUser: config.limits.apiTokensPerUser }),
    projectGenerations: createProjectGenerationsService({ gallery: repositories.generationsGallery, access, store }),
    thumbnails: createThumbnailsService({
      canvases,
      live,
      store,
      draw: imageWorkers.drawThumbnail,
      cacheEntries: config.limits.thumbnailCacheEntries,
      maxImagePixels: config.limits.inputImagePixels,
      log,
      deadlineMs: config.storage.thumbnailDeadlineMs,
    }),
    exampleCanvas: createExampleCanvasService({ canvases, live, uploads, images: loadExampleImages }),
    spend: createSpendService({ spend: repositories.spend, access, budgetUsd: config.payments.userDailyBudgetUsd }),
    budget: createBudget({ spend: repositories.spend, budgetUsd: config.payments.userDailyBudgetUsd, defaultModel: models.defaultId }),
  };
  const jobsRepository = createGenerationJobsRepository(database.db); // its own aggregate, outside the repositories the services share
  const jobEvents = createJobEvents({ url: runtime.database.directUrl, events: jobsRepository, log });
  // The runs' coordinator hears of every job's end and of every heartbeat (it is made once the runner is).
  const coordinator: { runs?: Runs } = {};
  const jobs = createGenerationJobs({
    onJobEnded: (job) => coordinator.runs?.jobEnded(job),
    onRunJobStarted: (runId) => void coordinator.runs?.advance(runId),
    onHeartbeat: async () => coordinator.runs?.advanceRunning(),
    jobs: jobsRepository,
    events: jobEvents,
    heartbeatMs: config.jobs.heartbeatMs,
    heartbeatLapseMs: config.jobs.heartbeatLapseMs,
    eventsRetentionHours: config.jobs.eventsRetentionHours,
    eagerStart: config.jobs.eagerStart,
    users,
    generations: repositories.generationsGallery,
    transactions,
    tasks: [
      createGenerationTask({ generation: services.generation, defaultModel: models.defaultId }),
      createImageStepsTask({
        canvases: live,
        inputs: { store, fetcher, maxBytes: config.limits.inputImageBytes, maxPixels: config.limits.inputImagePixels, maxTotalPixels: config.limits.inputImagePixels }, // one input: no budget of several
        store,
        outputMaxBytes: config.model.outputMaxBytes,
        runSteps: imageWorkers.runSteps,
        generations,
        transactions,
        limits: { promptChars: config.limits.promptChars },
      }),
      createComposeTask({
        canvases: live,
        inputs: { store, fetcher, maxBytes: config.limits.inputImageBytes, maxPixels: config.limits.inputImagePixels, maxTotalPixels: config.limits.inputImagePixels },
        store,
        outputMaxBytes: config.model.outputMaxBytes,
        compose: imageWorkers.compose,
        generations,
        transactions,
        limits: { promptChars: config.limits.promptChars },
      }),
      createEditTask({ generation: services.generation, canvases: live, prepareEdit: imageWorkers.prepareEdit, maxPixels: config.limits.inputImagePixels, limits: { promptChars: config.limits.promptChars }, defaultModel: EDIT_DEFAULT_MODEL }),
      ...tasks,
    ],
    access,
    nodeState: createNodeRunState({ live, log }),
    canvases: live,
    queue: { url: runtime.database.directUrl, concurrency: config.jobs.concurrency, settings: config.jobs.queue },
    runningPerUser: config.jobs.runningPerUser,
    inFlightPerUser: config.model.inFlightPerUser,
    defaultModel: models.defaultId,
    models,
    toPreview: imageWorkers.toPreview,
    log,
    metrics,
  });
  metrics?.watchJobs(() => jobsRepository.queueCounts());
  const runs = (coordinator.runs = createRuns({
    runs: createRunsRepository(database.db),
    jobs: jobsRepository,
    runner: jobs,
    transactions,
    access,
    live,
    document: createRunDocument({ live, log }),
    estimateOf,
    budget: services.budget,
    defaultModel: models.defaultId,
    maxJobs: config.jobs.runMaxJobs,
    models,
    log,
  }));
  return {
    services,
    live,
    rateLimits: repositories.rateLimits,
    tokens,
    jobs,
    runs,
    composePsd: createComposePsdService({
      access,
      canvases: live,
      generations,
      gallery: repositories.generationsGallery,
      jobs: jobsRepository,
      inputs: { store, fetcher, maxBytes: config.limits.inputImageBytes, maxPixels: config.limits.inputImagePixels, maxTotalPixels: config.limits.inputImagePixels },
      outputMaxBytes: config.model.outputMaxBytes,
      psd: imageWorkers.psd,
      maxBytes: config.limits.psdBytes,
      limits: { promptChars: config.limits.promptChars },
    }),
    models,
    streams,
    objectSweep,
    liveLink: () => (!relay || relay.up() ? 'ok' : 'degraded'),
    close: async () => {
      accessSweep.stop();
      objectSweep.stop();
      await jobs.stop(0); // stopped already (app.ts preClose) unless the app failed to start
      await jobEvents.close();
      await Promise.all([fetcher.close(), outputFetcher.close(), imageWorkers.close(), live.close()]);
      await relay?.onDestroy(); // the Redis clients (hocuspocus never calls its extensions' onDestroy)
    },
  };
}

/**
 * The models this deployment runs (./models/registry.ts): the offline engine in the image workers, never in the
 * process that serves requests; a provider's through its SDK. `only` (benchmarks) answers every generation with
 * one in-process model instead.
 */
function buildModels(config: Config, imageWorkers: ImageWorkers, outputFetcher: SafeFetcher, only?: ImageModel): ModelRegistry {
  const { model: cfg } = config;
  const build = async (model: ImageModelName, access: ModelAccess): Promise<ImageModel> => {
    if (model === 'local') return imageWorkers.offlineModel(cfg.offline);
    const scale = upscaleFactorOf(model);
    if (scale) return imageWorkers.upscaler(scale, { maxInputPixels: cfg.upscaleMaxInputPixels });
    const inpaint = inpaintMethodOf(model);
    if (inpaint) return imageWorkers.inpainter(inpaint, config.limits.inputImagePixels);
    return createImageModel({
      model,
      apiKey: access.apiKey,
      baseUrl: access.baseUrl,
      timeoutMs: cfg.timeoutMs,
      workflow: cfg.comfyui?.workflow,
      inpaintWorkflow: cfg.comfyui?.inpaintWorkflow,
      partialImages: cfg.openaiPartialImages,
      maxOutputBytes: cfg.outputMaxBytes,
      outputFetcher,
      maxResultPixels: config.limits.inputImagePixels,
    });
  };
  const registry = createModelRegistry(cfg, build, config.limits.imagesPerGeneration, config.limits.inputImagePixels);
  if (!only) return registry;
  // A model given at build time replaces the drivers, not the per-instance slots and timeout around every call.
  const limited = withTimeoutAndLimit(only, { timeoutMs: cfg.timeoutMs, maxConcurrent: cfg.maxConcurrent });
  return { ...registry, get: async (id) => ((await registry.get(id)) === undefined ? undefined : limited) };
}

/**
 * The link to Redis through which instances share live documents (the module loads the Redis client only then), its
 * keys and channels under COLLAB_REDIS_PREFIX or the database's own prefix; its changes logged by it and counted here.
 */
async function startRelay(url: string, prefix: string | undefined, pool: Runtime['database']['pool'], log: ServiceLog, metrics: Metrics | undefined): Promise<RedisRelay> {
  const { RedisRelay, defaultRedisPrefix } = await import('./collab/redis.js');
  const debug = (log as Partial<Record<'debug', (o: object, m: string) => void>>).debug?.bind(log) ?? (() => {});
  const relay = new RedisRelay({ url, prefix: prefix ?? defaultRedisPrefix(await databaseIdentity(pool, log)), log: { info: log.info.bind(log), warn: log.warn.bind(log), debug } });
  if (metrics) {
    metrics.liveRedis('connecting');
    relay.onLink((up) => metrics.liveRedis(up ? 'up' : 'down'));
  }
  return relay;
}
