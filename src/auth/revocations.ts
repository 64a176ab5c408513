// Ended sessions, known to every instance. A session token stays valid by its signature alone, so signing out
// must be remembered: each session carries an id (`sid`) and the time its sign-in happened (`authAt`), both
// set at sign-in and kept when the token is renewed. Sign-out revokes its `sid`; "sign out of all devices"
// revokes every session of the user that began before that moment. Revocations are rows in PostgreSQL; each
// instance holds the ones in force in memory (the per-request check stays a map look-up, no query) and reads
// new rows every `pollMs`. The instance that revokes applies it at once; the others within `pollMs`.
import type { SessionRevocation, SessionRevocationsRepository } from '../db/repositories/index.js';

/** The claims of a session token that revocations look at. */
export interface SessionClaims {
  sub?: unknown;
  sid?: unknown;
  authAt?: unknown;
  iat?: unknown;
}

export interface SessionRevocations {
  /** True when this session was signed out (its own sign-out, or one of all the user's sessions). */
  isRevoked(claims: SessionClaims): boolean;
  /** Ends one session; `expiresAt` is when its token expires anyway. */
  revokeSession(userId: string, sessionId: string, expiresAt: Date): Promise<void>;
  /** Ends every session of the user that began before now. */
  revokeAll(userId: string): Promise<void>;
  /** Reads revocations recorded since the last read (the timer does this every `pollMs`). */
  refresh(): Promise<void>;
  /**
   * Calls `listener` after each read of revocations (every `pollMs`, whether it found any or not) and after each
   * revocation made here: what keeps connections open looks again then (src/auth/access-sweep.ts). Returns the
   * function that removes it.
   */
  onRead(listener: () => void): () => void;
  close(): void;
}

export interface RevocationOptions {
  repo: SessionRevocationsRepository;
  /** How often other instances' revocations are read. */
  pollMs: number;
  /** The longest a session lives (a token renewed just before "all devices" expires this long after it). */
  maxSessionAgeMs: number;
  log: { warn(o: object, m: string): void };
  now?: () => number;
}

/**
 * Rows are read again a while back from the newest one seen: a revocation committed late (its `revoked_at` was
 * taken before a newer row's, but it committed after that row was read) is still found. Applying a row twice is
 * harmless.
 */
const LATE_COMMIT_MARGIN_MS = 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

/** The moment a session began: `authAt` (ms, set at sign-in); tokens issued before it existed have only `iat` (s). */
function sessionStart(claims: SessionClaims): number {
  if (typeof claims.authAt === 'number') return claims.authAt;
  if (typeof claims.iat === 'number') return claims.iat * 1000;
  return 0;
}

export async function startSessionRevocations(opts: RevocationOptions): Promise<SessionRevocations> {
  const now = opts.now ?? Date.now;
  /** Revoked session id → when its token expires. */
  const sessions = new Map<string, number>();
  /** User id → sessions that began before this moment are revoked, and until when the rule matters. */
  const users = new Map<string, { before: number; expiresAt: number }>();
  let newest: number | undefined;
  let lastPrune = now();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const listeners = new Set<() => void>();
  const tell = () => {
    for (const listener of listeners) listener();
  };

  function apply(r: SessionRevocation) {
    const expiresAt = r.expiresAt.getTime();
    if (r.sessionId) {
      sessions.set(r.sessionId, Math.max(expiresAt, sessions.get(r.sessionId) ?? 0));
    } else {
      const known = users.get(r.userId);
      const before = r.revokedAt.getTime();
      if (!known || known.before < before) users.set(r.userId, { before, expiresAt });
    }
    newest = Math.max(newest ?? 0, r.revokedAt.getTime());
  }

  function forgetExpired() {
    const t = now();
    for (const [id, expiresAt] of sessions) if (expiresAt <= t) sessions.delete(id);
    for (const [id, rule] of users) if (rule.expiresAt <= t) users.delete(id);
  }

  async function refresh() {
    const after = newest === undefined ? undefined : new Date(newest - LATE_COMMIT_MARGIN_MS);
    for (const r of await opts.repo.since(after)) apply(r);
    forgetExpired();
    if (now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now();
      await opts.repo.pruneExpired();
    }
  }

  function schedule() {
    if (closed) return;
    timer = setTimeout(() => {
      refresh()
        .then(tell)
        .catch((err: unknown) => {
          if (!closed) opts.log.warn({ err }, 'reading session revocations failed; retrying');
        })
        .finally(schedule);
    }, opts.pollMs);
    timer.unref();
  }

  await refresh();
  schedule();

  return {
    isRevoked(claims) {
      if (typeof claims.sid === 'string') {
        const expiresAt = sessions.get(claims.sid);
        if (expiresAt !== undefined && expiresAt > now()) return true;
      }
      const rule = typeof claims.sub === 'string' ? users.get(claims.sub) : undefined;
      return rule !== undefined && sessionStart(claims) < rule.before;
    },
    async revokeSession(userId, sessionId, expiresAt) {
      apply(await opts.repo.add({ userId, sessionId, expiresAt }));
      tell();
    },
    async revokeAll(userId) {
      apply(await opts.repo.add({ userId, sessionId: null, expiresAt: new Date(now() + opts.maxSessionAgeMs + LATE_COMMIT_MARGIN_MS) }));
      tell();
    },
    refresh,
    onRead(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      listeners.clear();
      clearTimeout(timer);
    },
  };
}
