import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, OPTIONAL_WARNED, REQUIRED_IN_PRODUCTION } from '../../src/config.js';
import { PRODUCTION_ENV } from '../helpers/production-env.js';

const production = PRODUCTION_ENV;

describe('configuration', () => {
  it('runs with no configuration on embedded defaults, one warning per unset required value', () => {
    const { config, warnings, defaults, unconfiguredServices } = loadConfig({});
    expect(config).toMatchObject({ production: false, port: 3000, host: '127.0.0.1', baseUrl: 'http://localhost:3000' });
    expect(config.auth.provider).toEqual({ kind: 'bundled' });
    expect(config.model.model).toBe('local');
    expect(config.database.url).toBeUndefined();
    for (const name of REQUIRED_IN_PRODUCTION) expect(warnings.filter((w) => w.startsWith(`${name} is not set`))).toHaveLength(1);
    // The same, for the start banner: each local default in use, and the optional services not configured.
    expect(defaults.map((d) => d.name)).toEqual([...REQUIRED_IN_PRODUCTION]);
    expect(unconfiguredServices).toEqual(['payments', 'video', 'analytics']);
    // The optional services' unset values are named in one line, not one line each.
    const optional = warnings.filter((w) => OPTIONAL_WARNED.some((name) => w.includes(name)));
    expect(optional).toEqual([
      'Optional, not configured (each works without it): payments (PAYMENTS_ACCESS_TOKEN, PAYMENTS_SANDBOX_ACCESS_TOKEN, PAYMENTS_WEBHOOK_SECRET, PAYMENTS_SANDBOX_WEBHOOK_SECRET, PAYMENTS_SUCCESS_URL, PAYMENTS_RETURN_URL); video (VIDEO_TOKEN_ID, VIDEO_TOKEN_SECRET); analytics (PUBLIC_ANALYTICS_TOKEN, PUBLIC_ANALYTICS_PROXY_API).',
    ]);
  });

  it('names only the optional values left unset, and says nothing once every optional service is configured', () => {
    const video = { VIDEO_TOKEN_ID: 'v', VIDEO_TOKEN_SECRET: 's' };
    expect(loadConfig(video).warnings.find((w) => w.startsWith('Optional'))).not.toContain('video');
    const all = Object.fromEntries(OPTIONAL_WARNED.map((name) => [name, name.endsWith('_URL') || name.endsWith('_API') ? 'https://example.com/x' : 'value']));
    expect(loadConfig(all).warnings.filter((w) => w.startsWith('Optional'))).toEqual([]);
  });

  it('in production demands every required value, listing all that are missing', () => {
    try {
      loadConfig({ NODE_ENV: 'production' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual(REQUIRED_IN_PRODUCTION.map((n) => `${n} is required when NODE_ENV=production`));
    }
  });

  it('in production with everything set: secure cookies, Google issuer by default, all interfaces, optional warnings only', () => {
    const { config, warnings } = loadConfig(production);
    expect(config).toMatchObject({ production: true, host: '0.0.0.0', baseUrl: 'https://canvas.example.com' });
    expect(config.auth.secureCookies).toBe(true);
    expect(config.auth.provider).toEqual({ kind: 'oidc', clientId: 'id', clientSecret: 'secret', issuer: 'https://accounts.google.com' });
    expect(config.model.model).toBe('gemini-2.5-flash-image');
    expect(warnings.some((w) => /is not set: /.test(w) && !w.startsWith('OAUTH_ISSUER'))).toBe(false);
    expect(warnings.filter((w) => w.includes('PAYMENTS_ACCESS_TOKEN'))).toHaveLength(1);
    expect(Object.isFrozen(config.limits)).toBe(true);
  });

  it('an operator who chooses IMAGE_MODEL=local needs no model key', () => {
    const { IMAGE_MODEL_API_KEY: _, ...rest } = production;
    expect(loadConfig({ ...rest, IMAGE_MODEL: 'local' }).config.model.model).toBe('local');
  });

  it("the default model's own provider key stands in for IMAGE_MODEL_API_KEY; another provider's does not", () => {
    const { IMAGE_MODEL_API_KEY: _, ...rest } = production;
    const { config } = loadConfig({ ...rest, GEMINI_API_KEY: 'g', OPENAI_API_KEY: 'o', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(config.model).toMatchObject({ model: 'gemini-2.5-flash-image', providers: { gemini: { apiKey: 'g' }, openai: { apiKey: 'o', baseUrl: 'http://127.0.0.1:9/v1' } } });
    expect(() => loadConfig({ ...rest, IMAGE_MODEL: 'gemini-3-pro-image-preview', OPENAI_API_KEY: 'o' })).toThrow(ConfigError);
    expect(() => loadConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL/);
  });

  it('rejects malformed values with every problem named', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_CONNECTION_STRING: 'mysql://x', AUTH_SECRET: 'short', UPLOAD_MAX_BYTES: '-1' });
      expect.unreachable();
    } catch (err) {
      const text = (err as ConfigError).problems.join('\n');
      expect(text).toMatch(/PORT/);
      expect(text).toMatch(/DATABASE_CONNECTION_STRING must be a postgres:\/\/ URL/);
      expect(text).toMatch(/AUTH_SECRET must be at least 32 characters/);
      expect(text).toMatch(/UPLOAD_MAX_BYTES/);
    }
  });

  it('reads limits from the environment', () => {
    const { config } = loadConfig({ UPLOAD_MAX_BYTES: '1000', CANVAS_MAX_NODES: '10', PROJECT_NAME_MAX_CHARS: '5' });
    expect(config.limits).toMatchObject({ uploadBytes: 1000, canvasNodes: 10, projectNameChars: 5 });
  });

  it('spreads compactions due while editing over half of COLLAB_COMPACT_MAX_MS unless COLLAB_COMPACT_SPREAD_MS says otherwise', () => {
    expect(loadConfig({}).config.collab).toMatchObject({ storeDebounceMs: 5_000, storeMaxDebounceMs: 60_000, storeSpreadMs: 30_000 });
    expect(loadConfig({ COLLAB_COMPACT_MAX_MS: '10000' }).config.collab.storeSpreadMs).toBe(5_000);
    expect(loadConfig({ COLLAB_COMPACT_SPREAD_MS: '0' }).config.collab.storeSpreadMs).toBe(0);
    expect(() => loadConfig({ COLLAB_COMPACT_SPREAD_MS: '-1' })).toThrow(/COLLAB_COMPACT_SPREAD_MS/);
  });

  it('refuses a COLLAB_REDIS_URL that is not redis:// naming the setting (never the URL), and a COLLAB_REDIS_PREFIX with spaces', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ COLLAB_REDIS_URL: 'http://:secret@cache:6379' })).toEqual(['COLLAB_REDIS_URL: The Redis URL must start with redis:// or rediss://, not http://']);
    expect(problems({ COLLAB_REDIS_URL: 'cache:6379' })).toEqual(['COLLAB_REDIS_URL: The Redis URL must start with redis:// or rediss://, not cache://']);
    expect(problems({ COLLAB_REDIS_URL: 'redis://:secret@cache/zero' })).toEqual(['COLLAB_REDIS_URL: The Redis URL path must be a database number (redis://host:port/0)']);
    expect(problems({ COLLAB_REDIS_PREFIX: 'a b' })[0]).toMatch(/^COLLAB_REDIS_PREFIX: /);
    expect(loadConfig({ COLLAB_REDIS_URL: 'rediss://:pw@cache:6380/2', COLLAB_REDIS_PREFIX: 'canvas-staging' }).config.collab).toMatchObject({ redisUrl: 'rediss://:pw@cache:6380/2', redisPrefix: 'canvas-staging' });
  });

  it('limits each live socket: frames of every kind, its send buffer (never below CANVAS_MAX_BYTES), whole-document answers, presence, sockets without a cookie', () => {
    const MB = 1024 * 1024;
    expect(loadConfig({}).config.collab.socket).toEqual({
      framesPerSecond: 300,
      bufferedBytes: 32 * MB,
      syncBytesPerSecond: 4 * MB,
      presenceBytes: 64 * 1024,
      anonymousFrameBytes: 16 * 1024,
      anonymousSocketsPerAddress: 20,
    });
    expect(loadConfig({ CANVAS_MAX_BYTES: String(40 * MB) }).config.collab.socket.bufferedBytes).toBe(80 * MB);
    const env = {
      COLLAB_FRAMES_PER_SECOND: '10',
      COLLAB_MAX_BUFFERED_BYTES: String(20 * MB),
      COLLAB_SYNC_BYTES_PER_SECOND: '2048',
      COLLAB_MAX_PRESENCE_BYTES: '512',
      COLLAB_MAX_ANONYMOUS_FRAME_BYTES: '1024',
      COLLAB_ANONYMOUS_SOCKETS_PER_ADDRESS: '2',
    };
    expect(loadConfig(env).config.collab.socket).toEqual({
      framesPerSecond: 10,
      bufferedBytes: 20 * MB,
      syncBytesPerSecond: 2048,
      presenceBytes: 512,
      anonymousFrameBytes: 1024,
      anonymousSocketsPerAddress: 2,
    });
    expect(() => loadConfig({ COLLAB_MAX_BUFFERED_BYTES: String(MB) })).toThrow(/COLLAB_MAX_BUFFERED_BYTES must not be below CANVAS_MAX_BYTES/);
    for (const name of Object.keys(env)) expect(() => loadConfig({ [name]: '0' })).toThrow(new RegExp(name));
  });

  it('leaves a live log under 10 % of its document for later while people edit, unless COLLAB_COMPACT_LOG_RATIO says otherwise', () => {
    expect(loadConfig({}).config.collab.compactLogRatio).toBe(0.1);
    expect(loadConfig({ COLLAB_COMPACT_LOG_RATIO: '0' }).config.collab.compactLogRatio).toBe(0);
    expect(loadConfig({ COLLAB_COMPACT_LOG_RATIO: '0.25' }).config.collab.compactLogRatio).toBe(0.25);
    expect(() => loadConfig({ COLLAB_COMPACT_LOG_RATIO: '-0.1' })).toThrow(/COLLAB_COMPACT_LOG_RATIO/);
    expect(() => loadConfig({ COLLAB_COMPACT_LOG_RATIO: 'lots' })).toThrow(/COLLAB_COMPACT_LOG_RATIO/);
  });

  it('merges and renders stored live documents in one worker thread, unless COLLAB_WORKERS says otherwise (0: the service\'s thread)', () => {
    expect(loadConfig({}).config.collab.workers).toBe(1);
    expect(loadConfig({ COLLAB_WORKERS: '0' }).config.collab.workers).toBe(0);
    expect(loadConfig({ COLLAB_WORKERS: '3' }).config.collab.workers).toBe(3);
    for (const bad of ['-1', '1.5', 'two', '65']) expect(() => loadConfig({ COLLAB_WORKERS: bad }), bad).toThrow(/COLLAB_WORKERS/);
  });

  it('holds at most 1,500 live documents an instance by default; LIVE_MAX_OPEN_DOCUMENTS sets it, 0 for no limit', () => {
    expect(loadConfig({}).config.collab.maxOpenDocuments).toBe(1_500);
    expect(loadConfig({ LIVE_MAX_OPEN_DOCUMENTS: '500' }).config.collab.maxOpenDocuments).toBe(500);
    expect(loadConfig({ LIVE_MAX_OPEN_DOCUMENTS: '0' }).config.collab.maxOpenDocuments).toBe(0);
    for (const bad of ['-1', '1.5', 'many']) expect(() => loadConfig({ LIVE_MAX_OPEN_DOCUMENTS: bad }), bad).toThrow(/LIVE_MAX_OPEN_DOCUMENTS/);
  });

  it('takes canvas bodies with inline images up to CANVAS_MAX_BODY_BYTES (32 MB, never below CANVAS_MAX_BYTES) and rasterizes SVGs up to SVG_MAX_PIXELS', () => {
    const MB = 1024 * 1024;
    expect(loadConfig({}).config.limits).toMatchObject({ canvasBytes: 16 * MB, canvasBodyBytes: 32 * MB, svgPixels: 4096 * 4096 });
    expect(loadConfig({ CANVAS_MAX_BYTES: String(40 * MB) }).config.limits).toMatchObject({ canvasBytes: 40 * MB, canvasBodyBytes: 40 * MB });
    expect(loadConfig({ CANVAS_MAX_BODY_BYTES: String(20 * MB), SVG_MAX_PIXELS: '1000' }).config.limits).toMatchObject({ canvasBodyBytes: 20 * MB, svgPixels: 1000 });
    expect(() => loadConfig({ CANVAS_MAX_BYTES: String(2 * MB), CANVAS_MAX_BODY_BYTES: String(MB) })).toThrow(/CANVAS_MAX_BODY_BYTES must not be below CANVAS_MAX_BYTES/);
    expect(() => loadConfig({ SVG_MAX_PIXELS: '0' })).toThrow(/SVG_MAX_PIXELS/);
  });

  it('allows 50 members per project and 60 shared-link reads per address a minute by default; PROJECT_MAX_MEMBERS (at least 1) and RATE_LIMIT_SHARED_PER_MINUTE set them', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ projectMembers: 50, sharedLinksPerMinute: 60 });
    expect(loadConfig({ PROJECT_MAX_MEMBERS: '3', RATE_LIMIT_SHARED_PER_MINUTE: '0' }).config.limits).toMatchObject({ projectMembers: 3, sharedLinksPerMinute: 0 });
    expect(() => loadConfig({ PROJECT_MAX_MEMBERS: '0' })).toThrow(/PROJECT_MAX_MEMBERS/);
  });

  it('renews running jobs every 5 s and takes a runner for dead after 30 s by default; JOBS_HEARTBEAT_MS and JOBS_HEARTBEAT_LAPSE_MS set them, the lapse at least three beats', () => {
    expect(loadConfig({}).config.jobs).toMatchObject({ heartbeatMs: 5_000, heartbeatLapseMs: 30_000 });
    expect(loadConfig({ JOBS_HEARTBEAT_MS: '100', JOBS_HEARTBEAT_LAPSE_MS: '400' }).config.jobs).toMatchObject({ heartbeatMs: 100, heartbeatLapseMs: 400 });
    expect(() => loadConfig({ JOBS_HEARTBEAT_MS: '1000', JOBS_HEARTBEAT_LAPSE_MS: '2000' })).toThrow(/JOBS_HEARTBEAT_LAPSE_MS must be at least three times JOBS_HEARTBEAT_MS/);
    expect(() => loadConfig({ JOBS_HEARTBEAT_MS: '0' })).toThrow(/JOBS_HEARTBEAT_MS/);
  });

  it('lets one user hold 10 job event streams on an instance by default; EVENT_STREAMS_PER_USER sets it, at least 1', () => {
    expect(loadConfig({}).config.limits.eventStreamsPerUser).toBe(10);
    expect(loadConfig({ EVENT_STREAMS_PER_USER: '3' }).config.limits.eventStreamsPerUser).toBe(3);
    expect(() => loadConfig({ EVENT_STREAMS_PER_USER: '0' })).toThrow(/EVENT_STREAMS_PER_USER/);
  });

  it('allows 100 named versions per project and 10 version writes per user a minute by default; VERSIONS_MAX_NAMED (at least 1) and RATE_LIMIT_VERSIONS_PER_MINUTE set them', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ versionsNamed: 100, versionsPerMinute: 10 });
    expect(loadConfig({ VERSIONS_MAX_NAMED: '3', RATE_LIMIT_VERSIONS_PER_MINUTE: '0' }).config.limits).toMatchObject({ versionsNamed: 3, versionsPerMinute: 0 });
    expect(() => loadConfig({ VERSIONS_MAX_NAMED: '0' })).toThrow(/VERSIONS_MAX_NAMED/);
  });

  it('lists at most 200 templates and 60 template lists per address a minute by default; TEMPLATES_LIST_MAX (at least 1) and RATE_LIMIT_TEMPLATES_PER_MINUTE set them', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ templatesListMax: 200, templateListsPerMinute: 60 });
    expect(loadConfig({ TEMPLATES_LIST_MAX: '5', RATE_LIMIT_TEMPLATES_PER_MINUTE: '0' }).config.limits).toMatchObject({ templatesListMax: 5, templateListsPerMinute: 0 });
    expect(() => loadConfig({ TEMPLATES_LIST_MAX: '0' })).toThrow(/TEMPLATES_LIST_MAX/);
  });

  it('bounds the template list at 4 MB, 20 templates a user and 5 publishes a minute by default; TEMPLATES_LIST_MAX_BYTES (at least 1024), TEMPLATES_PER_USER_MAX (at least 1) and RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE set them', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ templatesListBytes: 4 * 1024 * 1024, templatesPerUser: 20, templatePublishesPerMinute: 5 });
    expect(loadConfig({ TEMPLATES_LIST_MAX_BYTES: '2048', TEMPLATES_PER_USER_MAX: '3', RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '0' }).config.limits).toMatchObject({
      templatesListBytes: 2048,
      templatesPerUser: 3,
      templatePublishesPerMinute: 0,
    });
    expect(() => loadConfig({ TEMPLATES_LIST_MAX_BYTES: '1000' })).toThrow(/TEMPLATES_LIST_MAX_BYTES/);
    expect(() => loadConfig({ TEMPLATES_PER_USER_MAX: '0' })).toThrow(/TEMPLATES_PER_USER_MAX/);
    expect(() => loadConfig({ RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE/);
  });

  it('keeps received payment webhook ids 7 days by default; PAYMENTS_WEBHOOK_RETENTION_DAYS sets it, at least 1', () => {
    expect(loadConfig({}).config.payments.webhookRetentionDays).toBe(7);
    expect(loadConfig({ PAYMENTS_WEBHOOK_RETENTION_DAYS: '30' }).config.payments.webhookRetentionDays).toBe(30);
    for (const value of ['0', '-1', '1.5', 'week']) {
      expect(() => loadConfig({ PAYMENTS_WEBHOOK_RETENTION_DAYS: value }), value).toThrow(/PAYMENTS_WEBHOOK_RETENTION_DAYS/);
    }
  });

  it('lets 10 checkout/portal requests per user a minute by default; RATE_LIMIT_CHECKOUTS_PER_MINUTE sets it (0 = off)', () => {
    expect(loadConfig({}).config.payments.startsPerMinute).toBe(10);
    expect(loadConfig({ RATE_LIMIT_CHECKOUTS_PER_MINUTE: '0' }).config.payments.startsPerMinute).toBe(0);
    for (const value of ['-1', '1.5', 'ten']) expect(() => loadConfig({ RATE_LIMIT_CHECKOUTS_PER_MINUTE: value }), value).toThrow(/RATE_LIMIT_CHECKOUTS_PER_MINUTE/);
  });

  it('lets 120 uploads per user a minute by default (a drop of 100 images); RATE_LIMIT_UPLOADS_PER_MINUTE (0 = off) and RATE_LIMIT_UPLOADS_WINDOW_SECONDS (at least 1) set them', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ uploadsPerMinute: 120, uploadsWindowSeconds: 60 });
    expect(loadConfig({ RATE_LIMIT_UPLOADS_PER_MINUTE: '0', RATE_LIMIT_UPLOADS_WINDOW_SECONDS: '3' }).config.limits).toMatchObject({ uploadsPerMinute: 0, uploadsWindowSeconds: 3 });
    for (const value of ['0', '-1', '1.5', 'ten']) expect(() => loadConfig({ RATE_LIMIT_UPLOADS_WINDOW_SECONDS: value }), value).toThrow(/RATE_LIMIT_UPLOADS_WINDOW_SECONDS/);
  });

  it('takes hosted model outputs up to 64 MB by default; MODEL_OUTPUT_MAX_BYTES sets it, at least 1024', () => {
    expect(loadConfig({}).config.model.outputMaxBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ MODEL_OUTPUT_MAX_BYTES: '1048576' }).config.model.outputMaxBytes).toBe(1_048_576);
    for (const value of ['0', '1023', 'big']) expect(() => loadConfig({ MODEL_OUTPUT_MAX_BYTES: value }), value).toThrow(/MODEL_OUTPUT_MAX_BYTES/);
  });

  it('upscales at most 512×512 input pixels by default; UPSCALE_MAX_INPUT_PIXELS sets it; OPENAI_PARTIAL_IMAGES is 2 by default, 0–3', () => {
    expect(loadConfig({}).config.model.upscaleMaxInputPixels).toBe(262_144);
    expect(loadConfig({ UPSCALE_MAX_INPUT_PIXELS: '1000000' }).config.model.upscaleMaxInputPixels).toBe(1_000_000);
    expect(() => loadConfig({ UPSCALE_MAX_INPUT_PIXELS: '0' })).toThrow(/UPSCALE_MAX_INPUT_PIXELS/);
    expect(loadConfig({}).config.model.openaiPartialImages).toBe(2);
    expect(loadConfig({ OPENAI_PARTIAL_IMAGES: '0' }).config.model.openaiPartialImages).toBe(0);
    expect(() => loadConfig({ OPENAI_PARTIAL_IMAGES: '4' })).toThrow(/OPENAI_PARTIAL_IMAGES/);
  });

  it('has no free budget by default; FREE_BUDGET_USD_PER_MONTH sets one in dollars, and replaces the daily quota (both set is an error)', () => {
    expect(loadConfig({}).config.payments.freeBudgetUsdPerMonth).toBe(0);
    expect(loadConfig({ FREE_BUDGET_USD_PER_MONTH: '2.5' }).config.payments.freeBudgetUsdPerMonth).toBe(2.5);
    for (const value of ['-1', 'five']) expect(() => loadConfig({ FREE_BUDGET_USD_PER_MONTH: value }), value).toThrow(/FREE_BUDGET_USD_PER_MONTH/);
    expect(() => loadConfig({ FREE_BUDGET_USD_PER_MONTH: '5', FREE_GENERATIONS_PER_DAY: '10' })).toThrow(
      /FREE_GENERATIONS_PER_DAY and FREE_BUDGET_USD_PER_MONTH cannot both be set: the monthly budget replaces the daily quota/,
    );
  });

  it("keeps today's pg-boss pool and timers by default; JOBS_* set them, DATABASE_DIRECT_URL must be a postgres:// URL", () => {
    expect(loadConfig({}).config.jobs.queue).toEqual({ poolSize: 6, pollingIntervalSeconds: 0.5, supervise: true, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, maintenanceIntervalSeconds: 86_400 });
    expect(loadConfig({ JOBS_CONCURRENCY: '1' }).config.jobs.queue.poolSize).toBe(4);
    expect(loadConfig({ JOBS_CONCURRENCY: '8' }).config.jobs.queue.poolSize).toBe(10);
    const tuned = { JOBS_DB_POOL_SIZE: '3', JOBS_POLLING_INTERVAL_SECONDS: '5', JOBS_SUPERVISE: 'false', JOBS_SUPERVISE_INTERVAL_SECONDS: '30', JOBS_MONITOR_INTERVAL_SECONDS: '30', JOBS_MAINTENANCE_INTERVAL_SECONDS: '3600' };
    expect(loadConfig(tuned).config.jobs.queue).toEqual({ poolSize: 3, pollingIntervalSeconds: 5, supervise: false, superviseIntervalSeconds: 30, monitorIntervalSeconds: 30, maintenanceIntervalSeconds: 3600 });
    expect(() => loadConfig({ JOBS_POLLING_INTERVAL_SECONDS: '0.1' })).toThrow(/JOBS_POLLING_INTERVAL_SECONDS must be at least 0.5/);
    expect(() => loadConfig({ JOBS_SUPERVISE: 'yes' })).toThrow(/JOBS_SUPERVISE must be true or false/);
    expect(() => loadConfig({ JOBS_SUPERVISE_INTERVAL_SECONDS: '0' })).toThrow(/JOBS_SUPERVISE_INTERVAL_SECONDS/);
    expect(loadConfig({}).config.database.directUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_DIRECT_URL: 'postgres://u:p@db:5432/canvas' }).config.database.directUrl).toBe('postgres://u:p@db:5432/canvas');
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'db:5432' })).toThrow(/DATABASE_DIRECT_URL must be a postgres:\/\/ URL/);
  });

  describe('connection settings refused at start, naming the setting, never echoing the value', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig({ ...production, ...env });
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
    };
    const secret = 'S3cr3t';
    it.each([
      [`postgres://u:p@${secret}#x@db.internal/canvas`, /^DATABASE_CONNECTION_STRING is not a valid URL .*percent-encode/],
      [`postgres://u:${secret}@db.internal:99999/canvas`, /^DATABASE_CONNECTION_STRING is not a valid URL/],
      [`postgres:///canvas?password=${secret}`, /^DATABASE_CONNECTION_STRING names no host/],
      [`mysql://u:${secret}@db/canvas`, /^DATABASE_CONNECTION_STRING: DATABASE_CONNECTION_STRING must be a postgres:\/\/ URL/],
    ])('DATABASE_CONNECTION_STRING %s', (value, message) => {
      const problems = problemsOf({ DATABASE_CONNECTION_STRING: value });
      expect(problems).toEqual([expect.stringMatching(message)]);
      expect(problems.join()).not.toContain(secret);
    });

    it.each([
      [`DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${secret};BlobEndpoint=http//blob.example`, /Azure connection string\): BlobEndpoint is not an http\(s\) URL$/],
      [`DefaultEndpointsProtocol=https;AccountName=a`, /Azure connection string\): AccountKey \(or SharedAccessSignature\) is required$/],
      [`DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${secret}!!`, /AccountKey is not base64/],
      [`DefaultEndpointsProtocol=ftp;AccountName=a;AccountKey=${secret}`, /DefaultEndpointsProtocol must be http or https/],
      [`DefaultEndpointsProtocol=https;AccountName=a;${secret}`, /a part has no "="/],
      [`DefaultEndpointsProtocol=https;AcountName=a;AccountKey=${secret}`, /unknown key "AcountName"/],
      [`s3://images?region=eu&endpoint=minio:9000&accessKeyId=k&secretAccessKey=${secret}`, /^OBJECT_STORAGE_CONNECTION_STRING \(s3:.*\): endpoint is not an http\(s\) URL$/],
      [`s3://images/sub?region=eu`, /a path after it is not allowed/],
      [`s3://images?region=eu&forcePathstyle=true`, /unknown parameter "forcePathstyle"/],
      [`s3://images?region=eu&secretAccessKey=${secret}`, /accessKeyId and secretAccessKey go together/],
      [`https://account.blob.core.windows.net/?sv=${secret}`, /^OBJECT_STORAGE_CONNECTION_STRING is neither an Azure Blob connection string/],
    ])('OBJECT_STORAGE_CONNECTION_STRING %s', (value, message) => {
      const problems = problemsOf({ OBJECT_STORAGE_CONNECTION_STRING: value, OBJECT_STORAGE_PUBLIC_URL: 'https://cdn.example.com/images' });
      expect(problems).toEqual([expect.stringMatching(message)]);
      expect(problems.join()).not.toContain(secret);
    });

    it('takes well-formed ones: Azure (key, SAS, Azurite), S3 with and without an endpoint, a socket folder for PostgreSQL', () => {
      for (const value of [
        'DefaultEndpointsProtocol=https;AccountName=acc;AccountKey=a2V5a2V5a2V5==;EndpointSuffix=core.windows.net',
        'BlobEndpoint=https://acc.blob.core.windows.net/;SharedAccessSignature=sv=2024&sig=abc',
        'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;',
        'UseDevelopmentStorage=true',
        's3://images?region=eu-west-1',
        's3://images?region=us-east-1&endpoint=http://127.0.0.1:9000&forcePathStyle=true&accessKeyId=k&secretAccessKey=s',
      ]) {
        expect(problemsOf({ OBJECT_STORAGE_CONNECTION_STRING: value, OBJECT_STORAGE_PUBLIC_URL: 'https://cdn.example.com/images' }), value).toEqual([]);
      }
      expect(problemsOf({ DATABASE_CONNECTION_STRING: 'postgresql://u:p%40ss@db.internal:5432/canvas?sslmode=require' })).toEqual([]);
      expect(problemsOf({ DATABASE_CONNECTION_STRING: 'postgres:///canvas?host=/var/run/postgresql' })).toEqual([]);
    });
  });
});

