// The header's one account menu (as in Figma or Krea): a button with the person's initials and name (the initials
// alone on a phone) opens a menu whose top says who is signed in, their plan (when payments are configured) and
// what this month's generations cost as far as it is known (hidden while unknown); its items are Upgrade or
// Manage subscription (when payments are configured: links whose click POSTs to the service and goes on to the
// payment provider's page, ../api/billing.ts; a refusal is shown beside the button), API tokens, Spend (/spend), and
// Sign out.
// Sign out of all devices is on the API tokens page, with the person's other settings.
import { useState } from 'react';
import { openPaymentPage, PAYMENT_URLS, type PaymentPage } from '../api/billing';
import { initialsOf } from '../canvas/presence';
import { usePaymentsEnabled } from '../hooks/use-client-config';
import { formatUsd } from '../hooks/use-models';
import { useIsPro } from '../hooks/use-plan';
import type { SessionUser } from '../hooks/use-session';
import { useSignOut } from '../hooks/use-sign-out';
import { useMonthSpend, type MonthSpend } from '../hooks/use-spend';
import { navigate } from '../router';
import { MoreMenu, type MenuAction } from './more-menu';
import './account-menu.css';

export function AccountMenu({ user }: { user: SessionUser }) {
  const isPro = useIsPro();
  const payments = usePaymentsEnabled();
  const spend = useMonthSpend();
  const { leaving, signOut } = useSignOut();
  const [paymentError, setPaymentError] = useState<string | undefined>();
  const openPayment = (which: PaymentPage) => {
    setPaymentError(undefined);
    void openPaymentPage(which).then(setPaymentError);
  };
  const name = user.name || user.email || 'You';

  const actions: MenuAction[] = [
    ...(payments && isPro === false ? [{ label: 'Upgrade', onSelect: () => openPayment('checkout'), href: PAYMENT_URLS.checkout, title: 'The Pro plan' }] : []),
    ...(payments && isPro ? [{ label: 'Manage subscription', onSelect: () => openPayment('portal'), href: PAYMENT_URLS.portal }] : []),
    { label: 'API tokens', onSelect: () => navigate('/settings/tokens'), href: '/settings/tokens', title: 'Personal API tokens for scripts, and signing out of all devices' },
    { label: 'Spend', onSelect: () => navigate('/spend'), href: '/spend', title: 'What your generations cost: today, this month, per project' },
    { label: leaving ? 'Signing out…' : 'Sign out', onSelect: () => void signOut(false), disabled: leaving },
  ];

  const summary = (
    <div className="account-summary">
      <span className="account-summary-name">{name}</span>
      {user.email && user.email !== name && <span className="muted small account-summary-email">{user.email}</span>}
      {(payments || isPro) && isPro !== undefined && (
        <span className="account-plan">
          {isPro ? (
            <>
              <span className="badge pro">Pro</span> plan
            </>
          ) : (
            'Free plan'
          )}
        </span>
      )}
      {spend && <SpendSummary spend={spend} />}
    </div>
  );

  return (
    <>
      <MoreMenu
        label="Account"
        className="account-menu"
        actions={actions}
        summary={summary}
        trigger={
          <>
            <span className="avatar account-avatar" aria-hidden="true">
              {initialsOf(name)}
            </span>
            <span className="visually-hidden">Account:</span> <span className="account-name">{name}</span>
          </>
        }
      />
      {paymentError && (
        <span className="error small" role="alert">
          {paymentError}
        </span>
      )}
    </>
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
