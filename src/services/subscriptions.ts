// Payments: the state of each of a user's subscriptions at the provider (the `subscriptions`
// table) and the user's Pro flag and status label derived from them. The billing service calls
// applySubscriptionEvent inside the transaction that records the webhook id.
import type { Tx } from '../db/index.js';
import type { SubscriptionsRepository, UsersRepository } from '../db/repositories/index.js';
import type { PaymentEvent, SubscriptionChange } from '../payments/index.js';

/** What one subscription event does to its subscription's row: `hasAccess` unset = left as it is. */
export type Change = { hasAccess?: boolean; status: string };

/**
 * The rule, in one place. It holds per subscription (one row per provider subscription id); the user is Pro
 * while at least one of their subscriptions grants Pro.
 * - Access is granted only by `subscription.active` and removed only by `subscription.revoked` (Polar sends it
 *   when access really ends: at the end of a canceled period, or when an unpaid subscription is given up).
 *   A subscription grants Pro while it has access and is of the Pro product (PAYMENTS_PRODUCT_ID).
 * - Every other subscription event only refreshes the subscription's status label: `canceled` → `wont-renew`
 *   (still Pro until revoked), `uncanceled` → `active`, `updated` → the payload's status (`wont-renew` while it
 *   is active/trialing but set to end at the period's end; otherwise `active`, `trialing`, `past_due`,
 *   `canceled`, `unpaid`, … as Polar says). So a `past_due` or `unpaid` subscription keeps Pro while Polar
 *   retries the payment, and loses it with the revocation that follows.
 * - Products: rows are created only by events of the Pro product; an event of another product for a
 *   subscription without a row (one we never saw as Pro) is acknowledged, logged and changes nothing. A
 *   subscription already known that changes to another product is updated like any other (its row records the
 *   product and stops granting Pro; changed back without a revocation in between, it grants Pro again, since
 *   Polar sends no new `subscription.active` for a product change). An event whose payload names no product is
 *   ignored: it cannot be tied to the Pro plan, so it must not decide who is Pro in either direction.
 * - Order: deliveries arrive in any order (Polar retries failed ones, and a retry can land after newer events),
 *   so each row keeps the provider's time of the state it holds (`changed_at`: the subscription's `modified_at`,
 *   else the event's `timestamp`), at the microsecond precision Polar sends. An event older than its
 *   subscription's row is acknowledged, logged and skipped: a late `subscription.active` after
 *   `subscription.revoked` does not grant Pro again, and a late `updated` does not bring back an older status.
 *   An event of the same time is applied (Polar sends several events for one change, e.g. `revoked` and
 *   `updated`, and a redelivery of the last one changes nothing). Events of different subscriptions do not
 *   order each other.
 * - The user row, in the same transaction: `is_pro` = one of the user's rows grants Pro; `subscription_status` =
 *   the label of the most recently changed (`changed_at`) of the user's subscriptions that grant Pro, or, when
 *   none does, of all of them (the last applied wins a tie); `payments_customer_id` = the customer id of the
 *   last applied event (the portal needs it).
 * - Pre-upgrade state (migration 0006): a user who had subscription state before the table existed has a row
 *   `legacy:<user id>` with the old per-user state. A subscription without a row yet is then handled as the
 *   per-user ordering did before: an event older than that state is skipped; a subscription created no later
 *   than it starts with its access (the old `is_pro`), after which the pre-upgrade row itself grants nothing.
 */
export function changeFor(event: PaymentEvent): Change | null {
  const sub = event.subscription;
  if (!sub) return null;
  switch (event.type) {
    case 'subscription.active':
      return { hasAccess: true, status: 'active' };
    case 'subscription.canceled':
      return { status: 'wont-renew' };
    case 'subscription.uncanceled':
      return { status: 'active' };
    case 'subscription.updated': {
      const running = sub.status === 'active' || sub.status === 'trialing';
      return { status: running && sub.cancelAtPeriodEnd ? 'wont-renew' : sub.status.slice(0, 50) };
    }
    case 'subscription.revoked':
      return { hasAccess: false, status: 'revoked' };
    default:
      return null;
  }
}

