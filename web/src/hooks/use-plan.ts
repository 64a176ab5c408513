// The signed-in user's plan from GET /api/user (`isPro`), read when the session is known. `undefined` while
// unknown (signed out, loading, or the request failed): nothing plan-related is shown then.
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useSession } from './use-session';

export function useIsPro(): boolean | undefined {
  const session = useSession();
  const userId = session.status === 'authenticated' ? session.user.id : undefined;
  const [plan, setPlan] = useState<{ userId: string; isPro: boolean }>();
  useEffect(() => {
    if (!userId) return;
    let live = true;
    api.GET('/api/user').then(
      ({ data }) => live && data && setPlan({ userId, isPro: data.isPro }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [userId]);
  return userId && plan?.userId === userId ? plan.isPro : undefined;
}
