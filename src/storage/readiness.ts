// The object store's readiness check (GET /api/ready, `checks.storage`): reachable on every call (the driver's
// cheap `check()`: the folder, container or bucket answers), and writable at most every `writeEverySeconds`: a
// one-byte probe object is written and deleted again. A store that answers but cannot take a write (a full disk, a
// used-up quota, a read-only mount) is then reported as such instead of ready. Only successes are remembered: once a
// probe has failed, every check writes again until one succeeds.
import { randomUUID } from 'node:crypto';
import { StorageUnavailableError, storeFailure } from './errors.js';
import type { ObjectStore } from './object-store.js';

/** What readiness reports for the store. */
export type StoreReadiness = 'ok' | 'unavailable' | 'full';

/** Thrown by the check: `readiness` is the value /api/ready reports (`full` or `unavailable`). */
export class StoreNotReadyError extends Error {
  constructor(
    readonly readiness: Exclude<StoreReadiness, 'ok'>,
    options?: { cause?: unknown },
  ) {
    super(`object storage ${readiness}`, options);
  }
}

/** The prefix of the probe objects' names (never a name the service gives an image). */
export const PROBE_PREFIX = 'readiness-probe-';

/** `report` is told what each check found (the metrics `image_canvas_store_up` / `_full`). */
export function storeReadinessCheck(
  store: Pick<ObjectStore, 'check' | 'put' | 'delete'>,
  opts: { writeEverySeconds: number; now?: () => number; report?: (state: StoreReadiness) => void },
): () => Promise<void> {
  const now = opts.now ?? Date.now;
  let lastWritten = -Infinity;
  return async () => {
    try {
      await store.check();
      if (now() - lastWritten >= opts.writeEverySeconds * 1000) {
        const name = `${PROBE_PREFIX}${randomUUID()}`;
        await store.put(name, Buffer.from('1'), { contentType: 'text/plain', maxBytes: 1 });
        await store.delete(name);
        lastWritten = now();
      }
      opts.report?.('ok');
    } catch (err) {
      const failure = storeFailure(err) ?? new StorageUnavailableError(err);
      const readiness = failure.full ? 'full' : 'unavailable';
      opts.report?.(readiness);
      throw new StoreNotReadyError(readiness, { cause: err });
    }
  };
}
