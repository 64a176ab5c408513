import { useState, type ReactNode } from 'react';
import { signOut } from '../api/auth';
import { resetAnalytics } from '../analytics';
import { useSession } from '../hooks/use-session';
import { Link } from '../router';
import logoUrl from '../favicon.svg';

/** The top bar: brand, an optional middle part, and the user's name with Sign out (or Sign in). */
export function AppHeader({ children, signInLink = true }: { children?: ReactNode; signInLink?: boolean }) {
  const session = useSession();
  const [leaving, setLeaving] = useState(false);

  const onSignOut = async () => {
    setLeaving(true);
    resetAnalytics();
    try {
      await signOut();
    } catch {
      setLeaving(false);
    }
  };

  return (
    <header className="app-header">
      <Link className="brand" href={session.status === 'authenticated' ? '/projects' : '/'}>
        <img src={logoUrl} alt="" width="24" height="24" />
        Image Canvas
      </Link>
      <div className="app-header-middle">{children}</div>
      {session.status === 'authenticated' ? (
        <div className="row">
          <span className="muted user-name" title={session.user.email ?? undefined}>
            {session.user.name || session.user.email}
          </span>
          <button type="button" className="button ghost" onClick={onSignOut} disabled={leaving}>
            {leaving ? 'Signing out…' : 'Sign out'}
          </button>
        </div>
      ) : session.status === 'unauthenticated' && signInLink ? (
        <Link className="button ghost" href="/login">
          Sign in
        </Link>
      ) : null}
    </header>
  );
}
