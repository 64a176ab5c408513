// Who runs next on a set of slots: the image workers (./imaging/pool.ts) and each model's calls on this instance
// (./models/wrappers.ts). A plain FIFO let one user fill every worker with long jobs (two heavy offline
// generations took both default workers, and everyone else's small generations waited ~9 s behind them), and
// several users fill every model-call slot (three accounts within every per-user limit held a fourth user's
// 28 ms generation 12.5 s). Here each owner (a user; '' for work of no one in particular) may hold at most
// `perOwner` of the `slots` at once, and when a slot frees, the owners with work waiting take turns (round robin:
// the owner served longest ago first, one never served before all), each in its own FIFO order. With perOwner
// below slots, a slot is always left for someone else whenever someone else has work.
// With a `reserve`, the last `reserve` free slots go only to a rested owner: one holding none whose last slot was
// given back at least as long ago as it was held (a user who just ran a 20 s task is not rested for 20 s; one
// whose last task took 50 ms, after 50 ms). So however many users each keep long work going, back to back, a
// slot stays free for someone whose work is short. The reserve may stay idle while only busy owners wait: that is
// its price (a timer hands it out once a waiting owner has rested).

export class FairSlots {
  private active = 0;
  private readonly running = new Map<string, number>();
  /** Owners with work waiting, in the order they came (the tie-break between owners never served). */
  private readonly waiting = new Map<string, Array<() => void>>();
  /** When each owner was last granted a slot (a count of grants); an owner not in it was never served (or long ago). */
  private readonly served = new Map<string, number>();
  private grants = 0;
  /** When each owner is rested (the clock's time), from its latest release; absent: rested. */
  private readonly rests = new Map<string, number>();
  private wake: NodeJS.Timeout | undefined;

  /**
   * `reserve`: slots kept for rested owners (0: none); `now`: the clock in milliseconds (Date.now; tests fake it).
   */
  constructor(
    private readonly slots: number,
    private readonly perOwner: number,
    private readonly reserve = 0,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Resolves with the release function once `owner` has a slot. A signal that aborts while waiting takes the
   * request out of the queue and rejects with the signal's reason.
   */
  acquire(owner: string, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(reasonOf(signal));
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser(owner));
      };
      const onAbort = () => {
        const queue = this.waiting.get(owner);
        const at = queue?.indexOf(grant) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.waiting.delete(owner);
        }
        reject(reasonOf(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(owner);
      if (queue) queue.push(grant);
      else this.waiting.set(owner, [grant]);
      this.dispatch();
    });
  }

  /**
   * A slot for `owner` now, or undefined. Nobody is passed over: a slot is free only when everyone waiting holds
   * their share already, or only the reserve is left and they have not rested (dispatch hands free slots out as
   * soon as it can).
   */
  tryAcquire(owner: string): (() => void) | undefined {
    if (this.active >= this.slots || !this.mayTake(owner) || this.waiting.has(owner)) return undefined;
    this.take(owner);
    return this.releaser(owner);
  }

  /** Slots in use, and requests waiting (for tests and metrics). */
  get stats(): { active: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { active: this.active, waiting };
  }

  /** Whether `owner` may take a free slot now: under its share, and the reserve only when rested. */
  private mayTake(owner: string): boolean {
    const held = this.running.get(owner) ?? 0;
    if (held >= this.perOwner) return false;
    return this.slots - this.active > this.reserve || (held === 0 && this.restedAt(owner) <= this.now());
  }

  private restedAt(owner: string): number {
    return this.rests.get(owner) ?? 0;
  }

  private take(owner: string): void {
    this.active++;
    this.running.set(owner, (this.running.get(owner) ?? 0) + 1);
    this.served.delete(owner); // re-inserted: the Map stays in serving order, the longest ago first
    this.served.set(owner, ++this.grants);
    if (this.served.size > MAX_REMEMBERED) this.forgetIdle();
  }

  /** Bounds what is remembered of owners: those with nothing running or waiting, the longest ago first. */
  private forgetIdle(): void {
    const now = this.now();
    for (const [owner, at] of this.rests) if (at <= now) this.rests.delete(owner);
    for (const owner of this.served.keys()) {
      if (this.served.size <= MAX_REMEMBERED / 2) return;
      if (!this.running.has(owner) && !this.waiting.has(owner)) this.served.delete(owner);
    }
  }

  private releaser(owner: string): () => void {
    let released = false;
    const since = this.now();
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const held = (this.running.get(owner) ?? 1) - 1;
      if (held > 0) this.running.set(owner, held);
      else this.running.delete(owner);
      if (this.reserve > 0) {
        const now = this.now();
        const rested = now + (now - since);
        if (rested > now && rested > this.restedAt(owner)) this.rests.set(owner, rested);
      }
      this.dispatch();
    };
  }

  /** Grants free slots, each to the waiting owner who may take it and was served longest ago (never: first). */
  private dispatch(): void {
    clearTimeout(this.wake);
    this.wake = undefined;
    while (this.active < this.slots) {
      let next: string | undefined;
      let at = Infinity;
      for (const owner of this.waiting.keys()) {
        const last = this.served.get(owner) ?? 0;
        if (last < at && this.mayTake(owner)) {
          next = owner;
          at = last;
          if (last === 0) break; // never served, and the first such to come
        }
      }
      if (next === undefined) return this.wakeWhenRested();
      const queue = this.waiting.get(next)!;
      const grant = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(next);
      this.take(next);
      grant();
    }
  }

  /** A slot of the reserve is free and only owners who have not rested wait: dispatch again when the first has. */
  private wakeWhenRested(): void {
    let first = Infinity;
    for (const owner of this.waiting.keys()) if (!this.running.has(owner)) first = Math.min(first, this.restedAt(owner));
    if (first === Infinity) return;
    this.wake = setTimeout(() => this.dispatch(), Math.max(0, first - this.now()));
    this.wake.unref();
  }
}

/** Owners whose last turn is remembered (beyond it, idle ones are forgotten: they count as never served). */
const MAX_REMEMBERED = 10_000;

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}
