// The billing service on in-memory repositories and an in-process payments port: checkout and portal, and
// webhook deliveries applied once each, in the provider's order, with the webhook id and the effect
// committed together.
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { InvalidWebhookSignatureError, type PaymentEvent, type Payments } from '../../../src/payments/index.js';
import { createBillingService, type BillingService } from '../../../src/services/billing.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';

const PRO = 'prod-pro';
let repos: FakeRepositories;
let billing: BillingService;
let calls: Array<{ kind: string; input: unknown }>;
let adaId: string;

/** The provider's side: checkout/portal URLs, and a verifier that takes the body as the event when signed `ok`. */
function fakePayments(): Payments {
  return {
    provider: {
      async createCheckout(input) {
        calls.push({ kind: 'checkout', input });
        return { url: 'https://pay.test/checkout/1' };
      },
      async createPortalSession(input) {
        calls.push({ kind: 'portal', input });
        return { url: 'https://pay.test/portal/1' };
      },
    },
    webhooks: {
      verify(rawBody, headers) {
        if (headers['webhook-signature'] !== 'ok') throw new InvalidWebhookSignatureError('bad signature');
        return JSON.parse(rawBody) as PaymentEvent;
      },
    },
  };
}

const silent = { info: () => undefined, warn: () => undefined };

function make(payments: Payments | null = fakePayments()) {
  return createBillingService({
    users: repos.users,
    subscriptions: repos.subscriptions,
    webhookReceipts: repos.webhookReceipts,
    transactions: repos.transactions,
    payments,
    baseUrl: 'http://app.test',
    settings: { productId: PRO, webhookRetentionDays: 7, successUrl: undefined, returnUrl: undefined },
    log: silent,
  });
}

beforeEach(() => {
  repos = createFakeRepositories();
  calls = [];
  billing = make();
  adaId = repos.addUser({ email: 'ada@example.com' }).id;
});

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

/** One signed delivery of a subscription event of Ada's subscription `sub-1`. */
function delivery(id: string, type: string, changedAt: string, extra: { productId?: string; status?: string } = {}) {
  const event: PaymentEvent = {
    id,
    type,
    subscription: {
      id: 'sub-1',
      customerId: 'cus-ada',
      customerExternalId: adaId,
      status: extra.status ?? 'active',
      cancelAtPeriodEnd: false,
      productId: extra.productId ?? PRO,
      changedAt,
      createdAt: '2026-01-01T00:00:00Z',
    },
  };
  return [JSON.stringify(event), { 'webhook-signature': 'ok' }] as const;
}

const ada = () => repos.state.users.get(adaId)!;

describe('billing service', () => {
  it('checkout: the hosted URL for an existing user, with our id and the absolute success URL', async () => {
    expect(await billing.checkout(adaId)).toEqual({ url: 'https://pay.test/checkout/1' });
    expect(calls).toEqual([{ kind: 'checkout', input: { customerExternalId: adaId, customerEmail: 'ada@example.com', successUrl: 'http://app.test/projects?upgraded=1' } }]);
    expect(await code(billing.checkout('00000000-0000-4000-8000-000000000000'))).toBe('unauthorized');
    expect(await code(make(null).checkout(adaId))).toBe('payments_not_configured');
  });

  it('portal: no_subscription before paying; after subscription.active the user is Pro and the portal opens', async () => {
    expect(await code(billing.portal(adaId))).toBe('no_subscription');
    expect(await billing.receiveWebhook(...delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00.000001Z'))).toEqual({ received: true });
    expect(ada()).toMatchObject({ isPro: true, subscriptionStatus: 'active', paymentsCustomerId: 'cus-ada' });
    expect(await billing.portal(adaId)).toEqual({ url: 'https://pay.test/portal/1' });
    expect(calls.at(-1)).toEqual({ kind: 'portal', input: { customerId: 'cus-ada', returnUrl: 'http://app.test/projects' } });
  });

  it('a webhook id is applied once: a redelivery answers duplicate and changes nothing', async () => {
    await billing.receiveWebhook(...delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00Z'));
    // Same id, other content (a replay): ignored.
    expect(await billing.receiveWebhook(...delivery('wh-1', 'subscription.revoked', '2026-02-02T10:00:00Z'))).toEqual({ received: true, duplicate: true });
    expect(ada().isPro).toBe(true);
  });

  it('events apply in the provider’s order: an older revocation arriving late is skipped, a newer one ends Pro', async () => {
    await billing.receiveWebhook(...delivery('wh-2', 'subscription.active', '2026-02-02T10:00:00Z'));
    await billing.receiveWebhook(...delivery('wh-1', 'subscription.revoked', '2026-02-01T10:00:00Z'));
    expect(ada()).toMatchObject({ isPro: true, subscriptionStatus: 'active' });
    await billing.receiveWebhook(...delivery('wh-3', 'subscription.revoked', '2026-02-03T10:00:00Z'));
    expect(ada()).toMatchObject({ isPro: false, subscriptionStatus: 'revoked' });
    expect([...repos.state.webhooks.keys()].sort()).toEqual(['wh-1', 'wh-2', 'wh-3']);
  });

  it('an event of another product for an unknown subscription grants nothing (its id is still recorded)', async () => {
    await billing.receiveWebhook(...delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00Z', { productId: 'prod-other' }));
    expect(ada().isPro).toBe(false);
    expect(repos.state.subscriptions.size).toBe(0);
    expect(repos.state.webhooks.has('wh-1')).toBe(true);
  });

  it('a bad signature is refused (invalid_signature) and records nothing', async () => {
    const [body] = delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00Z');
    expect(await code(billing.receiveWebhook(body, { 'webhook-signature': 'forged' }))).toBe('invalid_signature');
    expect(repos.state.webhooks.size).toBe(0);
    expect(await code(make({ ...fakePayments(), webhooks: null }).receiveWebhook(body, {}))).toBe('payments_not_configured');
  });

  it('the webhook id and the effect commit together: a failure while applying leaves the id unrecorded for the retry', async () => {
    const failing = createBillingService({
      users: { ...repos.users, deriveSubscriptionState: () => Promise.reject(new Error('database went away')) },
      subscriptions: repos.subscriptions,
      webhookReceipts: repos.webhookReceipts,
      transactions: repos.transactions,
      payments: fakePayments(),
      baseUrl: 'http://app.test',
      settings: { productId: PRO, webhookRetentionDays: 7 },
      log: silent,
    });
    await expect(failing.receiveWebhook(...delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00Z'))).rejects.toThrow('database went away');
    expect(repos.state.webhooks.size).toBe(0);
    expect(repos.state.subscriptions.size).toBe(0);
    // The retry, with the database back, applies.
    expect(await billing.receiveWebhook(...delivery('wh-1', 'subscription.active', '2026-02-01T10:00:00Z'))).toEqual({ received: true });
    expect(ada().isPro).toBe(true);
  });
});
