// The generation service on in-memory repositories, a small in-process image model and the local object
// store in a temp folder: what a success records and stores, and what each failure leaves (nothing).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { ModelFailedError, type GenerateRequest, type ImageModel } from '../../../src/models/index.js';
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
    runningGenerations: repos.runningGenerations,
    transactions: repos.transactions,
    store,
    fetcher: noNetwork,
    model,
    maxBytes: 1024 * 1024,
    outputMaxBytes: 1024 * 1024,
    log: silent,
    leaseMs: 60_000,
    ...extra,
  });
}

const stored = async () => (await fs.readdir(path.join(dir, 'objects'))).filter((f) => !f.startsWith('.') && f !== 'meta' && !f.startsWith('.tmp-'));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe('generation service', () => {
  it('a success stores the image (and a data-URL input), records the generation, and leaves no running row', async () => {
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
    expect(repos.state.running.size).toBe(0);

    const history = await service(model).history(ada.id, { limit: 10 });
    expect(history).toEqual({ items: [record], nextCursor: null });
  });

  it('a model failure records nothing and stores nothing', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    const input = `data:image/png;base64,${(await png('#00f')).toString('base64')}`;
    const code = await failure(service(smallModel(new ModelFailedError('the model refused'))).generate(ada, { images: [input], prompt: 'p' }));
    expect(code).toBe('image_model_failed');
    expect(repos.state.generations).toEqual([]);
    expect(await stored()).toEqual([]);
    expect(repos.state.running.size).toBe(0);
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

  it('a running generation counts against the quota', async () => {
    const ada = repos.addUser({ email: 'ada@example.com' });
    await repos.runningGenerations.start('00000000-0000-4000-8000-000000000001', ada.id, 60_000);
    const model = smallModel();
    expect(await failure(service(model, { quota: { perDay: 1 } }).generate(ada, { images: [], prompt: 'p' }))).toBe('upgrade_required');
    expect(model.calls).toHaveLength(0);
  });

  it('a session whose user no longer exists gets unauthorized (401), with or without a quota, and spends no model call', async () => {
    const ghost = { id: '00000000-0000-4000-8000-0000000000aa', email: 'ghost@example.com' };
    const model = smallModel();
    expect(await failure(service(model).generate(ghost, { images: [], prompt: 'p' }))).toBe('unauthorized');
    expect(await failure(service(model, { quota: { perDay: 5 } }).generate(ghost, { images: [], prompt: 'p' }))).toBe('unauthorized');
    expect(model.calls).toHaveLength(0);
    expect(await stored()).toEqual([]);
  });
});
