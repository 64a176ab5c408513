// UsersRepository (src/db/repositories/users.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newUser, type RepositoriesUnderTest } from './harness.js';

export function usersContract(repos: RepositoriesUnderTest) {
  describe('users', () => {
    it('inserts a user as signed in (not Pro, no subscription) and finds it by id and by subject', async () => {
      const r = repos();
      const email = `ann-${randomUUID()}@example.com`;
      const user = await r.users.insertIfAbsent({ email, name: 'Ann', image: 'https://example.com/a.png', provider: 'oauth', providerSubject: `s-${email}` });
      expect(user).toMatchObject({ email, name: 'Ann', image: 'https://example.com/a.png', provider: 'oauth', providerSubject: `s-${email}`, isPro: false, paymentsCustomerId: null, subscriptionStatus: null });
      expect(user!.createdAt).toBeInstanceOf(Date);
      expect(await r.users.findById(user!.id)).toEqual(user);
      expect(await r.users.findBySubject('oauth', `s-${email}`)).toEqual(user);
      expect(await r.users.findById(randomUUID())).toBeNull();
      expect(await r.users.findBySubject('oauth', 'nobody')).toBeNull();
      expect(await r.users.findBySubject('other', `s-${email}`)).toBeNull();
    });

    it('inserts no second user with the same email, or the same provider and subject', async () => {
      const r = repos();
      const user = await newUser(r);
      expect(await r.users.insertIfAbsent({ email: user.email, name: 'B', image: '', provider: 'oauth', providerSubject: randomUUID() })).toBeNull();
      expect(await r.users.insertIfAbsent({ email: `b-${randomUUID()}@example.com`, name: 'B', image: '', provider: 'oauth', providerSubject: user.providerSubject })).toBeNull();
      expect(await r.users.findById(user.id)).toEqual(user);
    });

    it('locks a user row in a transaction and answers whether it is Pro; null without the user', async () => {
      const r = repos();
      const user = await newUser(r);
      await r.transactions.transaction(async (tx) => {
        expect(await r.users.lockForUpdate(user.id, tx)).toEqual({ isPro: false });
        expect(await r.users.lockForUpdate(randomUUID(), tx)).toBeNull();
      });
    });

    it('derives Pro and the status from the subscriptions: one granting Pro wins, then the latest change', async () => {
      const r = repos();
      const user = await newUser(r);
      const [a, b] = [randomUUID(), randomUUID()];
      await r.subscriptions.insert(a, user.id, { productId: 'pro', status: 'active', hasAccess: true, grantsPro: true, changedAt: '2026-01-01T10:00:00.000Z' });
      await r.subscriptions.insert(b, user.id, { productId: 'pro', status: 'canceled', hasAccess: false, grantsPro: false, changedAt: '2026-02-01T10:00:00.000Z' });
      expect(await r.users.deriveSubscriptionState(user.id, 'cus_1')).toEqual({ isPro: true, subscriptionStatus: 'active' });
      expect(await r.users.findById(user.id)).toMatchObject({ isPro: true, subscriptionStatus: 'active', paymentsCustomerId: 'cus_1' });

      await r.subscriptions.stopGranting(a);
      expect(await r.users.deriveSubscriptionState(user.id, 'cus_2')).toEqual({ isPro: false, subscriptionStatus: 'canceled' });
      expect(await r.users.findById(user.id)).toMatchObject({ isPro: false, subscriptionStatus: 'canceled', paymentsCustomerId: 'cus_2' });
    });

    it('answers rows as values: a later change changes no row answered before', async () => {
      const r = repos();
      const user = await newUser(r);
      const found = await r.users.findById(user.id);
      await r.subscriptions.insert(randomUUID(), user.id, { productId: 'pro', status: 'active', hasAccess: true, grantsPro: true, changedAt: '2026-01-01T10:00:00.000Z' });
      await r.users.deriveSubscriptionState(user.id, 'cus_4');
      expect(user).toMatchObject({ isPro: false, paymentsCustomerId: null });
      expect(found).toMatchObject({ isPro: false, paymentsCustomerId: null });
    });

    it('derives no Pro and no status without subscriptions', async () => {
      const r = repos();
      const user = await newUser(r);
      expect(await r.users.deriveSubscriptionState(user.id, 'cus_3')).toEqual({ isPro: false, subscriptionStatus: null });
    });
  });
}
