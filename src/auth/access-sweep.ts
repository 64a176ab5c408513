// Revocation that reaches what is open (docs/api.md "Signing out", "API tokens", "Live canvas", "Generation jobs").
// A request is checked once, when it arrives; a live socket (/api/collab) and an event stream
// (GET /api/generations/events) stay open long after. Each remembers what let it in — the session's claims
// (`SessionUser.session`: sub, sid, authAt) or the API token's id (`SessionUser.token`) — and, for a live document,
// the project and whether it may write. After every read of session revocations (every SESSION_REVOCATION_POLL_MS,
// on every instance; and at once after a sign-out made here) this sweep looks at every connection open on this
// instance and ends those whose authority ended:
//
// - a signed-out session (its own sign-out, or "sign out of all devices"): a map look-up, no query;
// - a revoked or expired token: one query for all the token ids in use here;
// - a role no longer held on the project (removed, project deleted), or a viewer's connection that may write (an
//   editor demoted): one query for all the (user, project) pairs open here. Member changes made on another
//   instance are found this way, without Redis; the instance that made them tells its own sockets at once
//   (src/collab/live-documents.ts `revalidate`).
//
// Nothing here runs per edit or per event: an edit costs what it cost before.
import type { AccessChecksRepository } from '../db/repositories/index.js';
import type { SessionRevocations } from './revocations.js';
import type { SessionUser } from './session.js';

/** Why an open connection was ended (the close reason of a socket, the `reason` of a stream's `closed` event). */
export type EndReason = 'signed-out' | 'token-revoked' | 'token-expired' | 'permission-denied' | 'role-changed';

/** One connection kept open on this instance, as the sweep sees it. */
export interface OpenConnection {
  /** Who, and by what: the session's claims (`user.session`) or the API token (`user.token`). */
  user: SessionUser;
  /** A live document connection: the project whose role it relies on, and whether it may write. */
  project?: { id: string; writes: boolean };
  /** Ends it (idempotent: a connection ended already, or closing, is left as it is). */
  end(reason: EndReason): void;
}

export interface AccessSweepDeps {
  revocations: Pick<SessionRevocations, 'isRevoked' | 'onRead'>;
  checks: AccessChecksRepository;
  /** Where the open connections are: the live documents' connections, the event streams. */
  sources: ReadonlyArray<() => Iterable<OpenConnection>>;
  log: { warn(o: object, m: string): void };
  now?: () => number;
}

export interface AccessSweep {
  stop(): void;
}

/** Ids or pairs per query, at most (a large instance checks in a few statements rather than one huge one). */
const BATCH = 1000;

async function inBatches<T, R>(items: readonly T[], run: (batch: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await run(items.slice(i, i + BATCH))));
  return out;
}

/** Ends the connections whose session was signed out; answers the others. */
function signedOut(open: OpenConnection[], revocations: AccessSweepDeps['revocations']): OpenConnection[] {
  return open.filter((c) => {
    if (!c.user.session || !revocations.isRevoked(c.user.session)) return true;
    c.end('signed-out');
    return false;
  });
}

/** Ends the connections whose token was revoked or has expired; answers the others. */
async function tokensEnded(open: OpenConnection[], checks: AccessChecksRepository, now: () => number): Promise<OpenConnection[]> {
  const ids = [...new Set(open.flatMap((c) => (c.user.token ? [c.user.token.id] : [])))];
  if (ids.length === 0) return open;
  const standing = new Map((await inBatches(ids, (batch) => checks.tokens(batch))).map((t) => [t.id, t.expiresAt?.getTime() ?? Infinity]));
  const t = now();
  return open.filter((c) => {
    if (!c.user.token) return true;
    const expiresAt = standing.get(c.user.token.id);
    if (expiresAt === undefined) c.end('token-revoked');
    else if (expiresAt <= t) c.end('token-expired');
    else return true;
    return false;
  });
}

/** Ends the live document connections whose user lost the role they rely on. */
async function rolesEnded(open: OpenConnection[], checks: AccessChecksRepository): Promise<void> {
  const key = (userId: string, projectId: string) => `${userId} ${projectId}`;
  const pairs = new Map<string, { userId: string; projectId: string }>();
  for (const c of open) if (c.project) pairs.set(key(c.user.id, c.project.id), { userId: c.user.id, projectId: c.project.id });
  if (pairs.size === 0) return;
  const roles = new Map((await inBatches([...pairs.values()], (batch) => checks.roles(batch))).map((r) => [key(r.userId, r.projectId), r.role]));
  for (const c of open) {
    if (!c.project) continue;
    const role = roles.get(key(c.user.id, c.project.id));
    if (!role) c.end('permission-denied');
    else if (role === 'viewer' && c.project.writes) c.end('role-changed');
  }
}

export function startAccessSweep({ revocations, checks, sources, log, now = Date.now }: AccessSweepDeps): AccessSweep {
  let stopped = false;
  let running = false;
  let again = false;

  async function sweep() {
    const open = sources.flatMap((source) => [...source()]);
    if (open.length === 0) return;
    const standing = await tokensEnded(signedOut(open, revocations), checks, now);
    await rolesEnded(standing, checks);
  }

  /** One sweep at a time; a read of revocations during one asks for one more after it. */
  function run() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    sweep()
      .catch((err: unknown) => {
        if (!stopped) log.warn({ err }, 'checking open connections against revocations failed; trying again at the next poll');
      })
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  }

  const unsubscribe = revocations.onRead(run);
  return {
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}
