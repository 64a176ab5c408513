// A link to the checkout (or the customer portal) that starts it with a POST (../api/billing.ts) and shows the
// service's refusal beside it; opened in a new tab, it is the plain link (the service asks there before starting).
import { useState, type ReactNode } from 'react';
import { openPaymentPage, PAYMENT_URLS, type PaymentPage } from '../api/billing';

export function PaymentLink({ to, className, children }: { to: PaymentPage; className?: string; children: ReactNode }) {
  const [error, setError] = useState<string | undefined>();
  return (
    <>
      <a
        className={className}
        href={PAYMENT_URLS[to]}
        onClick={(event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          setError(undefined);
          void openPaymentPage(to).then(setError);
        }}
      >
        {children}
      </a>
      {error && <span className="error small"> {error}</span>}
    </>
  );
}
