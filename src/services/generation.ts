// Image generation (SPEC §4 POST /api/image, DESIGN.md §5): resolve inputs, call the model, store the
// result as `generated-<timestamp>-<random>.png`, record the generation. A failure records nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { and, count, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { Db } from '../db/index.js';
import { generations, type GenerationRow } from '../db/schema.js';
import { AppError, badRequest, internal, tooManyRequests, unauthorized } from '../errors.js';
import type { GenerationResult, Metrics } from '../http/metrics.js';
import { ModelFailedError, ModelQuotaError, type ImageModel } from '../models/index.js';
import type { ObjectStore } from '../storage/index.js';
import { resolveInputs, type InputDeps } from './image-inputs.js';
import { safeFileName, uniquePrefix } from './object-names.js';

export interface GenerateResponse {
  imageBase64: string;
  imageUrl: string;
  text?: string;
}

export interface GenerationService {
  generate(user: { id: string; email: string }, input: { images: string[]; prompt: string }): Promise<GenerateResponse>;
  history(userId: string, opts: { cursor?: string; limit: number }): Promise<{ items: GenerationRow[]; nextCursor: string | null }>;
}

export interface GenerationDeps extends InputDeps {
  db: Db;
  store: InputDeps['store'] & Pick<ObjectStore, 'put' | 'delete'>;
  /** null when the configured provider model has no key: SPEC's 500 naming the key. */
  model: ImageModel | null;
  outputMaxBytes: number;
  log: { warn(o: object, m: string): void };
  /**
   * How long a running generation's row in `running_generations` counts at most (the model timeout and a
   * margin): the row of an instance that died mid-generation stops counting by itself.
   */
  runningTtlMs: number;
  /**
   * Plan enforcement (issue 6): a user who is not Pro may make `perDay` generations in any 24 hours, then gets
   * 402 `Upgrade required`. Absent: no quota (SPEC behaviour). Concurrent requests of one user may pass
   * the count together: the quota is a plan boundary, not a hard budget.
   */
  quota?: { perDay: number; isPro(userId: string): Promise<boolean> };
  /** Outcomes, durations and model errors (GET /api/metrics); absent when metrics are off. */
  metrics?: Pick<Metrics, 'generation' | 'modelError'>;
}

export const missingKey = () =>
  internal('IMAGE_MODEL_API_KEY is not set. Please add IMAGE_MODEL_API_KEY to your local environment file (.env).');

const PNG = 'image/png';
const DAY_MS = 24 * 60 * 60 * 1000;

export const upgradeRequired = () => new AppError(402, 'payment_required', 'Upgrade required');

async function asPng(data: Buffer): Promise<Buffer> {
  const type = await fileTypeFromBuffer(data);
  if (type?.mime === PNG) return data;
  try {
    return await sharp(data).png().toBuffer();
  } catch {
    throw new ModelFailedError('the model returned an image that could not be read');
  }
}

const encodeCursor = (row: { createdAt: Date; id: string }) => Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at);
  // Only what encodeCursor makes: anything else (a NUL, a year PostgreSQL cannot hold) would fail in the query.
  if (!id || !/^[\w-]{1,100}$/.test(id) || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(at) || Number.isNaN(createdAt.getTime())) throw badRequest('Invalid cursor');
  return { createdAt, id };
}

