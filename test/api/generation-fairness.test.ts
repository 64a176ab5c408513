// Fairness across users (docs/api.md "Generation jobs", "Models"): users take turns for the job runner and for
// this instance's model-call slots, and the last free model-call slot goes only to a user with no call running
// (who has rested). Two users keep several generations going within every per-user limit; a third user's one starts before
// their remaining ones. The model is an in-process ImageModel whose calls each wait until the test answers that
// call: the test answers one at a time and asserts the order in which calls reach the model, never a duration.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GenerateRequest, GenerateResult, ImageModel } from '../../src/models/index.js';
import { WAITING_FOR_SLOT } from '../../src/models/wrappers.js';
import { TINY_PNG } from '../fakes/gemini-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A model whose every call waits until the test answers it; `prompts` lists the calls in the order they came. */
function turnModel() {
  const prompts: string[] = [];
  const answers = new Map<string, () => void>();
  const arrivals: Array<{ n: number; resolve: () => void }> = [];
  const model: ImageModel = {
    id: 'turns',
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      await new Promise<void>((resolve, reject) => {
        answers.set(req.prompt, resolve);
        req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        prompts.push(req.prompt);
        for (const a of arrivals.filter((x) => prompts.length >= x.n)) a.resolve();
      });
      return { image: { data: TINY_PNG, mimeType: 'image/png' } };
    },
  };
  return {
    model,
    prompts,
    /** Resolves once `n` calls in all have reached the model. */
    reached: (n: number) => (prompts.length >= n ? Promise.resolve() : new Promise<void>((resolve) => arrivals.push({ n, resolve }))),
    /** Answers the call of that prompt. */
    answer: (prompt: string) => answers.get(prompt)!(),
    answerAll: () => [...answers.values()].forEach((a) => a()),
  };
}

const image = `data:image/png;base64,${TINY_PNG.toString('base64')}`;
let t: TestApp | undefined;
let turns: ReturnType<typeof turnModel> | undefined;

afterEach(async () => {
  turns?.answerAll();
  await t?.close();
  t = undefined;
});

/** Answers the running calls one at a time, oldest first, until `n` calls in all have reached the model. */
async function answerInTurn(model: ReturnType<typeof turnModel>, n: number) {
  let answered = 0;
  while (model.prompts.length < n) {
    const next = model.prompts.length + 1;
    model.answer(model.prompts[answered++]);
    await model.reached(next);
  }
}

describe('fair turns across users', () => {
  it('the job runner takes users in turn: a third user’s job starts before the others’ remaining ones', async () => {
    turns = turnModel();
    // One job at a time on this instance, so every start is the runner's choice.
    t = await startTestApp({ JOBS_CONCURRENCY: '1', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, undefined, { imageModel: turns.model });
    const [ann, bob, cy] = await Promise.all(['ann', 'bob', 'cy'].map((n) => t!.user(`${n}-fair-jobs@example.com`)));
    const queue = async (user: { client: HttpClient }, prompt: string) => {
      const res = await user.client.post('/api/generations', { images: [image], prompt });
      expect(res.status).toBe(202);
      return res.json as { id: string; queuePosition: number | null };
    };
    await queue(ann, 'ann 1');
    await turns.reached(1); // running: the others queue behind it
    for (const prompt of ['ann 2', 'ann 3']) await queue(ann, prompt);
    for (const prompt of ['bob 1', 'bob 2', 'bob 3']) await queue(bob, prompt);
    const cys = await queue(cy, 'cy 1');
    // Its place says so too: behind only bob's first job (both users had nothing else unfinished).
    expect((await cy.client.get(`/api/generations/${cys.id}`)).json).toMatchObject({ status: 'queued', queuePosition: 2 });
    await answerInTurn(turns, 7);
    expect(turns.prompts).toEqual(['ann 1', 'bob 1', 'cy 1', 'ann 2', 'bob 2', 'ann 3', 'bob 3']);
  });

  it('POST /api/image: the last model slot waits for a user with no call running, and a third user’s call comes before the others’ second ones', async () => {
    turns = turnModel();
    // Two model calls at once on this instance; each user may have two generations in flight (the default).
    t = await startTestApp({ IMAGE_MODEL_MAX_CONCURRENT: '2', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, undefined, { imageModel: turns.model });
    const [ann, bob, cy] = await Promise.all(['ann', 'bob', 'cy'].map((n) => t!.user(`${n}-fair-image@example.com`)));
    const answers: Array<Promise<{ status: number }>> = [];
    const generate = (user: { client: HttpClient }, prompt: string) => answers.push(user.client.post('/api/image', { images: [image], prompt }));
    /** Waits until the user's generation of that prompt says it waits for a model slot (its job's progress). */
    const waitsForSlot = (user: { client: HttpClient }, prompt: string) =>
      vi.waitFor(
        async () => {
          const { json } = await user.client.get('/api/generations?status=running');
          const jobs = (json as { items: Array<{ progress: { message?: string } | null }> }).items;
          const waiting = jobs.filter((j) => j.progress?.message === WAITING_FOR_SLOT).length;
          expect(waiting, `${prompt} waits for a model slot`).toBeGreaterThanOrEqual(1);
        },
        { timeout: 15_000, interval: 50 },
      );
    generate(ann, 'ann 1');
    await turns.reached(1);
    generate(ann, 'ann 2'); // a slot is free, but it is the last one and ann has a call running
    await waitsForSlot(ann, 'ann 2');
    generate(bob, 'bob 1'); // bob has none running: the last slot is his
    await turns.reached(2);
    generate(bob, 'bob 2');
    await waitsForSlot(bob, 'bob 2');
    generate(cy, 'cy 1');
    await waitsForSlot(cy, 'cy 1');
    await answerInTurn(turns, 3);
    expect(turns.prompts).toEqual(['ann 1', 'bob 1', 'cy 1']); // first come, first served would have run ann 2
    turns.answerAll();
    await turns.reached(5); // ann 2 and bob 2: the last slot once one of them has rested (test/unit/fair-slots)
    turns.answerAll();
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});
