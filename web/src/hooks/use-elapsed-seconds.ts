import { useEffect, useState } from 'react';

/** Whole seconds since `since` (epoch ms), ticking every second; undefined when `since` is. */
export function useElapsedSeconds(since: number | undefined): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since === undefined ? undefined : Math.max(0, Math.floor((now - since) / 1000));
}
