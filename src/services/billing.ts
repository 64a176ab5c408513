// Payments: the Pro plan's checkout and customer portal for the session user, and the
// provider's webhooks, which are the only way a user becomes Pro or stops being Pro (per subscription: the rule
// is in subscriptions.ts).
import type { Config } from '../config.js';
import type { Transactions } from '../db/index.js';
import type { UsersRepository, WebhookReceiptsRepository } from '../db/repositories/index.js';
import { invalidSignature, noSubscription, paymentProviderUnavailable, paymentsNotConfigured, unauthorized } from '../errors.js';
import { InvalidWebhookSignatureError, PaymentProviderError, type PaymentEvent, type Payments } from '../payments/index.js';
import { applySubscriptionEvent, changeFor, type SubscriptionRuleDeps } from './subscriptions.js';

export interface BillingService {
  /** The hosted checkout URL of the Pro plan for this user. */
  checkout(userId: string): Promise<{ url: string }>;
  /** The customer-portal URL for this user; 400 when the user has never paid. */
  portal(userId: string): Promise<{ url: string }>;
  /** Verifies and applies one webhook delivery. */
  receiveWebhook(rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<{ received: true; duplicate?: true }>;
}

export interface BillingDeps {
  users: Pick<UsersRepository, 'findById'> & SubscriptionRuleDeps['users'];
  subscriptions: SubscriptionRuleDeps['subscriptions'];
  webhookReceipts: Pick<WebhookReceiptsRepository, 'record' | 'pruneOlderThan'>;
  transactions: Transactions;
  /** null when payments are not configured: every payment route answers 503. */
  payments: Payments | null;
  /** The service's public base URL (defaults of the success and return URLs). */
  baseUrl: string;
  /** `productId`: the Pro plan (only its subscriptions grant Pro); `webhookRetentionDays`: how long received
   *  webhook ids are kept. */
  settings: Pick<Config['payments'], 'successUrl' | 'returnUrl' | 'productId' | 'webhookRetentionDays'>;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** At most this many expired webhook ids are deleted per received webhook, so the prune stays cheap. */
export const WEBHOOK_PRUNE_BATCH = 100;

/** Relative settings (`/projects`) are taken against the service's own base URL. */
const absolute = (url: string | undefined, fallback: string, baseUrl: string) => new URL(url ?? fallback, `${baseUrl}/`).toString();

export function createBillingService(deps: BillingDeps): BillingService {
  const { users, webhookReceipts, transactions, payments, log } = deps;
  const successUrl = absolute(deps.settings.successUrl, '/projects?upgraded=1', deps.baseUrl);
  const returnUrl = absolute(deps.settings.returnUrl, '/projects', deps.baseUrl);

  const productId = deps.settings.productId;
  const retentionDays = deps.settings.webhookRetentionDays;

  /**
   * Deletes up to WEBHOOK_PRUNE_BATCH ids received more than the retention window ago (on the database's clock,
   * which set `received_at`); run after each verified delivery, so the table stays bounded without a timer.
   * Within the window every id stays, so a retry or replay still finds its id; a delivery signed more than 5
   * minutes ago is refused anyway, and a redelivery after the window meets the ordering rule (subscriptions.ts:
   * skipped if anything newer was applied to its subscription since, else it sets the same state again).
   * Failing here does not fail the delivery (its effect is already committed).
   */
  async function pruneWebhookIds(): Promise<void> {
    try {
      const pruned = await webhookReceipts.pruneOlderThan(retentionDays, WEBHOOK_PRUNE_BATCH);
      if (pruned > 0) log.info({ pruned, retentionDays }, 'payment webhook ids pruned');
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'pruning payment webhook ids failed');
    }
  }

  const findUser = (id: string) => users.findById(id);

  async function viaProvider<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PaymentProviderError) {
        log.warn({ reason: err.message }, `payment provider failed (${what})`);
        throw paymentProviderUnavailable();
      }
      throw err;
    }
  }

  return {
    async checkout(userId) {
      if (!payments) throw paymentsNotConfigured();
      const user = await findUser(userId);
      if (!user) throw unauthorized(); // the session names a user that no longer exists
      return viaProvider('checkout', () =>
        payments.provider.createCheckout({ customerExternalId: user.id, customerEmail: user.email, successUrl }),
      );
    },

    async portal(userId) {
      if (!payments) throw paymentsNotConfigured();
      const user = await findUser(userId);
      if (!user) throw unauthorized();
      if (!user.paymentsCustomerId) throw noSubscription();
      const customerId = user.paymentsCustomerId;
      return viaProvider('portal', () => payments.provider.createPortalSession({ customerId, returnUrl }));
    },

    async receiveWebhook(rawBody, headers) {
      if (!payments?.webhooks) throw paymentsNotConfigured();
      let event: PaymentEvent;
      try {
        event = payments.webhooks.verify(rawBody, headers);
      } catch (err) {
        if (err instanceof InvalidWebhookSignatureError) {
          log.info({ reason: err.message }, 'payment webhook refused');
          throw invalidSignature();
        }
        throw err;
      }
      if (!event.id || event.id.length > 200) throw invalidSignature();

      // The webhook id and the event's effect commit together: a delivery that fails half-way is retried
      // whole, and a second delivery of one id (a retry, a replay) finds the id and changes nothing. An event
      // that is acknowledged without effect (ignored, skipped as older) records its id all the same.
      const result = await transactions.transaction(async (tx) => {
        if (!(await webhookReceipts.record(event.id, event.type.slice(0, 100), tx))) {
          log.info({ webhookId: event.id, type: event.type }, 'payment webhook already received');
          return { received: true as const, duplicate: true as const };
        }
        const change = changeFor(event);
        if (!change) {
          const why = event.type.startsWith('subscription.') && !event.subscription ? 'unreadable subscription payload' : 'event kind not used';
          log.info({ webhookId: event.id, type: event.type }, `payment webhook ignored (${why})`);
          return { received: true as const };
        }
        const payload = event.subscription!;
        const logged = { webhookId: event.id, type: event.type, subscriptionId: payload.id.slice(0, 200) };
        if (!productId || !payload.productId) {
          log.info(logged, 'payment webhook ignored (names no product)');
          return { received: true as const };
        }
        const sub = { ...payload, productId: payload.productId };
        const userId = sub.customerExternalId;
        if (!userId || !UUID.test(userId)) {
          log.info(logged, 'payment webhook ignored (customer is not one of our users)');
          return { received: true as const };
        }
        const outcome = await applySubscriptionEvent(deps, tx, { userId, sub, change, proProductId: productId });
        if (outcome.applied) {
          const { isPro, subscriptionStatus, grantsPro } = outcome;
          log.info({ ...logged, userId, productId: sub.productId.slice(0, 200), changedAt: sub.changedAt, grantsPro, isPro, subscriptionStatus }, 'payment webhook applied');
        } else if (outcome.why === 'older') {
          const times = { changedAt: sub.changedAt, appliedAt: outcome.appliedAt };
          const than = outcome.preUpgrade ? 'the state kept before subscriptions were tracked' : 'the state of the subscription already applied';
          log.info({ ...logged, userId, ...times }, `payment webhook skipped (older than ${than})`);
        } else {
          log.info({ ...logged, userId, productId: sub.productId.slice(0, 200) }, `payment webhook ignored (${outcome.why})`);
        }
        return { received: true as const };
      });
      await pruneWebhookIds();
      return result;
    },
  };
}
