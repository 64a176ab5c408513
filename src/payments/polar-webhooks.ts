// Verifies Polar's webhooks (Standard Webhooks: HMAC-SHA256 over `<id>.<timestamp>.<raw body>`, compared
// timing-safe by the `standardwebhooks` library, timestamps within its 5-minute window). Polar's convention
// (its SDK's `validateEvent`): the secret string is base64-encoded before it is given to the library.
//
// The payload is read with a lenient schema of only the fields we use, not the SDK's full event models:
// a field Polar adds or drops elsewhere in the payload must not make us refuse a correctly signed event.
// Of those fields, Polar's schema (the SDK's `WebhookSubscription*Payload` models) always carries the envelope's
// `timestamp` (when the event was created; the `webhook-timestamp` header is the time of each delivery attempt,
// retries included, so it cannot order events) and the subscription's `id`, `product_id`, `created_at` and
// `modified_at` (null until the subscription is first modified). Times are passed on as the text Polar sent
// (microseconds included), never through a JS Date.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';
import { InvalidWebhookSignatureError, type PaymentEvent, type WebhookVerifier } from './payments-provider.js';

const Envelope = z.object({ type: z.string().min(1), timestamp: z.unknown().optional(), data: z.unknown() });

const Time = z.iso.datetime({ offset: true });

const SubscriptionData = z.object({
  id: z.string().min(1).max(200),
  status: z.string().min(1),
  customer_id: z.string().min(1),
  cancel_at_period_end: z.boolean().optional(),
  customer: z.object({ external_id: z.string().nullish() }).optional(),
  created_at: Time.nullish(),
  modified_at: Time.nullish(),
  product_id: z.string().nullish(),
});

export class PolarWebhookVerifier implements WebhookVerifier {
  private readonly webhook: Webhook;

  constructor(secret: string) {
    this.webhook = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
  }

  verify(rawBody: string, headers: Record<string, string | string[] | undefined>): PaymentEvent {
    const wanted = { 'webhook-id': one(headers['webhook-id']), 'webhook-timestamp': one(headers['webhook-timestamp']), 'webhook-signature': one(headers['webhook-signature']) };
    let payload: unknown;
    try {
      payload = this.webhook.verify(rawBody, wanted);
    } catch (err) {
      // A correct signature over a body that is not JSON makes the library's JSON.parse throw: refuse it too.
      if (err instanceof WebhookVerificationError) throw new InvalidWebhookSignatureError(err.message);
      throw new InvalidWebhookSignatureError('unreadable payload');
    }
    const envelope = Envelope.safeParse(payload);
    if (!envelope.success) throw new InvalidWebhookSignatureError('not a webhook event');
    const event: PaymentEvent = { id: wanted['webhook-id'], type: envelope.data.type };
    if (envelope.data.type.startsWith('subscription.')) {
      const data = SubscriptionData.safeParse(envelope.data.data);
      const timestamp = Time.safeParse(envelope.data.timestamp);
      // The time of the subscription state the event carries: its last modification, else the event's own
      // time. Without either the event cannot be ordered, and is left unread like any malformed payload.
      const changedAt = data.success ? (data.data.modified_at ?? (timestamp.success ? timestamp.data : undefined)) : undefined;
      if (data.success && changedAt) {
        event.subscription = {
          id: data.data.id,
          customerId: data.data.customer_id,
          customerExternalId: data.data.customer?.external_id ?? null,
          status: data.data.status,
          cancelAtPeriodEnd: data.data.cancel_at_period_end ?? false,
          productId: data.data.product_id ?? null,
          changedAt,
          createdAt: data.data.created_at ?? null,
        };
      }
    }
    return event;
  }
}

const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));
