// The generation service on in-memory repositories, a small in-process image model and the local object
// store in a temp folder: what a success records and stores, and what each failure leaves (nothing).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { ModelFailedError, ModelInputError, withFallback, type GenerateRequest, type GenerateResult, type ImageModel } from '../../../src/models/index.js';
import { createGenerationService, type GenerationDeps } from '../../../src/services/generation.js';
import { createObjectStore, type ObjectStore } from '../../../src/storage/index.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';

const png = (color: string) => sharp({ create: { width: 4, height: 4, channels: 3, background: color } }).png().toBuffer();

/** Answers a small PNG, or fails as told; keeps what it was asked. */
function smallModel(fail?: Error): ImageModel & { calls: GenerateRequest[] } {
  const calls: GenerateRequest[] = [];
  return {
    id: 'unit-model',
    calls,
    async generate(req) {
      calls.push(req);
      if (fail) throw fail;
      return { image: { data: await png('#f00'), mimeType: 'image/png' }, text: 'done' };
    },
  };
}

let dir: string;
let store: ObjectStore;
let repos: FakeRepositories;
const silent = { warn: () => undefined };
const noNetwork = { fetch: async () => Promise.reject(new Error('no network in unit tests')) };

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'generation-unit-'));
  store = await createObjectStore({ dataDir: dir, container: 'images', appBaseUrl: 'http://app.test' });
  await store.init();
  repos = createFakeRepositories();
});
afterEach(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function service(model: ImageModel, extra: Partial<GenerationDeps> = {}) {
  return createGenerationService({
    users: repos.users,
    generations: repos.generations,
    transactions: repos.transactions,
    store,
    fetcher: noNetwork,
    // The one model of these tests is the default; any other name is one the deployment does not run.
    models: { get: async (id?: string) => (id === undefined || id === model.id ? model : undefined), find: () => undefined, defaultId: model.id as never },
    maxBytes: 1024 * 1024,
    maxPixels: 40_000_000,
    maxTotalPixels: 100_000_000,
    outputMaxBytes: 1024 * 1024,
    log: silent,
    ...extra,
  });
}

/** A running job of the user (as the runner starts it): its id. */
async function runningJob(userId: string): Promise<string> {
  const id = `job_${crypto.randomUUID()}`;
  await repos.generationJobs.insert({ id, taskKind: 'generation', userId, prompt: 'p', images: [], model: 'unit-model', createdAt: new Date(), queuePriority: 1 });
  await repos.generationJobs.markRunning(id);
  return id;
}

const stored = async () => (await fs.readdir(path.join(dir, 'objects'))).filter((f) => !f.startsWith('.') && f !== 'meta' && !f.startsWith('.tmp-'));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe('generation service', () => {
  it('a success stores the image (and a data-URL input) and records the generation', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const model = smallModel();
    const input = `data:image/png;base64,${(await png('#00f')).toString('base64')}`;
    const answer = await service(model).generate(ada, { images: [input], prompt: 'make it red' });

    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]).toMatchObject({ prompt: 'make it red', images: [{ mimeType: 'image/png' }] });
    expect(answer.imageBase64).toMatch(/^data:image\/png;base64,/);
    expect(answer.text).toBe('done');
    const [record] = repos.state.generations;
    expect(repos.state.generations).toHaveLength(1);
    expect(record).toMatchObject({ userId: ada.id, userEmail: ada.email, prompt: 'make it red', outputImageUrl: answer.imageUrl, model: 'unit-model' });
    expect(record.inputImages).toHaveLength(1);
    const names = await stored();
    expect(names).toHaveLength(2);
    expect(names).toContain(store.nameFromUrl(answer.imageUrl));
    expect(names).toContain(store.nameFromUrl(record.inputImages[0]));

    const history = await service(model).history(ada.id, { limit: 10 });
    expect(history).toEqual({ items: [record], nextCursor: null });
  });

  it("passes the generation's seed on to the model (through the timeout and fallback wrappers); none when it has none", async () => {
    const ada = repos.addUser({ email: 'seed@example.com' });
    const primary = smallModel(new ModelFailedError('down'));
    const fallback = smallModel();
    const input = `data:image/png;base64,${(await png('#00f')).toString('base64')}`;
    await service(withFallback(primary, fallback)).generate(ada, { images: [input], prompt: 'p', seed: 1234 });
    expect(primary.calls[0].seed).toBe(1234);
    expect(fallback.calls[0].seed).toBe(1234);
    const plain = smallModel();
    await service(plain).generate(ada, { images: [input], prompt: 'p' });
    expect(plain.calls[0]).not.toHaveProperty('seed');
  });

  it('a model failure records nothing and stores nothing', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const input = `data:image/png;base64,${(await png('#00f')).toString('base64')}`;
    const code = await failure(service(smallModel(new ModelFailedError('the model refused'))).generate(ada, { images: [input], prompt: 'p' }));
    expect(code).toBe('image_model_failed');
    expect(repos.state.generations).toEqual([]);
    expect(await stored()).toEqual([]);
  });

  it('a user past the free quota gets upgrade_required (402) before any model call; a Pro user does not', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const pro = repos.addUser({ email: 'pro@example.com', isPro: true });
    const model = smallModel();
    const quota = { quota: { perDay: 2 } };
    await service(model, quota).generate(ada, { images: [], prompt: 'one' });
    await service(model, quota).generate(ada, { images: [], prompt: 'two' });
    expect(await failure(service(model, quota).generate(ada, { images: [], prompt: 'three' }))).toBe('upgrade_required');
    expect(model.calls).toHaveLength(2);
    expect(repos.state.generations).toHaveLength(2);

    for (const prompt of ['a', 'b', 'c']) await service(model, quota).generate(pro, { images: [], prompt });
    expect(repos.state.generations.filter((g) => g.userId === pro.id)).toHaveLength(3);
  });

  it('a running job that holds its reservation counts against the quota; one that has not reserved yet does not', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const holding = await runningJob(ada.id);
    const model = smallModel();
    const quota = { quota: { perDay: 2 } };
    // Ada's next generation runs as a job of its own: while the model works, its row holds the reservation.
    const mine = await runningJob(ada.id);
    model.generate = async (req) => {
      model.calls.push(req);
      expect(repos.state.jobs.get(mine)?.reservedUsd).toBe(0);
      return { image: { data: await png('#f00'), mimeType: 'image/png' } };
    };
    await repos.generations.reserve(holding, 0);
    await service(model, quota).generate(ada, { images: [], prompt: 'p', lineage: { jobId: mine } });
    expect(model.calls).toHaveLength(1);
    expect(await failure(service(model, quota).generate(ada, { images: [], prompt: 'p', lineage: { jobId: await runningJob(ada.id) } }))).toBe('upgrade_required');
    expect(model.calls).toHaveLength(1);
  });

  it('a job canceled before its reservation calls no model (the reservation needs it running)', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const job = await runningJob(ada.id);
    await repos.generationJobs.finish(job, 1, { status: 'failed' });
    const model = smallModel();
    expect(await failure(service(model, { quota: { perDay: 5 } }).generate(ada, { images: [], prompt: 'p', lineage: { jobId: job } }))).toBe('generation_failed');
    expect(model.calls).toHaveLength(0);
  });

  it('with a quota, a session whose user no longer exists gets unauthorized (401) and spends no model call (without one, the job was refused)', async () => {
    const ghost = { id: '00000000-0000-4000-8000-0000000000aa', email: 'ghost@example.com' };
    const model = smallModel();
    expect(await failure(service(model, { quota: { perDay: 5 } }).generate(ghost, { images: [], prompt: 'p' }))).toBe('unauthorized');
    expect(model.calls).toHaveLength(0);
    expect(await stored()).toEqual([]);
  });
});

