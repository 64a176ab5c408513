// Doing the steps of a batch in the batch's order, whatever order they become ready in (issue 34 point 3): images
// added together are uploaded side by side and finish in any order, but their nodes are created — and so named,
// canvas/names.ts: "Image 1, 2, 3" in document order — in the order the files were chosen. A step ready before
// those ahead of it waits for them; a step that will not happen for now (its file refused, or its upload failed)
// lets the ones behind it go on, and runs at once if it becomes ready later (sent again). No React and no DOM:
// unit-tested in test/unit/in-order.test.ts.

type Slot = { state: 'waiting' } | { state: 'ready'; run: () => void } | { state: 'passed' };

export class InOrder {
  private readonly slots: Slot[];
  /** The first slot not yet passed: every slot before it has run or been skipped. */
  private next = 0;

  constructor(count: number) {
    this.slots = Array.from({ length: count }, () => ({ state: 'waiting' }));
  }

  /** Step `index` is ready: `run` runs now if every step ahead of it is done, else once they are. */
  ready(index: number, run: () => void): void {
    const slot = this.slots[index];
    if (!slot) return run();
    if (index < this.next || slot.state === 'passed') return run(); // skipped before, ready now: at once
    this.slots[index] = { state: 'ready', run };
    this.flush();
  }

  /** Step `index` will not happen for now (refused, failed): the steps behind it need not wait for it. */
  skip(index: number): void {
    const slot = this.slots[index];
    if (!slot || slot.state !== 'waiting') return;
    this.slots[index] = { state: 'passed' };
    this.flush();
  }

  private flush(): void {
    while (this.next < this.slots.length) {
      const slot = this.slots[this.next];
      if (slot.state === 'waiting') return;
      this.slots[this.next] = { state: 'passed' };
      this.next += 1;
      if (slot.state === 'ready') slot.run();
    }
  }
}
