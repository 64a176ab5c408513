// The live server's extensions that can be checked alone (src/collab/extensions/): the compaction policy and its
// turns, who the authentication extension lets in and how (the real extension, its dependencies given as the
// composition gives them), and the protocol's stateless messages and close codes (src/collab/protocol.ts).
import type { IncomingMessage } from 'node:http';
import type { onAuthenticatePayload } from '@hocuspocus/server';
import { describe, expect, it } from 'vitest';
import { authentication, type SocketContext } from '../../src/collab/extensions/authentication.js';
import { compactionDue, turns } from '../../src/collab/extensions/compaction.js';
import { CLOSE, endedCode, readStateless, Refusal, statelessText } from '../../src/collab/protocol.js';
import type { ProjectRole } from '../../src/db/repositories/index.js';
import type { SessionUser } from '../../src/auth/session.js';

describe('compaction policy', () => {
  const policy = { logRatio: 0.1, restorePointMs: 300_000 };

  it('compacts a document it knows no size of, and every time with a ratio of 0', () => {
    expect(compactionDue(undefined, 0, policy)).toBe(true);
    expect(compactionDue({ doc: 1_000_000, log: 1, compactedAt: 0 }, 1, { ...policy, logRatio: 0 })).toBe(true);
  });

  it('leaves a log small against the rest of the document, until a restore point is due', () => {
    const size = { doc: 1_000_000, log: 50_000, compactedAt: 1_000 };
    expect(compactionDue(size, 1_000 + 299_999, policy)).toBe(false);
    expect(compactionDue(size, 1_000 + 300_000, policy)).toBe(true);
  });

  it('compacts once the log holds the ratio of the rest of the document', () => {
    // 95,000 of log against 905,000 of the rest: 0.105 ≥ 0.1; 90,000 against 910,000 is not.
    expect(compactionDue({ doc: 1_000_000, log: 95_000, compactedAt: 0 }, 1, policy)).toBe(true);
    expect(compactionDue({ doc: 1_000_000, log: 90_000, compactedAt: 0 }, 1, policy)).toBe(false);
    // A document that is all log (never compacted) is due.
    expect(compactionDue({ doc: 10, log: 10, compactedAt: 0 }, 1, policy)).toBe(true);
  });
});

