// buildApp(config) → a fully wired Fastify instance that does not listen (server.ts listens; tests use it
// as is). Closing the app stops everything it started.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { authRoutes, createAuthConfig, SESSION_MAX_AGE_SECONDS } from './auth/authjs.js';
import { DEV_CLIENT_ID, DEV_IDP_PATH, devClientSecret, devIdpPlugin } from './auth/dev-idp.js';
import { startSessionRevocations } from './auth/revocations.js';
import { createSessionVerifier } from './auth/session.js';
import { createSessionRevocationsRepository } from './db/repositories/index.js';
import { sessionRoutes } from './routes/sessions.js';
import type { Config } from './config.js';
import { registerDeadlines } from './http/deadlines.js';
import { clientErrorHandler, registerErrorHandler, sendFrameworkError } from './http/error-handler.js';
import { localFilesPlugin } from './http/files.js';
import { echoRequestId, loggingOptions, REQUEST_ID_HEADER, requestLines } from './http/logging.js';
import { metricsPlugin } from './http/metrics.js';
import { registerCrossSiteGuard, requireUser } from './http/guards.js';
import { perUserPerMinute, registerRateLimit } from './http/rate-limit.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { trustProxyOption } from './net/trusted-proxies.js';
import { canvasRoutes } from './routes/canvas.js';
import { storeReadinessCheck } from './storage/readiness.js';
import { healthRoutes } from './routes/health.js';
import { createWebClientShell, notFoundPage, webClient } from './http/web-client.js';
import { clientConfigRoutes } from './routes/client-config.js';
import { nodeKindRoutes } from './routes/node-kinds.js';
import { projectRoutes } from './routes/projects.js';
import { imageRoutes } from './routes/image.js';
import { uploadRoutes } from './routes/upload.js';
import { userRoutes } from './routes/user.js';
import { startRuntime, type Runtime } from './runtime.js';
import { compose } from './composition.js';
import type { ObjectSweep } from './services/object-sweep.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The deletion sweep of deleted projects' objects (src/services/object-sweep.ts). */
    objectSweep: ObjectSweep;
  }
}
import type { Network } from './net/safe-fetch.js';
import type { ImageModel } from './models/index.js';
import { billingPlugin, paymentsWebhookPlugin } from './routes/billing.js';
import { videoPlugin } from './routes/video.js';
import { publicTemplateRoutes, templateRoutes } from './routes/templates.js';
import { publicSharingRoutes, sharingRoutes } from './routes/sharing.js';
import { versionRoutes } from './routes/versions.js';
import { apiTokenRoutes } from './routes/api-tokens.js';
import { generationRoutes } from './routes/generations.js';
import { modelRoutes } from './routes/models.js';
import { projectGenerationRoutes } from './routes/project-generations.js';
import { composePsdRoutes } from './routes/compose-psd.js';
import { spendRoutes } from './routes/spend.js';
import { runRoutes } from './routes/runs.js';
import { thumbnailRoutes } from './routes/thumbnails.js';
import { exampleCanvasRoutes } from './routes/example-canvas.js';
import type { Task } from './jobs/task.js';

export const API_INFO = {
  title: 'Image Canvas API',
  version: '1.0.0',
  description:
    'The API of Image Canvas: projects and their canvases, image uploads and image generation for signed-in users ' +
    '(session cookie from /api/auth, or a personal API token as `Authorization: Bearer`). Ownership, canvas versions, limits and errors are described in docs/api.md; ' +
    'every error message with its status in docs/errors.md.',
};

/**
 * The routes that take large bodies from signed-in users: their bodies get the longer deadlines
 * (HTTP_LARGE_BODY_TIMEOUT_MS, HTTP_LARGE_BODY_IDLE_TIMEOUT_MS; src/http/deadlines.ts).
 */
const LARGE_BODY_ROUTES = ['POST /api/upload', 'POST /api/image', 'POST /api/generations', 'POST /api/user/project/canvas', 'POST /api/upload/templates'];

/** How long closing the app waits for running generation jobs (pg-boss's graceful stop); the rest are retried elsewhere. */
const JOBS_STOP_GRACE_MS = 10_000;