/** The id of a user's pre-upgrade row (migration 0006); no provider subscription id has this form. */
const preUpgradeRowId = (userId: string) => `legacy:${userId}`;
const isPreUpgradeRowId = (id: string) => id.startsWith('legacy:');

export type ApplyOutcome =
  | { applied: true; isPro: boolean; subscriptionStatus: string | null; grantsPro: boolean }
  | { applied: false; why: 'unknown customer' | 'not the Pro product' | 'subscription of another user' | 'reserved subscription id' }
  /** Older than the subscription's row (`appliedAt`), or, for a subscription without one, than the pre-upgrade state. */
  | { applied: false; why: 'older'; appliedAt: string; preUpgrade: boolean };

/**
 * Applies one subscription event of the user `userId` (a uuid): upserts its subscription's row when the event
 * is not older than it, then recomputes the user's `is_pro`, `subscription_status` and `payments_customer_id`.
 * The user's row is locked first, so a user's events apply one at a time and each recomputation sees the rows
 * the others committed (two revocations of two subscriptions cannot each still see the other one granting).
 */
export interface SubscriptionRuleDeps {
  users: Pick<UsersRepository, 'lockForUpdate' | 'deriveSubscriptionState'>;
  subscriptions: Pick<SubscriptionsRepository, 'findOrdered' | 'findPreUpgrade' | 'update' | 'insert' | 'stopGranting'>;
}

export async function applySubscriptionEvent(
  { users, subscriptions }: SubscriptionRuleDeps,
  tx: Tx,
  input: { userId: string; sub: SubscriptionChange & { productId: string }; change: Change; proProductId: string },
): Promise<ApplyOutcome> {
  const { sub, change, proProductId } = input;
  if (isPreUpgradeRowId(sub.id)) return { applied: false, why: 'reserved subscription id' };
  const userId = input.userId.toLowerCase(); // as PostgreSQL prints a uuid
  const at = sub.changedAt;
  const productId = sub.productId.slice(0, 200);
  if (!(await users.lockForUpdate(userId, tx))) return { applied: false, why: 'unknown customer' };

  const isPro = sub.productId === proProductId;
  const found = await subscriptions.findOrdered(sub.id, at, tx);
  let hasAccess: boolean;
  if (found) {
    if (found.userId !== userId) return { applied: false, why: 'subscription of another user' };
    if (found.newer) return { applied: false, why: 'older', appliedAt: found.changedAt, preUpgrade: false };
    hasAccess = change.hasAccess ?? found.hasAccess;
    await subscriptions.update(sub.id, { productId, status: change.status, hasAccess, grantsPro: hasAccess && isPro, changedAt: at }, tx);
  } else {
    if (!isPro) return { applied: false, why: 'not the Pro product' };
    const preUpgrade = await subscriptions.findPreUpgrade(preUpgradeRowId(userId), at, sub.createdAt, tx);
    if (preUpgrade?.newer) return { applied: false, why: 'older', appliedAt: preUpgrade.changedAt, preUpgrade: true };
    // A subscription that existed when the pre-upgrade state was last set takes that state's access over.
    const inherits = preUpgrade?.covers === true;
    hasAccess = change.hasAccess ?? (inherits && preUpgrade.hasAccess);
    await subscriptions.insert(sub.id, userId, { productId, status: change.status, hasAccess, grantsPro: hasAccess, changedAt: at }, tx);
    if (inherits) await subscriptions.stopGranting(preUpgradeRowId(userId), tx);
  }

  const derived = await users.deriveSubscriptionState(userId, sub.customerId.slice(0, 200), tx);
  return { applied: true, isPro: derived.isPro, subscriptionStatus: derived.subscriptionStatus, grantsPro: hasAccess && isPro };
}
