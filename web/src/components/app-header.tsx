import { useState, type ReactNode } from 'react';
import { signOut, signOutEverywhere } from '../api/auth';
import { resetAnalytics } from '../analytics';
import { CHECKOUT_URL, PORTAL_URL, usePaymentsEnabled } from '../hooks/use-client-config';
import { useIsPro } from '../hooks/use-plan';
import { useSession } from '../hooks/use-session';
import { Link } from '../router';
import logoUrl from '../favicon.svg';

/**
 * The top bar: brand, an optional middle part, and the user's name with API tokens, Sign out and Sign out of all
 * devices (or Sign in). A Pro badge for
 * Pro users; when payments are configured, Upgrade (free users) or Manage subscription (Pro users): plain
 * links, the service answers them with a redirect to the payment provider.
 */
export function AppHeader({ children, signInLink = true }: { children?: ReactNode; signInLink?: boolean }) {
  const session = useSession();
  const [leaving, setLeaving] = useState(false);
  const isPro = useIsPro();
  const payments = usePaymentsEnabled();

  const onSignOut = async (everywhere: boolean) => {
    setLeaving(true);
    resetAnalytics();
    try {
      await (everywhere ? signOutEverywhere() : signOut());
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
          {isPro && (
            <span className="badge pro" title="Pro plan">
              Pro
            </span>
          )}
          {payments && isPro === false && (
            <a className="button primary" href={CHECKOUT_URL}>
              Upgrade
            </a>
          )}
          {payments && isPro && (
            <a className="button ghost" href={PORTAL_URL}>
              Manage subscription
            </a>
          )}
          <span className="muted user-name" title={session.user.email ?? undefined}>
            {session.user.name || session.user.email}
          </span>
          <Link className="button ghost" href="/settings/tokens" title="Personal API tokens for scripts">
            API tokens
          </Link>
          <button type="button" className="button ghost" onClick={() => void onSignOut(false)} disabled={leaving}>
            {leaving ? 'Signing out…' : 'Sign out'}
          </button>
          <button type="button" className="button ghost" onClick={() => void onSignOut(true)} disabled={leaving} title="End every session of yours, on every device">
            Sign out of all devices
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
