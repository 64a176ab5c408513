// Users: one row per person, found by id or by their identity at the sign-in provider. Also the user-row
// statements of the subscription rule (src/services/subscriptions.ts) and of the generation quota: the lock on
// the user's row that orders them, and the derived Pro state.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { subscriptions, users, type UserRow } from '../schema.js';

export type NewUser = Pick<typeof users.$inferInsert, 'email' | 'name' | 'image' | 'provider' | 'providerSubject'>;

export interface UsersRepository {
  findById(id: string, tx?: Tx): Promise<UserRow | null>;
  findBySubject(provider: string, subject: string, tx?: Tx): Promise<UserRow | null>;
  /** Inserts the user; null when a unique index (email, provider + subject) already holds such a user. */
  insertIfAbsent(user: NewUser, tx?: Tx): Promise<UserRow | null>;
  /**
   * Locks the user's row until `tx` ends (`FOR NO KEY UPDATE`: rows referencing it can still be inserted), so
   * the transactions that take it run one at a time per user; null when there is no such user.
   */
  lockForUpdate(id: string, tx: Tx): Promise<{ isPro: boolean } | null>;
  /**
   * Derives the user's Pro state from their subscriptions: `isPro` = one of them grants Pro;
   * `subscriptionStatus` = the status of the most recently changed of those that grant Pro, or when none
   * does, of all of them (the last updated wins a tie); and sets `paymentsCustomerId`.
   */
  deriveSubscriptionState(id: string, paymentsCustomerId: string, tx?: Tx): Promise<{ isPro: boolean; subscriptionStatus: string | null }>;
}

export function createUsersRepository(db: Db): UsersRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async findById(id, tx) {
      return (await on(tx).select().from(users).where(eq(users.id, id)))[0] ?? null;
    },
    async findBySubject(provider, subject, tx) {
      return (await on(tx).select().from(users).where(and(eq(users.provider, provider), eq(users.providerSubject, subject))))[0] ?? null;
    },
    async insertIfAbsent(user, tx) {
      const [created] = await on(tx).insert(users).values(user).onConflictDoNothing().returning();
      return created ?? null;
    },
    async lockForUpdate(id, tx) {
      const [row] = await tx.select({ isPro: users.isPro }).from(users).where(eq(users.id, id)).for('no key update');
      return row ?? null;
    },
    async deriveSubscriptionState(id, paymentsCustomerId, tx) {
      const mine = eq(subscriptions.userId, users.id);
      const [row] = await on(tx)
        .update(users)
        .set({
          isPro: sql`EXISTS (${on(tx).select({ one: sql`1` }).from(subscriptions).where(and(mine, eq(subscriptions.grantsPro, true)))})`,
          subscriptionStatus: sql`(${on(tx)
            .select({ status: subscriptions.status })
            .from(subscriptions)
            .where(mine)
            .orderBy(desc(subscriptions.grantsPro), desc(subscriptions.changedAt), desc(subscriptions.updatedAt))
            .limit(1)})`,
          paymentsCustomerId,
        })
        .where(eq(users.id, id))
        .returning({ isPro: users.isPro, subscriptionStatus: users.subscriptionStatus });
      return row;
    },
  };
}
