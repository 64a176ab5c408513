// buildApp(config) → a fully wired Fastify instance that does not listen (server.ts listens; tests use it
// as is). Closing the app stops everything it started.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { authRoutes, createAuthConfig } from './auth/authjs.js';
import { DEV_CLIENT_ID, DEV_IDP_PATH, devClientSecret, devIdpPlugin } from './auth/dev-idp.js';
import { createSessionVerifier } from './auth/session.js';
import type { Config } from './config.js';
import { clientErrorHandler, registerErrorHandler } from './http/error-handler.js';
import { localFilesPlugin } from './http/files.js';
import { echoRequestId, loggingOptions, REQUEST_ID_HEADER } from './http/logging.js';
import { metricsPlugin } from './http/metrics.js';
import { registerCrossSiteGuard, requireUser } from './http/guards.js';
import { perUserPerMinute, registerRateLimit } from './http/rate-limit.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { canvasRoutes } from './routes/canvas.js';
import { healthRoutes } from './routes/health.js';
import { webClient } from './http/web-client.js';
import { clientConfigRoutes } from './routes/client-config.js';
import { projectRoutes } from './routes/projects.js';
import { imageRoutes } from './routes/image.js';
import { uploadRoutes } from './routes/upload.js';
import { userRoutes } from './routes/user.js';
import { startRuntime, type Runtime } from './runtime.js';
import { createCanvasService } from './services/canvas.js';
import { createProjectsService } from './services/projects.js';
import { createUploadsService } from './services/uploads.js';
import { createGenerationService } from './services/generation.js';
import { createImageModel, withFallback, withTimeoutAndLimit, type ImageModel, type ImageModelName } from './models/index.js';
import { createSafeFetcher } from './net/safe-fetch.js';
import { createUsersService } from './services/users.js';
import { createPayments } from './payments/index.js';
import { billingPlugin, paymentsWebhookPlugin } from './routes/billing.js';
import { videoPlugin } from './routes/video.js';
import { createBillingService } from './services/billing.js';
import { createVideoService } from './services/video.js';
import { createVideoProvider } from './video/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The database the app uses (benchmarks and tests read it directly). */
    database: Runtime['database'];
    /** The object store the app uses. */
    store: Runtime['store'];
  }
}

export const API_INFO = { title: 'Image Canvas API', version: '1.0.0', description: 'The API of Image Canvas (see SPEC.md and DESIGN.md).' };

