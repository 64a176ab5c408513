// WebhookReceiptsRepository (src/db/repositories/webhook-receipts.ts), SessionRevocationsRepository
// (src/db/repositories/session-revocations.ts) and the Transactions port (src/db/index.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newProject, newUser, type RepositoriesUnderTest } from './harness.js';

export function receiptsContract(repos: RepositoriesUnderTest) {
  describe('webhook receipts', () => {
    it('records a webhook id once; pruning leaves recent ones', async () => {
      const r = repos();
      const id = `wh-${randomUUID()}`;
      expect(await r.webhookReceipts.record(id, 'subscription.updated')).toBe(true);
      expect(await r.webhookReceipts.record(id, 'subscription.updated')).toBe(false);
      await r.webhookReceipts.pruneOlderThan(30, 100);
      expect(await r.webhookReceipts.record(id, 'subscription.updated')).toBe(false);
    });
  });

  describe('session revocations', () => {
    it('answers revocations in force, those recorded after a moment, and prunes the expired ones', async () => {
      const r = repos();
      const user = await newUser(r);
      const live = await r.sessionRevocations.add({ userId: user.id, sessionId: `s-${randomUUID()}`, expiresAt: new Date(Date.now() + 60_000) });
      expect(live).toMatchObject({ userId: user.id, sessionId: live.sessionId, expiresAt: expect.any(Date) });
      expect(live.revokedAt).toBeInstanceOf(Date);
      const expired = await r.sessionRevocations.add({ userId: user.id, sessionId: null, expiresAt: new Date(Date.now() - 1_000) });
      const mine = async (after?: Date) => (await r.sessionRevocations.since(after)).filter((x) => x.userId === user.id);
      expect(await mine()).toEqual([live]);
      expect(await mine(new Date(live.revokedAt.getTime() + 1))).toEqual([]); // revoked_at has microseconds, a Date has none
      expect(await mine(new Date(live.revokedAt.getTime() - 1))).toEqual([live]);
      expect(expired.sessionId).toBeNull();
      expect(await r.sessionRevocations.pruneExpired()).toBeGreaterThanOrEqual(1);
      expect(await r.sessionRevocations.pruneExpired()).toBe(0);
      expect(await mine()).toEqual([live]);
    });

    it('records no revocation of a missing user', async () => {
      const r = repos();
      const userId = randomUUID();
      await expect(r.sessionRevocations.add({ userId, sessionId: null, expiresAt: new Date(Date.now() + 60_000) })).rejects.toBeDefined();
      expect((await r.sessionRevocations.since(undefined)).filter((x) => x.userId === userId)).toEqual([]);
    });
  });

  describe('transactions', () => {
    it("commits a function's writes together, and rolls all of them back when it throws", async () => {
      const r = repos();
      const user = await newUser(r);
      const kept = await r.transactions.transaction(async (tx) => {
        const a = await r.projects.insert({ userId: user.id, name: 'a' }, tx);
        const b = await r.projects.insert({ userId: user.id, name: 'b' }, tx);
        return [a!, b!];
      });
      const failure = new Error('changed my mind');
      await expect(
        r.transactions.transaction(async (tx) => {
          const c = await r.projects.insert({ userId: user.id, name: 'c' }, tx);
          await r.projects.renameOwned(user.id, kept[0].id, 'renamed', tx);
          await r.sharing.upsertMember({ projectId: c!.id, email: 'x@example.com', role: 'viewer', invitedBy: user.id }, tx);
          throw failure;
        }),
      ).rejects.toBe(failure);
      // (Rows made in one transaction share its now(): the order between a and b is their ids'.)
      expect((await r.projects.listByOwner(user.id)).map((p) => p.name).sort()).toEqual(['a', 'b']);
      await newProject(r, user.id, 'd');
      expect(await r.projects.listByOwner(user.id)).toHaveLength(3);
    });
  });
}
