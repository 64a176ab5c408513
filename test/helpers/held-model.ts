// An image model the test holds: each call waits, while the test holds the model, until `release()` (or, when
// `abortable`, until the call's signal aborts, which rejects it), then answers with `answer`. `reached(n)` resolves
// once n calls in all have arrived: what a test waits for instead of a timer. `signals` keeps each call's signal.
import type { GenerateRequest, GenerateResult, ImageModel } from '../../src/models/index.js';

export interface HeldModel {
  model: ImageModel;
  /** Each call's AbortSignal, in call order. */
  signals: AbortSignal[];
  /** Calls so far (held ones included). */
  readonly calls: number;
  /** Calls from now on wait until `release()`. */
  hold(): void;
  /** Lets every waiting call (and every later one) answer. */
  release(): void;
  /** Resolves once `n` calls in all have reached the model. */
  reached(n: number): Promise<void>;
}

export function heldModel(
  answer: (req: GenerateRequest, call: number) => GenerateResult | Promise<GenerateResult>,
  { id = 'held', abortable = true }: { id?: string; abortable?: boolean } = {},
): HeldModel {
  let calls = 0;
  let gate: Promise<void> | null = null;
  let open = () => {};
  const signals: AbortSignal[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const model: ImageModel = {
    id,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const n = ++calls;
      signals.push(req.signal);
      for (const w of waiting.filter((x) => calls >= x.n)) w.resolve();
      const held = gate;
      if (held) {
        await new Promise<void>((resolve, reject) => {
          if (abortable) req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          void held.then(resolve);
        });
      }
      return answer(req, n);
    },
  };
  return {
    model,
    signals,
    get calls() {
      return calls;
    },
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release() {
      gate = null;
      open();
    },
    reached(n) {
      return calls >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    },
  };
}
