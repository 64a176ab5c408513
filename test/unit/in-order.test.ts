// Steps of a batch done in the batch's order whatever order they are ready in (web/src/canvas/in-order.ts): the
// nodes of images added together are created in the files' order, not in upload-completion order.
import { describe, expect, it } from 'vitest';
import { InOrder } from '../../web/src/canvas/in-order.js';

describe('doing a batch in order', () => {
  it('holds a step ready early until those ahead of it are done', () => {
    const done: number[] = [];
    const order = new InOrder(4);
    const ready = (i: number) => order.ready(i, () => done.push(i));
    ready(3);
    ready(1);
    expect(done).toEqual([]);
    ready(0);
    expect(done).toEqual([0, 1]);
    ready(2);
    expect(done).toEqual([0, 1, 2, 3]);
  });

  it('lets the steps behind a skipped one go on, and runs the skipped one at once when it is ready later', () => {
    const done: number[] = [];
    const order = new InOrder(3);
    order.ready(2, () => done.push(2));
    order.ready(1, () => done.push(1));
    order.skip(0); // refused, or failed
    expect(done).toEqual([1, 2]);
    order.ready(0, () => done.push(0)); // sent again and stored
    expect(done).toEqual([1, 2, 0]);
    order.skip(1); // already done: nothing
    order.ready(7, () => done.push(7)); // not in the batch: at once
    expect(done).toEqual([1, 2, 0, 7]);
  });
});
