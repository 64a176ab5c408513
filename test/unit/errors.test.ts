import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as errors from '../../src/errors.js';
import { AppError, ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import { registerErrorHandler, statusOf } from '../../src/http/error-handler.js';
import { says } from '../../src/http/messages.js';
import { generationResult, uploadResult } from '../../src/metrics.js';

const URL_ = 'https://images.example.test/cat.png';

/** Every factory of src/errors.ts, called, with the code, status and exact documented body it must answer. */
const ANSWERS: [AppError, ErrorCode, number, Record<string, unknown>][] = [
  [errors.invalidRequest('No images provided'), 'invalid_request', 400, { error: 'No images provided' }],
  [errors.unknownModel('flux-9'), 'invalid_request', 400, { error: 'Unknown model: "flux-9" is not one this service runs (GET /api/models lists them)' }],
  [errors.tooManyImagesFor('Gemini 2.5 Flash Image', 3), 'invalid_request', 400, { error: 'Too many images: Gemini 2.5 Flash Image accepts at most 3' }],
  [errors.invalidJson(), 'invalid_json', 400, { error: 'Invalid JSON' }],
  [errors.invalidUrlEncoding(), 'invalid_url_encoding', 400, { error: 'Invalid URL encoding' }],
  [errors.invalidPath(), 'invalid_path', 400, { error: 'Invalid path' }],
  [errors.badRequest(), 'bad_request', 400, { error: 'Bad request' }],
  [errors.invalidCursor(), 'invalid_cursor', 400, { error: 'Invalid cursor' }],
  [errors.invalidImage(URL_, 'HTTP 404'), 'invalid_image', 400, { error: `Invalid image: ${URL_}`, details: 'HTTP 404' }],
  [errors.unusableImage('the image is truncated', { index: 1, url: URL_ }), 'unusable_image', 400, { error: 'Invalid image: the image is truncated', details: `images[1]: ${URL_}` }],
  [errors.modelRefusedImage('the offline image engine cannot read this image', 1), 'unusable_image', 400, { error: 'Invalid image: the offline image engine cannot read this image', details: 'images[1] (input image 2)' }],
  [errors.promptNotUnderstood('did not understand “x”', 'It understands: grayscale.'), 'prompt_not_understood', 400, { error: 'Prompt not understood: did not understand “x”', details: 'It understands: grayscale.' }],
  [errors.imagesOverPixelBudget(167_772_160, 100_000_000, 10), 'unusable_image', 400, { error: 'Invalid image: the 10 images are 167772160 pixels together, more than the 100000000-pixel limit of one generation', details: 'images: all inputs together' }],
  [errors.inputImageTooLarge(URL_), 'input_image_too_large', 400, { error: 'Input image too large', details: URL_ }],
  [errors.noFileProvided(), 'no_file_provided', 400, { error: 'No file provided' }],
  [errors.unsupportedFileType('the file is empty'), 'unsupported_file_type', 400, { error: 'Unsupported file type', details: 'the file is empty' }],
  [errors.invalidImageFile('the SVG could not be read: unclosed tag'), 'invalid_image_file', 400, { error: 'Invalid image', details: 'the SVG could not be read: unclosed tag' }],
  [errors.imageTooLarge('the SVG is 9×9 pixels; at most 80 pixels are rasterized'), 'image_too_large', 400, { error: 'Image too large', details: 'the SVG is 9×9 pixels; at most 80 pixels are rasterized' }],
  [errors.invalidNodeImage('n1', 'the data URL is empty'), 'invalid_node_image', 400, { error: 'Invalid image in node n1', details: 'the data URL is empty' }],
  [errors.uploadInterrupted(), 'upload_interrupted', 400, { error: 'Upload was interrupted', details: 'the multipart body ended early or was malformed' }],
  [errors.noSubscription(), 'no_subscription', 400, { error: 'No subscription found' }],
  [errors.videoAssetIdRequired(), 'video_asset_id_required', 400, { error: 'assetId or uploadId is required' }],
  [errors.unauthorized(), 'unauthorized', 401, { error: 'Unauthorized' }],
  [errors.upgradeRequired(), 'upgrade_required', 402, { error: 'Upgrade required' }],
  [errors.budgetExceeded(5, 4.8, 0.4), 'budget_exceeded', 402, { error: 'This run would cost about $0.40; with $4.80 spent today it would pass your daily budget of $5.00', budgetUsd: 5, spentTodayUsd: 4.8, estimateUsd: 0.4 }],
  [errors.budgetUsedUp(5, 4.99, 0.039), 'upgrade_required', 402, { error: 'Upgrade required', details: 'this generation costs about $0.039 and $0.010 of your $5.00 free budget is left this month' }],
  [errors.forbidden(), 'forbidden', 403, { error: 'Forbidden' }],
  [errors.invalidSignature(), 'invalid_signature', 403, { error: 'Invalid signature' }],
  [errors.notFound(), 'not_found', 404, { error: 'Not found' }],
  [errors.projectNotFound(), 'project_not_found', 404, { error: 'Project not found' }],
  [errors.assetNotFound(), 'asset_not_found', 404, { error: 'Asset not found' }],
  [errors.templateNotFound(), 'template_not_found', 404, { error: 'Template not found' }],
  [errors.memberNotFound(), 'member_not_found', 404, { error: 'Member not found' }],
  [errors.versionNotFound(), 'version_not_found', 404, { error: 'Version not found' }],
  [errors.insufficientScope('write'), 'insufficient_scope', 403, { error: 'Token lacks the write scope' }],
  [errors.sessionRequired(), 'session_required', 403, { error: 'This route needs a signed-in session, not an API token' }],
  [errors.tokenNotFound(), 'token_not_found', 404, { error: 'Token not found' }],
  [errors.jobNotFound(), 'job_not_found', 404, { error: 'Job not found' }],
  [errors.generationNotFound(), 'generation_not_found', 404, { error: 'Generation not found' }],
  [errors.jobFinished('succeeded'), 'job_finished', 409, { error: 'Job already finished', details: 'the job is succeeded; only a queued or running job can be canceled' }],
  [errors.nodeBusy('job_1', 'running'), 'node_busy', 409, { error: 'Node is already running', details: 'job job_1 is running for this node; cancel it or wait for it to end', jobId: 'job_1' }],
  [errors.nodeSettingsUnusable('the crop box (9×9 at 0,0) does not lie inside the 4×4 input image', 'c1'), 'node_settings_unusable', 400, { error: 'Unusable settings: the crop box (9×9 at 0,0) does not lie inside the 4×4 input image', details: 'node "c1"' }],
  [errors.nodeNotFound('n1'), 'node_not_found', 404, { error: 'Node not found', details: 'the canvas has no node "n1"' }],
  [errors.runNodeNotFound('The canvas has no node "n9"', ['n9']), 'node_not_found', 404, { error: 'The canvas has no node "n9"', nodeIds: ['n9'] }],
  [errors.invalidRun('The graph has a cycle', ['a', 'b']), 'invalid_run', 400, { error: 'The graph has a cycle', nodeIds: ['a', 'b'] }],
  [errors.tooManyJobs('The run would make 240 jobs; at most 200 (RUN_MAX_JOBS)', ['g']), 'too_many_jobs', 400, { error: 'The run would make 240 jobs; at most 200 (RUN_MAX_JOBS)', nodeIds: ['g'] }],
  [errors.runNotFound(), 'run_not_found', 404, { error: 'Run not found' }],
  [errors.runFinished('succeeded'), 'run_finished', 409, { error: 'Run already finished', details: 'the run succeeded; only a running run can be canceled' }],
  [errors.jobInterrupted('the instance running the job stopped'), 'job_interrupted', 500, { error: 'Failed to generate image', details: 'the instance running the job stopped' }],
  [errors.storageUnavailable('the object store did not answer'), 'storage_unavailable', 503, { error: 'Storage unavailable', details: 'the object store did not answer' }],
  [errors.requestTimeout(), 'request_timeout', 408, { error: 'Request timeout' }],
  [errors.canvasConflict(7), 'canvas_conflict', 409, { error: 'Canvas was changed elsewhere', version: 7 }],
  [errors.bodyTooLarge(), 'body_too_large', 413, { error: 'Request body too large' }],
  [errors.canvasTooLarge(), 'canvas_too_large', 413, { error: 'Canvas too large' }],
  [errors.psdTooLarge('it would be 9 bytes'), 'psd_too_large', 413, { error: 'PSD too large', details: 'it would be 9 bytes' }],
  [errors.fileTooLarge(), 'file_too_large', 413, { error: 'File too large' }],
  [errors.unsupportedContentType(), 'unsupported_content_type', 415, { error: 'Unsupported content type' }],
  [errors.tooManyRequests(12.2), 'too_many_requests', 429, { error: 'Too many requests' }],
  [
    errors.tooManyGenerations(2, 5),
    'too_many_generations',
    429,
    { error: 'Too many generations in flight', details: 'at most 2 of your generations run at once; wait for one to finish' },
  ],
  [errors.imageModelBusy(17, 'quota exceeded'), 'image_model_busy', 429, { error: 'Image model is busy', details: 'quota exceeded' }],
  [errors.headerTooLarge(), 'header_too_large', 431, { error: 'Request header fields too large' }],
  [errors.internal(), 'internal', 500, { error: 'Internal server error' }],
  [
    errors.modelKeyMissing(),
    'model_key_missing',
    500,
    { error: 'IMAGE_MODEL_API_KEY is not set. Please add IMAGE_MODEL_API_KEY to your local environment file (.env).' },
  ],
  [errors.noImageGenerated('only words'), 'no_image_generated', 500, { error: 'No image was generated', text: 'only words' }],
  [errors.imageModelFailed('the model timed out'), 'image_model_failed', 500, { error: 'Failed to generate image', details: 'the model timed out' }],
  [errors.generationFailed('the generated image could not be stored'), 'generation_failed', 500, { error: 'Failed to generate image', details: 'the generated image could not be stored' }],
  [errors.uploadFailed(), 'upload_failed', 500, { error: 'Failed to upload file' }],
  [errors.paymentProviderUnavailable(), 'payment_provider_unavailable', 502, { error: 'Payment provider unavailable' }],
  [errors.videoProviderUnavailable(), 'video_provider_unavailable', 502, { error: 'Video provider unavailable' }],
  [errors.serviceUnavailable(), 'service_unavailable', 503, { error: 'Service unavailable' }],
  [errors.paymentsNotConfigured(), 'payments_not_configured', 503, { error: 'Payments are not configured' }],
  [errors.videoNotConfigured(), 'video_not_configured', 503, { error: 'Video is not configured' }],
];

/** Codes only the error handler gives, to a library's client error of that status. */
const LIBRARY_ONLY: Partial<Record<ErrorCode, number>> = { not_acceptable: 406, precondition_failed: 412, range_not_satisfiable: 416 };

describe('error codes', () => {
  it('every code has one HTTP status, 400–599', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) {
      const status = statusOf(code);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
  });

  it('every factory gives its code and documented message, and every code is given by a factory or the handler', () => {
    for (const [err, code, status] of ANSWERS) {
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe(code);
      expect(statusOf(err.code), code).toBe(status);
    }
    for (const [code, status] of Object.entries(LIBRARY_ONLY)) expect(statusOf(code as ErrorCode)).toBe(status);
    const covered = new Set<string>([...ANSWERS.map(([, code]) => code), ...Object.keys(LIBRARY_ONLY)]);
    expect(ERROR_CODES.filter((code) => !covered.has(code))).toEqual([]);
    const factories = Object.entries(errors).filter(([name, value]) => typeof value === 'function' && !['AppError', 'isAppError'].includes(name));
    expect(factories).toHaveLength(ANSWERS.length);
  });

  it('docs/errors.md lists every code with its status and no other', () => {
    const rows = [...readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)];
    const documented = new Map(rows.map((m) => [m[1], Number(m[2])]));
    expect([...documented.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, status] of documented) expect(statusOf(code as ErrorCode), code).toBe(status);
  });

  it('metrics label failures by code', () => {
    const generation = (err: unknown) => generationResult(err);
    expect(generation(errors.imageModelBusy(5, 'x'))).toBe('quota');
    expect(generation(errors.imageModelFailed('x'))).toBe('model_error');
    expect(generation(errors.invalidImage(URL_))).toBe('invalid_input');
    expect(generation(errors.unusableImage('the image is corrupt', { index: 0, url: URL_ }))).toBe('invalid_input');
    expect(generation(errors.inputImageTooLarge(URL_))).toBe('invalid_input');
    expect(generation(errors.promptNotUnderstood('x', 'y'))).toBe('invalid_input');
    expect(generation(errors.upgradeRequired())).toBe('upgrade_required');
    expect(generation(errors.tooManyGenerations(2, 5))).toBe('too_many_generations');
    expect(generation(errors.noImageGenerated(''))).toBe('no_image');
    for (const err of [errors.generationFailed('x'), errors.modelKeyMissing(), errors.unauthorized(), new Error('db down')]) expect(generation(err)).toBe('error');

    expect(uploadResult(errors.fileTooLarge())).toBe('too_large');
    expect(uploadResult(errors.unsupportedFileType())).toBe('unsupported_type');
    expect(uploadResult(errors.invalidImageFile('x'))).toBe('invalid_image');
    expect(uploadResult(errors.imageTooLarge('x'))).toBe('invalid_image');
    expect(uploadResult(errors.uploadInterrupted())).toBe('interrupted');
    for (const err of [errors.uploadFailed(), errors.unauthorized(), new Error('disk full')]) expect(uploadResult(err)).toBe('error');
  });
});

