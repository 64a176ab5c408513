// Image generation (POST /api/image, docs/api.md "Image generation"): resolve inputs, call the model, store the
// result as `generated-<timestamp>-<random>.png`, record the generation. A failure records nothing. A generation
// into a canvas node is refused to anyone who may not `generate` on the project (src/auth/project-access.ts: 404 with
// no role, 403 for a viewer, as the canvas routes answer); its state in the live document
// is the job runner's to write (src/jobs/node-state.ts), not this service's.
import { createHash, randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { ProjectAccess } from '../auth/project-access.js';
import type { Transactions, Tx } from '../db/index.js';
import type { GenerationFilters, GenerationNode, GenerationsRepository, UsersRepository } from '../db/repositories/index.js';
import type { GenerationRow } from '../db/schema.js';
import { AppError, invalidRequest, promptNotUnderstood, generationFailed, imageModelBusy, imageModelFailed, invalidCursor, modelKeyMissing, modelRefusedImage, storageUnavailable, noImageGenerated, tooManyImagesFor, unauthorized, unknownModel, upgradeRequired, budgetUsedUp } from '../errors.js';
import { toPng } from '../imaging/convert.js';
import { generationResult, type Metrics } from '../metrics.js';
import { ModelFailedError, ModelInputError, ModelPromptError, ModelQuotaError, type GenerateResult, type ImageModel, type ModelImage, type ModelProgress } from '../models/index.js';
import type { ModelRegistry } from '../models/registry.js';
import { ObjectTooLargeError, type ObjectStore } from '../storage/index.js';
import { resolveInputs, type InputDeps, type ResolvedInput } from './image-inputs.js';
import { safeFileName, uniquePrefix } from '../imaging/object-names.js';
import { isUuid } from '../ids.js';
import { withProvenance, type Provenance } from '../imaging/provenance.js';

export interface GenerateResponse {
  imageBase64: string;
  imageUrl: string;
  text?: string;
  /** The recorded generation's id (generation jobs keep it; POST /api/image's schema does not answer it). */
  generationId?: string;
}

/** A generation's request: with `projectId` and `nodeId`, into that canvas node. */
export interface GenerateInput {
  images: string[];
  prompt: string;
  projectId?: string;
  nodeId?: string;
  /**
   * Aborts the model call (a canceled generation job). Once aborted, nothing is stored nor recorded, even if the
   * model answered anyway: the generation fails with `generation_failed` ("the generation was canceled").
   */
  signal?: AbortSignal;
  /**
   * The generation's job (docs/api.md "Lineage"): its id, and how long it waited in the queue. The running job's row
   * holds the generation's place in the free quota while it runs (outside a job nothing holds it).
   */
  lineage?: { jobId?: string; queuedMs?: number };
  /** Write the prompt into the output PNG's XMP too (default: only the generation id and the model). */
  promptInMetadata?: boolean;
  /** The model to run (GET /api/models lists them); the default when absent. */
  model?: string;
  /** What the model says of its progress while it works (a generation job shows it). */
  onProgress?: (progress: ModelProgress) => void;
  /** The seed to send to the model (only the models that take one use it); absent: a run's job sends `run.seed`. */
  seed?: number;
  /** A run's job (src/runs/): its cache key and seed, recorded with the generation (a later job of the same key in the project takes it). */
  run?: { cacheKey: string | null; seed: number | null };
  /**
   * A generation job's own write, in the transaction that records the generation (first in it): false when the job
   * was canceled meanwhile, and then nothing is recorded (the transaction rolls back, the stored objects go) and the
   * generation fails as canceled. So a job ends either succeeded with its generation recorded, or canceled with none.
   */
  commit?: (tx: Tx, made: { generationId: string; imageUrl: string; model: string; text?: string }) => Promise<boolean>;
  /**
   * An edit (src/jobs/tasks/edit.ts): its mask's URL, read and checked as the images are and recorded among the
   * generation's inputs after them (its lineage); and `prepare`, which turns the inputs read into the model's images
   * and its mask (GenerateRequest.mask: fitted to the image, not empty; an outpaint's extended image) before any model
   * call — it throws an AppError to refuse (nothing is stored, no model is called).
   */
  edit?: EditInput;
}

export interface EditInput {
  mask?: string;
  prepare(inputs: { images: ResolvedInput[]; mask?: ResolvedInput }): Promise<{ images: ModelImage[]; mask: ModelImage }>;
}

export interface GenerationService {
  generate(user: { id: string; email: string }, input: GenerateInput): Promise<GenerateResponse>;
  /** The user's generations, newest first, paged by cursor; filtered by prompt words (`q`), project and model. */
  history(userId: string, opts: { cursor?: string; limit: number } & GenerationFilters): Promise<{ items: GenerationRow[]; nextCursor: string | null }>;
  /** What the user's generations of this calendar month (UTC) cost, in US dollars, as far as it is known. */
  spend(userId: string): Promise<MonthSpend>;
}

export interface MonthSpend {
  /** `YYYY-MM` (UTC). */
  month: string;
  usd: number;
  generations: number;
  /** Generations whose cost is known (their provider stated it, or their model has a list price). */
  priced: number;
  /** With the monthly free budget, for a user without Pro: the budget, what counts against it (running generations too), and what is left. */
  freeBudget?: { usd: number; usedUsd: number; leftUsd: number };
}

export interface GenerationDeps extends InputDeps {
  users: Pick<UsersRepository, 'lockForUpdate' | 'findById'>;
  generations: Pick<GenerationsRepository, 'insert' | 'listByUser' | 'countLastDayWithRunning' | 'monthBudgetUsed' | 'reserve' | 'release' | 'recordSpentCall' | 'canvasVersion' | 'parentsOf' | 'monthSpend'>;
  transactions: Transactions;
  store: InputDeps['store'] & Pick<ObjectStore, 'put' | 'delete'>;
  /**
   * The models this deployment runs: a generation names one (`model`) or runs the default. The default is null when
   * its provider has no key: every generation that runs it is then a 500 naming the key.
   */
  models: Pick<ModelRegistry, 'get' | 'find' | 'defaultId'>;
  outputMaxBytes: number;
  log: { warn(o: object, m: string): void };
  /**
   * Plan enforcement: a user who is not Pro may make `perDay` model calls in any 24 hours, then gets
   * 402 `Upgrade required` (docs/api.md "The free quota"). Running generations count as used: the check and the
   * reservation on the generation's job row commit together under a lock on the user's row, so simultaneous
   * requests cannot pass it together, and the reservation counts while the job runs with a live heartbeat (the
   * runner's rule: a dead instance's stops counting when its heartbeat lapses). A request that a model answered
   * keeps its slot whatever came of it (a recorded generation, or a spent call); one that failed before any model
   * answered gives it back (its job ends). Absent: no quota.
   */
  quota?: FreeQuota;
  /** Outcomes, durations and model errors (GET /api/metrics); absent when metrics are off. */
  metrics?: Pick<Metrics, 'generation' | 'modelError'>;
  /** Converts a model's image to PNG (the image workers); undefined when it cannot be read. Default: in this process. */
  toPng?: (data: Buffer, owner?: string) => Promise<Buffer | undefined>;
  /** Generations into a canvas node: who may (`generate` on the project). Absent: such fields are ignored. */
  access?: Pick<ProjectAccess, 'require'>;
}

const PNG = 'image/png';

/** A generation whose `signal` was aborted (a canceled job): nothing is stored nor recorded. */
const canceled = () => generationFailed('the generation was canceled');

/**
 * What a user without Pro may use (docs/api.md "The free quota"): `perDay` model calls in any 24 hours, or a
 * monthly budget in USD (`usdPerMonth`, FREE_BUDGET_USD_PER_MONTH): a generation whose model has a list price is
 * refused once this UTC month's costs, what the user's running generations hold and that price would pass it. A
 * model without a price (the offline engine, ComfyUI) is not counted.
 */
export type FreeQuota = { perDay: number; usdPerMonth?: undefined } | { usdPerMonth: number; perDay?: undefined };

/** What a running generation holds of the free quota: on its job's row, and what of the monthly budget (USD; absent without a budget or a price). */
interface Running {
  jobId?: string;
  reservedUsd?: number;
}

/** What the record says of how a generation was made (docs/api.md "Lineage"), gathered while it runs. */
interface Made extends Running {
  /** `performance.now()` when the request reached the service. */
  started: number;
  node?: GenerationNode;
  canvasVersion: number | null;
  jobId?: string;
  queuedMs?: number;
  modelMs: number;
  promptInMetadata: boolean;
  /** A run's job's cache key and seed (null otherwise). */
  cacheKey?: string | null;
  seed?: number | null;
}

/** Sums of prices in USD, to the millionth (the precision they are stored with). */
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function asPng(data: Buffer, owner: string, toPng: (data: Buffer, owner?: string) => Promise<Buffer | undefined>): Promise<Buffer> {
  const type = await fileTypeFromBuffer(data);
  if (type?.mime === PNG) return data;
  const png = await toPng(data, owner);
  if (!png) throw new ModelFailedError('the model returned an image that could not be read');
  return png;
}

/** A write to the object store that failed: over its limit is the generation's failure; anything else, an outage (503). */
function storeFailed(err: unknown): never {
  if (err instanceof ObjectTooLargeError) throw err;
  throw storageUnavailable('the generated image could not be stored');
}

const encodeCursor = (row: { createdAt: Date; id: string }) => Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');

/** A page of a newest-first list read with one row more than `limit`: its rows, and the next page's cursor (null at the end). */
export function pageOf<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
}
/**
 * Only what encodeCursor makes: decoded and encoded again it is the same string (no other base64 spelling, no
 * date that JavaScript reads leniently, such as 30 February or hour 24), with an id of ours and a time the
 * service can have recorded (1970–9999). Anything else is 400: a NUL, or a year PostgreSQL cannot hold (0000)
 * would fail in the query.
 */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at);
  const year = createdAt.getUTCFullYear();
  const ours = rest.length === 0 && id !== undefined && /^[\w-]{1,100}$/.test(id) && year >= 1970 && year <= 9999;
  if (!ours || encodeCursor({ createdAt, id }) !== cursor) throw invalidCursor();
  return { createdAt, id };
}

