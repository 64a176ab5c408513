// Who runs next on the image workers. A plain FIFO let one user fill every worker with long jobs (two heavy
// offline generations took both default workers, and everyone else's small generations waited ~9 s behind them).
// Here each owner (a user; '' for work of no one in particular) may hold at most `perOwner` of the `slots` at
// once, and when a slot frees, the owners with work waiting take turns (round robin), each in its own FIFO order.
// With perOwner below slots, a slot is always left for someone else whenever someone else has work.

export class FairSlots {
  private active = 0;
  private readonly running = new Map<string, number>();
  /** Owners with work waiting, in turn order (a Map keeps insertion order; an owner served moves to the end). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly slots: number,
    private readonly perOwner: number,
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
   * their share already (dispatch hands free slots out as soon as it can).
   */
  tryAcquire(owner: string): (() => void) | undefined {
    if (this.active >= this.slots || (this.running.get(owner) ?? 0) >= this.perOwner || this.waiting.has(owner)) return undefined;
    this.active++;
    this.running.set(owner, (this.running.get(owner) ?? 0) + 1);
    return this.releaser(owner);
  }

  /** Slots in use, and requests waiting (for tests and metrics). */
  get stats(): { active: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { active: this.active, waiting };
  }

  private releaser(owner: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const held = (this.running.get(owner) ?? 1) - 1;
      if (held > 0) this.running.set(owner, held);
      else this.running.delete(owner);
      this.dispatch();
    };
  }

  /** Grants free slots to the first owners in turn order who are under their share. */
  private dispatch(): void {
    while (this.active < this.slots) {
      const next = [...this.waiting.keys()].find((owner) => (this.running.get(owner) ?? 0) < this.perOwner);
      if (next === undefined) return;
      const queue = this.waiting.get(next)!;
      const grant = queue.shift()!;
      this.waiting.delete(next);
      if (queue.length > 0) this.waiting.set(next, queue); // back of the line
      this.active++;
      this.running.set(next, (this.running.get(next) ?? 0) + 1);
      grant();
    }
  }
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}