export interface BuildOptions {
  /** Pass a runtime that is already started (tests sharing one); otherwise one is started and owned. */
  runtime?: Runtime;
  /** Serve on a server made elsewhere (e.g. one already bound, so its port is known before the config). */
  serverFactory?: FastifyServerFactory;
  /** Use this image model instead of the configured chain (benchmarks: an instant in-process model). */
  imageModel?: ImageModel;
  /** Write log lines here instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  let frameworkErrorHeaders: ((req: FastifyRequest, reply: FastifyReply) => void) | undefined;
  const app = Fastify({
    ...loggingOptions(config.logLevel, options.logStream),
    bodyLimit: 1024 * 1024,
    trustProxy: config.production,
    clientErrorHandler,
    // A path the router cannot decode (bad percent-encoding) answers in our error shape, not Fastify's.
    // Such answers run no hooks: the request id and security headers are given here.
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      reply.header(REQUEST_ID_HEADER, req.id).type('application/json; charset=utf-8');
      frameworkErrorHeaders?.(req, reply);
      if (err.code === 'FST_ERR_BAD_URL') return reply.code(400).send({ error: 'Invalid URL encoding' });
      return reply.code(err.statusCode && err.statusCode < 500 ? err.statusCode : 400).send({ error: 'Bad request' });
    },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  });
  echoRequestId(app);
  const log = { info: (m: string) => app.log.info(m), warn: (m: string) => app.log.warn(m), error: (m: string) => app.log.error(m) };
  const runtime = options.runtime ?? (await startRuntime(config, log));
  if (!options.runtime) app.addHook('onClose', () => runtime.close());
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
  app.decorate('database', database);
  app.decorate('store', store);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerCrossSiteGuard(app, config.baseUrl);
  const securityHeaders = await registerSecurityHeaders(app, { production: config.production }); // issue 7: helmet + API CSP (src/http/security-headers.ts)

  await app.register(fastifySwagger, {
    openapi: {
      info: API_INFO,
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'authlib.session-token' } } },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const users = createUsersService({ db: database.db });
  const projects = createProjectsService({ db: database.db });
  const sessions = createSessionVerifier({ secret, cacheSize: config.auth.sessionCacheSize });

  const provider =
    config.auth.provider.kind === 'bundled'
      ? { issuer: `${config.baseUrl}${DEV_IDP_PATH}`, clientId: DEV_CLIENT_ID, clientSecret: devClientSecret(secret), name: 'Development sign-in' }
      : { ...config.auth.provider, name: 'OAuth' };
  if (config.auth.provider.kind === 'bundled') {
    if (config.production) throw new Error('The bundled identity provider never runs in production.');
    await app.register(devIdpPlugin, { baseUrl: config.baseUrl, secret, log });
  }
  const authConfig = createAuthConfig({ baseUrl: config.baseUrl, secret, secureCookies: config.auth.secureCookies, provider, users, log });
  await app.register(authRoutes, { config: authConfig, baseUrl: config.baseUrl });
  // Web client (issue 5): the React app's pages and assets, and its public configuration.
  await app.register(webClient, { config, authConfig, sessions });
  await app.register(clientConfigRoutes, { analytics: config.analytics, payments: { enabled: Boolean(config.payments.accessToken && config.payments.productId) } });
  await app.register(healthRoutes, { checks: { database: () => database.check(), storage: () => store.check() } });
  await app.register(metricsPlugin, { token: config.metrics.token });
  if (store.kind === 'local') await app.register(localFilesPlugin, { store });
  await registerRateLimit(app, { store: config.limits.rateLimitStore, pool: database.pool });
  // Payments and video (issue 6): public routes here (after the rate-limit plugin); checkout and portal below.
  const billing = createBillingService({ db: database.db, payments: await createPayments(config.payments), baseUrl: config.baseUrl, settings: config.payments, log: app.log });
  await app.register(paymentsWebhookPlugin, { billing });
  await app.register(videoPlugin, { video: createVideoService({ provider: await createVideoProvider(config.video), log: app.log }), perMinute: config.video.perMinute });
  const uploads = createUploadsService({ store, maxBytes: config.limits.uploadBytes, log: app.log, metrics: app.metrics });
  const fetcher = createSafeFetcher({ maxBytes: config.limits.inputImageBytes, timeoutMs: 20_000, maxRedirects: 3 });
  app.addHook('onClose', () => fetcher.close());
  const generation = createGenerationService({
    db: database.db,
    store,
    fetcher,
    model: options.imageModel ?? (await buildModel(config.model)),
    maxBytes: config.limits.inputImageBytes,
    outputMaxBytes: 64 * 1024 * 1024,
    log: app.log,
    leaseMs: config.model.leaseMs,
    metrics: app.metrics,
    quota: config.payments.freeGenerationsPerDay > 0 ? { perDay: config.payments.freeGenerationsPerDay } : undefined,
  });
  const canvas = createCanvasService({ pool: database.pool });

  // Everything below needs a session (SPEC §5.4).
  await app.register(async (api) => {
    api.addHook('onRequest', requireUser(sessions));
    api.removeContentTypeParser('text/plain'); // JSON routes take JSON (multipart where a route says so)
    await api.register(userRoutes, { users });
    await api.register(projectRoutes, { projects, limits: config.limits });
    await api.register(canvasRoutes, { canvas, limits: config.limits });
    await api.register(imageRoutes, { generation, limits: config.limits, rateLimit: perUserPerMinute('image', config.limits.generationsPerMinute) });
    await api.register(uploadRoutes, { uploads, users, maxBytes: config.limits.uploadBytes, rateLimit: perUserPerMinute('upload', config.limits.uploadsPerMinute) });
    await api.register(billingPlugin, { billing, rateLimit: perUserPerMinute('checkout', 10) });
  });
  return securityHeaders;
}

/**
 * The configured model chain: primary (with IMAGE_MODEL_BASE_URL), then the fallback, each with the timeout
 * and the per-instance concurrency cap. null when a provider model has no key (the route says so).
 */
async function buildModel(cfg: Config['model']): Promise<ImageModel | null> {
  const make = async (model: ImageModelName, baseUrl?: string) => {
    if (model !== 'local' && !cfg.apiKey) return null;
    const made = await createImageModel({ model, apiKey: cfg.apiKey, baseUrl, timeoutMs: cfg.timeoutMs });
    return withTimeoutAndLimit(made, { timeoutMs: cfg.timeoutMs, maxConcurrent: cfg.maxConcurrent });
  };
  const primary = await make(cfg.model, cfg.baseUrl);
  const fallback = cfg.fallback ? await make(cfg.fallback) : null;
  if (!primary) return null; // a missing key is a configuration error to surface, not to route around
  return fallback ? withFallback(primary, fallback) : primary;
}