/** A model that behaves as a provider driver does: `onAnswered` once the provider answered, then `outcome`. */
function driver(id: string, outcome: { answered: boolean; result?: GenerateResult; error?: Error }): ImageModel & { calls: number } {
  const model = {
    id,
    calls: 0,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      model.calls++;
      if (outcome.answered) req.onAnswered?.();
      if (outcome.error) throw outcome.error;
      return outcome.result ?? { text: 'no image' };
    },
  };
  return model;
}

describe('the free quota counts model calls, not recorded generations', () => {
  const quota = { quota: { perDay: 1 } };
  const ask = (model: ImageModel, user: { id: string; email: string }, extra: Partial<GenerationDeps> = quota) =>
    failure(service(model, extra).generate(user, { images: [], prompt: 'p' }));

  it("an answer without an image keeps the slot (a spent call in place of its job's reservation, no record)", async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const model = driver('m', { answered: true, result: { text: 'only words' } });
    const job = await runningJob(ada.id);
    expect(await failure(service(model, quota).generate(ada, { images: [], prompt: 'p', lineage: { jobId: job } }))).toBe('no_image_generated');
    expect(repos.state.jobs.get(job)?.reservedUsd).toBeNull();
    expect(await ask(model, ada)).toBe('upgrade_required');
    expect(model.calls).toBe(1);
    expect(repos.state.spentCalls).toMatchObject([{ userId: ada.id }]);
    expect(repos.state.generations).toEqual([]);
  });

  it('an answer that cannot be read keeps the slot; a failure before any answer gives it back', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    expect(await ask(driver('m', { answered: false, error: new ModelFailedError('HTTP 503') }), ada)).toBe('image_model_failed');
    expect(await ask(driver('m', { answered: false, error: new Error('socket hang up') }), ada)).toBe('image_model_failed');
    expect(repos.state.spentCalls).toEqual([]);
    expect(await ask(driver('m', { answered: true, error: new ModelFailedError('malformed answer') }), ada)).toBe('image_model_failed');
    expect(await ask(driver('m', { answered: true, result: { image: { data: Buffer.from('not an image'), mimeType: 'image/png' } } }), ada)).toBe('upgrade_required');
    expect(repos.state.spentCalls).toHaveLength(1);
  });

  it('an image the model answered with that cannot be read keeps the slot too', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    expect(await ask(driver('m', { answered: true, result: { image: { data: Buffer.from('not an image'), mimeType: 'image/png' } } }), ada)).toBe('generation_failed');
    expect(await ask(smallModel(), ada)).toBe('upgrade_required');
  });

  it('a fallback chain uses one slot per request: primary failed before answering, the fallback answered', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const primary = driver('primary', { answered: false, error: new ModelFailedError('HTTP 500') });
    const chain = withFallback(primary, smallModel());
    expect(await ask(chain, ada, { quota: { perDay: 2 } })).toBe('resolved');
    expect(repos.state.generations).toMatchObject([{ model: 'unit-model' }]);
    expect(repos.state.spentCalls).toEqual([]);
    expect(await ask(chain, ada, { quota: { perDay: 2 } })).toBe('resolved');
    expect(await ask(chain, ada, { quota: { perDay: 2 } })).toBe('upgrade_required');
  });

  it('a fallback chain whose primary answered keeps the slot even when the fallback then fails before answering', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const chain = withFallback(
      driver('primary', { answered: true, error: new ModelFailedError('malformed answer') }),
      driver('fallback', { answered: false, error: new ModelFailedError('HTTP 503') }),
    );
    expect(await ask(chain, ada)).toBe('image_model_failed');
    expect(repos.state.spentCalls).toHaveLength(1);
    expect(await ask(chain, ada)).toBe('upgrade_required');
  });

  it('without a quota nothing is kept for failed calls', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    expect(await ask(driver('m', { answered: true, result: { text: 'words' } }), ada, {})).toBe('no_image_generated');
    expect(repos.state.spentCalls).toEqual([]);
  });

  it('an input the model cannot read is 400 unusable_image naming it, and gives the slot back', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const input = `data:image/png;base64,${(await png('#00f')).toString('base64')}`;
    const model = driver('m', { answered: false, error: new ModelInputError(1, 'the offline image engine cannot read this image') });
    const err = await service(model, quota).generate(ada, { images: [input, input], prompt: 'p' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unusable_image', message: 'Invalid image: the offline image engine cannot read this image', details: 'images[1] (input image 2)' });
    expect(repos.state.spentCalls).toEqual([]);
    expect(await ask(smallModel(), ada)).toBe('resolved');
  });
});

