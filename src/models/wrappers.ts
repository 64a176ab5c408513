// Decorators around any ImageModel: a fallback model, and a timeout with a per-instance concurrency cap.
import { FairSlots } from '../fair-slots.js';
import { type GenerateRequest, type ImageModel, ModelFailedError, ModelPromptError, ModelQuotaError } from './image-model.js';

/**
 * Tries `fallback` when `primary` fails or is over quota; `result.model` says which one answered. A fallback that
 * can do nothing with the prompt (the offline engine, which is no AI model) leaves the primary's failure as the
 * answer: the model asked for failed, and the prompt was never wrong for it.
 */
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
        try {
          const result = await fallback.generate(req);
          return { ...result, model: result.model ?? fallback.id };
        } catch (fallbackErr) {
          throw fallbackErr instanceof ModelPromptError ? err : fallbackErr;
        }
      }
    },
  };
}

export interface TimeoutAndLimit {
  timeoutMs: number;
  maxConcurrent: number;
}

/** What a call waiting for a slot reports as its progress (a job shows it; a test waits for it). */
export const WAITING_FOR_SLOT = 'waiting for a free model slot on this instance';

/**
 * At most `maxConcurrent` calls run at once; the rest wait their turn by owner (the user, `req.owner`;
 * ../fair-slots.ts): the owner served longest ago goes first, and the last free slot (of two or more) goes
 * only to an owner who has rested — none running, and its last call given back at least as long ago as it ran —
 * so users who each keep calls running, back to back, never hold up one whose calls are short. A caller
 * whose signal aborts leaves the queue; a waiting call reports WAITING_FOR_SLOT as its progress. The timeout
 * covers the model call, not the wait, and aborts it through its signal.
 */
export function withTimeoutAndLimit(model: ImageModel, { timeoutMs, maxConcurrent }: TimeoutAndLimit): ImageModel {
  const slots = new FairSlots(Math.max(1, maxConcurrent), Math.max(1, maxConcurrent), maxConcurrent > 1 ? 1 : 0);

  const acquire = async (req: GenerateRequest): Promise<(() => void) & { waited?: boolean }> => {
    if (req.signal.aborted) throw new ModelFailedError('Image generation was cancelled');
    const owner = req.owner ?? '';
    const now = slots.tryAcquire(owner);
    if (now) return now;
    req.onProgress?.({ message: WAITING_FOR_SLOT });
    try {
      return Object.assign(await slots.acquire(owner, req.signal), { waited: true });
    } catch {
      throw new ModelFailedError('Image generation was cancelled');
    }
  };

  return {
    id: model.id,
    async generate(req: GenerateRequest) {
      const release = await acquire(req);
      if (release.waited) req.onProgress?.({}); // its turn came: the waiting line goes
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
