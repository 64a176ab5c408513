// V8 garbage-collector settings for the service's process: src/server.ts sets them before the app starts, and the
// load test (`npm run load`) sets them in the process it measures. Why, as measured with the live mode at 1,000
// editors on 200 open 200-node documents (a ~400 MB heap; issue 16's closing note has the runs):
// - Allocation-site pretenuring off. V8 had decided that the Maps and structs Yjs allocates while applying an
//   update survive, and allocated them straight in the old generation, where they died soon after: the old
//   generation grew ~4.3 MB a second and needed a full (marking) collection every ~40 s. Marking a 400 MB heap
//   holds the event loop up for ~0.4 s when no core is spare for V8's concurrent marking. Without pretenuring,
//   they die young: ~0.5 MB a second reaches the old generation.
// - The memory reducer off. It starts full collections to give memory back when allocation slows; after a full
//   collection it started two more within 20 s on a busy service, each a ~0.4 s hold-up. The heap then keeps
//   its size until allocation needs a collection again.
import v8 from 'node:v8';

export const GC_FLAGS = ['--no-allocation-site-pretenuring', '--no-memory-reducer'] as const;

/** Applies GC_FLAGS to this process (V8 reads both when it decides, so setting them at run time takes effect). */
export function tuneGarbageCollector(): void {
  for (const flag of GC_FLAGS) v8.setFlagsFromString(flag);
}
