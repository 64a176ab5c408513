// Ended sessions: one session (sign-out) or all of a user's sessions up to a moment (sign out of all devices).
import { and, gt, lt, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { sessionRevocations } from '../schema.js';

export interface SessionRevocation {
  userId: string;
  /** The revoked session; null: every session of the user that began before `revokedAt`. */
  sessionId: string | null;
  revokedAt: Date;
  expiresAt: Date;
}

export interface SessionRevocationsRepository {
  /** Records a revocation (`revoked_at` on the database's clock) and answers it as stored. */
  add(revocation: { userId: string; sessionId: string | null; expiresAt: Date }, tx?: Tx): Promise<SessionRevocation>;
  /** Revocations still in force that were recorded after `after` (all of them without it). */
  since(after: Date | undefined, tx?: Tx): Promise<SessionRevocation[]>;
  /** Deletes revocations whose sessions have all expired; answers how many went. */
  pruneExpired(tx?: Tx): Promise<number>;
}

const columns = {
  userId: sessionRevocations.userId,
  sessionId: sessionRevocations.sessionId,
  revokedAt: sessionRevocations.revokedAt,
  expiresAt: sessionRevocations.expiresAt,
};

export function createSessionRevocationsRepository(db: Db): SessionRevocationsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async add(revocation, tx) {
      const [row] = await on(tx).insert(sessionRevocations).values(revocation).returning(columns);
      return row;
    },
    async since(after, tx) {
      const live = gt(sessionRevocations.expiresAt, sql`now()`);
      return on(tx)
        .select(columns)
        .from(sessionRevocations)
        .where(after ? and(live, gt(sessionRevocations.revokedAt, after)) : live);
    },
    async pruneExpired(tx) {
      const gone = await on(tx).delete(sessionRevocations).where(lt(sessionRevocations.expiresAt, sql`now()`)).returning({ id: sessionRevocations.id });
      return gone.length;
    },
  };
}
