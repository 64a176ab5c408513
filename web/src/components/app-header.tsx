import { useState, type MouseEvent, type ReactNode } from 'react';
import { signOut, signOutEverywhere } from '../api/auth';
import { resetAnalytics } from '../analytics';
import { openPaymentPage, PAYMENT_URLS, type PaymentPage } from '../api/billing';
import { usePaymentsEnabled } from '../hooks/use-client-config';
import { formatUsd } from '../hooks/use-models';
import { SMALL_SCREEN, useMediaQuery } from '../hooks/use-media-query';
import { useIsPro } from '../hooks/use-plan';
import { useSession } from '../hooks/use-session';
import { useMonthSpend, type MonthSpend } from '../hooks/use-spend';
import { Link, navigate } from '../router';
import { MoreMenu } from './more-menu';
import logoUrl from '../favicon.svg';

/**
 * The top bar: brand, an optional middle part, and the user's name with API tokens, Sign out and Sign out of all
 * devices (or Sign in); beside the name, what the user's generations cost this month as far as it is known (hidden
 * while unknown). A Pro badge for
 * Pro users; when payments are configured, Upgrade (free users) or Manage subscription (Pro users): links whose
 * click POSTs to the service and goes on to the payment provider's page (../api/billing.ts); the service's refusal is
 * shown beside them. On a phone-sized screen the brand is
 * its logo and the user's links and buttons are in one Account menu.
 */
export function AppHeader({ children, signInLink = true }: { children?: ReactNode; signInLink?: boolean }) {
  const session = useSession();
  const [leaving, setLeaving] = useState(false);
  const isPro = useIsPro();
  const payments = usePaymentsEnabled();
  const spend = useMonthSpend();
  const compact = useMediaQuery(SMALL_SCREEN);
  const [paymentError, setPaymentError] = useState<string | undefined>();
  const openPayment = (which: PaymentPage) => {
    setPaymentError(undefined);
    void openPaymentPage(which).then(setPaymentError);
  };
  const paymentLink = (which: PaymentPage) => ({
    href: PAYMENT_URLS[which],
    onClick: (e: MouseEvent<HTMLAnchorElement>) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // a new tab: the link's own page
      e.preventDefault();
      openPayment(which);
    },
  });

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
        <span className="brand-text">Image Canvas</span>
      </Link>
      <div className="app-header-middle">{children}</div>
      {session.status === 'authenticated' && compact ? (
        <MoreMenu
          label="Account"
          actions={[
            ...(payments && isPro === false ? [{ label: 'Upgrade', onSelect: () => openPayment('checkout'), href: PAYMENT_URLS.checkout }] : []),
            ...(payments && isPro ? [{ label: 'Manage subscription', onSelect: () => openPayment('portal'), href: PAYMENT_URLS.portal }] : []),
            { label: 'API tokens', onSelect: () => navigate('/settings/tokens'), href: '/settings/tokens' },
            { label: leaving ? 'Signing out…' : 'Sign out', onSelect: () => void onSignOut(false), disabled: leaving },
            { label: 'Sign out of all devices', onSelect: () => void onSignOut(true), disabled: leaving, title: 'End every session of yours, on every device' },
          ]}
        />
      ) : session.status === 'authenticated' ? (
        <div className="row">
          {isPro && (
            <span className="badge pro" title="Pro plan">
              Pro
            </span>
          )}
          {payments && isPro === false && (
            <a className="button primary" {...paymentLink('checkout')}>
              Upgrade
            </a>
          )}
          {payments && isPro && (
            <a className="button ghost" {...paymentLink('portal')}>
              Manage subscription
            </a>
          )}
          <span className="muted user-name" title={session.user.email ?? undefined}>
            {session.user.name || session.user.email}
          </span>
          {spend && <SpendSummary spend={spend} />}
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
      {paymentError && (
        <span className="error small" role="alert">
          {paymentError}
        </span>
      )}
    </header>
  );
}

/**
 * "This month: $0.21 (5 generations)", and with a monthly free budget "· $4.79 of $5.00 free left"; its title says
 * when some of them have no known price.
 */
function SpendSummary({ spend }: { spend: MonthSpend }) {
  const { usd, generations, priced, freeBudget } = spend;
  const title =
    priced < generations
      ? `${priced} of ${generations} ${generations === 1 ? 'generation has' : 'generations have'} a known price; the offline engine and some models have none`
      : undefined;
  return (
    <span className="muted month-spend" title={title}>
      This month: {formatUsd(usd)} ({generations} {generations === 1 ? 'generation' : 'generations'})
      {freeBudget && ` · ${formatUsd(freeBudget.leftUsd)} of ${formatUsd(freeBudget.usd)} free left`}
    </span>
  );
}
