// Prometheus metrics (prom-client) at GET /api/metrics, guarded by METRICS_TOKEN (`Authorization: Bearer …`).
// Without a token the plugin does nothing: no route (404), no hooks, no registry. Every app gets its own
// registry (tests build several apps in one process). Labels are bounded: routes by their pattern, never the
// raw URL; unknown routes as `not_found`; statuses by class.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics recorders; undefined when metrics are off (no METRICS_TOKEN). */
    metrics: Metrics | undefined;
  }
}

/**
 * How a generation ended. `quota`: the model provider answered 429; `upgrade_required`: the free daily
 * quota (402); `error`: anything else (storage, database, no model configured).
 */
export type GenerationResult = 'ok' | 'no_image' | 'model_error' | 'quota' | 'invalid_input' | 'upgrade_required' | 'error';
/** How an upload ended (`interrupted`: the client's body ended early or was malformed). */
export type UploadResult = 'ok' | 'unsupported_type' | 'too_large' | 'interrupted' | 'error';

export interface Metrics {
  readonly registry: Registry;
  /** One generation request handled by the service, and how long it took. */
  generation(result: GenerationResult, seconds: number): void;
  /** A model call failed (quota errors included); `model` is the model's id (`local`, `gpt-image-1`, …). */
  modelError(model: string): void;
  /** One upload handled by the service; `bytes` stored (0 when it failed). */
  upload(result: UploadResult, bytes: number): void;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GENERATION_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics & {
  request(req: FastifyRequest, reply: FastifyReply): void;
} {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_class'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route pattern and status class', labelNames, registers: [registry] });
  const latency = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency by method, route pattern and status class', labelNames, buckets: SECONDS, registers: [registry] });
  const generations = new Counter({ name: 'image_canvas_generations_total', help: 'Image generations by result', labelNames: ['result'], registers: [registry] });
  const generationSeconds = new Histogram({ name: 'image_canvas_generation_duration_seconds', help: 'Image generation duration by result', labelNames: ['result'], buckets: GENERATION_SECONDS, registers: [registry] });
  const modelErrors = new Counter({ name: 'image_canvas_model_errors_total', help: 'Failed image model calls by model id', labelNames: ['model'], registers: [registry] });
  const uploads = new Counter({ name: 'image_canvas_uploads_total', help: 'Uploads by result', labelNames: ['result'], registers: [registry] });
  const uploadBytes = new Counter({ name: 'image_canvas_upload_bytes_total', help: 'Bytes stored by successful uploads', registers: [registry] });

  return {
    registry,
    request(req, reply) {
      const labels = { method: req.method, route: req.routeOptions.url ?? 'not_found', status_class: `${Math.floor(reply.statusCode / 100)}xx` };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
    },
    generation(result, seconds) {
      generations.inc({ result });
      generationSeconds.observe({ result }, seconds);
    },
    modelError: (model) => modelErrors.inc({ model }),
    upload(result, bytes) {
      uploads.inc({ result });
      if (bytes > 0) uploadBytes.inc(bytes);
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <token>` against the expected token, timing-safe (equal-length digests). */
export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), expected);
}

async function metrics(app: FastifyInstance, { token }: { token?: string }) {
  if (!token) {
    app.decorate('metrics', undefined);
    return;
  }
  const recorders = createMetrics();
  app.decorate('metrics', recorders);
  app.addHook('onResponse', async (req, reply) => recorders.request(req, reply));
  const expected = digest(token);
  app.get('/api/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!bearerMatches(req.headers.authorization, expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw unauthorized();
    }
    const text = await recorders.registry.metrics();
    return reply.header('cache-control', 'no-store').type(recorders.registry.contentType).send(text);
  });
}

/**
 * The plugin: register once on the root instance. Not encapsulated (like fastify-plugin's skip-override), so
 * its hook sees every route, those registered before it included, and `app.metrics` is visible everywhere.
 */
export const metricsPlugin = Object.assign(metrics, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'metrics',
});
