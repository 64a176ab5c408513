import { retryText, useSecondsUntil } from '../hooks/use-seconds-until';

/** After a 429's message: " — try again in 42 s." counting down, then " — you can try again now." */
export function RetryHint({ at }: { at: number }) {
  const seconds = useSecondsUntil(at) ?? 0;
  return <span className="retry-hint"> — {retryText(seconds)}</span>;
}
