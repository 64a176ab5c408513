// Prometheus metrics (prom-client) at GET /api/metrics, guarded by METRICS_TOKEN (`Authorization: Bearer …`).
// Without a token the plugin does nothing: no route (404), no hooks, no registry. Every app gets its own
// registry (tests build several apps in one process). Labels are bounded: routes by their pattern, never the
// raw URL; unknown routes as `not_found`; statuses by class.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { unauthorized } from '../errors.js';
import type { JobQueueGauges, LiveGauges, Metrics } from '../metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics recorders; undefined when metrics are off (no METRICS_TOKEN). */
    metrics: Metrics | undefined;
  }
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GENERATION_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

function createMetrics(): Metrics & {
  readonly registry: Registry;
  request(req: FastifyRequest, reply: FastifyReply): void;
} {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_class'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route pattern and status class', labelNames, registers: [registry] });
  const latency = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency by method, route pattern and status class', labelNames, buckets: SECONDS, registers: [registry] });
  const generations = new Counter({ name: 'image_canvas_generations_total', help: 'Image generations by result', labelNames: ['result'], registers: [registry] });
  const generationSeconds = new Histogram({ name: 'image_canvas_generation_duration_seconds', help: 'Image generation duration by result', labelNames: ['result'], buckets: GENERATION_SECONDS, registers: [registry] });
  const modelErrors = new Counter({ name: 'image_canvas_model_errors_total', help: 'Failed image model calls by model id', labelNames: ['model'], registers: [registry] });
  const uploads = new Counter({ name: 'image_canvas_uploads_total', help: 'Uploads by result', labelNames: ['result'], registers: [registry] });
  const uploadBytes = new Counter({ name: 'image_canvas_upload_bytes_total', help: 'Bytes stored by successful uploads', registers: [registry] });
  const compactions = new Counter({ name: 'image_canvas_live_compactions_total', help: 'Compactions of live documents that came due, by result (skipped: people were editing and the log was small)', labelNames: ['result'], registers: [registry] });
  const compactionSeconds = new Histogram({ name: 'image_canvas_live_compaction_duration_seconds', help: 'Duration of live-document compactions that ran', buckets: SECONDS, registers: [registry] });
  const documentTasks = new Counter({ name: 'image_canvas_live_document_tasks_total', help: "Whole-document work on live documents' stored bytes, by task (merge, render), where it ran (worker: a worker thread; thread: the service's own) and result", labelNames: ['task', 'where', 'result'], registers: [registry] });
  const documentTaskSeconds = new Histogram({ name: 'image_canvas_live_document_task_duration_seconds', help: 'Duration of live-document tasks, waiting for a worker thread included, by task', labelNames: ['task'], buckets: SECONDS, registers: [registry] });
  const canvasMeasures = new Counter({ name: 'image_canvas_live_canvas_measures_total', help: "Whole live canvases rendered on the service's thread to measure their bytes against CANVAS_MAX_BYTES", registers: [registry] });
  const refusedChanges = new Counter({ name: 'image_canvas_live_refused_changes_total', help: 'Live changes refused for their content before being applied (not stored or broadcast), by close reason', labelNames: ['reason'], registers: [registry] });
  const refusedDocuments = new Counter({ name: 'image_canvas_live_refused_documents_total', help: 'Connections to live documents not open on this instance refused because it held LIVE_MAX_OPEN_DOCUMENTS (nothing loaded; the client retries)', registers: [registry] });
  let live: (() => LiveGauges) | undefined;
  let redis: { up: Gauge; outages: Counter } | undefined;
  const gauge = (name: string, help: string, value: (g: LiveGauges) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        if (live) this.set(value(live()));
      },
    });
  gauge('image_canvas_live_open_documents', 'Live documents held in memory by this instance', (g) => g.openDocuments);
  gauge('image_canvas_live_connections', 'Live-document connections to this instance', (g) => g.connections);
  gauge('image_canvas_live_unsaved_bytes', 'Live changes applied in memory and not yet stored in PostgreSQL, in bytes', (g) => g.unsavedBytes);
  gauge('image_canvas_live_saving', '1 while storing live changes works, 0 while PostgreSQL refuses them and they are retried', (g) => (g.saving ? 1 : 0));
  const jobRetries = new Counter({ name: 'image_canvas_job_retries_total', help: 'Jobs this instance queued again after their run was lost (its instance stopped), by task kind and reason code', labelNames: ['task', 'code'], registers: [registry] });
  const storeFailures = new Counter({ name: 'image_canvas_store_failures_total', help: "Calls to the object store that failed because of the store, by result (unavailable: unreachable or timed out; full: out of space)", labelNames: ['result'], registers: [registry] });
  for (const result of ['unavailable', 'full']) storeFailures.inc({ result }, 0); // both series exist from the start
  const storeUp = new Gauge({ name: 'image_canvas_store_up', help: "1 when the last readiness check (GET /api/ready) found the object store reachable and writable, 0 when it did not; -1 before the first check", registers: [registry] });
  storeUp.set(-1);
  const storeFull = new Gauge({ name: 'image_canvas_store_full', help: '1 when the last readiness check found the object store out of space', registers: [registry] });
  const jobsDead = new Counter({ name: 'image_canvas_jobs_dead_total', help: 'Jobs this instance gave up on (failed, not retried), by task kind and error code', labelNames: ['task', 'code'], registers: [registry] });
  // The queue's gauges: their reads of the job rows while one is in flight share it (a scrape collects them together).
  let jobs: (() => Promise<JobQueueGauges>) | undefined;
  let jobsRead: Promise<JobQueueGauges | undefined> | undefined;
  const readJobs = () => {
    if (!jobs) return Promise.resolve(undefined);
    jobsRead ??= jobs()
      .catch(() => undefined) // PostgreSQL down: no sample this time
      .finally(() => {
        jobsRead = undefined;
      });
    return jobsRead;
  };
  const jobGauge = (name: string, help: string, value: (g: JobQueueGauges) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const g = await readJobs();
        if (g) this.set(value(g));
      },
    });
  jobGauge('image_canvas_jobs_queued', 'Jobs queued (all instances: read from the job rows)', (g) => g.queued);
  jobGauge('image_canvas_jobs_running', 'Jobs running (all instances: read from the job rows)', (g) => g.running);
  jobGauge('image_canvas_jobs_oldest_queued_age_seconds', 'Age of the oldest queued job in seconds, 0 when none is queued (all instances)', (g) => g.oldestQueuedAgeSeconds);

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
    compaction(result, seconds) {
      compactions.inc({ result });
      if (result !== 'skipped') compactionSeconds.observe(seconds);
    },
    documentTask(task, where, result, seconds) {
      documentTasks.inc({ task, where, result });
      documentTaskSeconds.observe({ task }, seconds);
    },
    canvasMeasured: () => canvasMeasures.inc(),
    refusedChange: (reason) => refusedChanges.inc({ reason }),
    refusedDocument: () => refusedDocuments.inc(),
    watchLive(read) {
      live = read;
    },
    jobRetried: (task, code) => jobRetries.inc({ task, code }),
    jobDead: (task, code) => jobsDead.inc({ task, code }),
    watchJobs(read) {
      jobs = read;
    },
    storeFailure: (result) => storeFailures.inc({ result }),
    storeReadiness(state) {
      storeUp.set(state === 'ok' ? 1 : 0);
      storeFull.set(state === 'full' ? 1 : 0);
    },
    liveRedis(state) {
      // Declared by the first report, so an instance without Redis has neither.
      redis ??= {
        up: new Gauge({ name: 'image_canvas_live_redis_up', help: '1 while the link to Redis (COLLAB_REDIS_URL) is up, 0 while it is down and each instance goes on alone', registers: [registry] }),
        outages: new Counter({ name: 'image_canvas_live_redis_outages_total', help: 'Times the link to Redis went down (or could not be made at start)', registers: [registry] }),
      };
      redis.up.set(state === 'up' ? 1 : 0);
      if (state === 'down') redis.outages.inc();
    },
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <token>` against the expected token, timing-safe (equal-length digests). */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
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
 * The plugin: register once on the root instance. Not encapsulated (fastify-plugin), so its hook sees every
 * route, those registered before it included, and `app.metrics` is visible everywhere.
 */
export const metricsPlugin = fp(metrics, { name: 'metrics' });
