// What the signed-in user's generations of this calendar month cost, as far as it is known (GET /api/user/spend,
// docs/api.md "Models"), for the header. Read when the session is known, when the page is shown again (another tab
// may have generated meanwhile), and when a generation job of this tab ends (`spendMayHaveChanged`, called by
// use-generation). `undefined` while unknown (signed out, loading, or the request failed): nothing is shown then.
// Every component on the page that asks (the header, the projects page's cards) shares one request.
import { useEffect, useState } from 'react';
import { api, type paths } from '../api/client';
import { useSession } from './use-session';

/** GET /api/user/spend's answer, as the service's schema gives it (docs/openapi.json). */
export type MonthSpend = paths['/api/user/spend']['get']['responses'][200]['content']['application/json'];

const listeners = new Set<() => void>();

/** The request in flight, shared by every hook that asks while it runs (one request per page, not per component). */
let inFlight: Promise<MonthSpend | undefined> | undefined;
function readSpend(): Promise<MonthSpend | undefined> {
  inFlight ??= api.GET('/api/user/spend').then(
    ({ data }) => data,
    () => undefined,
  );
  const current = inFlight;
  void current.then(() => {
    if (inFlight === current) inFlight = undefined;
  });
  return current;
}

/** A generation job of this tab has ended: every header reads the month's spend again. */
export function spendMayHaveChanged(): void {
  for (const listener of listeners) listener();
}

export function useMonthSpend(): MonthSpend | undefined {
  const session = useSession();
  const userId = session.status === 'authenticated' ? session.user.id : undefined;
  const [spend, setSpend] = useState<{ userId: string; spend: MonthSpend | undefined }>();
  useEffect(() => {
    if (!userId) return;
    let live = true;
    const load = () => {
      void readSpend().then((data) => live && setSpend({ userId, spend: data }));
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') load();
    };
    load();
    listeners.add(load);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      listeners.delete(load);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [userId]);
  return userId && spend?.userId === userId ? spend.spend : undefined;
}
