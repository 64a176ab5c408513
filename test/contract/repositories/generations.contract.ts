// GenerationsRepository (src/db/repositories/generations.ts): the record of generations, the user's history, the
// free quota's and the monthly budget's counts, and lineage's parents.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmptyCanvas, endJob, failureOf, newGeneration, newJob, newProject, newUser, runningJob, type RepositoriesUnderTest } from './harness.js';

const at = (iso: string) => new Date(iso);
const usd = (amount: number) => ({ amount, currency: 'USD', basis: 'list price' as const });

export function generationsContract(repos: RepositoriesUnderTest) {
  describe('generations', () => {
    it("lists the user's generations newest first (ties by id), after a cursor, up to a limit", async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const rows = [
        newGeneration(ann, { id: 'g-a', createdAt: at('2026-01-01T00:00:00.000Z') }),
        newGeneration(ann, { id: 'g-c', createdAt: at('2026-01-02T00:00:00.000Z') }),
        newGeneration(ann, { id: 'g-b', createdAt: at('2026-01-02T00:00:00.000Z') }),
        newGeneration(ann, { id: 'g-d', createdAt: at('2026-01-03T00:00:00.000Z') }),
      ].map((g) => ({ ...g, id: `${g.id}-${randomUUID()}` }));
      for (const g of rows) await r.generations.insert(g);
      await r.generations.insert(newGeneration(bob));
      const ids = (list: { id: string }[]) => list.map((g) => g.id);
      const [a, c, b, d] = ids(rows);

      const all = await r.generations.listByUser(ann.id, { limit: 10 });
      expect(ids(all)).toEqual([d, c, b, a]);
      expect(all[0]).toMatchObject({ userId: ann.id, prompt: 'a red cat', inputImages: [], jobId: null, projectId: null, cost: null, parentIds: [], promptInMetadata: false });
      expect(ids(await r.generations.listByUser(ann.id, { limit: 2 }))).toEqual([d, c]);
      expect(ids(await r.generations.listByUser(ann.id, { limit: 10, after: { createdAt: all[1].createdAt, id: c } }))).toEqual([b, a]);
      expect(ids(await r.generations.listByUser(ann.id, { limit: 10, after: { createdAt: all[0].createdAt, id: d } }))).toEqual([c, b, a]);
    });

    it('filters the history by project, model and prompt words (the last one a prefix)', async () => {
      const r = repos();
      const ann = await newUser(r);
      const project = await newProject(r, ann.id);
      const cat = newGeneration(ann, { prompt: 'A red cat on a mat', model: 'gemini', projectId: project.id, createdAt: at('2026-01-02T00:00:00.000Z') });
      const dog = newGeneration(ann, { prompt: 'a blue dog', model: 'local', createdAt: at('2026-01-01T00:00:00.000Z') });
      await r.generations.insert(cat);
      await r.generations.insert(dog);
      const ids = async (filters: { q?: string; projectId?: string; model?: string }) => (await r.generations.listByUser(ann.id, { limit: 10, ...filters })).map((g) => g.id);
      expect(await ids({ projectId: project.id })).toEqual([cat.id]);
      expect(await ids({ model: 'local' })).toEqual([dog.id]);
      expect(await ids({ q: 'red ca' })).toEqual([cat.id]);
      expect(await ids({ q: 'CAT red' })).toEqual([cat.id]);
      expect(await ids({ q: 'a' })).toEqual([cat.id, dog.id]);
      expect(await ids({ q: 'do' })).toEqual([dog.id]);
      expect(await ids({ q: 'og' })).toEqual([]);
      expect(await ids({ q: '  &!  ' })).toEqual([]);
      expect(await ids({ q: 'red', model: 'local' })).toEqual([]);
    });

    it('refuses a second generation with the same id, and one of a missing user', async () => {
      const r = repos();
      const ann = await newUser(r);
      const g = newGeneration(ann);
      await r.generations.insert(g);
      await expect(r.generations.insert(g)).rejects.toBeDefined();
      const orphan = newGeneration({ id: randomUUID(), email: 'gone@example.com' });
      await expect(r.generations.insert(orphan)).rejects.toBeDefined();
      expect(await r.generations.listByUser(orphan.userId, { limit: 10 })).toEqual([]);
    });

    it("answers a project's canvas version, null without a canvas", async () => {
      const r = repos();
      const ann = await newUser(r);
      const project = await newProject(r, ann.id);
      expect(await r.generations.canvasVersion(project.id)).toBeNull();
      await createEmptyCanvas(r, { id: randomUUID(), projectId: project.id, userId: ann.id });
      expect(await r.generations.canvasVersion(project.id)).toBe(0);
      await r.collab.append([{ projectId: project.id, update: null }]);
      expect(await r.generations.canvasVersion(project.id)).toBe(1);
    });

    it("finds the parents a user may see by output URL, oldest first: their own, and with a project that project's", async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const project = await newProject(r, bob.id);
      const url = `/files/${randomUUID()}.png`;
      const bobsInProject = newGeneration(bob, { outputImageUrl: url, projectId: project.id, createdAt: at('2026-01-02T00:00:00.000Z') });
      const annsOwn = newGeneration(ann, { outputImageUrl: url, createdAt: at('2026-01-03T00:00:00.000Z') });
      const annsOlder = newGeneration(ann, { createdAt: at('2026-01-01T00:00:00.000Z') });
      const bobsElsewhere = newGeneration(bob, { outputImageUrl: url });
      for (const g of [bobsInProject, annsOwn, annsOlder, bobsElsewhere]) await r.generations.insert(g);

      expect(await r.generations.parentsOf([url], { userId: ann.id })).toEqual([annsOwn.id]);
      expect(await r.generations.parentsOf([annsOlder.outputImageUrl, url], { userId: ann.id, projectId: project.id })).toEqual([annsOlder.id, bobsInProject.id, annsOwn.id]);
      expect(await r.generations.parentsOf([], { userId: ann.id })).toEqual([]);
      expect(await r.generations.parentsOf(['/files/none.png'], { userId: ann.id })).toEqual([]);
    });

    it("counts for the free quota the last day's generations, spent calls and running jobs that hold a reservation", async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      await r.generations.insert(newGeneration(ann));
      await r.generations.insert(newGeneration(ann, { createdAt: new Date(Date.now() - 25 * 60 * 60 * 1000) }));
      await r.generations.recordSpentCall(ann.id);
      const holding = await runningJob(r, ann.id, 0);
      await runningJob(r, ann.id); // running, not past its quota check yet: holds nothing
      await newJob(r, ann.id); // queued
      await r.generations.insert(newGeneration(bob));
      await runningJob(r, bob.id, 0);
      expect(await r.generations.countLastDayWithRunning(ann.id)).toBe(3);
      // A reservation ends with its job, or when given back (its call recorded as spent instead); a job not running reserves nothing.
      await r.generations.release(holding);
      expect(await r.generations.countLastDayWithRunning(ann.id)).toBe(2);
      expect(await r.generations.reserve(holding, 0)).toBe(true);
      expect(await endJob(r, holding)).toBe(true);
      expect(await r.generations.countLastDayWithRunning(ann.id)).toBe(2);
      expect(await r.generations.reserve(holding, 0)).toBe(false);
      expect(await r.generations.reserve(await newJob(r, ann.id), 0)).toBe(false);
      expect(await r.generations.countLastDayWithRunning(ann.id)).toBe(2);
      // A job of no user is not made; one that is not queued does not start again, nor does a run end twice.
      expect(await r.generationJobs.insert({ id: `job_${randomUUID()}`, taskKind: 'generation', userId: randomUUID(), prompt: 'p', images: [], model: 'local', createdAt: new Date(), queuePriority: 1 })).toBe(false);
      expect(await r.generationJobs.markRunning(holding)).toBeNull();
      expect(await endJob(r, holding)).toBe(false);
      expect(await failureOf(r.generations.recordSpentCall(randomUUID()))).toBeDefined();
    });

    it("sums this month's spending in USD, and what counts against the monthly budget", async () => {
      const r = repos();
      const ann = await newUser(r);
      const month = new Date().toISOString().slice(0, 7);
      await r.generations.insert(newGeneration(ann, { cost: usd(0.04) }));
      await r.generations.insert(newGeneration(ann, { cost: usd(0.5) }));
      await r.generations.insert(newGeneration(ann, { cost: { amount: 3, currency: 'EUR', basis: 'provider' as const } }));
      await r.generations.insert(newGeneration(ann));
      await r.generations.insert(newGeneration(ann, { cost: usd(7), createdAt: new Date(Date.UTC(2020, 0, 15)) }));
      const spend = await r.generations.monthSpend(ann.id);
      expect(spend).toMatchObject({ month, generations: 4, priced: 2 });
      expect(spend.usd).toBeCloseTo(0.54, 9);

      await r.generations.recordSpentCall(ann.id, undefined, 0.25);
      await r.generations.recordSpentCall(ann.id);
      await runningJob(r, ann.id, 0.1);
      await runningJob(r, ann.id);
      await endJob(r, await runningJob(r, ann.id, 100)); // ended: holds nothing
      expect(await r.generations.monthBudgetUsed(ann.id)).toBeCloseTo(0.89, 9);
      expect(await r.generations.monthBudgetUsed((await newUser(r)).id)).toBe(0);
    });
  });
}