describe('history cursors', () => {
  it('answers only cursors it made: 400 invalid_cursor for anything else', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const history = (cursor: string) => failure(service(smallModel()).history(ada.id, { cursor, limit: 10 }));
    const encoded = (text: string) => Buffer.from(text).toString('base64url');
    expect(await history(encoded('2020-01-01T00:00:00.000Z|gen-1-aa'))).toBe('resolved');
    for (const text of [
      '0000-01-01T00:00:00.000Z|gen-1-aa',
      '1969-12-31T23:59:59.999Z|gen-1-aa',
      '+010000-01-01T00:00:00.000Z|gen-1-aa',
      '-000001-01-01T00:00:00.000Z|gen-1-aa',
      '2020-02-30T00:00:00.000Z|gen-1-aa',
      '2020-01-01T24:00:00.000Z|gen-1-aa',
      '2020-01-01|gen-1-aa',
      'NaN|gen-1-aa',
      '1700000000000|gen-1-aa',
      '2020-01-01T00:00:00.000Z|gen 1',
      '2020-01-01T00:00:00.000Z|gen-1-aa|more',
      '2020-01-01T00:00:00.000Z',
    ]) {
      expect(await history(encoded(text)), text).toBe('invalid_cursor');
    }
    expect(await history(Buffer.from('2020-01-01T00:00:00.000Z|gen-1-aaa').toString('base64')), 'padded base64').toBe('invalid_cursor');
    expect(await history('!!!!')).toBe('invalid_cursor');
  });
});