export function createGenerationService(deps: GenerationDeps): GenerationService {
  const { store, log, users, generations, transactions } = deps;

  /**
   * Calls the model chain with the inputs (an input the model refuses is named by its place).
   * `answered()` runs once a model has answered the call, whatever the answer (the quota keeps that call's slot).
   */
  async function callModel(model: ImageModel, inputs: ModelImage[], prompt: string, owner: string, answered: () => void, signal?: AbortSignal, onProgress?: (p: ModelProgress) => void, seed?: number, mask?: ModelImage): Promise<GenerateResult> {
    try {
      const result = await model.generate({ images: inputs, prompt, signal: signal ?? new AbortController().signal, onAnswered: answered, owner, ...(onProgress ? { onProgress } : {}), ...(seed !== undefined ? { seed } : {}), ...(mask ? { mask } : {}) });
      answered(); // a result is an answer, from whichever model of the chain (the offline engine included)
      if (result.model && result.model !== model.id) deps.metrics?.modelError(model.id); // the fallback answered
      return result;
    } catch (err) {
      if (signal?.aborted) throw canceled(); // the model gave up because the job was canceled: not its failure
      if (err instanceof ModelInputError) throw modelRefusedImage(err.message, err.index);
      if (err instanceof ModelPromptError) throw promptNotUnderstood(err.problem, err.understands);
      deps.metrics?.modelError(model.id);
      if (err instanceof ModelQuotaError) throw imageModelBusy(err.retryAfterSeconds ?? 30, err.message);
      const reason = err instanceof ModelFailedError ? err.message : 'the image model failed';
      if (!(err instanceof ModelFailedError)) log.warn({ err }, 'image model failed unexpectedly');
      throw imageModelFailed(reason);
    }
  }

  /** The model's image as a PNG carrying its provenance; a PNG whose chunks cannot be read is encoded again. */
  async function withProvenanceAsPng(data: Buffer, owner: string, provenance: Provenance): Promise<Buffer> {
    const convert = deps.toPng ?? toPng;
    const png = await asPng(data, owner, convert);
    try {
      return withProvenance(png, provenance);
    } catch {
      const again = await convert(png, owner);
      if (!again) throw new ModelFailedError('the model returned an image that could not be read');
      return withProvenance(again, provenance);
    }
  }

  /**
   * With a quota: the user check (a session that outlived its user must not spend a model call nor store anything)
   * and the quota, before any model call, and the reservation on the generation's running job (the in-flight limit
   * and the job's liveness are the runner's, src/jobs/runner.ts). A database outage throws as is (503).
   */
  async function reserve(userId: string, { jobId, reservedUsd }: Running): Promise<void> {
    const perDay = deps.quota?.perDay ?? 0;
    const budget = deps.quota?.usdPerMonth ?? 0;
    if (perDay <= 0 && budget <= 0) return;
    await transactions.transaction(async (tx) => {
      // The user's row lock orders this user's checks; each count is a statement of its own, so it sees the
      // reservations that the transactions we waited for wrote.
      const user = await users.lockForUpdate(userId, tx);
      if (!user) throw unauthorized();
      // The quota first: a user who has used it up is told so, not asked to wait and retry.
      if (perDay > 0 && !user.isPro && (await generations.countLastDayWithRunning(userId, tx)) >= perDay) throw upgradeRequired();
      if (budget > 0 && !user.isPro && reservedUsd !== undefined) {
        const used = await generations.monthBudgetUsed(userId, tx);
        if (used + reservedUsd > budget + 1e-9) throw budgetUsedUp(budget, used, reservedUsd);
      }
      if (jobId !== undefined && !(await generations.reserve(jobId, reservedUsd ?? 0, tx))) throw canceled();
    });
  }

  /**
   * A model answered but no generation is recorded (no image, an answer that cannot be read, storing it failed):
   * with a quota, the call keeps its slot for 24 hours as a spent call, which replaces the job's reservation in one
   * transaction (counted exactly once). If that fails, the slot is given back (logged).
   */
  async function keepSlot({ jobId, reservedUsd }: Running, userId: string): Promise<void> {
    if (!deps.quota || (deps.quota.usdPerMonth !== undefined && reservedUsd === undefined)) return;
    try {
      await transactions.transaction(async (tx) => {
        await generations.recordSpentCall(userId, tx, reservedUsd);
        if (jobId !== undefined) await generations.release(jobId, tx);
      });
    } catch (err) {
      log.warn({ err }, 'could not record a model call that produced no generation (its quota slot is given back)');
    }
  }

  /** What a call cost: as its provider stated it, else the model's list price per image (GET /api/models), else unknown. */
  function costOf(result: GenerateResult & { model: string }) {
    if (result.cost) return { ...result.cost, basis: 'provider' as const };
    const price = deps.models.find(result.model)?.costPerImageUsd;
    return price === undefined ? null : { amount: price, currency: 'USD', basis: 'list price' as const };
  }

  /** With the monthly free budget: what a generation of `model` (or the default) holds of it, its list price; undefined when not counted. */
  function budgetReservation(model: string | undefined): number | undefined {
    if (deps.quota?.usdPerMonth === undefined) return undefined;
    const price = deps.models.find(model ?? deps.models.defaultId)?.costPerImageUsd;
    return price !== undefined && price > 0 ? price : undefined;
  }

  /** The model a generation asked for (or the default), refused before anything is reserved when it cannot run it. */
  async function modelFor(input: GenerateInput): Promise<ImageModel> {
    const model = await deps.models.get(input.model);
    if (model === undefined) throw unknownModel(input.model ?? '');
    if (model === null) throw modelKeyMissing();
    // A model named by the generation takes at most its own number of images; one that names none keeps SPEC's
    // behaviour (the default model gets what the service's own limits allow).
    const entry = input.model !== undefined ? deps.models.find(input.model) : undefined;
    if (entry && input.images.length > entry.maxInputs) throw tooManyImagesFor(entry.label, entry.maxInputs);
    // An edit's mask reaches only a model that takes one (a run and a node's job refuse others first, naming the node).
    if (input.edit && deps.models.find(input.model ?? deps.models.defaultId)?.takesMask !== true) throw invalidRequest(`model ${JSON.stringify(input.model ?? deps.models.defaultId)} cannot take a mask (GET /api/models: the models that do inpaint)`);
    return model;
  }

  async function generateOnce(user: { id: string; email: string }, input: GenerateInput, started: number): Promise<GenerateResponse> {
    const { access } = deps;
    const node = access && input.projectId !== undefined && input.nodeId !== undefined ? { projectId: input.projectId, nodeId: input.nodeId } : undefined;
    if (node) await access!.require({ userId: user.id }, node.projectId, 'generate'); // before anything is reserved: a refusal uses nothing
    const model = await modelFor(input);
    const canvasVersion = node ? await generations.canvasVersion(node.projectId) : null; // the canvas as the generation found it
    const running: Running = { jobId: input.lineage?.jobId, reservedUsd: budgetReservation(input.model) };
    await reserve(user.id, running); // held until the job ends (its runner records how)
    return generateRunning(model, user, input, { ...running, started, node, canvasVersion });
  }

  async function generateRunning(
    model: ImageModel,
    user: { id: string; email: string },
    { images, prompt, signal, lineage, promptInMetadata, commit, onProgress, seed, run: runKey, edit }: GenerateInput,
    run: Omit<Made, 'modelMs' | 'queuedMs' | 'promptInMetadata'>,
  ): Promise<GenerateResponse> {
    // An edit's mask is read and checked as an input (and recorded as one, after the images).
    const inputs = await resolveInputs(edit?.mask !== undefined ? [...images, edit.mask] : images, deps, user.id); // a refused input gives the slot back: no model was called
    let answered = false;
    try {
      if (signal?.aborted) throw canceled();
      const request = edit ? await edit.prepare({ images: inputs.slice(0, images.length), ...(edit.mask !== undefined ? { mask: inputs[images.length] } : {}) }) : { images: inputs, mask: undefined };
      if (signal?.aborted) throw canceled();
      const modelStarted = performance.now();
      const result = await callModel(model, request.images, prompt, user.id, () => (answered = true), signal, onProgress, seed ?? runKey?.seed ?? undefined, request.mask);
      const modelMs = Math.round(performance.now() - modelStarted);
      if (signal?.aborted) throw canceled(); // the model answered anyway: its result is discarded
      if (!result.image) throw noImageGenerated(result.text ?? '');
      const made: Made = { ...run, modelMs, queuedMs: lineage?.queuedMs, promptInMetadata: promptInMetadata === true, cacheKey: runKey?.cacheKey ?? null, seed: runKey?.seed ?? null };
      return await keepResult(user, prompt, inputs, { ...result, image: result.image, model: result.model ?? model.id }, made, { signal, commit });
    } catch (err) {
      if (answered) await keepSlot(run, user.id);
      throw err;
    }
  }

  /**
   * Stores the model's image (with its provenance XMP; and data-URL inputs) and records the generation with its
   * lineage; the job's commit ends it in the same transaction (its reservation then counts no more).
   */
  async function keepResult(
    user: { id: string; email: string },
    prompt: string,
    inputs: ResolvedInput[],
    result: GenerateResult & { image: ModelImage; model: string },
    made: Made,
    { signal, commit }: Pick<GenerateInput, 'signal' | 'commit'>,
  ): Promise<GenerateResponse> {
    const written: string[] = [];
    try {
      const stamp = Date.now();
      // The id is chosen first: the PNG carries it.
      const generationId = `gen-${stamp}-${randomBytes(6).toString('hex')}`;
      const provenance = { generationId, model: result.model, ...(made.promptInMetadata ? { prompt } : {}) };
      const png = await withProvenanceAsPng(result.image.data, user.id, provenance);
      const output = await store.put(`generated-${stamp}-${randomBytes(6).toString('hex')}.png`, png, { contentType: PNG, maxBytes: deps.outputMaxBytes }).catch(storeFailed);
      written.push(output.name);
      // The record keeps URLs only: a data-URL input is stored as an object first.
      const inputUrls = await Promise.all(
        inputs.map(async (input) => {
          if (input.url) return input.url;
          const stored = await store.put(`${uniquePrefix()}-${safeFileName('input', input.mimeType)}`, input.data, { contentType: input.mimeType, maxBytes: deps.maxBytes }).catch(storeFailed);
          written.push(stored.name);
          return stored.url;
        }),
      );
      // The record and the job's end commit in one transaction: the quota never counts this generation twice nor
      // misses it.
      if (signal?.aborted) throw canceled(); // canceled while storing: the objects written go (below)
      const queuedMs = made.queuedMs === undefined ? null : Math.max(0, Math.round(made.queuedMs));
      await transactions.transaction(async (tx) => {
        if (commit && !(await commit(tx, { generationId, imageUrl: output.url, model: result.model, ...(result.text ? { text: result.text } : {}) }))) throw canceled();
        const parentIds = await generations.parentsOf(inputUrls, { userId: user.id, projectId: made.node?.projectId }, tx);
        await generations.insert({
          id: generationId,
          userId: user.id,
          userEmail: user.email,
          prompt,
          inputImages: inputUrls,
          outputImageUrl: output.url,
          model: result.model,
          createdAt: new Date(stamp), // millisecond precision, as cursors carry it
          jobId: made.jobId ?? null,
          projectId: made.node?.projectId ?? null,
          nodeId: made.node?.nodeId ?? null,
          canvasVersion: made.canvasVersion,
          modelVersion: result.modelVersion ?? result.model,
          inputs: inputs.map((input, i) => ({ url: inputUrls[i], sha256: sha256(input.data), bytes: input.data.length })),
          outputSha256: sha256(png),
          outputBytes: png.length,
          queuedMs,
          modelMs: made.modelMs,
          totalMs: Math.round(performance.now() - made.started) + (queuedMs ?? 0),
          cost: costOf(result),
          parentIds,
          promptInMetadata: made.promptInMetadata,
          modelText: result.text ?? null,
          cacheKey: made.cacheKey ?? null,
          seed: made.seed ?? null,
        }, tx);
      });
      return { imageBase64: `data:${PNG};base64,${png.toString('base64')}`, imageUrl: output.url, ...(result.text ? { text: result.text } : {}), generationId };
    } catch (err) {
      // Nothing half-done stays behind: objects written for this generation go too.
      await Promise.all(written.map((name) => store.delete(name).catch(() => {})));
      if (err instanceof AppError) throw err;
      log.warn({ err }, 'storing a generation failed');
      throw generationFailed(err instanceof ModelFailedError ? err.message : 'the generated image could not be stored');
    }
  }

  return {
    async generate(user, input) {
      const started = performance.now();
      try {
        const response = await generateOnce(user, input, started);
        deps.metrics?.generation('ok', (performance.now() - started) / 1000);
        return response;
      } catch (err) {
        deps.metrics?.generation(generationResult(err), (performance.now() - started) / 1000);
        throw err;
      }
    },

    async spend(userId) {
      const { usd, generations: made, priced, month } = await generations.monthSpend(userId);
      const budget = deps.quota?.usdPerMonth;
      if (budget === undefined || (await users.findById(userId))?.isPro !== false) return { month, usd, generations: made, priced };
      const usedUsd = round6(await generations.monthBudgetUsed(userId));
      return { month, usd, generations: made, priced, freeBudget: { usd: budget, usedUsd, leftUsd: round6(Math.max(0, budget - usedUsd)) } };
    },

    async history(userId, { cursor, limit, q, projectId, model }) {
      const after = cursor ? decodeCursor(cursor) : undefined;
      if (projectId !== undefined && !isUuid(projectId)) return { items: [], nextCursor: null }; // no project has such an id
      const search = q?.trim() ? q : undefined; // an empty search is no search
      const rows = await generations.listByUser(userId, { after, limit: limit + 1, q: search, projectId, model });
      return pageOf(rows, limit);
    },
  };
}
