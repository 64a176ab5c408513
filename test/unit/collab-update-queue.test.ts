// The write path of live documents (src/collab/update-queue.ts) on a store driven by the test: group commit,
// retries that lose nothing, a deleted project's changes dropped alone, the per-project counters, and stop().
import { describe, expect, it } from 'vitest';
import type { CollabAppend } from '../../src/db/repositories/index.js';
import { createUpdateQueue, ProjectGoneError, type UpdateQueueDeps } from '../../src/collab/update-queue.js';

interface Call {
  batch: CollabAppend[];
  resolve(versions: Map<string, number>): void;
  reject(err: unknown): void;
}

/**
 * A store whose every call waits for the test: `next()` resolves with the next call (made or to come), which the
 * test then answers with `stored()` (each project's version: its changes so far) or `fail(err)`.
 */
function testStore() {
  const calls: Call[] = [];
  const waiting: Array<(call: Call) => void> = [];
  let taken = 0;
  const versions = new Map<string, number>();
  const store: UpdateQueueDeps['store'] = (changes) =>
    new Promise((resolve, reject) => {
      const call = { batch: [...changes], resolve, reject };
      calls.push(call);
      waiting.shift()?.(call);
    });
  return {
    store,
    calls,
    /** The next call not yet taken. */
    next(): Promise<Call> {
      const call = calls[taken];
      if (call) {
        taken++;
        return Promise.resolve(call);
      }
      return new Promise((resolve) =>
        waiting.push((c) => {
          taken++;
          resolve(c);
        }),
      );
    },
    /** Answers a call as the database would: each change adds one to its project's version. */
    stored(call: Call) {
      for (const c of call.batch) versions.set(c.projectId, (versions.get(c.projectId) ?? 0) + 1);
      call.resolve(new Map([...new Set(call.batch.map((c) => c.projectId))].map((p) => [p, versions.get(p)!])));
    },
  };
}

function queueOn(store: UpdateQueueDeps['store'], options: Partial<UpdateQueueDeps> = {}) {
  const saving: boolean[] = [];
  const errors: string[] = [];
  const queue = createUpdateQueue({
    store,
    onSaving: (ok) => saving.push(ok),
    log: { warn: () => undefined, error: (_o, m) => errors.push(m) },
    maxHeldBytes: 1024 * 1024,
    retryMs: [0],
    ...options,
  });
  return { queue, saving, errors };
}

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);
/** Lets every promise callback and immediate that can run, run (no timer). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Whether the promise has settled by now. */
async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turn();
  return settled;
}

