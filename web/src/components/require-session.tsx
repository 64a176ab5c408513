// Signed-in pages: a loading state while the session is checked, then /login when there is none.
import { useEffect, type ReactNode } from 'react';
import { useSession } from '../hooks/use-session';
import { navigate } from '../router';
import { PageStatus } from './page-status';

export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  useEffect(() => {
    if (session.status === 'unauthenticated') navigate('/login', { replace: true });
  }, [session.status]);

  if (session.status === 'authenticated') return <>{children}</>;
  if (session.status === 'error') {
    return (
      <PageStatus actions={<button type="button" className="button" onClick={session.retry}>Try again</button>}>
        Could not reach the server to check your session.
      </PageStatus>
    );
  }
  return <PageStatus busy>{session.status === 'loading' ? 'Checking your session…' : 'Redirecting to sign-in…'}</PageStatus>;
}
