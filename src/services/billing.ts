// Payments (DESIGN.md §7, issue 6): the Pro plan's checkout and customer portal for the session user, and the
// provider's webhooks, which are the only way a user becomes Pro or stops being Pro.
import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { users, webhookEvents } from '../db/schema.js';
import { AppError, badRequest, serviceUnavailable, unauthorized } from '../errors.js';
import { InvalidWebhookSignatureError, PaymentProviderError, type PaymentEvent, type Payments } from '../payments/index.js';

export interface BillingService {
  /** The hosted checkout URL of the Pro plan for this user. */
  checkout(userId: string): Promise<{ url: string }>;
  /** The customer-portal URL for this user; 400 when the user has never paid. */
  portal(userId: string): Promise<{ url: string }>;
  /** Verifies and applies one webhook delivery. */
  receiveWebhook(rawBody: string, headers: Record<string, string | string[] | undefined>): Promise<{ received: true; duplicate?: true }>;
}

export interface BillingDeps {
  db: Db;
  /** null when payments are not configured: every payment route answers 503. */
  payments: Payments | null;
  /** The service's public base URL (defaults of the success and return URLs). */
  baseUrl: string;
  /** `productId`: the Pro plan (events of other products change nothing); `webhookRetentionDays`: how long
   *  received webhook ids are kept. */
  settings: Pick<Config['payments'], 'successUrl' | 'returnUrl' | 'productId' | 'webhookRetentionDays'>;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

const paymentsNotConfigured = () => serviceUnavailable('Payments are not configured');
const providerUnavailable = () => new AppError(502, 'bad_gateway', 'Payment provider unavailable');
const invalidSignature = () => new AppError(403, 'forbidden', 'Invalid signature');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** At most this many expired webhook ids are deleted per received webhook, so the prune stays cheap. */
export const WEBHOOK_PRUNE_BATCH = 100;

/** What one subscription event does to the user's row; null = nothing. */
type Change = { isPro?: boolean; subscriptionStatus: string };

/**
 * The rule, in one place:
 * - Pro is granted only by `subscription.active` and removed only by `subscription.revoked` (Polar sends it
 *   when access really ends: at the end of a canceled period, or when an unpaid subscription is given up).
 * - Every other subscription event only refreshes `subscriptionStatus`, the label shown to the user:
 *   `canceled` → `wont-renew` (still Pro until revoked), `uncanceled` → `active`, `updated` → the payload's
 *   status (`wont-renew` while it is active/trialing but set to end at the period's end; otherwise
 *   `active`, `trialing`, `past_due`, `canceled`, `unpaid`, … as Polar says). So a `past_due` or `unpaid`
 *   subscription keeps Pro while Polar retries the payment, and loses it with the revocation that follows.
 * - Every applied subscription event records the provider's customer id (the portal needs it).
 * - Only our Pro plan's subscriptions count: an event whose subscription is of another product
 *   (`product_id` ≠ PAYMENTS_PRODUCT_ID) neither grants nor removes Pro nor changes the status; it is
 *   acknowledged and logged. Neither does an event whose payload names no product: Polar's schema always names
 *   it, and an event we cannot tie to the Pro plan must not decide who is Pro in either direction.
 * - Deliveries arrive in any order (Polar retries failed ones, and a retry can land after newer events), so
 *   each user keeps the provider's time of the last subscription event applied to them
 *   (`users.subscription_event_at`: the subscription's `modified_at`, else the event's `timestamp`). An event
 *   older than that is acknowledged, logged and skipped: a late `subscription.active` after
 *   `subscription.revoked` does not grant Pro again, and a late `updated` does not bring back an older status.
 *   An event of the same time is applied (Polar sends several events for one change, e.g. `revoked` and
 *   `updated`, and a redelivery of the last one changes nothing).
 */
function changeFor(event: PaymentEvent): Change | null {
  const sub = event.subscription;
  if (!sub) return null;
  switch (event.type) {
    case 'subscription.active':
      return { isPro: true, subscriptionStatus: 'active' };
    case 'subscription.canceled':
      return { subscriptionStatus: 'wont-renew' };
    case 'subscription.uncanceled':
      return { subscriptionStatus: 'active' };
    case 'subscription.updated': {
      const running = sub.status === 'active' || sub.status === 'trialing';
      return { subscriptionStatus: running && sub.cancelAtPeriodEnd ? 'wont-renew' : sub.status.slice(0, 50) };
    }
    case 'subscription.revoked':
      return { isPro: false, subscriptionStatus: 'revoked' };
    default:
      return null;
  }
}

/** Relative settings (`/projects`) are taken against the service's own base URL. */
const absolute = (url: string | undefined, fallback: string, baseUrl: string) => new URL(url ?? fallback, `${baseUrl}/`).toString();

export function createBillingService(deps: BillingDeps): BillingService {
  const { db, payments, log } = deps;
  const successUrl = absolute(deps.settings.successUrl, '/projects?upgraded=1', deps.baseUrl);
  const returnUrl = absolute(deps.settings.returnUrl, '/projects', deps.baseUrl);

  const productId = deps.settings.productId;
  const retentionDays = deps.settings.webhookRetentionDays;

  /**
   * Deletes up to WEBHOOK_PRUNE_BATCH ids received more than the retention window ago (on the database's clock,
   * which set `received_at`); run after each verified delivery, so the table stays bounded without a timer.
   * Within the window every id stays, so a retry or replay still finds its id; a delivery signed more than 5
   * minutes ago is refused anyway, and a redelivery after the window meets the ordering rule above (skipped if
   * anything newer was applied since, else it sets the same state again).
   * Failing here does not fail the delivery (its effect is already committed).
   */
  async function pruneWebhookIds(): Promise<void> {
    try {
      const expired = db
        .select({ id: webhookEvents.id })
        .from(webhookEvents)
        .where(lt(webhookEvents.receivedAt, sql`now() - ${retentionDays}::int * interval '1 day'`))
        .limit(WEBHOOK_PRUNE_BATCH)
        .for('update', { skipLocked: true });
      const pruned = await db.delete(webhookEvents).where(inArray(webhookEvents.id, expired)).returning({ id: webhookEvents.id });
      if (pruned.length > 0) log.info({ pruned: pruned.length, retentionDays }, 'payment webhook ids pruned');
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'pruning payment webhook ids failed');
    }
  }

