// The event streams open on this instance (GET /api/generations/events; docs/api.md "Generation jobs"): at most
// EVENT_STREAMS_PER_USER per user here — one more ends that user's oldest — and each remembers what let it in, so
// the access sweep (src/auth/access-sweep.ts) ends the streams of a signed-out session or a revoked token. A stream
// ended by the service gets a last event saying why (`event: closed`, `data: {"reason": …}`) before it closes.
import type { EndReason, OpenConnection } from '../auth/access-sweep.js';
import type { SessionUser } from '../auth/session.js';

/** Why the service ended a stream: its credential or role ended (the access sweep), or the user opened too many. */
export type StreamEndReason = EndReason | 'too-many-streams';

export interface EventStreams {
  /**
   * Registers a stream of `user`'s, and `end` to end it (with its last event). When the user then has more than
   * the cap open here, their oldest is ended (`too-many-streams`). Returns what to call once the stream has closed.
   */
  add(user: SessionUser, end: (reason: StreamEndReason) => void): () => void;
  /** The streams open here, for the access sweep. */
  open(): Iterable<OpenConnection>;
  /** How many are open here. */
  count(): number;
}

/** The last event of a stream the service ends. */
export const closedEvent = (reason: StreamEndReason): string => `event: closed\ndata: ${JSON.stringify({ reason })}\n\n`;

export function createEventStreams({ perUser }: { perUser: number }): EventStreams {
  interface Entry {
    user: SessionUser;
    end(reason: StreamEndReason): void;
  }
  /** By user: their open streams in the order they opened (a Set keeps insertion order). */
  const byUser = new Map<string, Set<Entry>>();
  let total = 0;

  function remove(entry: Entry) {
    const own = byUser.get(entry.user.id);
    if (!own?.delete(entry)) return;
    total--;
    if (own.size === 0) byUser.delete(entry.user.id);
  }

  return {
    add(user, end) {
      const entry: Entry = { user, end };
      const own = byUser.get(user.id) ?? new Set<Entry>();
      byUser.set(user.id, own);
      own.add(entry);
      total++;
      for (const oldest of own) {
        if (own.size <= perUser) break;
        remove(oldest);
        oldest.end('too-many-streams');
      }
      return () => remove(entry);
    },
    *open() {
      for (const own of byUser.values()) {
        for (const entry of own) yield { user: entry.user, end: (reason: EndReason) => entry.end(reason) };
      }
    },
    count: () => total,
  };
}
