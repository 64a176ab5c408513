// Personal API tokens (docs/api.md "API tokens"): a signed-in user creates, lists and revokes their own. The secret
// is returned once, by `create`; only its hash and a short prefix are kept (src/auth/api-tokens.ts).
import { newApiToken, type ApiTokenScope } from '../auth/api-tokens.js';
import type { Transactions } from '../db/index.js';
import type { ApiToken, ApiTokensRepository } from '../db/repositories/index.js';
import { invalidRequest, tokenNotFound, unauthorized } from '../errors.js';
import { isUuid } from '../ids.js';

export interface NewApiToken {
  name: string;
  scopes: ApiTokenScope[];
  /** Whole days from now; undefined: never expires. */
  expiresInDays?: number;
}

export interface ApiTokensService {
  /** A new token of the user's: its record, and its secret (shown only now). */
  create(userId: string, token: NewApiToken): Promise<{ token: ApiToken; secret: string }>;
  /** The user's tokens, oldest first. */
  list(userId: string): Promise<ApiToken[]>;
  /** Revokes (deletes) one of the user's tokens: 404 when the user has none with that id. */
  revoke(userId: string, id: string): Promise<void>;
}

export interface ApiTokensDeps {
  tokens: Pick<ApiTokensRepository, 'lockUser' | 'countByUser' | 'insert' | 'listByUser' | 'delete'>;
  transactions: Transactions;
  /** API_TOKENS_PER_USER. */
  maxPerUser: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function createApiTokensService({ tokens, transactions, maxPerUser, now = Date.now }: ApiTokensDeps): ApiTokensService {
  return {
    async create(userId, { name, scopes, expiresInDays }) {
      const made = newApiToken();
      const expiresAt = expiresInDays === undefined ? null : new Date(now() + expiresInDays * DAY_MS);
      const token = await transactions.transaction(async (tx) => {
        // One at a time per user, so two requests at once cannot both take the last place.
        if (!(await tokens.lockUser(userId, tx))) throw unauthorized(); // the session outlived its user
        if ((await tokens.countByUser(userId, tx)) >= maxPerUser) throw invalidRequest(`A user has at most ${maxPerUser} API tokens`);
        return tokens.insert({ userId, name, tokenHash: made.hash, prefix: made.prefix, scopes, expiresAt }, tx);
      });
      return { token, secret: made.secret };
    },
    list: (userId) => tokens.listByUser(userId),
    async revoke(userId, id) {
      if (!isUuid(id) || !(await tokens.delete(userId, id))) throw tokenNotFound();
    },
  };
}
