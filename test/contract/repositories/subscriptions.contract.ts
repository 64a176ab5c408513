// SubscriptionsRepository (src/db/repositories/subscriptions.ts). Times differ by whole milliseconds here: the fakes
// compare at millisecond precision (test/fakes/repositories.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newUser, type RepositoriesUnderTest } from './harness.js';

const state = (changedAt: string, values: Partial<{ status: string; hasAccess: boolean; grantsPro: boolean }> = {}) => ({
  productId: 'pro',
  status: 'active',
  hasAccess: true,
  grantsPro: true,
  changedAt,
  ...values,
});

export function subscriptionsContract(repos: RepositoriesUnderTest) {
  describe('subscriptions', () => {
    it('compares a row with an event time: newer only when the row changed after it', async () => {
      const r = repos();
      const user = await newUser(r);
      const id = randomUUID();
      await r.subscriptions.insert(id, user.id, state('2026-03-01T12:00:00.000Z'));
      const row = await r.subscriptions.findOrdered(id, '2026-03-01T11:59:59.999Z');
      expect(row).toMatchObject({ userId: user.id, hasAccess: true, newer: true });
      expect(await r.subscriptions.findOrdered(id, '2026-03-01T12:00:00.001Z')).toMatchObject({ newer: false });
      // The row's own time, as the repository answered it, is not newer than the row.
      expect(await r.subscriptions.findOrdered(id, row!.changedAt)).toMatchObject({ newer: false });
      expect(await r.subscriptions.findOrdered(randomUUID(), '2026-03-01T12:00:00.000Z')).toBeNull();
    });

    it('updates a row to a new state and stops it granting Pro', async () => {
      const r = repos();
      const user = await newUser(r);
      const id = randomUUID();
      await r.subscriptions.insert(id, user.id, state('2026-03-01T12:00:00.000Z'));
      await r.subscriptions.update(id, state('2026-03-02T12:00:00.000Z', { status: 'past_due', hasAccess: false }));
      expect(await r.subscriptions.findOrdered(id, '2026-03-01T12:00:00.000Z')).toMatchObject({ hasAccess: false, newer: true });
      expect(await r.users.deriveSubscriptionState(user.id, 'c')).toEqual({ isPro: true, subscriptionStatus: 'past_due' });
      await r.subscriptions.stopGranting(id);
      expect(await r.users.deriveSubscriptionState(user.id, 'c')).toEqual({ isPro: false, subscriptionStatus: 'past_due' });
    });

    it('refuses a second row with the same id, and a row of a missing user', async () => {
      const r = repos();
      const user = await newUser(r);
      const id = randomUUID();
      await r.subscriptions.insert(id, user.id, state('2026-03-01T12:00:00.000Z'));
      await expect(r.subscriptions.insert(id, user.id, state('2026-03-01T12:00:00.000Z'))).rejects.toBeDefined();
      const orphan = randomUUID();
      await expect(r.subscriptions.insert(orphan, randomUUID(), state('2026-03-01T12:00:00.000Z'))).rejects.toBeDefined();
      expect(await r.subscriptions.findOrdered(orphan, '2026-03-01T12:00:00.000Z')).toBeNull();
    });

    it('changes nothing when updating or stopping a row that does not exist', async () => {
      const r = repos();
      const id = randomUUID();
      await r.subscriptions.update(id, state('2026-03-01T12:00:00.000Z'));
      await r.subscriptions.stopGranting(id);
      expect(await r.subscriptions.findOrdered(id, '2026-03-01T12:00:00.000Z')).toBeNull();
    });

    it('tells whether a pre-upgrade row covers a subscription created at a time', async () => {
      const r = repos();
      const user = await newUser(r);
      const id = randomUUID();
      await r.subscriptions.insert(id, user.id, state('2026-03-01T12:00:00.000Z', { hasAccess: false }));
      const at = '2026-02-01T00:00:00.000Z';
      expect(await r.subscriptions.findPreUpgrade(id, at, null)).toMatchObject({ hasAccess: false, newer: true, covers: true });
      expect(await r.subscriptions.findPreUpgrade(id, at, '2026-03-01T11:00:00.000Z')).toMatchObject({ covers: true });
      expect(await r.subscriptions.findPreUpgrade(id, at, '2026-03-01T12:00:00.000Z')).toMatchObject({ covers: true });
      expect(await r.subscriptions.findPreUpgrade(id, at, '2026-03-01T12:00:00.001Z')).toMatchObject({ covers: false });
      expect(await r.subscriptions.findPreUpgrade(randomUUID(), at, null)).toBeNull();
    });
  });
}
