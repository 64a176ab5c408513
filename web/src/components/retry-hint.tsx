import { retryText, useSecondsUntil } from '../hooks/use-seconds-until';

/** After a 429: " Try again in 42 s." counting down, then " You can try again now." */
export function RetryHint({ at }: { at: number }) {
  const seconds = useSecondsUntil(at) ?? 0;
  return <span className="retry-hint"> {retryText(seconds)}</span>;
}
