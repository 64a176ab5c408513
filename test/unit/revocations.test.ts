// The revocation registry (src/auth/revocations.ts) on a repository of rows in memory: what it refuses, what
// it reads from other instances, and what it forgets.
import { describe, expect, it } from 'vitest';
import { startSessionRevocations } from '../../src/auth/revocations.js';
import type { SessionRevocation, SessionRevocationsRepository } from '../../src/db/repositories/index.js';

function rows(clock: { now: number }) {
  const stored: SessionRevocation[] = [];
  const repo: SessionRevocationsRepository = {
    async add(values) {
      const row = { ...values, revokedAt: new Date(clock.now) };
      stored.push(row);
      return row;
    },
    async since(after) {
      return stored.filter((r) => r.expiresAt.getTime() > clock.now && (!after || r.revokedAt > after));
    },
    async pruneExpired() {
      return 0;
    },
  };
  return { stored, repo };
}

const DAY = 86_400_000;
const log = { warn: () => {} };

describe('session revocations', () => {
  it('refuses a revoked session id at once, and no other session of the user', async () => {
    const clock = { now: 1_000_000 };
    const { repo } = rows(clock);
    const r = await startSessionRevocations({ repo, pollMs: 60_000, maxSessionAgeMs: 30 * DAY, log, now: () => clock.now });
    await r.revokeSession('u1', 's1', new Date(clock.now + DAY));
    expect(r.isRevoked({ sub: 'u1', sid: 's1', authAt: 1 })).toBe(true);
    expect(r.isRevoked({ sub: 'u1', sid: 's2', authAt: 1 })).toBe(false);
    expect(r.isRevoked({ sub: 'u2', sid: 's3' })).toBe(false);
    r.close();
  });

  it('"all devices" refuses sessions that began before it (tokens without authAt by iat), not later ones', async () => {
    const clock = { now: 5_000_000 };
    const { repo } = rows(clock);
    const r = await startSessionRevocations({ repo, pollMs: 60_000, maxSessionAgeMs: 30 * DAY, log, now: () => clock.now });
    await r.revokeAll('u1');
    expect(r.isRevoked({ sub: 'u1', sid: 'a', authAt: 4_999_999 })).toBe(true);
    expect(r.isRevoked({ sub: 'u1', iat: 4_999 })).toBe(true); // a token from before sessions had ids
    expect(r.isRevoked({ sub: 'u1', sid: 'b', authAt: 5_000_000 })).toBe(false);
    expect(r.isRevoked({ sub: 'u2', sid: 'c', authAt: 1 })).toBe(false);
    r.close();
  });

  it("learns other instances' revocations on refresh, including one that committed late", async () => {
    const clock = { now: 10_000_000 };
    const { stored, repo } = rows(clock);
    const here = await startSessionRevocations({ repo, pollMs: 60_000, maxSessionAgeMs: 30 * DAY, log, now: () => clock.now });
    // Another instance records one now; a second was stamped 30 s earlier but commits only after our read.
    stored.push({ userId: 'u1', sessionId: 'fresh', revokedAt: new Date(clock.now), expiresAt: new Date(clock.now + DAY) });
    await here.refresh();
    expect(here.isRevoked({ sub: 'u1', sid: 'fresh' })).toBe(true);
    stored.push({ userId: 'u1', sessionId: 'late', revokedAt: new Date(clock.now - 30_000), expiresAt: new Date(clock.now + DAY) });
    await here.refresh();
    expect(here.isRevoked({ sub: 'u1', sid: 'late' })).toBe(true);
    here.close();
  });

  it('reads the revocations in force at start, and forgets them once their sessions have expired', async () => {
    const clock = { now: 20_000_000 };
    const { repo } = rows(clock);
    const first = await startSessionRevocations({ repo, pollMs: 60_000, maxSessionAgeMs: 30 * DAY, log, now: () => clock.now });
    await first.revokeSession('u1', 'old', new Date(clock.now + 1_000));
    first.close();
    const second = await startSessionRevocations({ repo, pollMs: 60_000, maxSessionAgeMs: 30 * DAY, log, now: () => clock.now });
    expect(second.isRevoked({ sub: 'u1', sid: 'old' })).toBe(true);
    clock.now += 2_000;
    await second.refresh();
    expect(second.isRevoked({ sub: 'u1', sid: 'old' })).toBe(false); // its token has expired anyway
    second.close();
  });
});
