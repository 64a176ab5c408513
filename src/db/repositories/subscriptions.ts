// Subscriptions at the payment provider, one row per provider subscription id (the rule that reads and
// writes them is src/services/subscriptions.ts). Times are compared in the database: `changed_at` keeps the
// provider's microseconds, which a JS Date cannot hold.
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { subscriptions } from '../schema.js';

/** A subscription row as the ordering rule needs it, compared with an event's time `at`. */
export interface OrderedSubscription {
  userId: string;
  hasAccess: boolean;
  /** The row holds a state newer than `at` (`changed_at > at`). */
  newer: boolean;
  /** `changed_at` as PostgreSQL prints it. */
  changedAt: string;
}

/** The state a subscription row is set to; `changedAt` is the provider's time text (parsed by PostgreSQL). */
export interface SubscriptionState {
  productId: string;
  status: string;
  hasAccess: boolean;
  grantsPro: boolean;
  changedAt: string;
}

export interface SubscriptionsRepository {
  /** The row of subscription `id` compared with the time `at`; null when there is none. */
  findOrdered(id: string, at: string, tx?: Tx): Promise<OrderedSubscription | null>;
  /**
   * A pre-upgrade row (migration 0006) compared with the time `at`, and whether its state covers a subscription
   * created at `createdAt` (created no later than the row's `changed_at`; true when `createdAt` is null).
   */
  findPreUpgrade(id: string, at: string, createdAt: string | null, tx?: Tx): Promise<(Omit<OrderedSubscription, 'userId'> & { covers: boolean }) | null>;
  update(id: string, state: SubscriptionState, tx?: Tx): Promise<void>;
  insert(id: string, userId: string, state: SubscriptionState, tx?: Tx): Promise<void>;
  /** Row `id` stops granting Pro (if it did). */
  stopGranting(id: string, tx?: Tx): Promise<void>;
}

export function createSubscriptionsRepository(db: Db): SubscriptionsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  const newerThan = (at: string) => sql<boolean>`${subscriptions.changedAt} > ${at}::timestamptz`;
  const changedAtText = sql<string>`${subscriptions.changedAt}::text`;
  return {
    async findOrdered(id, at, tx) {
      const [row] = await on(tx)
        .select({ userId: subscriptions.userId, hasAccess: subscriptions.hasAccess, newer: newerThan(at), changedAt: changedAtText })
        .from(subscriptions)
        .where(eq(subscriptions.id, id));
      return row ?? null;
    },
    async findPreUpgrade(id, at, createdAt, tx) {
      const [row] = await on(tx)
        .select({
          hasAccess: subscriptions.hasAccess,
          newer: newerThan(at),
          covers: sql<boolean>`COALESCE(${createdAt}::timestamptz <= ${subscriptions.changedAt}, true)`,
          changedAt: changedAtText,
        })
        .from(subscriptions)
        .where(eq(subscriptions.id, id));
      return row ?? null;
    },
    async update(id, state, tx) {
      await on(tx)
        .update(subscriptions)
        .set({ ...state, changedAt: sql`${state.changedAt}::timestamptz`, updatedAt: sql`clock_timestamp()` })
        .where(eq(subscriptions.id, id));
    },
    async insert(id, userId, state, tx) {
      await on(tx)
        .insert(subscriptions)
        .values({ id, userId, ...state, changedAt: sql`${state.changedAt}::timestamptz`, updatedAt: sql`clock_timestamp()` });
    },
    async stopGranting(id, tx) {
      await on(tx)
        .update(subscriptions)
        .set({ grantsPro: false, updatedAt: sql`clock_timestamp()` })
        .where(and(eq(subscriptions.id, id), eq(subscriptions.grantsPro, true)));
    },
  };
}
