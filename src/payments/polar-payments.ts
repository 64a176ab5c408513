// The payments driver for Polar through @polar-sh/sdk. `PUBLIC_SETUP=local` selects Polar's
// sandbox server, `production` the live one; PAYMENTS_API_URL overrides either (tests, proxies).
import { Polar } from '@polar-sh/sdk';
import { PaymentProviderError, type PaymentsProvider } from './payments-provider.js';

export interface PolarOptions {
  accessToken: string;
  /** The Pro plan's product. */
  productId: string;
  setup: 'local' | 'production';
  apiUrl?: string;
  timeoutMs?: number;
}

export class PolarPayments implements PaymentsProvider {
  private readonly polar: Polar;
  private readonly productId: string;

  constructor(opts: PolarOptions) {
    this.productId = opts.productId;
    this.polar = new Polar({
      accessToken: opts.accessToken,
      server: opts.setup === 'local' ? 'sandbox' : 'production',
      ...(opts.apiUrl ? { serverURL: opts.apiUrl } : {}),
      // The SDK's default is no timeout at all.
      timeoutMs: opts.timeoutMs ?? 15_000,
    });
  }

  async createCheckout(input: { customerExternalId: string; customerEmail: string; successUrl: string }): Promise<{ url: string }> {
    const checkout = await call('checkout', () =>
      this.polar.checkouts.create({
        products: [this.productId],
        externalCustomerId: input.customerExternalId,
        customerEmail: input.customerEmail,
        successUrl: input.successUrl,
      }),
    );
    return { url: checkout.url };
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    const session = await call('customer session', () =>
      this.polar.customerSessions.create({ customerId: input.customerId, returnUrl: input.returnUrl }),
    );
    return { url: session.customerPortalUrl };
  }
}

/**
 * Any SDK failure becomes a PaymentProviderError whose message names the call, the error kind and the HTTP
 * status only: the SDK's own errors carry response bodies and headers, which stay out of logs.
 */
async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { name?: string; statusCode?: number };
    throw new PaymentProviderError(`Polar ${what} failed: ${e.name ?? 'Error'}${typeof e.statusCode === 'number' ? ` (HTTP ${e.statusCode})` : ''}`);
  }
}
