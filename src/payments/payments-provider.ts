// The payments port: what the billing service needs from a payment provider. One driver per
// provider (polar-payments.ts); src/payments/index.ts picks it from configuration.

export interface PaymentsProvider {
  /** A hosted checkout for the Pro plan; the customer is ours (`customerExternalId` = our user id). */
  createCheckout(input: { customerExternalId: string; customerEmail: string; successUrl: string }): Promise<{ url: string }>;
  /** A customer-portal session for a customer the provider already knows. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
}

/** A subscription event, as far as the service needs it. */
export interface SubscriptionChange {
  /** The provider's subscription id: the service keeps the state of each subscription apart. */
  id: string;
  /** The provider's customer id. */
  customerId: string;
  /** The id we gave the customer at checkout (our user id), when the provider has one. */
  customerExternalId: string | null;
  /** The subscription's status as the provider reports it (e.g. `active`, `trialing`, `past_due`, `canceled`). */
  status: string;
  /** The subscription ends at the end of the paid period (canceled, not yet revoked). */
  cancelAtPeriodEnd: boolean;
  /** The subscription's product at the provider; null when the payload names none. */
  productId: string | null;
  /**
   * The provider's time of the subscription state this event carries (the subscription's last modification,
   * else the event's creation), as the provider wrote it: ISO 8601 with an offset and, from Polar, microseconds.
   * Kept as text so no precision is lost (a JS Date holds milliseconds); the database compares these times.
   * Deliveries are not ordered: this orders the events of one subscription.
   */
  changedAt: string;
  /** When the subscription was created (ISO 8601, as sent); null when the payload does not say. */
  createdAt: string | null;
}

/** A verified webhook event. */
export interface PaymentEvent {
  /** The webhook id: the same for every delivery of one event (retries included). */
  id: string;
  /** The provider's event kind, e.g. `subscription.active`. */
  type: string;
  /** Present for subscription events whose payload could be read. */
  subscription?: SubscriptionChange;
}

export interface WebhookVerifier {
  /** Verifies the signature over the raw body; throws InvalidWebhookSignatureError when it does not hold. */
  verify(rawBody: string, headers: Record<string, string | string[] | undefined>): PaymentEvent;
}

export interface Payments {
  provider: PaymentsProvider;
  /** null when no webhook secret is configured. */
  webhooks: WebhookVerifier | null;
}

/** The provider could not be reached or refused the call. The message carries no secret. */
export class PaymentProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

export class InvalidWebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidWebhookSignatureError';
  }
}
