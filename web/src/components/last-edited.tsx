// "Edited 5 minutes ago", with the exact time on hover and for assistive technology (<time dateTime>).
import { useEffect, useState } from 'react';
import { timeAgo } from '../projects-order';

const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Re-renders every minute, so "just now" grows old on a page left open. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function LastEdited({ at }: { at: string }) {
  const now = useMinuteClock();
  const title = exact.format(new Date(at));
  return (
    <span className="muted small last-edited">
      Edited{' '}
      <time dateTime={at} title={title}>
        {timeAgo(at, now)}
      </time>
    </span>
  );
}
