// Payment webhooks already received, by the provider's webhook id: recorded in the transaction that applies
// the event, so a second delivery of one id finds it and changes nothing.
import { inArray, lt, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { webhookEvents } from '../schema.js';

export interface WebhookReceiptsRepository {
  /** Records webhook `id`; false when it was already recorded. */
  record(id: string, type: string, tx?: Tx): Promise<boolean>;
  /**
   * Deletes up to `limit` ids received more than `days` days ago (on the database's clock, which set
   * `received_at`), skipping rows another transaction has locked; answers how many went.
   */
  pruneOlderThan(days: number, limit: number, tx?: Tx): Promise<number>;
}

export function createWebhookReceiptsRepository(db: Db): WebhookReceiptsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async record(id, type, tx) {
      const fresh = await on(tx).insert(webhookEvents).values({ id, type }).onConflictDoNothing().returning({ id: webhookEvents.id });
      return fresh.length > 0;
    },
    async pruneOlderThan(days, limit, tx) {
      const expired = on(tx)
        .select({ id: webhookEvents.id })
        .from(webhookEvents)
        .where(lt(webhookEvents.receivedAt, sql`now() - ${days}::int * interval '1 day'`))
        .limit(limit)
        .for('update', { skipLocked: true });
      const pruned = await on(tx).delete(webhookEvents).where(inArray(webhookEvents.id, expired)).returning({ id: webhookEvents.id });
      return pruned.length;
    },
  };
}
