// Decorators around any ImageModel: a fallback model, and a timeout with a per-instance concurrency cap.
import { type GenerateRequest, type ImageModel, ModelFailedError, ModelQuotaError } from './image-model.js';

/** Tries `fallback` when `primary` fails or is over quota; `result.model` says which one answered. */
export function withFallback(primary: ImageModel, fallback: ImageModel): ImageModel {
  return {
    id: primary.id,
    async generate(req) {
      try {
        const result = await primary.generate(req);
        return { ...result, model: result.model ?? primary.id };
      } catch (err) {
        const retryable = err instanceof ModelFailedError || err instanceof ModelQuotaError;
        if (!retryable || req.signal.aborted) throw err;
        const result = await fallback.generate(req);
        return { ...result, model: result.model ?? fallback.id };
      }
    },
  };
}

export interface TimeoutAndLimit {
  timeoutMs: number;
  maxConcurrent: number;
}

/**
 * At most `maxConcurrent` calls run at once; the rest wait in FIFO order (a caller whose signal aborts
 * leaves the queue). The timeout covers the model call, not the wait, and aborts it through its signal.
 */
export function withTimeoutAndLimit(model: ImageModel, { timeoutMs, maxConcurrent }: TimeoutAndLimit): ImageModel {
  let active = 0;
  const waiting: (() => void)[] = [];

  const acquire = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new ModelFailedError('Image generation was cancelled'));
      if (active < Math.max(1, maxConcurrent)) {
        active++;
        return resolve();
      }
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(new ModelFailedError('Image generation was cancelled'));
      };
      waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  // The slot passes straight to the next waiter, so `active` never dips and a newcomer cannot jump the queue.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };

  return {
    id: model.id,
    async generate(req: GenerateRequest) {
      await acquire(req.signal);
      const controller = new AbortController();
      const forward = () => controller.abort(req.signal.reason);
      req.signal.addEventListener('abort', forward, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new ModelFailedError(`Image model timed out after ${timeoutMs} ms`));
          controller.abort();
        }, timeoutMs);
      });
      const call = Promise.resolve().then(() => model.generate({ ...req, signal: controller.signal }));
      // The slot is freed when the driver really stops, so the cap holds even for work that ignores the signal.
      call.then(release, release);
      try {
        return await Promise.race([call, timedOut]);
      } finally {
        clearTimeout(timer);
        req.signal.removeEventListener('abort', forward);
      }
    },
  };
}