export function createGenerationService(deps: GenerationDeps): GenerationService {
  const { db, store, log } = deps;
  const modelFailures = new WeakSet<Error>(); // what callModel threw, so the outcome metric can tell model from storage failures
  const modelFailure = (err: AppError) => (modelFailures.add(err), err);

  async function callModel(model: ImageModel, images: { data: Buffer; mimeType: string }[], prompt: string) {
    try {
      const result = await model.generate({ images, prompt, signal: new AbortController().signal });
      if (result.model && result.model !== model.id) deps.metrics?.modelError(model.id); // the fallback answered
      return result;
    } catch (err) {
      deps.metrics?.modelError(model.id);
      if (err instanceof ModelQuotaError) throw modelFailure(tooManyRequests('Image model is busy', err.retryAfterSeconds ?? 30, err.message));
      const reason = err instanceof ModelFailedError ? err.message : 'the image model failed';
      if (!(err instanceof ModelFailedError)) log.warn({ err }, 'image model failed unexpectedly');
      throw modelFailure(internal('Failed to generate image', reason));
    }
  }

  function outcome(err: unknown): GenerationResult {
    if (!(err instanceof AppError)) return 'error';
    if (modelFailures.has(err)) return err.status === 429 ? 'quota' : 'model_error';
    if (err.status === 400) return 'invalid_input';
    if (err.status === 402) return 'upgrade_required';
    return err.message === 'No image was generated' ? 'no_image' : 'error';
  }

  /** Throws 402 when a user who is not Pro has used the day's free generations (checked before any model call). */
  async function checkQuota(userId: string): Promise<void> {
    const quota = deps.quota;
    if (!quota || quota.perDay <= 0) return;
    const [{ n }] = await db
      .select({ n: count() })
      .from(generations)
      .where(and(eq(generations.userId, userId), gt(generations.createdAt, new Date(Date.now() - DAY_MS))));
    if (n >= quota.perDay && !(await quota.isPro(userId))) throw upgradeRequired();
  }

  /**
   * Records the generation as running, for every instance's canvas reads (DESIGN.md §6), and returns its row
   * id. Also the user check: a session that outlived its user must not spend a model call nor store anything.
   * A database outage throws as is (the route answers 503).
   */
  async function markRunning(userId: string): Promise<string> {
    const id = randomUUID();
    const { rows } = await db.execute(sql`
      INSERT INTO running_generations (id, user_id, expires_at)
      SELECT ${id}::uuid, u.id, now() + make_interval(secs => ${deps.runningTtlMs / 1000}::float8) FROM users u WHERE u.id = ${userId}::uuid
      RETURNING id`);
    if (rows.length === 0) throw unauthorized();
    return id;
  }

  /** The generation has ended; expired rows (of instances that died) go too. A failure only leaves the row to expire. */
  async function markEnded(id: string): Promise<void> {
    try {
      await db.execute(sql`DELETE FROM running_generations WHERE id = ${id}::uuid OR expires_at <= now()`);
    } catch (err) {
      log.warn({ err }, 'could not clear a running generation (it expires by itself)');
    }
  }

  async function generateOnce(user: { id: string; email: string }, input: { images: string[]; prompt: string }): Promise<GenerateResponse> {
    if (!deps.model) throw missingKey();
    const running = await markRunning(user.id);
    try {
      return await generateRunning(deps.model, user, input);
    } finally {
      await markEnded(running);
    }
  }

  async function generateRunning(model: ImageModel, user: { id: string; email: string }, { images, prompt }: { images: string[]; prompt: string }): Promise<GenerateResponse> {
    await checkQuota(user.id);
    const inputs = await resolveInputs(images, deps);
    const result = await callModel(model, inputs, prompt);
    if (!result.image) throw internal('No image was generated', undefined, { text: result.text ?? '' });

    const written: string[] = [];
    try {
      const png = await asPng(result.image.data);
      const stamp = Date.now();
      const output = await store.put(`generated-${stamp}-${randomBytes(6).toString('hex')}.png`, png, { contentType: PNG, maxBytes: deps.outputMaxBytes });
      written.push(output.name);
      // The record keeps URLs only: a data-URL input is stored as an object first.
      const inputUrls = await Promise.all(
        inputs.map(async (input) => {
          if (input.url) return input.url;
          const stored = await store.put(`${uniquePrefix()}-${safeFileName('input', input.mimeType)}`, input.data, { contentType: input.mimeType, maxBytes: deps.maxBytes });
          written.push(stored.name);
          return stored.url;
        }),
      );
      await db.insert(generations).values({
        id: `gen-${stamp}-${randomBytes(6).toString('hex')}`,
        userId: user.id,
        userEmail: user.email,
        prompt,
        inputImages: inputUrls,
        outputImageUrl: output.url,
        model: result.model ?? model.id,
        createdAt: new Date(stamp), // millisecond precision, as cursors carry it
      });
      return { imageBase64: `data:${PNG};base64,${png.toString('base64')}`, imageUrl: output.url, ...(result.text ? { text: result.text } : {}) };
    } catch (err) {
      // Nothing half-done stays behind: objects written for this generation go too.
      await Promise.all(written.map((name) => store.delete(name).catch(() => {})));
      if (err instanceof AppError) throw err;
      log.warn({ err }, 'storing a generation failed');
      throw internal('Failed to generate image', err instanceof ModelFailedError ? err.message : 'the generated image could not be stored');
    }
  }

  return {
    async generate(user, input) {
      const started = performance.now();
      try {
        const response = await generateOnce(user, input);
        deps.metrics?.generation('ok', (performance.now() - started) / 1000);
        return response;
      } catch (err) {
        deps.metrics?.generation(outcome(err), (performance.now() - started) / 1000);
        throw err;
      }
    },

    async history(userId, { cursor, limit }) {
      const after = cursor ? decodeCursor(cursor) : undefined;
      const rows = await db
        .select()
        .from(generations)
        .where(
          after
            ? and(eq(generations.userId, userId), or(lt(generations.createdAt, after.createdAt), and(eq(generations.createdAt, after.createdAt), lt(generations.id, after.id))))
            : eq(generations.userId, userId),
        )
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(limit + 1);
      const items = rows.slice(0, limit);
      return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
    },
  };
}
