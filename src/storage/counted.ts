// The object store as the services see it: the same store, with each failure that is the store's own (unreachable,
// timed out, full: ./errors.ts storeFailure) counted as it reaches a caller — an upload, a generation's result, a
// thumbnail, the deletion sweep — for the metric `image_canvas_store_failures_total{result}` (docs/deploy.md
// "Metrics"). Other errors (an object too large, one that exists) and successes pass unchanged; the store's identity
// and its other properties (kind, urlOf, …) are the store's.
import { storeFailure } from './errors.js';
import type { ObjectStore } from './object-store.js';

/** Methods whose promise fails when the store does. */
const CALLS = new Set<keyof ObjectStore>(['put', 'get', 'head', 'delete', 'check']);

export function countedStore<S extends ObjectStore>(store: S, failed: (result: 'unavailable' | 'full') => void): S {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || !CALLS.has(prop as keyof ObjectStore)) return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((err: unknown) => {
          const failure = storeFailure(err);
          if (failure) failed(failure.full ? 'full' : 'unavailable');
          throw err;
        });
    },
  });
}
