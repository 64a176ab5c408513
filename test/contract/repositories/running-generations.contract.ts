// RunningGenerationsRepository (src/db/repositories/running-generations.ts): leases that count until they expire;
// one into a canvas node names it, and an instance claims such a lease once it lapses to settle the node.
// A lease of -1 s has lapsed when it is written.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newProject, newUser, type RepositoriesUnderTest } from './harness.js';

export function runningGenerationsContract(repos: RepositoriesUnderTest) {
  describe('running generations', () => {
    it("counts a user's unexpired leases; starts none for a missing user", async () => {
      const r = repos();
      const ann = await newUser(r);
      expect(await r.runningGenerations.start(randomUUID(), ann.id, 60_000)).toBe(true);
      expect(await r.runningGenerations.start(randomUUID(), ann.id, -1_000)).toBe(true);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(1);
      expect(await r.runningGenerations.start(randomUUID(), randomUUID(), 60_000)).toBe(false);
    });

    it('refuses a second lease with the same id', async () => {
      const r = repos();
      const ann = await newUser(r);
      const id = randomUUID();
      await r.runningGenerations.start(id, ann.id, 60_000);
      await expect(r.runningGenerations.start(id, ann.id, 60_000)).rejects.toBeDefined();
    });

    it('renews a lease, writing it again when it was removed meanwhile, never for a missing user', async () => {
      const r = repos();
      const ann = await newUser(r);
      const id = randomUUID();
      await r.runningGenerations.start(id, ann.id, -1_000);
      await r.runningGenerations.renew(id, ann.id, 60_000);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(1);
      await r.runningGenerations.remove(id);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(0);
      await r.runningGenerations.renew(id, ann.id, 60_000);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(1);
      await r.runningGenerations.renew(randomUUID(), randomUUID(), 60_000);
    });

    it('keeps the reservation a lease started with when it is renewed', async () => {
      const r = repos();
      const ann = await newUser(r);
      const id = randomUUID();
      await r.runningGenerations.start(id, ann.id, 60_000, undefined, undefined, 0.5);
      await r.runningGenerations.renew(id, ann.id, 60_000, undefined, undefined, 2);
      expect(await r.generations.monthBudgetUsed(ann.id)).toBeCloseTo(0.5, 9);
    });

    it('removes a lease with every lapsed one that names no node, and leaves lapsed leases of nodes to be claimed', async () => {
      const r = repos();
      const ann = await newUser(r);
      const project = await newProject(r, ann.id);
      const node = { projectId: project.id, nodeId: `n-${randomUUID()}` };
      const mine = randomUUID();
      await r.runningGenerations.start(mine, ann.id, 60_000);
      await r.runningGenerations.start(randomUUID(), ann.id, -1_000);
      await r.runningGenerations.start(randomUUID(), ann.id, -1_000, undefined, node);
      const other = randomUUID();
      await r.runningGenerations.start(other, ann.id, 60_000);
      await r.runningGenerations.removeWithExpired(mine);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(1);
      await r.runningGenerations.remove(other);
      expect(await r.runningGenerations.claimLapsedNodes(1_000)).toContainEqual({ ...node, stillRunning: false });
    });

    it("claims each lapsed node lease once, saying whether another generation into the node still runs", async () => {
      const r = repos();
      const ann = await newUser(r);
      const project = await newProject(r, ann.id);
      const busy = { projectId: project.id, nodeId: `busy-${randomUUID()}` };
      const idle = { projectId: project.id, nodeId: `idle-${randomUUID()}` };
      await r.runningGenerations.start(randomUUID(), ann.id, -1_000, undefined, busy);
      await r.runningGenerations.start(randomUUID(), ann.id, 60_000, undefined, busy);
      await r.runningGenerations.start(randomUUID(), ann.id, -1_000, undefined, idle);
      const ours = (claimed: Array<{ projectId: string }>) => claimed.filter((c) => c.projectId === project.id);

      const claimed = ours(await r.runningGenerations.claimLapsedNodes(1_000));
      expect(claimed).toHaveLength(2);
      expect(claimed).toEqual(expect.arrayContaining([{ ...busy, stillRunning: true }, { ...idle, stillRunning: false }]));
      expect(ours(await r.runningGenerations.claimLapsedNodes(1_000))).toEqual([]);
      expect(await r.runningGenerations.countByUser(ann.id)).toBe(1);
    });
  });
}
