// Upgrade and Manage subscription: the service starts the checkout (or opens the customer portal) on a POST, which
// no other site can make in this user's name (docs/api.md "Paid plans"), answers its URL, and the page goes there.
import { api } from './client';

export type PaymentPage = 'checkout' | 'portal';

/** Where the links point: a GET there asks first (a page with one button) unless the browser says it came from us. */
export const PAYMENT_URLS: Record<PaymentPage, '/api/checkout' | '/api/portal'> = { checkout: '/api/checkout', portal: '/api/portal' };

/**
 * Starts the checkout or opens the portal, then leaves for the provider's page. When the service refuses (no
 * subscription yet, payments not configured, too many tries), its words are returned to be shown.
 */
export async function openPaymentPage(which: PaymentPage): Promise<string | undefined> {
  const { data, error } = await api.POST(PAYMENT_URLS[which], { params: { query: { format: 'json' } } });
  if (data) {
    window.location.assign(data.url);
    return undefined;
  }
  return error?.error ?? 'The payment provider could not be reached';
}
