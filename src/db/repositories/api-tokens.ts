// Personal API tokens (docs/api.md "API tokens"): rows keyed by the SHA-256 of their secret, owned by a user.
import { and, asc, count, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { apiTokens, users, type ApiTokenScope } from '../schema.js';

export interface ApiToken {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  scopes: ApiTokenScope[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export interface ApiTokensRepository {
  /** Locks the user's row until the transaction ends (counting and adding tokens one at a time); false without the user. */
  lockUser(userId: string, tx: Tx): Promise<boolean>;
  countByUser(userId: string, tx?: Tx): Promise<number>;
  insert(token: { userId: string; name: string; tokenHash: string; prefix: string; scopes: ApiTokenScope[]; expiresAt: Date | null }, tx?: Tx): Promise<ApiToken>;
  /** The user's tokens, oldest first (ties by id). */
  listByUser(userId: string, tx?: Tx): Promise<ApiToken[]>;
  /** Deletes the user's token; false when the user has no token with that id. */
  delete(userId: string, id: string, tx?: Tx): Promise<boolean>;
  /** The token with this hash and its user (id, email, name); null when none. */
  findByHash(tokenHash: string, tx?: Tx): Promise<{ token: ApiToken; user: { id: string; email: string; name: string } } | null>;
  /** Sets `last_used_at` to `at` unless it is already at or after `unlessSince` (so concurrent uses write once). */
  touch(id: string, at: Date, unlessSince: Date, tx?: Tx): Promise<void>;
}

const fields = {
  id: apiTokens.id,
  userId: apiTokens.userId,
  name: apiTokens.name,
  prefix: apiTokens.prefix,
  scopes: apiTokens.scopes,
  createdAt: apiTokens.createdAt,
  expiresAt: apiTokens.expiresAt,
  lastUsedAt: apiTokens.lastUsedAt,
};

export function createApiTokensRepository(db: Db): ApiTokensRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async lockUser(userId, tx) {
      const rows = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
      return rows.length > 0;
    },
    async countByUser(userId, tx) {
      const [row] = await on(tx).select({ n: count() }).from(apiTokens).where(eq(apiTokens.userId, userId));
      return row.n;
    },
    async insert(token, tx) {
      const [row] = await on(tx).insert(apiTokens).values(token).returning(fields);
      return row;
    },
    listByUser(userId, tx) {
      return on(tx).select(fields).from(apiTokens).where(eq(apiTokens.userId, userId)).orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
    },
    async delete(userId, id, tx) {
      const gone = await on(tx).delete(apiTokens).where(and(eq(apiTokens.userId, userId), eq(apiTokens.id, id))).returning({ id: apiTokens.id });
      return gone.length > 0;
    },
    async findByHash(tokenHash, tx) {
      const [row] = await on(tx)
        .select({ token: fields, user: { id: users.id, email: users.email, name: users.name } })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .where(eq(apiTokens.tokenHash, tokenHash));
      return row ?? null;
    },
    async touch(id, at, unlessSince, tx) {
      await on(tx)
        .update(apiTokens)
        .set({ lastUsedAt: at })
        .where(and(eq(apiTokens.id, id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, unlessSince))));
    },
  };
}
