import type { ReactNode } from 'react';
import { useSession } from '../hooks/use-session';
import { Link } from '../router';
import { AccountMenu } from './account-menu';
import logoUrl from '../favicon.svg';

/**
 * The top bar: brand, an optional middle part (a canvas page's project name, presence and connection), and the
 * signed-in person's one account menu (./account-menu.tsx: plan and spend, API tokens, Sign out), or Sign in. On a
 * phone-sized screen the brand is its logo and the account button its initials.
 */
export function AppHeader({ children, signInLink = true }: { children?: ReactNode; signInLink?: boolean }) {
  const session = useSession();
  return (
    <header className="app-header">
      <Link className="brand" href={session.status === 'authenticated' ? '/projects' : '/'}>
        <img src={logoUrl} alt="" width="24" height="24" />
        <span className="brand-text">Image Canvas</span>
      </Link>
      <div className="app-header-middle">{children}</div>
      {session.status === 'authenticated' ? (
        <AccountMenu user={session.user} />
      ) : session.status === 'unauthenticated' && signInLink ? (
        <Link className="button ghost" href="/login">
          Sign in
        </Link>
      ) : null}
    </header>
  );
}
