// Turns on the image workers and model-call slots (src/fair-slots.ts): an owner never holds more than its
// share of the slots, so one user's long jobs always leave a slot for others; owners with work waiting take turns,
// the one served longest ago first; the reserve goes only to an owner who has rested; an abort while waiting
// leaves the queue. The reserve's clock is faked (vi.useFakeTimers): no test waits for real time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FairSlots } from '../../src/fair-slots.js';

/** Acquires and records the order in which grants arrive. */
function recorder(slots: FairSlots) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (owner: string, label: string, signal?: AbortSignal) =>
    slots.acquire(owner, signal).then((release) => {
      granted.push(label);
      releases.set(label, release);
    });
  /** Lets pending grants run (they resolve on the microtask queue). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { granted, ask, settle, release: (label: string) => releases.get(label)!() };
}

describe('FairSlots', () => {
  it('one owner holds at most its share; the free slot serves another owner at once', async () => {
    const slots = new FairSlots(2, 1);
    const r = recorder(slots);
    void r.ask('abuser', 'a1');
    void r.ask('abuser', 'a2');
    await r.settle();
    expect(r.granted).toEqual(['a1']); // a2 waits although a slot is free: the abuser has its share
    void r.ask('ada', 'ada1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'ada1']);
    expect(slots.stats).toEqual({ active: 2, waiting: 1 });
    r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'ada1', 'a2']);
  });

  it('owners with work waiting take turns, each in its own order', async () => {
    const slots = new FairSlots(1, 1);
    const r = recorder(slots);
    void r.ask('x', 'first');
    await r.settle();
    for (const label of ['a1', 'a2', 'a3']) void r.ask('a', label);
    void r.ask('b', 'b1');
    void r.ask('c', 'c1');
    void r.ask('b', 'b2');
    await r.settle();
    for (const label of ['first', 'a1', 'b1', 'c1', 'a2', 'b2']) {
      r.release(label);
      await r.settle();
    }
    expect(r.granted).toEqual(['first', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('a signal that aborts while waiting takes the request out of the queue', async () => {
    const slots = new FairSlots(1, 1);
    const r = recorder(slots);
    void r.ask('a', 'a1');
    const controller = new AbortController();
    const waiting = r.ask('b', 'b1', controller.signal);
    void r.ask('c', 'c1');
    await r.settle();
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(slots.stats).toEqual({ active: 1, waiting: 1 });
    r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'c1']);
    await expect(slots.acquire('d', AbortSignal.abort())).rejects.toThrow();
  });

  it('tryAcquire takes a free slot at once, never one someone waiting could have', async () => {
    const slots = new FairSlots(2, 1);
    const a = slots.tryAcquire('a');
    expect(a).toBeTypeOf('function');
    expect(slots.tryAcquire('a')).toBeUndefined(); // over its share
    const r = recorder(slots);
    void r.ask('a', 'a2');
    expect(slots.tryAcquire('b')).toBeTypeOf('function'); // a2 waits for a's share, not for a slot
    expect(slots.tryAcquire('c')).toBeUndefined(); // no slot left
    a!();
    await r.settle();
    expect(r.granted).toEqual(['a2']);
  });

  it('a release counts once', async () => {
    const slots = new FairSlots(1, 1);
    const release = await slots.acquire('a');
    release();
    release();
    expect(slots.stats).toEqual({ active: 0, waiting: 0 });
    await slots.acquire('b');
    expect(slots.stats).toEqual({ active: 1, waiting: 0 });
  });

  it('the owner served longest ago goes first: one who was served already waits behind one never served', async () => {
    const slots = new FairSlots(2, 2);
    const r = recorder(slots);
    void r.ask('ann', 'ann1');
    void r.ask('bob', 'bob1');
    await r.settle();
    for (const [owner, label] of [['ann', 'ann2'], ['bob', 'bob2'], ['cy', 'cy1']]) void r.ask(owner, label);
    await r.settle();
    r.release('ann1');
    await r.settle();
    expect(r.granted).toEqual(['ann1', 'bob1', 'cy1']); // a plain queue would have given ann2 the slot
    r.release('bob1');
    await r.settle();
    expect(r.granted).toEqual(['ann1', 'bob1', 'cy1', 'ann2']); // ann was served before bob
  });
});

describe('FairSlots with a reserve', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps the last slot for an owner holding none: users who each run one call still leave it to a newcomer', async () => {
    vi.useFakeTimers({ now: 0 });
    const slots = new FairSlots(4, 4, 1);
    const r = recorder(slots);
    for (const [owner, label] of [['ann', 'ann1'], ['bob', 'bob1'], ['cy', 'cy1'], ['ann', 'ann2'], ['bob', 'bob2']]) void r.ask(owner, label);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.granted).toEqual(['ann1', 'bob1', 'cy1']); // ann2 and bob2 would take the last slot
    expect(slots.tryAcquire('cy')).toBeUndefined(); // so would cy's second
    void r.ask('dee', 'dee1');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.granted).toEqual(['ann1', 'bob1', 'cy1', 'dee1']);
  });

  it('gives the reserve to an owner who has rested as long as its last slot was held, and hands it out when one has', async () => {
    vi.useFakeTimers({ now: 0 });
    const slots = new FairSlots(2, 2, 1);
    const r = recorder(slots);
    void r.ask('heavy', 'h1');
    void r.ask('other', 'o1'); // never served: rested, so the last slot is its
    await vi.advanceTimersByTimeAsync(20_000);
    r.release('o1'); // held 20 s: other rests until 40 s
    void r.ask('other', 'o2');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.granted).toEqual(['h1', 'o1']); // o2 waits although a slot is free
    void r.ask('light', 'l1');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.granted).toEqual(['h1', 'o1', 'l1']); // a newcomer takes it at once
    await vi.advanceTimersByTimeAsync(50);
    r.release('l1'); // held 50 ms: light rests until 20.1 s
    void r.ask('light', 'l2');
    await vi.advanceTimersByTimeAsync(49);
    expect(r.granted).toEqual(['h1', 'o1', 'l1']);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.granted).toEqual(['h1', 'o1', 'l1', 'l2']); // light has rested: its turn comes before o2's
    r.release('l2');
    await vi.advanceTimersByTimeAsync(19_000);
    expect(r.granted).toEqual(['h1', 'o1', 'l1', 'l2']); // other rests until 40 s
    await vi.advanceTimersByTimeAsync(900);
    expect(r.granted).toEqual(['h1', 'o1', 'l1', 'l2', 'o2']);
  });
});