  const findUser = async (id: string) => (await db.select().from(users).where(eq(users.id, id)))[0] ?? null;

  async function viaProvider<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PaymentProviderError) {
        log.warn({ reason: err.message }, `payment provider failed (${what})`);
        throw providerUnavailable();
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
      if (!user.paymentsCustomerId) throw badRequest('No subscription found');
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
      const result = await db.transaction(async (tx) => {
        const fresh = await tx.insert(webhookEvents).values({ id: event.id, type: event.type.slice(0, 100) }).onConflictDoNothing().returning({ id: webhookEvents.id });
        if (fresh.length === 0) {
          log.info({ webhookId: event.id, type: event.type }, 'payment webhook already received');
          return { received: true as const, duplicate: true as const };
        }
        const change = changeFor(event);
        if (!change) {
          const why = event.type.startsWith('subscription.') && !event.subscription ? 'unreadable subscription payload' : 'event kind not used';
          log.info({ webhookId: event.id, type: event.type }, `payment webhook ignored (${why})`);
          return { received: true as const };
        }
        const sub = event.subscription!;
        if (!productId || sub.productId !== productId) {
          log.info({ webhookId: event.id, type: event.type, productId: sub.productId?.slice(0, 200) ?? null }, 'payment webhook ignored (not the Pro product)');
          return { received: true as const };
        }
        const userId = sub.customerExternalId;
        if (!userId || !UUID.test(userId)) {
          log.info({ webhookId: event.id, type: event.type }, 'payment webhook ignored (customer is not one of our users)');
          return { received: true as const };
        }
        // One conditional UPDATE: concurrent deliveries for one user are ordered by its row lock, and each
        // re-checks the time the other one may have just written.
        const updated = await tx
          .update(users)
          .set({ ...change, paymentsCustomerId: sub.customerId.slice(0, 200), subscriptionEventAt: sub.changedAt })
          .where(and(eq(users.id, userId), or(isNull(users.subscriptionEventAt), lte(users.subscriptionEventAt, sub.changedAt))))
          .returning({ id: users.id });
        if (updated.length > 0) {
          log.info({ webhookId: event.id, type: event.type, userId, ...change, changedAt: sub.changedAt.toISOString() }, 'payment webhook applied');
          return { received: true as const };
        }
        const [user] = await tx.select({ appliedAt: users.subscriptionEventAt }).from(users).where(eq(users.id, userId));
        if (!user) log.info({ webhookId: event.id, type: event.type }, 'payment webhook ignored (unknown customer)');
        else {
          const times = { changedAt: sub.changedAt.toISOString(), appliedAt: user.appliedAt?.toISOString() };
          log.info({ webhookId: event.id, type: event.type, userId, ...times }, 'payment webhook skipped (older than the subscription event already applied)');
        }
        return { received: true as const };
      });
      await pruneWebhookIds();
      return result;
    },
  };
}