export interface BuildOptions {
  /** Serve on a server made elsewhere (e.g. one already bound, so its port is known before the config). */
  serverFactory?: FastifyServerFactory;
  /** Use this image model instead of the configured chain (benchmarks: an instant in-process model). */
  imageModel?: ImageModel;
  /** Tasks the job runner runs beside the built-in ones (src/jobs/task.ts), by their kind. */
  tasks?: Task[];
  /** Write log lines here instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
  /** The network outside URLs are fetched from through the SSRF guard (src/composition.ts); default the public internet. */
  network?: Network;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  let frameworkErrorHeaders: ((req: FastifyRequest, reply: FastifyReply) => void) | undefined;
  const app = Fastify({
    ...loggingOptions(config.logLevel, options.logStream, config.logFormat),
    bodyLimit: 1024 * 1024,
    // Every route answers with or without a trailing slash (`/api/user/` as `/api/user`).
    routerOptions: { ignoreTrailingSlash: true },
    // The client address (req.ip: per-address rate limits, logs) as our own proxies saw it (TRUSTED_PROXIES).
    trustProxy: trustProxyOption(config.http.trustedProxies),
    // How often Node checks its headers and request timeouts (its default, 30 s, would let them run late).
    http: { connectionsCheckingInterval: 1000 },
    clientErrorHandler,
    // A path the router cannot decode (bad percent-encoding) answers in our error shape, not Fastify's.
    // Such answers run no hooks: the request id and security headers are given here.
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      reply.header(REQUEST_ID_HEADER, req.id).type('application/json; charset=utf-8');
      frameworkErrorHeaders?.(req, reply);
      startDeadlines(req, reply); // a body still to come gets the same limits as any other
      sendFrameworkError(err, reply);
    },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  // First of all hooks: every request's body is timed, also one that a later hook refuses.
  const startDeadlines = registerDeadlines(app, { deadlines: config.http, largeBodyRoutes: LARGE_BODY_ROUTES });
  echoRequestId(app);
  if (config.logFormat === 'pretty' && config.logLevel !== 'silent') requestLines(app);
  const log = { debug: (m: string) => app.log.debug(m), info: (m: string) => app.log.info(m), warn: (m: string) => app.log.warn(m), error: (m: string) => app.log.error(m) };
  const runtime = await startRuntime(config, log);
  app.addHook('onClose', () => runtime.close());
  try {
    frameworkErrorHeaders = await wire(app, runtime, log, options);
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}

async function wire(app: FastifyInstance, runtime: Runtime, log: { warn(m: string): void; error(m: string): void }, options: BuildOptions) {
  const { config, database, store } = runtime;
  const secret = config.auth.secret!;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // The web client's pages; an unknown address opened in a browser gets its "Page not found" (a 404 still).
  const webShell = createWebClientShell(config);
  registerErrorHandler(app, { notFoundPage: notFoundPage(webShell) });
  registerCrossSiteGuard(app, config.baseUrl);
  const securityHeaders = await registerSecurityHeaders(app, { production: config.production }); // helmet + API CSP (src/http/security-headers.ts)

  await app.register(fastifySwagger, {
    openapi: {
      info: API_INFO,
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'authlib.session-token' },
          apiToken: { type: 'http', scheme: 'bearer', description: 'a personal API token (ic_…), docs/api.md "API tokens"' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Signed-out sessions, shared by every instance through the database (src/auth/revocations.ts).
  const revocations = await startSessionRevocations({
    repo: createSessionRevocationsRepository(database.db),
    pollMs: config.auth.revocationPollMs,
    maxSessionAgeMs: SESSION_MAX_AGE_SECONDS * 1000,
    log: app.log,
  });
  app.addHook('onClose', () => revocations.close());
  const sessions = createSessionVerifier({ secret, cacheSize: config.auth.sessionCacheSize, revocations });

  const provider =
    config.auth.provider.kind === 'bundled'
      ? { issuer: `${config.baseUrl}${DEV_IDP_PATH}`, clientId: DEV_CLIENT_ID, clientSecret: devClientSecret(secret), name: 'Development sign-in' }
      : { ...config.auth.provider, name: 'OAuth' };
  if (config.auth.provider.kind === 'bundled') {
    if (config.production) throw new Error('The bundled identity provider never runs in production.');
    await app.register(devIdpPlugin, { baseUrl: config.baseUrl, secret, log });
  }
  await app.register(metricsPlugin, { token: config.metrics.token });
  const composition = await compose(runtime, { log: app.log, metrics: app.metrics, imageModel: options.imageModel, tasks: options.tasks, sessions, network: options.network, revocations });
  app.addHook('onClose', () => composition.close());
  // The deletion sweep, for a caller in this process (tests run a pass directly; instances run theirs on a timer).
  app.decorate('objectSweep', composition.objectSweep);
  // Generation jobs: running ones get a grace period to finish before the server closes; queued ones wait in the
  // database for the next start. The queue starts now only if jobs are waiting (else on the first new job).
  app.addHook('preClose', () => composition.jobs.stop(JOBS_STOP_GRACE_MS));
  // A queue that cannot start now is started again by the next job created here.
  await composition.jobs.resume().catch((err: unknown) => app.log.error({ err }, 'generation jobs: the queue did not start; waiting jobs run once it does'));
  // The live canvas's socket (/api/collab) on the same server; its sockets close before the server waits for connections.
  composition.live.mount(app.server);
  app.addHook('preClose', () => composition.live.disconnectAll());
  const { users, projects, canvas, generation, uploads, billing, video, templates, sharing, versions, apiTokens } = composition.services;

  const authConfig = createAuthConfig({ baseUrl: config.baseUrl, secret, secureCookies: config.auth.secureCookies, provider, users, log, revocations });
  await app.register(authRoutes, { config: authConfig, baseUrl: config.baseUrl, log: app.log });
  // Web client: the React app's pages and assets, and its public configuration.
  await app.register(webClient, { config, authConfig, sessions, shell: webShell });
  await app.register(clientConfigRoutes, { analytics: config.analytics, payments: { enabled: Boolean(config.payments.accessToken && config.payments.productId) }, uploadMaxBytes: config.limits.uploadBytes, canvasLimits: config.limits });
  await app.register(nodeKindRoutes, { limits: config.limits });
  // live: degraded (200) while the link to Redis is down: every instance would be out of rotation otherwise.
  await app.register(healthRoutes, { checks: { database: () => database.check(), storage: storeReadinessCheck(store, { writeEverySeconds: config.storage.probeWriteSeconds, report: (state) => app.metrics?.storeReadiness(state) }), live: async () => (composition.liveLink() === 'ok' ? undefined : 'degraded') } });
  if (store.kind === 'local') await app.register(localFilesPlugin, { store });
  await registerRateLimit(app, { store: config.limits.rateLimitStore, counters: composition.rateLimits });
  // Payments and video: public routes here (after the rate-limit plugin); checkout and portal below.
  await app.register(paymentsWebhookPlugin, { billing });
  await app.register(videoPlugin, { video, perMinute: config.video.perMinute });
  // Templates: the list is public (rate-limited per address); publishing and deleting are below.
  await app.register(publicTemplateRoutes, { templates, sessions, limits: config.limits });
  // Sharing: a read-only link shows its project without a session (rate-limited per address); the rest is below.
  await app.register(publicSharingRoutes, { sharing, sessions, limits: config.limits });

  // Everything below needs a session or an API token (401 without one); the public routes are registered above.
  await app.register(async (api) => {
    api.addHook('onRequest', requireUser(sessions, composition.tokens));
    // JSON routes take JSON (multipart where a route says so). A `text/plain` body is read as JSON too: a
    // `fetch` with a string body and no headers sends that type (the original system's client saves canvases
    // so). It opens nothing: the cross-site guard refuses other origins whatever the type.
    api.removeContentTypeParser('text/plain');
    api.addContentTypeParser('text/plain', { parseAs: 'string' }, api.getDefaultJsonParser('error', 'error'));
    await api.register(userRoutes, { users });
    await api.register(sessionRoutes, { revocations, users, secureCookies: config.auth.secureCookies });
    await api.register(projectRoutes, { projects, limits: config.limits });
    await api.register(canvasRoutes, { canvas, limits: config.limits });
    await api.register(imageRoutes, { generation, jobs: composition.jobs, limits: config.limits, rateLimit: perUserPerMinute('image', config.limits.generationsPerMinute) });
    // The same per-user budget as POST /api/image (one counter).
    await api.register(generationRoutes, { jobs: composition.jobs, limits: config.limits, models: composition.models, streams: composition.streams, rateLimit: perUserPerMinute('image', config.limits.generationsPerMinute) });
    await api.register(modelRoutes, { models: composition.models });
    await api.register(uploadRoutes, { uploads, users, maxBytes: config.limits.uploadBytes, rateLimit: perUserPerMinute('upload', config.limits.uploadsPerMinute, 'preHandler', config.limits.uploadsWindowSeconds * 1000) });
    await api.register(billingPlugin, { billing, origin: new URL(config.baseUrl).origin, rateLimit: perUserPerMinute('checkout', config.payments.startsPerMinute) });
    await api.register(templateRoutes, { templates, limits: config.limits });
    await api.register(sharingRoutes, { sharing, baseUrl: config.baseUrl, limits: config.limits });
    await api.register(versionRoutes, { versions, limits: config.limits, rateLimit: perUserPerMinute('versions', config.limits.versionsPerMinute) });
    await api.register(apiTokenRoutes, { tokens: apiTokens, limits: config.limits });
    await api.register(projectGenerationRoutes, { gallery: composition.services.projectGenerations });
    await api.register(composePsdRoutes, { psd: composition.composePsd, rateLimit: perUserPerMinute('psd', config.limits.generationsPerMinute) });
    await api.register(spendRoutes, { generation, spend: composition.services.spend });
    await api.register(runRoutes, { runs: composition.runs, maxNodes: config.limits.canvasNodes, rateLimit: perUserPerMinute('image', config.limits.generationsPerMinute) });
    await api.register(thumbnailRoutes, { thumbnails: composition.services.thumbnails, projects });
    await api.register(exampleCanvasRoutes, { example: composition.services.exampleCanvas });
  });
  return securityHeaders;
}
