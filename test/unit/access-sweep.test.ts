// The access sweep (src/auth/access-sweep.ts) and the event stream registry (src/http/event-streams.ts) on checks held in
// memory: which open connections end and why, that one sweep asks for tokens and roles once each however many
// connections share them, that reads during a sweep coalesce, and the per-user cap of streams.
import { describe, expect, it } from 'vitest';
import { startAccessSweep, type EndReason, type OpenConnection } from '../../src/auth/access-sweep.js';
import { startSessionRevocations, type SessionClaims } from '../../src/auth/revocations.js';
import type { SessionUser } from '../../src/auth/session.js';
import type { AccessChecksRepository, ProjectRole, SessionRevocation } from '../../src/db/repositories/index.js';
import { closedEvent, createEventStreams } from '../../src/http/event-streams.js';

const log = { warn: () => {} };
const bySession = (id: string, sid: string, authAt = 1): SessionUser => ({ id, email: `${id}@x`, name: id, session: { sub: id, sid, authAt } });
const byToken = (id: string, tokenId: string): SessionUser => ({ id, email: `${id}@x`, name: id, token: { id: tokenId, scopes: ['read', 'write'] } });

/** Revocations whose reads the test makes: `read()` tells the listeners, as each poll does. */
function revocationsOf(revoked: (claims: SessionClaims) => boolean) {
  const listeners = new Set<() => void>();
  return {
    isRevoked: revoked,
    onRead(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    read: () => {
      for (const l of listeners) l();
    },
  };
}

/** Checks from maps: tokens by id (expiry in ms, null: never), roles by `user project`; every call is counted. */
function checksOf(tokens: Map<string, number | null>, roles: Map<string, ProjectRole>) {
  const calls: string[] = [];
  const checks: AccessChecksRepository = {
    async tokens(ids) {
      calls.push(`tokens:${ids.length}`);
      return ids.flatMap((id) => (tokens.has(id) ? [{ id, expiresAt: tokens.get(id) === null ? null : new Date(tokens.get(id)!) }] : []));
    },
    async roles(pairs) {
      calls.push(`roles:${pairs.length}`);
      return pairs.flatMap((p) => {
        const role = roles.get(`${p.userId} ${p.projectId}`);
        return role ? [{ ...p, role }] : [];
      });
    },
  };
  return { checks, calls };
}

/** An open connection that records how it ended, and resolves `ended` then. */
function connection(user: SessionUser, project?: { id: string; writes: boolean }) {
  let resolve!: (reason: EndReason) => void;
  const ended = new Promise<EndReason>((r) => (resolve = r));
  const c: OpenConnection & { ended: Promise<EndReason>; reasons: EndReason[] } = {
    user,
    project,
    reasons: [],
    ended,
    end(reason) {
      c.reasons.push(reason);
      resolve(reason);
    },
  };
  return c;
}

describe('the access sweep', () => {
  it('ends what was signed out, revoked, expired, removed or demoted — and nothing else — asking once for tokens and once for roles', async () => {
    const now = 1_000_000;
    const revocations = revocationsOf((claims) => claims.sid === 'gone');
    const { checks, calls } = checksOf(
      new Map([
        ['t-ok', null],
        ['t-later', now + 1],
        ['t-old', now - 1],
      ]),
      new Map<string, ProjectRole>([
        ['ada p1', 'owner'],
        ['bob p1', 'viewer'],
        ['eve p1', 'editor'],
        ['tom p1', 'editor'],
      ]),
    );
    const signedOut = connection(bySession('ada', 'gone'), { id: 'p1', writes: true });
    const signedOutStream = connection(bySession('ada', 'gone'));
    const kept = connection(bySession('ada', 'here'), { id: 'p1', writes: true });
    const revoked = connection(byToken('tom', 't-revoked'));
    const expired = connection(byToken('tom', 't-old'), { id: 'p1', writes: true });
    const tokenKept = connection(byToken('tom', 't-later'), { id: 'p1', writes: true });
    const tokenKept2 = connection(byToken('tom', 't-ok'));
    const demoted = connection(bySession('bob', 'b'), { id: 'p1', writes: true });
    const viewer = connection(bySession('bob', 'b2'), { id: 'p1', writes: false });
    const removed = connection(bySession('vic', 'v'), { id: 'p1', writes: false });
    const editor = connection(bySession('eve', 'e'), { id: 'p1', writes: true });
    const all = [signedOut, signedOutStream, kept, revoked, expired, tokenKept, tokenKept2, demoted, viewer, removed, editor];
    const sweep = startAccessSweep({ revocations, checks, sources: [() => all.slice(0, 6), () => all.slice(6)], log, now: () => now });
    revocations.read();
    expect(await Promise.all([signedOut.ended, signedOutStream.ended, revoked.ended, expired.ended, demoted.ended, removed.ended])).toEqual([
      'signed-out',
      'signed-out',
      'token-revoked',
      'token-expired',
      'role-changed',
      'permission-denied',
    ]);
    // Ended once, for one reason: a signed-out or revoked connection is not asked about its role as well.
    for (const c of all) expect(c.reasons.length).toBeLessThanOrEqual(1);
    expect([kept, tokenKept, tokenKept2, viewer, editor].map((c) => c.reasons)).toEqual([[], [], [], [], []]);
    // Four token ids in use, four distinct (user, project) pairs still standing (ada, tom, bob, vic, eve on p1: 5).
    expect(calls).toEqual(['tokens:4', 'roles:5']);
    sweep.stop();
  });

  it('asks nothing when nothing is open, and nothing after it stops', async () => {
    const revocations = revocationsOf(() => false);
    const { checks, calls } = checksOf(new Map(), new Map());
    const open: OpenConnection[] = [];
    const sweep = startAccessSweep({ revocations, checks, sources: [() => open], log });
    revocations.read();
    sweep.stop();
    const late = connection(byToken('tom', 't'), { id: 'p', writes: true });
    open.push(late);
    revocations.read();
    await Promise.resolve();
    expect(calls).toEqual([]);
    expect(late.reasons).toEqual([]);
  });

  it('a read during a sweep asks for one more sweep after it, not one each', async () => {
    const revocations = revocationsOf(() => false);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    let revoke = false;
    let secondAsked!: () => void;
    const second = new Promise<void>((r) => (secondAsked = r));
    const checks: AccessChecksRepository = {
      async tokens(ids) {
        asked++;
        if (asked === 1) await held;
        if (asked === 2) secondAsked();
        return revoke ? [] : ids.map((id) => ({ id, expiresAt: null }));
      },
      roles: async () => [],
    };
    const c = connection(byToken('tom', 't'));
    const sweep = startAccessSweep({ revocations, checks, sources: [() => [c]], log });
    revocations.read(); // the first sweep waits on its query
    revocations.read();
    revocations.read();
    revoke = true;
    release();
    await second;
    expect(await c.ended).toBe('token-revoked');
    expect(asked).toBe(2);
    sweep.stop();
  });
});

describe('session revocations tell their readers', () => {
  it('after a revocation made here, and after each read of the others', async () => {
    const stored: SessionRevocation[] = [];
    const repo = {
      add: async (v: Omit<SessionRevocation, 'revokedAt'>) => {
        const row = { ...v, revokedAt: new Date() };
        stored.push(row);
        return row;
      },
      since: async () => stored,
      pruneExpired: async () => 0,
    };
    // A poll of 5 ms: the test waits for the listener, not for the clock.
    const r = await startSessionRevocations({ repo, pollMs: 5, maxSessionAgeMs: 86_400_000, log });
    const told: boolean[] = [];
    let wake!: () => void;
    const polled = new Promise<void>((resolve) => (wake = resolve));
    const stop = r.onRead(() => {
      told.push(r.isRevoked({ sub: 'u', sid: 's' }));
      if (told.length === 2) wake();
    });
    await r.revokeSession('u', 's', new Date(Date.now() + 60_000));
    expect(told).toEqual([true]);
    await polled;
    stop();
    r.close();
    expect(told.slice(0, 2)).toEqual([true, true]);
  });
});

describe('event streams', () => {
  it("one more than the cap ends the user's oldest with too-many-streams; others' stay; a closed one frees its place", () => {
    const streams = createEventStreams({ perUser: 2 });
    const ended: string[] = [];
    const add = (user: SessionUser, name: string) => streams.add(user, (reason) => ended.push(`${name}:${reason}`));
    const ada = bySession('ada', 'a');
    add(ada, 'a1');
    const releaseA2 = add(ada, 'a2');
    add(bySession('bob', 'b'), 'b1');
    add(ada, 'a3');
    expect(ended).toEqual(['a1:too-many-streams']);
    releaseA2();
    add(ada, 'a4');
    expect(ended).toEqual(['a1:too-many-streams']);
    add(ada, 'a5');
    expect(ended).toEqual(['a1:too-many-streams', 'a3:too-many-streams']);
    expect(streams.count()).toBe(3);
    expect([...streams.open()].map((c) => c.user.id).sort()).toEqual(['ada', 'ada', 'bob']);
  });

  it('the last event says why, as Server-Sent Events', () => {
    expect(closedEvent('signed-out')).toBe('event: closed\ndata: {"reason":"signed-out"}\n\n');
  });
});