describe('update queue', () => {
  it('group-commits: what queues while a statement runs goes into the next one, in order; each change resolves with its version', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store);
    const first = queue.append('p', bytes(3, 0));
    const running = await s.next();
    expect(running.batch).toHaveLength(1);
    const more = Array.from({ length: 100 }, (_, i) => queue.append(i % 2 ? 'p' : 'q', i % 10 ? bytes(2, i) : null));
    s.stored(running);
    expect(await first).toBe(1);
    const grouped = await s.next();
    expect(grouped.batch.map((c) => c.update?.[0] ?? null)).toEqual(Array.from({ length: 100 }, (_, i) => (i % 10 ? i : null)));
    s.stored(grouped);
    expect(await Promise.all(more)).toEqual(Array.from({ length: 100 }, (_, i) => (i % 2 ? 51 : 50)));
    expect(s.calls).toHaveLength(2);
  });

  it('with intervalMs, a statement waits that long after the previous one started, so what comes meanwhile is stored together', async () => {
    for (const intervalMs of [0, 40]) {
      const s = testStore();
      const { queue } = queueOn(s.store, { intervalMs });
      const startedAt: number[] = [];
      const store = s.next.bind(s);
      const next = async () => {
        const call = await store();
        startedAt.push(performance.now());
        return call;
      };
      const first = queue.append('p', bytes(1, 1));
      s.stored(await next());
      await first;
      await turn(); // the queue is idle again
      // One change, then, a turn of the event loop later (after its statement could have started), another.
      const b = queue.append('p', bytes(1, 2));
      await turn();
      const c = queue.append('p', bytes(1, 3));
      const second = await next();
      if (intervalMs === 0) {
        expect(second.batch.map((x) => x.update?.[0])).toEqual([2]); // as soon as it could: c goes in a third
        s.stored(second);
        s.stored(await next());
      } else {
        expect(second.batch.map((x) => x.update?.[0])).toEqual([2, 3]);
        expect(startedAt[1] - startedAt[0]).toBeGreaterThanOrEqual(intervalMs - 1);
        s.stored(second);
      }
      expect(await Promise.all([b, c])).toEqual([3, 3].map((v, i) => (intervalMs === 0 ? 2 + i : v)));
      await queue.drain();
    }
  });

  it('an urgent change (one the service awaits) does not wait out intervalMs, and takes what waited with it', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store, { intervalMs: 60_000 });
    const first = queue.append('p', bytes(1, 1));
    s.stored(await s.next());
    await first;
    await turn();
    const edit = queue.append('p', bytes(1, 2)); // a person's edit: would wait a minute
    await turn();
    expect(s.calls).toHaveLength(1);
    const save = queue.append('p', bytes(1, 3), true);
    const call = await s.next();
    expect(call.batch.map((c) => c.update?.[0])).toEqual([2, 3]);
    s.stored(call);
    expect(await Promise.all([edit, save])).toEqual([3, 3]);
    queue.stop();
  });

  it('splits what is queued into statements of at most maxBatch changes', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store, { maxBatch: 4 });
    const all = Array.from({ length: 10 }, () => queue.append('p', bytes(1)));
    for (const size of [4, 4, 2]) {
      const call = await s.next();
      expect(call.batch).toHaveLength(size);
      s.stored(call);
    }
    expect(await Promise.all(all)).toEqual([4, 4, 4, 4, 8, 8, 8, 8, 10, 10]);
  });

  it('retries a failing statement with nothing lost or reordered, says saving stopped (false) then works again (true)', async () => {
    const s = testStore();
    const { queue, saving, errors } = queueOn(s.store);
    const a = queue.append('p', bytes(1, 1));
    const failed = await s.next();
    const b = queue.append('p', bytes(1, 2)); // queued while the statement that will fail runs
    failed.reject(Object.assign(new Error('connection terminated'), { code: '57P01' }));
    const retried = await s.next();
    expect(saving).toEqual([false]);
    expect(queue.failing()).toBe(true);
    expect(errors).toHaveLength(1);
    expect(retried.batch.map((c) => c.update![0])).toEqual([1, 2]);
    expect(await isSettled(a)).toBe(false);
    expect(queue.pending('p')).toBe(2);
    s.stored(retried);
    expect(await Promise.all([a, b])).toEqual([2, 2]);
    expect(saving).toEqual([false, true]);
    expect(queue.failing()).toBe(false);
    expect(queue.pending('p')).toBe(0);
  });

  it('drops only the changes of a deleted project (foreign-key violation 23503): they reject with ProjectGoneError, others are stored', async () => {
    const s = testStore();
    const { queue, saving } = queueOn(s.store);
    const blocker = queue.append('ok', bytes(1));
    const first = await s.next();
    const gone = [queue.append('gone', bytes(1)), queue.append('gone', null)];
    const kept = [queue.append('ok', bytes(1)), queue.append('other', bytes(1))];
    s.stored(first);
    await blocker;
    const together = await s.next();
    expect(together.batch.map((c) => c.projectId)).toEqual(['gone', 'gone', 'ok', 'other']);
    together.reject(Object.assign(new Error('violates foreign key constraint'), { code: '23503' }));
    // Each project alone, in order: the deleted one fails again; the others go through.
    const alone = await s.next();
    expect(alone.batch.map((c) => c.projectId)).toEqual(['gone', 'gone']);
    alone.reject({ cause: { code: '23503' } }); // as wrapped by a driver layer
    for (const project of ['ok', 'other']) {
      const call = await s.next();
      expect(call.batch.map((c) => c.projectId)).toEqual([project]);
      s.stored(call);
    }
    for (const p of gone) await expect(p).rejects.toBeInstanceOf(ProjectGoneError);
    expect(await Promise.all(kept)).toEqual([2, 1]);
    expect(saving).toEqual([]); // a deleted project is no saving failure
    expect([queue.pending('gone'), queue.pending('ok'), queue.pending('other')]).toEqual([0, 0, 0]);
  });

  it('counts per project: pending while queued or being stored, seq of every change ever queued; settled waits for them', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store);
    expect([queue.pending('p'), queue.seq('p')]).toEqual([0, 0]);
    await queue.settled('p'); // nothing queued: at once
    const a = queue.append('p', bytes(1));
    const b = queue.append('p', null);
    const c = queue.append('q', bytes(1));
    expect([queue.pending('p'), queue.seq('p'), queue.pending('q'), queue.seq('q')]).toEqual([2, 2, 1, 1]);
    const settled = queue.settled('p');
    const call = await s.next();
    expect(await isSettled(settled)).toBe(false);
    expect(queue.pending('p')).toBe(2); // being stored still counts
    s.stored(call);
    await settled;
    await Promise.all([a, b, c]);
    expect([queue.pending('p'), queue.seq('p'), queue.pending('q'), queue.seq('q')]).toEqual([0, 2, 0, 1]);
  });

  it('is full while it holds maxHeldBytes of updates, and not once they are stored', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store, { maxHeldBytes: 10 });
    const a = queue.append('p', bytes(6));
    expect(queue.full()).toBe(false);
    const b = queue.append('p', bytes(4));
    expect(queue.full()).toBe(true);
    s.stored(await s.next());
    await Promise.all([a, b]);
    expect(queue.full()).toBe(false);
  });

  it('stop rejects what is queued and any later append; the statement already running still settles its changes', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store);
    const running = queue.append('p', bytes(1));
    const call = await s.next();
    const queued = [queue.append('p', bytes(1)), queue.append('q', null)];
    const drained = queue.drain();
    queue.stop();
    for (const p of queued) await expect(p).rejects.toThrow('live documents are closed');
    await expect(queue.append('p', bytes(1))).rejects.toThrow('live documents are closed');
    await drained;
    expect(queue.pending('q')).toBe(0);
    s.stored(call);
    expect(await running).toBe(1);
    expect(queue.pending('p')).toBe(0);
    expect(s.calls).toHaveLength(1);
  });

  it('after stop, a running statement that fails rejects its changes instead of retrying', async () => {
    const s = testStore();
    const { queue } = queueOn(s.store);
    const running = queue.append('p', bytes(1));
    const call = await s.next();
    queue.stop();
    call.reject(new Error('connection terminated'));
    await expect(running).rejects.toThrow('live documents are closed');
    await turn();
    expect(s.calls).toHaveLength(1);
  });
});