describe('the error handler', () => {
  let app: FastifyInstance;
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    app = Fastify({ logger: { level: 'warn', stream } });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(app);
    let thrown = 0;
    app.get('/throw/:n', async (req) => {
      throw ANSWERS[Number((req.params as { n: string }).n)][0];
    });
    app.get('/crash', async () => {
      throw new Error(`secret internals ${++thrown}`);
    });
    app.get('/outage', async () => {
      throw Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' });
    });
    app.get('/library', async () => {
      throw Object.assign(new Error('Range Not Satisfiable'), { statusCode: 416 });
    });
    app.withTypeProvider<ZodTypeProvider>().post('/validated', {
      bodyLimit: 100,
      config: { tooLarge: errors.canvasTooLarge },
      schema: { body: z.object({ prompt: z.string(says('No prompt provided')), count: z.number().int().optional() }) },
    }, async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers every error with its status and documented body, never its code', async () => {
    for (const [n, [err, , status, body]] of ANSWERS.entries()) {
      const res = await app.inject({ method: 'GET', url: `/throw/${n}` });
      expect(res.statusCode, err.code).toBe(status);
      expect(res.json(), err.code).toEqual(body); // exactly: no code, nothing more
    }
  });

  it('logs each 5xx answer of ours with its code', () => {
    expect(logged.filter((l) => l.msg === 'request failed').map((l) => [l.level, l.code])).toEqual(
      ANSWERS.filter(([, , status]) => status >= 500).map(([err]) => [40, err.code]),
    );
  });

  it('gives Retry-After in whole seconds', async () => {
    const busy = ANSWERS.findIndex(([err]) => err.code === 'image_model_busy');
    expect((await app.inject({ url: `/throw/${busy}` })).headers['retry-after']).toBe('17');
    const limited = ANSWERS.findIndex(([err]) => err.code === 'too_many_requests');
    expect((await app.inject({ url: `/throw/${limited}` })).headers['retry-after']).toBe('13');
    const inFlight = ANSWERS.findIndex(([err]) => err.code === 'too_many_generations');
    expect((await app.inject({ url: `/throw/${inFlight}` })).headers['retry-after']).toBe('5');
  });

  it('classifies errors that are not ours, and logs them with their code', async () => {
    const crash = await app.inject({ url: '/crash' });
    expect(crash.statusCode).toBe(500);
    expect(crash.json()).toEqual({ error: 'Internal server error' });
    expect(logged.find((l) => l.msg === 'request failed' && l.level === 50)).toMatchObject({ code: 'internal', err: { message: 'secret internals 1' } });

    const outage = await app.inject({ url: '/outage' });
    expect(outage.statusCode).toBe(503);
    expect(outage.headers['retry-after']).toBe('5');
    expect(outage.json()).toEqual({ error: 'Service unavailable' });
    expect(logged.find((l) => l.msg === 'backing service unavailable')).toMatchObject({ level: 40, code: 'service_unavailable' });

    const library = await app.inject({ url: '/library' });
    expect(library.statusCode).toBe(416);
    expect(library.json()).toEqual({ error: 'Bad request' });

    const missing = await app.inject({ url: '/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Not found' });
  });

  it('answers validation and body errors', async () => {
    const post = (payload: string, contentType = 'application/json') => app.inject({ method: 'POST', url: '/validated', payload, headers: { 'content-type': contentType } });
    expect((await post('{}')).json()).toEqual({ error: 'No prompt provided' });
    const invalid = await post('{"prompt":"a","count":1.5}');
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toMatch(/^Invalid count: /);
    expect(await post('{"prompt":')).toMatchObject({ statusCode: 400, body: JSON.stringify({ error: 'Invalid JSON' }) });
    expect(await post(JSON.stringify({ prompt: 'x'.repeat(200) }))).toMatchObject({ statusCode: 413, body: JSON.stringify({ error: 'Canvas too large' }) });
    expect(await post('prompt', 'application/x-unknown')).toMatchObject({ statusCode: 415, body: JSON.stringify({ error: 'Unsupported content type' }) });
  });
});
