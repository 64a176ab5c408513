import { useEffect, useState } from 'react';

/** Whole seconds left until `at` (epoch ms), rounded up and ticking every second down to 0; undefined when `at` is. */
export function useSecondsUntil(at: number | undefined): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => {
      const time = Date.now();
      setNow(time);
      if (time >= at) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** "try again in 42 s." while there is time left, then "you can try again now." (after a dash, behind a message). */
export const retryText = (seconds: number): string => (seconds > 0 ? `try again in ${seconds} s.` : 'you can try again now.');