describe('compaction turns', () => {
  it('runs at most n tasks at once, the others in order of arrival', async () => {
    const queue = turns(2);
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    const task = (i: number) =>
      queue.run(async () => {
        started.push(i);
        await new Promise<void>((resolve) => finish.set(i, resolve));
        return i;
      });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const tasks = [0, 1, 2, 3].map(task);
    await settle();
    expect(started).toEqual([0, 1]);
    finish.get(1)!();
    await tasks[1];
    await settle();
    expect(started).toEqual([0, 1, 2]);
    // Two run (0 and 2): one arriving now waits behind 3.
    tasks.push(task(4));
    await settle();
    expect(started).toEqual([0, 1, 2]);
    finish.get(0)!();
    finish.get(2)!();
    await Promise.all([tasks[0], tasks[2]]);
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    finish.get(3)!();
    finish.get(4)!();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
  });

  it('goes on after a task fails', async () => {
    const queue = turns(1);
    await expect(queue.run(async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await queue.run(async () => 'next')).toBe('next');
  });
});

describe('authentication extension', () => {
  const PROJECT = '0190a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b';
  const ada: SessionUser = { id: 'u-ada', email: 'ada@example.com', name: 'Ada' };
  const roles = new Map<string, ProjectRole>([['u-ada', 'viewer'], ['u-bob', 'editor']]);
  const tokenUser = (scopes: Array<'read' | 'write'>): SessionUser => ({ id: 'u-bob', email: 'bob@example.com', name: 'Bob', token: { id: 't-1', scopes } });
  const extension = authentication({
    accessOf: async (actor, projectId) => (projectId === PROJECT && 'userId' in actor ? (roles.get(actor.userId) ?? 'none') : 'none'),
    sessions: { verify: async (cookie) => (cookie === 'authlib.session-token=good' ? ada : null) },
    tokens: {
      verify: async (token) => {
        const found = { 'read-only': tokenUser(['read']), 'read-write': tokenUser(['read', 'write']), 'write-only': tokenUser(['write']) }[token];
        return found ? { ...found, token: found.token! } : null;
      },
    },
    origin: 'http://app.test',
    authTimeoutMs: 10_000,
  });

  const upgrade = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  async function authenticate(context: SocketContext, documentName = PROJECT, token = '') {
    const connectionConfig = { readOnly: false, isAuthenticated: false };
    const payload = { documentName, context, connectionConfig, token } as unknown as onAuthenticatePayload<SocketContext>;
    const result = (await extension.onAuthenticate!(payload)) as { user: SessionUser } | undefined;
    return { readOnly: connectionConfig.readOnly, user: result?.user };
  }
  const refusedWith = async (promise: Promise<unknown>) => {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Refusal);
    return { code: (err as Refusal).code, reason: (err as Refusal).reason };
  };

  it('signs an upgrade in by its session cookie and Origin, or lets it in to authenticate by token', async () => {
    expect(await extension.signIn(upgrade({ origin: 'http://evil.test', cookie: 'authlib.session-token=good' }))).toEqual({ status: 403 });
    expect(await extension.signIn(upgrade({ cookie: 'authlib.session-token=stale' }))).toEqual({ status: 401 });
    expect(await extension.signIn(upgrade({ origin: 'http://app.test', cookie: 'authlib.session-token=good' }))).toEqual({ context: { user: ada } });
    expect(await extension.signIn(upgrade({}))).toEqual({ context: { user: null, byToken: true, gate: { authenticated: false } } });
  });

  it('makes a viewer read-only and refuses anyone without a role, or a name that is no project', async () => {
    expect(await authenticate({ user: ada })).toEqual({ readOnly: true, user: undefined });
    expect(await refusedWith(authenticate({ user: { ...ada, id: 'u-eve' } }))).toEqual(CLOSE.permissionDenied);
    expect(await refusedWith(authenticate({ user: ada }, 'not-a-project'))).toEqual(CLOSE.permissionDenied);
  });

  it('lets the service’s own connection in, with no user', async () => {
    expect(await authenticate({ user: null })).toEqual({ readOnly: false, user: undefined });
  });

  it('authenticates a socket without a cookie by token: read to connect, write to edit', async () => {
    const gate = { authenticated: false };
    expect(await refusedWith(authenticate({ user: null, byToken: true, gate }, PROJECT, 'nope'))).toEqual(CLOSE.unauthorized);
    expect(await refusedWith(authenticate({ user: null, byToken: true, gate }, PROJECT, 'write-only'))).toEqual(CLOSE.insufficientScope);
    expect(gate.authenticated).toBe(false);
    expect(await authenticate({ user: null, byToken: true, gate }, PROJECT, 'read-only')).toEqual({ readOnly: true, user: tokenUser(['read']) });
    expect(gate.authenticated).toBe(true);
    expect(await authenticate({ user: null, byToken: true }, PROJECT, 'read-write')).toEqual({ readOnly: false, user: tokenUser(['read', 'write']) });
  });
});

describe('protocol', () => {
  it('reads back the stateless messages it writes, and nothing else', () => {
    expect(readStateless(statelessText({ type: 'saving', ok: false }))).toEqual({ type: 'saving', ok: false });
    expect(readStateless(statelessText({ type: 'saving', ok: true }))).toEqual({ type: 'saving', ok: true });
    expect(readStateless(statelessText({ type: 'relay', ok: false }))).toEqual({ type: 'relay', ok: false });
    expect(readStateless('{"type":"relay","ok":true}')).toEqual({ type: 'relay', ok: true });
    for (const payload of ['', 'not json', 'null', '42', '{"type":"saving"}', '{"type":"saving","ok":"no"}', '{"type":"other","ok":true}', '{"type":"relay"}']) {
      expect(readStateless(payload), payload).toBeNull();
    }
  });

  it('closes a connection whose credential ended with 4401, one whose role ended with 4403', () => {
    expect(endedCode('signed-out')).toBe(CLOSE.signedOut.code);
    expect(endedCode('token-revoked')).toBe(4401);
    expect(endedCode('token-expired')).toBe(4401);
    expect(endedCode('permission-denied')).toBe(4403);
    expect(endedCode('role-changed')).toBe(CLOSE.roleChanged.code);
  });
});
