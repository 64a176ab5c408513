// Job events for whoever follows them (GET /api/generations/events), and job cancels for the instance running a
// POST /api/image job (it aborts the model call; the announcement names the job, so nothing is read): each
// instance holds one PostgreSQL connection that LISTENs on the events channel; a committed event announces its
// user, and every follower of that user on this instance reads what is new from `generation_job_events`. A follower
// keeps its own cursor (the last id it delivered) and reads one batch at a time, so it delivers each event once and in
// id order; since a user's ids commit in order (recorded under the user's job lock), nothing is skipped.
// The listening connection is opened with the first follower. If it drops, it is opened again (after a pause that
// grows to RECONNECT_MAX_MS) and every follower reads again, catching what was announced while it was down. (A cancel
// announced meanwhile does not abort its model call early; the job still records nothing, see generation-jobs.ts.)
import pg from 'pg';
import { JOB_EVENTS_CHANNEL, type GenerationJobEvent, type GenerationJobsRepository } from '../db/repositories/generation-jobs.js';

export type { GenerationJobEvent };

export interface JobEvents {
  /**
   * Delivers the user's events after `afterId` (null: only those recorded from now on) to `onEvent`, in order, until
   * the returned stop is called. Rejects when PostgreSQL cannot be reached.
   */
  follow(userId: string, afterId: number | null, onEvent: (event: GenerationJobEvent) => void): Promise<() => void>;
  /**
   * Calls `onCancel` when the job's cancel is committed (on any instance), until the returned stop is called; reads
   * nothing (the announcement says it). Rejects when PostgreSQL cannot be reached.
   */
  onCanceled(jobId: string, onCancel: () => void): Promise<() => void>;
  /** Closes the listening connection; followers get nothing more. */
  close(): Promise<void>;
}

export interface JobEventsDeps {
  /** The listening connection's: DATABASE_DIRECT_URL when set (LISTEN needs a session of its own). */
  url: string;
  events: Pick<GenerationJobsRepository, 'eventsAfter' | 'lastEventId'>;
  log: { warn(o: object, m: string): void };
}

const BATCH = 100;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

interface Follower {
  userId: string;
  cursor: number;
  onEvent: (event: GenerationJobEvent) => void;
  reading: boolean;
  again: boolean;
  stopped: boolean;
}

export function createJobEvents({ url, events, log }: JobEventsDeps): JobEvents {
  const followers = new Map<string, Set<Follower>>();
  const cancelWatchers = new Map<string, Set<() => void>>();
  let listening: Promise<pg.Client> | undefined;
  let closed = false;
  let retryMs = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  async function read(f: Follower): Promise<void> {
    if (f.reading) {
      f.again = true;
      return;
    }
    f.reading = true;
    try {
      do {
        f.again = false;
        let batch: GenerationJobEvent[];
        do {
          batch = await events.eventsAfter(f.userId, f.cursor, BATCH);
          for (const event of batch) {
            if (f.stopped) return;
            f.cursor = event.id;
            f.onEvent(event);
          }
        } while (batch.length === BATCH);
      } while (f.again && !f.stopped);
    } catch (err) {
      // The next announcement (or reconnection) reads again from the same cursor: nothing is skipped.
      log.warn({ err, userId: f.userId }, 'could not read job events');
    } finally {
      f.reading = false;
    }
  }

  const wake = (userId: string) => {
    for (const f of followers.get(userId) ?? []) void read(f);
  };

  function reconnectLater() {
    if (closed || retryTimer || (followers.size === 0 && cancelWatchers.size === 0)) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      listen().then(
        () => {
          for (const userId of followers.keys()) wake(userId); // what was announced while the connection was down
        },
        () => reconnectLater(),
      );
    }, retryMs);
    retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
  }

  function listen(): Promise<pg.Client> {
    listening ??= (async () => {
      const client = new pg.Client({ connectionString: url, application_name: 'image-canvas-events' });
      const lost = (err?: unknown) => {
        if (err) log.warn({ err }, 'job events: the listening connection failed');
        if (listening === current) listening = undefined;
        client.removeAllListeners('notification');
        client.end().catch(() => {});
        reconnectLater();
      };
      client.on('error', lost);
      client.on('end', () => lost());
      client.on('notification', (msg) => {
        if (msg.channel !== JOB_EVENTS_CHANNEL || !msg.payload) return;
        const [userId, canceledJobId] = msg.payload.split(' ');
        wake(userId);
        if (canceledJobId) for (const onCancel of cancelWatchers.get(canceledJobId) ?? []) onCancel();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${JOB_EVENTS_CHANNEL}`);
      } catch (err) {
        client.removeAllListeners('end');
        client.end().catch(() => {});
        throw err;
      }
      retryMs = RECONNECT_MIN_MS;
      return client;
    })();
    const current = listening;
    current.catch(() => {
      if (listening === current) listening = undefined;
    });
    return current;
  }

  return {
    async follow(userId, afterId, onEvent) {
      if (closed) throw new Error('job events are closed');
      await listen(); // first: an event committed after the cursor is read is then announced to us
      const cursor = afterId ?? (await events.lastEventId(userId));
      const f: Follower = { userId, cursor, onEvent, reading: false, again: false, stopped: false };
      const set = followers.get(userId) ?? new Set<Follower>();
      followers.set(userId, set.add(f));
      void read(f);
      return () => {
        f.stopped = true;
        set.delete(f);
        if (set.size === 0 && followers.get(userId) === set) followers.delete(userId);
      };
    },
    async onCanceled(jobId, onCancel) {
      if (closed) throw new Error('job events are closed');
      await listen();
      const set = cancelWatchers.get(jobId) ?? new Set<() => void>();
      cancelWatchers.set(jobId, set.add(onCancel));
      return () => {
        set.delete(onCancel);
        if (set.size === 0 && cancelWatchers.get(jobId) === set) cancelWatchers.delete(jobId);
      };
    },
    async close() {
      closed = true;
      cancelWatchers.clear();
      clearTimeout(retryTimer);
      followers.clear();
      const client = await listening?.catch(() => undefined);
      listening = undefined;
      if (client) {
        client.removeAllListeners('end');
        await client.end().catch(() => {});
      }
    },
  };
}
