// The client-side session: `loading` until GET /api/auth/session answers, then `authenticated`
// or `unauthenticated`. Any 401 from the API later on turns it `unauthenticated` (the session ended).
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { onUnauthorized } from '../api/client';
import { fetchSession, type AuthSession } from '../api/auth';
import { identify } from '../analytics';

export type SessionUser = AuthSession['user'];
export type SessionState =
  | { status: 'loading' }
  | { status: 'authenticated'; user: SessionUser }
  | { status: 'unauthenticated' }
  | { status: 'error'; retry: () => void };

const SessionContext = createContext<SessionState>({ status: 'loading' });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const load = useCallback(() => {
    setState({ status: 'loading' });
    fetchSession().then(
      (session) => {
        if (session) identify(session.user.id);
        setState(session ? { status: 'authenticated', user: session.user } : { status: 'unauthenticated' });
      },
      () => setState({ status: 'error', retry: load }),
    );
  }, []);

  useEffect(load, [load]);
  useEffect(() => onUnauthorized(() => setState({ status: 'unauthenticated' })), []);

  const value = useMemo(() => state, [state]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export const useSession = (): SessionState => useContext(SessionContext);

/** The signed-in user, inside <RequireSession>. */
export function useUser(): SessionUser {
  const session = useSession();
  if (session.status !== 'authenticated') throw new Error('useUser outside a signed-in page');
  return session.user;
}
