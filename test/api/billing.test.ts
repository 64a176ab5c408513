// Payments: checkout and customer portal through the real @polar-sh/sdk against a
// local fake of Polar's API; webhooks signed with the real Standard Webhooks scheme, as Polar signs them; the
// Pro state kept per subscription, and the upgrade to it from the per-user state (migration 0006); the free-plan
// quota on POST /api/image.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_PRUNE_BATCH } from '../../src/services/billing.js';
import { startFakePolar, type FakePolar } from '../fakes/polar-server.js';
import type { HttpClient } from '../helpers/http-client.js';
import { migrateUpTo } from '../helpers/migrations.js';
import { countRows, createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

type User = { client: HttpClient; id: string; email: string };

/** What a browser sends when it follows one of our pages' links (SPEC's client navigates so to GET /api/checkout). */
const NAVIGATION = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
/** A same-site navigation as our own pages make it, not following redirects. */
const navigate = (who: User, path: string) => who.client.request(path, { follow: false, headers: NAVIGATION });

const PRODUCT = 'b6f1f5d4-6d1c-4b0e-9a55-7f2c1e0d9a11';
const TOKENS = { production: 'polar_oat_production_token', sandbox: 'polar_oat_sandbox_token' };
const SECRETS = { production: 'polar_whs_production_secret_0123456789', sandbox: 'polar_whs_sandbox_secret_9876543210' };

const paymentsEnv = (polar: FakePolar, setup: 'local' | 'production') => ({
  PUBLIC_SETUP: setup,
  PAYMENTS_ACCESS_TOKEN: TOKENS.production,
  PAYMENTS_SANDBOX_ACCESS_TOKEN: TOKENS.sandbox,
  PAYMENTS_WEBHOOK_SECRET: SECRETS.production,
  PAYMENTS_SANDBOX_WEBHOOK_SECRET: SECRETS.sandbox,
  PAYMENTS_PRODUCT_ID: PRODUCT,
  PAYMENTS_API_URL: polar.baseUrl,
});

interface SubscriptionFields {
  externalId: string | null;
  customerId: string;
  /** The subscription's id at Polar (default `sub-<customerId>`: one subscription per customer). */
  subscriptionId?: string;
  status?: string;
  cancelAtPeriodEnd?: boolean;
  /** The event's `timestamp` (default now). */
  at?: Date;
  /**
   * The subscription's `modified_at` (default: the event's time; null as Polar sends it for a subscription never
   * modified). A string is sent as it is (Polar's times carry microseconds: `2026-01-01T10:00:00.123456Z`).
   */
  modifiedAt?: Date | string | null;
  /** The subscription's `created_at` (default now). */
  createdAt?: Date;
  /** The subscription's product (default the Pro plan); null leaves `product_id` and `product` out. */
  productId?: string | null;
}

/** A Polar subscription event payload (the fields Polar sends; the service reads a few of them). */
function subscriptionEvent(type: string, sub: SubscriptionFields) {
  const now = new Date().toISOString();
  const at = (sub.at ?? new Date()).toISOString();
  const product = sub.productId === undefined ? PRODUCT : sub.productId;
  const modifiedAt = sub.modifiedAt instanceof Date ? sub.modifiedAt.toISOString() : sub.modifiedAt;
  return {
    type,
    timestamp: at,
    data: {
      id: sub.subscriptionId ?? `sub-${sub.customerId}`,
      created_at: sub.createdAt?.toISOString() ?? now,
      modified_at: modifiedAt === undefined ? at : modifiedAt,
      amount: 1000,
      currency: 'usd',
      recurring_interval: 'month',
      recurring_interval_count: 1,
      status: sub.status ?? 'active',
      current_period_start: now,
      current_period_end: new Date(Date.now() + 30 * 86400_000).toISOString(),
      cancel_at_period_end: sub.cancelAtPeriodEnd ?? false,
      canceled_at: null,
      started_at: now,
      ends_at: null,
      ended_at: null,
      customer_id: sub.customerId,
      ...(product === null ? {} : { product_id: product }),
      discount_id: null,
      checkout_id: randomUUID(),
      metadata: {},
      customer: { id: sub.customerId, created_at: now, modified_at: null, metadata: {}, external_id: sub.externalId, email: 'someone@example.com', email_verified: true, type: 'individual', name: null },
      ...(product === null ? {} : { product: { id: product, name: product === PRODUCT ? 'Pro' : 'Other', is_recurring: true } }),
      prices: [],
      meters: [],
    },
  };
}

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** Signs a payload as Polar does: Standard Webhooks with the base64 of the secret string. */
function signed(secret: string, payload: unknown, opts: { id?: string; at?: Date } = {}): Delivery {
  const id = opts.id ?? `msg_${randomUUID()}`;
  const at = opts.at ?? new Date();
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(id, at, body);
  return {
    body,
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
  };
}

const deliver = (t: TestApp, d: Delivery) => t.client().request('/api/webhook/payments', { method: 'POST', body: d.body, headers: d.headers });

async function userRow(t: TestApp, id: string) {
  const { rows } = await t.pool.query('SELECT is_pro, payments_customer_id, subscription_status FROM users WHERE id = $1', [id]);
  return rows[0] as { is_pro: boolean; payments_customer_id: string | null; subscription_status: string | null };
}
const webhookCount = async (t: TestApp) => (await t.pool.query('SELECT count(*)::int AS n FROM webhook_events')).rows[0].n as number;
/** Received webhook ids matching a LIKE pattern. */
const webhookIds = async (t: TestApp, like: string) => (await t.pool.query('SELECT id FROM webhook_events WHERE id LIKE $1 ORDER BY id', [like])).rows.map((r) => r.id as string);
/** Ages `count` received ids `days` days back (ids `${prefix}1`…), as if received then. */
const insertReceived = (t: TestApp, prefix: string, count: number, days: number) =>
  t.pool.query(
    `INSERT INTO webhook_events (id, type, received_at) SELECT $1 || g, 'subscription.active', now() - $2::int * interval '1 day' - g * interval '1 second' FROM generate_series(1, $3::int) g`,
    [prefix, days, count],
  );
const backdate = (t: TestApp, id: string, days: number) => t.pool.query(`UPDATE webhook_events SET received_at = now() - $2::int * interval '1 day' WHERE id = $1`, [id, days]);

describe('payments, production setup', () => {
  let t: TestApp;
  let polar: FakePolar;
  let ada: User;
  let bob: User;
  const secret = SECRETS.production;
  const adaCustomer = `cus_${randomUUID()}`;

  beforeAll(async () => {
    polar = await startFakePolar({ accessToken: TOKENS.production });
    t = await startTestApp({ ...paymentsEnv(polar, 'production'), FREE_GENERATIONS_PER_DAY: '2', RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' });
    [ada, bob] = await Promise.all([t.user('ada@example.com'), t.user('bob@example.com')]);
  });
  afterAll(async () => {
    await t?.close();
    await polar?.close();
  });

  it('checkout: redirects the session user to the hosted checkout, the customer taken from the session only', async () => {
    const before = polar.to('/v1/checkouts/').length;
    const evil = encodeURIComponent(bob.email);
    const res = await navigate(ada, `/api/checkout?customerId=${bob.id}&email=${evil}&externalCustomerId=${bob.id}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const sent = polar.to('/v1/checkouts/');
    expect(sent).toHaveLength(before + 1);
    const call = sent.at(-1)!;
    expect(call.token).toBe(TOKENS.production);
    expect(call.body).toMatchObject({ products: [PRODUCT], external_customer_id: ada.id, customer_email: ada.email, success_url: `${t.baseUrl}/projects?upgraded=1` });
    expect(JSON.stringify(call.body)).not.toContain(bob.id);
    expect(JSON.stringify(call.body)).not.toContain(bob.email);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${polar.baseUrl}/checkout/polar_c_[0-9a-f]{32}$`));
  });

  it('checkout: answers { url } with format=json or Accept: application/json (POST, or GET on a navigation from our pages)', async () => {
    const json = await ada.client.request('/api/checkout?format=json', { method: 'POST' });
    expect(json.status).toBe(200);
    expect(json.json).toEqual({ url: expect.stringMatching(new RegExp(`^${polar.baseUrl}/checkout/`)) });
    const accepted = await ada.client.request('/api/checkout', { method: 'POST', headers: { accept: 'application/json' } });
    expect(accepted.status).toBe(200);
    expect(accepted.json.url).toMatch(new RegExp(`^${polar.baseUrl}/checkout/`));
    expect(polar.to('/v1/checkouts/').at(-1)!.body.external_customer_id).toBe(ada.id);
    const got = await ada.client.get('/api/checkout?format=json', NAVIGATION);
    expect(got).toMatchObject({ status: 200, json: { url: expect.stringMatching(new RegExp(`^${polar.baseUrl}/checkout/`)) } });
    expect((await ada.client.get('/api/checkout?format=xml', NAVIGATION)).status).toBe(400);
    expect((await ada.client.request('/api/checkout?format=xml', { method: 'POST' })).status).toBe(400);
  });

  it('checkout and portal need a session', async () => {
    for (const path of ['/api/checkout', '/api/portal']) {
      expect(await t.client().request(path, { follow: false, headers: NAVIGATION })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
      expect(await t.client().request(path, { method: 'POST', follow: false })).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    }
  });

  it('answers 502 Payment provider unavailable when the provider fails, without internals', async () => {
    polar.failWith(500);
    try {
      const res = await navigate(ada, '/api/checkout');
      expect(res.status).toBe(502);
      expect(res.json).toEqual({ error: 'Payment provider unavailable' });
    } finally {
      polar.failWith(null);
    }
  });

  it('portal: 400 before paying; after subscription.active, the user (only) is Pro and the portal opens', async () => {
    expect(await navigate(ada, '/api/portal')).toMatchObject({ status: 400, json: { error: 'No subscription found' } });

    const res = await deliver(t, signed(secret, subscriptionEvent('subscription.active', { externalId: ada.id, customerId: adaCustomer })));
    expect(res).toMatchObject({ status: 200, json: { received: true } });
    expect(res.json.duplicate).toBeUndefined();

    // The user's record and the session both show it, without signing in again.
    expect((await ada.client.get('/api/user')).json).toMatchObject({ isPro: true, paymentsCustomerId: adaCustomer, subscriptionStatus: 'active' });
    expect((await ada.client.get('/api/auth/session')).json.user).toMatchObject({ id: ada.id, isPro: true });
    // The other user is untouched.
    expect((await bob.client.get('/api/user')).json).toMatchObject({ isPro: false });
    expect((await bob.client.get('/api/user')).json.paymentsCustomerId).toBeUndefined();
    expect((await bob.client.get('/api/auth/session')).json.user).toMatchObject({ id: bob.id, isPro: false });
    expect(await navigate(bob, '/api/portal')).toMatchObject({ status: 400, json: { error: 'No subscription found' } });

    const portal = await navigate(ada, '/api/portal?customerId=someone-else');
    expect(portal.status).toBe(302);
    expect(portal.headers.get('location')).toMatch(new RegExp(`^${polar.baseUrl}/portal\\?customer_session_token=polar_cst_`));
    const call = polar.to('/v1/customer-sessions/').at(-1)!;
    expect(call.token).toBe(TOKENS.production);
    expect(call.body).toEqual({ customer_id: adaCustomer, return_url: `${t.baseUrl}/projects` });
    expect((await ada.client.request('/api/portal?format=json', { method: 'POST' })).json).toEqual({ url: expect.stringMatching(/customer_session_token=polar_cst_/) });
  });

  it('refuses forged, tampered, stale and unsigned webhooks with 403, changing nothing', async () => {
    const target = await t.user('forged@example.com');
    const event = subscriptionEvent('subscription.active', { externalId: target.id, customerId: 'cus_forged' });
    const good = signed(secret, event);
    const tampered = { ...good, body: good.body.replace('"cus_forged"', '"cus_other1"') };
    const stale = signed(secret, event, { at: new Date(Date.now() - 6 * 60_000) });
    const future = signed(secret, event, { at: new Date(Date.now() + 6 * 60_000) });
    const reformatted = { ...good, body: JSON.stringify(JSON.parse(good.body), null, 2) };
    const { 'webhook-signature': _, ...unsigned } = good.headers;
    const before = await webhookCount(t);
    const refused: Array<[string, Delivery]> = [
      ['wrong secret', signed('polar_whs_not_our_secret', event)],
      ['the sandbox secret', signed(SECRETS.sandbox, event)],
      ['tampered body', tampered],
      ['re-serialized body', reformatted],
      ['timestamp 6 minutes old', stale],
      ['timestamp 6 minutes ahead', future],
      ['no signature', { ...good, headers: unsigned }],
      ['no headers', { body: good.body, headers: { 'content-type': 'application/json' } }],
      ['empty body', { ...good, body: '' }],
    ];
    for (const [why, delivery] of refused) {
      expect(await deliver(t, delivery), why).toMatchObject({ status: 403, json: { error: 'Invalid signature' } });
    }
    expect(await userRow(t, target.id)).toEqual({ is_pro: false, payments_customer_id: null, subscription_status: null });
    expect(await webhookCount(t)).toBe(before);
    // The untouched original still works (the refusals did not burn its id).
    expect((await deliver(t, good)).json).toEqual({ received: true });
    expect(await userRow(t, target.id)).toMatchObject({ is_pro: true, payments_customer_id: 'cus_forged' });
  });

  it('applies each webhook id once: a redelivery or a replayed id changes nothing', async () => {
    const carol = await t.user('carol@example.com');
    const active = signed(secret, subscriptionEvent('subscription.active', { externalId: carol.id, customerId: 'cus_carol' }));
    expect((await deliver(t, active)).json).toEqual({ received: true });
    expect(await deliver(t, active)).toMatchObject({ status: 200, json: { received: true, duplicate: true } });
    // A revocation carrying the id of the activation (a replay with a new signature) is not applied.
    const replayed = signed(secret, subscriptionEvent('subscription.revoked', { externalId: carol.id, customerId: 'cus_carol', status: 'canceled' }), { id: active.headers['webhook-id'] });
    expect(await deliver(t, replayed)).toMatchObject({ status: 200, json: { received: true, duplicate: true } });
    expect(await userRow(t, carol.id)).toEqual({ is_pro: true, payments_customer_id: 'cus_carol', subscription_status: 'active' });
    // Concurrent deliveries of one new id: one applies, the others are duplicates.
    const revoked = signed(secret, subscriptionEvent('subscription.revoked', { externalId: carol.id, customerId: 'cus_carol', status: 'canceled' }));
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(t, revoked)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((a) => a.json.duplicate === true)).toHaveLength(4);
    expect(await userRow(t, carol.id)).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
  });

  it('reflects cancellation, un-cancellation, updates and revocation', async () => {
    const dan = await t.user('dan@example.com');
    const send = async (type: string, extra: { status?: string; cancelAtPeriodEnd?: boolean } = {}) => {
      const res = await deliver(t, signed(secret, subscriptionEvent(type, { externalId: dan.id, customerId: 'cus_dan', ...extra })));
      expect(res, type).toMatchObject({ status: 200, json: { received: true } });
      const me = (await dan.client.get('/api/user')).json;
      return [me.isPro, me.subscriptionStatus];
    };
    expect(await send('subscription.active')).toEqual([true, 'active']);
    expect(await send('subscription.canceled', { cancelAtPeriodEnd: true })).toEqual([true, 'wont-renew']);
    expect(await send('subscription.updated', { status: 'active', cancelAtPeriodEnd: true })).toEqual([true, 'wont-renew']);
    expect(await send('subscription.uncanceled')).toEqual([true, 'active']);
    expect(await send('subscription.updated', { status: 'past_due' })).toEqual([true, 'past_due']);
    expect(await send('subscription.updated', { status: 'active' })).toEqual([true, 'active']);
    expect(await send('subscription.updated', { status: 'unpaid' })).toEqual([true, 'unpaid']);
    expect(await send('subscription.revoked', { status: 'canceled' })).toEqual([false, 'revoked']);
    // Only subscription.active grants Pro again.
    expect(await send('subscription.updated', { status: 'active' })).toEqual([false, 'active']);
    expect(await send('subscription.active')).toEqual([true, 'active']);
    expect((await dan.client.get('/api/auth/session')).json.user.isPro).toBe(true);
  });

  it('acknowledges and ignores unknown event kinds and unknown customers', async () => {
    const erin = await t.user('erin@example.com');
    const before = await userRow(t, erin.id);
    const cases = [
      signed(secret, { type: 'order.created', timestamp: new Date().toISOString(), data: { id: 'ord_1', customer: { external_id: erin.id } } }),
      signed(secret, { type: 'customer.deleted', timestamp: new Date().toISOString(), data: { id: 'cus_x', external_id: erin.id } }),
      signed(secret, { type: 'benefit.future_kind', data: {} }),
      signed(secret, subscriptionEvent('subscription.active', { externalId: randomUUID(), customerId: 'cus_nobody' })),
      signed(secret, subscriptionEvent('subscription.active', { externalId: 'not-a-uuid', customerId: 'cus_nobody' })),
      signed(secret, subscriptionEvent('subscription.active', { externalId: "' OR 1=1 --", customerId: 'cus_nobody' })),
      signed(secret, subscriptionEvent('subscription.active', { externalId: null, customerId: 'cus_nobody' })),
      signed(secret, { type: 'subscription.active', data: { unexpected: true } }),
    ];
    for (const delivery of cases) expect(await deliver(t, delivery)).toMatchObject({ status: 200, json: { received: true } });
    expect(await userRow(t, erin.id)).toEqual(before);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM users WHERE payments_customer_id = 'cus_nobody'")).rows[0].n).toBe(0);
  });

  // Deliveries are not ordered: Polar retries a failed one later, after newer events went through. The events
  // below carry provider times an hour back (`modified_at`), as a retry would; each is signed now.
  const hourAgo = Date.now() - 3600_000;
  const atSecond = (s: number) => new Date(hourAgo + s * 1000);

  it('out of order: a late subscription.active after subscription.revoked does not grant Pro again; its id is still recorded', async () => {
    const frank = await t.user('frank@example.com');
    const event = (type: string, second: number, extra: Partial<SubscriptionFields> = {}) =>
      signed(secret, subscriptionEvent(type, { externalId: frank.id, customerId: 'cus_frank', modifiedAt: atSecond(second), ...extra }));
    // Polar's order: active (0 s), updated past_due (10 s), revoked (20 s). The activation and the update fail
    // their first deliveries; the revocation arrives first.
    const active = event('subscription.active', 0);
    const pastDue = event('subscription.updated', 10, { status: 'past_due' });
    expect(await deliver(t, event('subscription.revoked', 20, { status: 'canceled' }))).toMatchObject({ status: 200, json: { received: true } });
    const revoked = { is_pro: false, payments_customer_id: 'cus_frank', subscription_status: 'revoked' };
    expect(await userRow(t, frank.id)).toEqual(revoked);

    for (const late of [active, pastDue]) {
      const res = await deliver(t, late);
      expect(res).toMatchObject({ status: 200, json: { received: true } });
      expect(res.json.duplicate).toBeUndefined();
      expect(await userRow(t, frank.id)).toEqual(revoked);
      // Acknowledged and recorded: the next retry of it is a plain duplicate.
      expect(await webhookIds(t, late.headers['webhook-id'])).toEqual([late.headers['webhook-id']]);
      expect(await deliver(t, late)).toMatchObject({ status: 200, json: { received: true, duplicate: true } });
    }
    expect((await frank.client.get('/api/user')).json).toMatchObject({ isPro: false, subscriptionStatus: 'revoked' });
    // A newer activation (a new subscription) does grant it.
    expect((await deliver(t, event('subscription.active', 30))).json).toEqual({ received: true });
    expect(await userRow(t, frank.id)).toMatchObject({ is_pro: true, subscription_status: 'active' });
  });

  it('out of order: a late subscription.updated does not overwrite a newer status; events of the same time all apply', async () => {
    const gina = await t.user('gina@example.com');
    const send = async (type: string, second: number, status?: string) => {
      const res = await deliver(t, signed(secret, subscriptionEvent(type, { externalId: gina.id, customerId: 'cus_gina', modifiedAt: atSecond(second), status })));
      expect(res, `${type} at ${second} s`).toMatchObject({ status: 200, json: { received: true } });
      const row = await userRow(t, gina.id);
      return [row.is_pro, row.subscription_status];
    };
    expect(await send('subscription.active', 0)).toEqual([true, 'active']);
    expect(await send('subscription.updated', 30, 'past_due')).toEqual([true, 'past_due']);
    expect(await send('subscription.updated', 20, 'active')).toEqual([true, 'past_due']); // older: skipped
    expect(await send('subscription.uncanceled', 29)).toEqual([true, 'past_due']); // older: skipped
    expect(await send('subscription.canceled', 29)).toEqual([true, 'past_due']); // older: skipped
    // Polar sends several events for one change, with one modified_at: each applies, in delivery order.
    expect(await send('subscription.updated', 30, 'unpaid')).toEqual([true, 'unpaid']);
    expect(await send('subscription.revoked', 30, 'canceled')).toEqual([false, 'revoked']);
    expect(await send('subscription.updated', 30, 'canceled')).toEqual([false, 'canceled']);
    expect(await send('subscription.active', 29)).toEqual([false, 'canceled']); // older: skipped
  });

  it('orders by the subscription\'s modified_at, and by the event\'s timestamp when modified_at is null', async () => {
    const hank = await t.user('hank@example.com');
    const send = async (type: string, fields: Partial<SubscriptionFields>) => {
      expect((await deliver(t, signed(secret, subscriptionEvent(type, { externalId: hank.id, customerId: 'cus_hank', ...fields })))).status).toBe(200);
      return (await userRow(t, hank.id)).is_pro;
    };
    // modified_at null (a subscription never modified since it was created): the event's timestamp counts.
    expect(await send('subscription.active', { modifiedAt: null, at: atSecond(0) })).toBe(true);
    expect(await send('subscription.revoked', { modifiedAt: null, at: atSecond(20), status: 'canceled' })).toBe(false);
    expect(await send('subscription.active', { modifiedAt: null, at: atSecond(10) })).toBe(false);
    // modified_at present: it counts, not the (later) time the event was created.
    expect(await send('subscription.active', { modifiedAt: atSecond(15), at: atSecond(40) })).toBe(false);
    expect(await send('subscription.active', { modifiedAt: atSecond(25), at: atSecond(25) })).toBe(true);
    // Neither time: the event cannot be ordered, and is ignored like any unreadable payload.
    const timeless = subscriptionEvent('subscription.revoked', { externalId: hank.id, customerId: 'cus_hank', modifiedAt: null, status: 'canceled' }) as { timestamp?: string };
    delete timeless.timestamp;
    expect(await deliver(t, signed(secret, timeless))).toMatchObject({ status: 200, json: { received: true } });
    expect(await userRow(t, hank.id)).toMatchObject({ is_pro: true, subscription_status: 'active' });
  });

  it('events of a subscription of another product (never seen as Pro), or naming no product, neither grant nor remove Pro nor change the status', async () => {
    const iris = await t.user('iris@example.com');
    const otherProduct = randomUUID();
    // The other product's subscription is a subscription of its own; events naming no product are of the Pro one.
    const other = { productId: otherProduct, subscriptionId: 'sub-iris-other' };
    const send = async (type: string, second: number, fields: Partial<SubscriptionFields> = {}) => {
      const res = await deliver(t, signed(secret, subscriptionEvent(type, { externalId: iris.id, customerId: 'cus_iris', modifiedAt: atSecond(second), ...fields })));
      expect(res, `${type} at ${second} s`).toMatchObject({ status: 200, json: { received: true } });
      return userRow(t, iris.id);
    };
    const untouched = { is_pro: false, payments_customer_id: null, subscription_status: null };
    expect(await send('subscription.active', 0, other)).toEqual(untouched);
    expect(await send('subscription.active', 0, { productId: null })).toEqual(untouched);

    const pro = { is_pro: true, payments_customer_id: 'cus_iris', subscription_status: 'active' };
    expect(await send('subscription.active', 10)).toEqual(pro);
    expect(await send('subscription.revoked', 20, { ...other, status: 'canceled' })).toEqual(pro);
    expect(await send('subscription.revoked', 20, { productId: null, status: 'canceled' })).toEqual(pro);
    expect(await send('subscription.canceled', 20, other)).toEqual(pro);
    expect(await send('subscription.updated', 20, { ...other, status: 'past_due' })).toEqual(pro);
    // Ignored events do not move the ordering time either: the Pro plan's own event of 15 s still applies.
    expect(await send('subscription.updated', 15, { status: 'past_due' })).toEqual({ ...pro, subscription_status: 'past_due' });
    expect(await send('subscription.revoked', 25, { status: 'canceled' })).toEqual({ ...pro, is_pro: false, subscription_status: 'revoked' });
    // No row is kept for the other product's subscription.
    const { rows } = await t.pool.query('SELECT id FROM subscriptions WHERE user_id = $1', [iris.id]);
    expect(rows).toEqual([{ id: 'sub-cus_iris' }]);
  });

  // The state is kept per subscription: a user may hold several (a double purchase, a new one after an old one
  // ended), and each is ordered by its own modified_at.
  const subscriptionSender = (user: User, customerId: string) => async (type: string, subscriptionId: string, modifiedAt: Date | string, fields: Partial<SubscriptionFields> = {}) => {
    const res = await deliver(t, signed(secret, subscriptionEvent(type, { externalId: user.id, customerId, subscriptionId, modifiedAt, ...fields })));
    expect(res, `${type} of ${subscriptionId} at ${String(modifiedAt)}`).toMatchObject({ status: 200, json: { received: true } });
    return userRow(t, user.id);
  };

  it('two Pro subscriptions (a double purchase): revoking one keeps Pro while the other is active', async () => {
    const kim = await t.user('kim@example.com');
    const send = subscriptionSender(kim, 'cus_kim');
    expect(await send('subscription.active', 'sub-kim-1', atSecond(0))).toMatchObject({ is_pro: true });
    expect(await send('subscription.active', 'sub-kim-2', atSecond(10))).toMatchObject({ is_pro: true });
    expect(await send('subscription.revoked', 'sub-kim-1', atSecond(20), { status: 'canceled' })).toMatchObject({ is_pro: true });
    expect((await kim.client.get('/api/user')).json).toMatchObject({ isPro: true });
    expect((await kim.client.get('/api/auth/session')).json.user).toMatchObject({ isPro: true });
    // Revoked in the other order of delivery too: the later revocation arriving first does not end Pro either.
    expect(await send('subscription.active', 'sub-kim-3', atSecond(30))).toMatchObject({ is_pro: true });
    expect(await send('subscription.revoked', 'sub-kim-3', atSecond(50), { status: 'canceled' })).toMatchObject({ is_pro: true });
    // The last one going ends it.
    expect(await send('subscription.revoked', 'sub-kim-2', atSecond(40), { status: 'canceled' })).toEqual({ is_pro: false, payments_customer_id: 'cus_kim', subscription_status: 'revoked' });
  });

  it('simultaneous events of one user\'s subscriptions apply one at a time: revoking both at once ends Pro', async () => {
    const ola = await t.user('ola@example.com');
    const send = subscriptionSender(ola, 'cus_ola');
    for (let round = 0; round < 3; round++) {
      const [a, b] = [`sub-ola-${round}-a`, `sub-ola-${round}-b`];
      await send('subscription.active', a, atSecond(round * 10));
      expect(await send('subscription.active', b, atSecond(round * 10))).toMatchObject({ is_pro: true });
      await Promise.all([a, b].map((id) => send('subscription.revoked', id, atSecond(round * 10 + 5), { status: 'canceled' })));
      expect(await userRow(t, ola.id), `round ${round}`).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    }
  });

  it('the status shown is that of the subscription that makes the user Pro: an event of an old, ended subscription arriving later does not replace it', async () => {
    const lee = await t.user('lee@example.com');
    const send = subscriptionSender(lee, 'cus_lee');
    expect(await send('subscription.active', 'sub-lee-old', atSecond(0))).toMatchObject({ is_pro: true, subscription_status: 'active' });
    expect(await send('subscription.revoked', 'sub-lee-old', atSecond(10), { status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    expect(await send('subscription.active', 'sub-lee-new', atSecond(20))).toMatchObject({ is_pro: true, subscription_status: 'active' });
    // Polar touches the ended subscription again (its last update arrives after the new one started).
    expect(await send('subscription.updated', 'sub-lee-old', atSecond(30), { status: 'canceled' })).toMatchObject({ is_pro: true, subscription_status: 'active' });
    // The new subscription's own changes still show.
    expect(await send('subscription.canceled', 'sub-lee-new', atSecond(40), { cancelAtPeriodEnd: true })).toMatchObject({ is_pro: true, subscription_status: 'wont-renew' });
    expect(await send('subscription.revoked', 'sub-lee-new', atSecond(50), { status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
  });

  it('a subscription changed from the Pro product to another stops granting Pro; changed back, it grants it again', async () => {
    const max = await t.user('max@example.com');
    const send = subscriptionSender(max, 'cus_max');
    const otherProduct = randomUUID();
    expect(await send('subscription.active', 'sub-max', atSecond(0))).toMatchObject({ is_pro: true, subscription_status: 'active' });
    expect(await send('subscription.updated', 'sub-max', atSecond(10), { productId: otherProduct })).toMatchObject({ is_pro: false, subscription_status: 'active' });
    expect((await max.client.get('/api/user')).json).toMatchObject({ isPro: false });
    // An older event of the Pro product (a late delivery) does not bring it back.
    expect(await send('subscription.updated', 'sub-max', atSecond(5))).toMatchObject({ is_pro: false });
    // Back on the Pro product, not revoked in between: Pro again (Polar sends no new subscription.active).
    expect(await send('subscription.updated', 'sub-max', atSecond(20))).toMatchObject({ is_pro: true, subscription_status: 'active' });
    // Revoked while on the other product, then moved back: not Pro (only subscription.active grants it again).
    expect(await send('subscription.updated', 'sub-max', atSecond(30), { productId: otherProduct })).toMatchObject({ is_pro: false });
    expect(await send('subscription.revoked', 'sub-max', atSecond(40), { productId: otherProduct, status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    expect(await send('subscription.updated', 'sub-max', atSecond(50), { status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'canceled' });
  });

  it('orders two states of one subscription within one millisecond by their microseconds', async () => {
    const nina = await t.user('nina@example.com');
    const send = subscriptionSender(nina, 'cus_nina');
    const ms = atSecond(0).toISOString().slice(0, 23); // e.g. 2026-01-01T10:00:00.123
    expect(await send('subscription.active', 'sub-nina', `${ms}100Z`)).toMatchObject({ is_pro: true });
    expect(await send('subscription.revoked', 'sub-nina', `${ms}900Z`, { status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    // Modified 400 µs before the revocation, delivered after it: skipped.
    expect(await send('subscription.active', 'sub-nina', `${ms}500Z`)).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    expect(await send('subscription.updated', 'sub-nina', `${ms}899Z`, { status: 'active' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    // The same instant in another offset is the same time (applied), a microsecond later too.
    const inParis = `${new Date(Date.parse(`${ms}Z`) + 3600_000).toISOString().slice(0, 23)}900+01:00`;
    expect(await send('subscription.updated', 'sub-nina', inParis, { status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'canceled' });
    expect(await send('subscription.active', 'sub-nina', `${ms}901Z`)).toMatchObject({ is_pro: true, subscription_status: 'active' });
    const { rows } = await t.pool.query(`SELECT to_char(changed_at AT TIME ZONE 'UTC', 'SS.US') AS second FROM subscriptions WHERE id = 'sub-nina'`);
    expect(rows).toEqual([{ second: `${ms.slice(17)}901` }]);
  });

  it('prunes received webhook ids older than the retention window (7 days by default), a bounded batch per verified delivery; ids inside the window still stop replays', async () => {
    const jane = await t.user('jane@example.com');
    await insertReceived(t, 'msg_expired_', WEBHOOK_PRUNE_BATCH + 20, 8);
    const active = signed(secret, subscriptionEvent('subscription.active', { externalId: jane.id, customerId: 'cus_jane', modifiedAt: atSecond(0) }));
    const activeId = active.headers['webhook-id'];
    // A refused delivery touches nothing.
    expect((await deliver(t, signed('polar_whs_not_our_secret', JSON.parse(active.body)))).status).toBe(403);
    expect(await webhookIds(t, 'msg_expired_%')).toHaveLength(WEBHOOK_PRUNE_BATCH + 20);
    // Each verified delivery deletes at most one batch.
    expect((await deliver(t, active)).json).toEqual({ received: true });
    expect(await webhookIds(t, 'msg_expired_%')).toHaveLength(20);

    // Six days later (inside the window) the activation's id is still there: a replay is a duplicate, and
    // that delivery prunes the rest of the expired ids.
    await backdate(t, activeId, 6);
    expect(await deliver(t, signed(secret, JSON.parse(active.body), { id: activeId }))).toMatchObject({ status: 200, json: { received: true, duplicate: true } });
    expect(await webhookIds(t, 'msg_expired_%')).toEqual([]);
    expect(await webhookIds(t, activeId)).toEqual([activeId]);

    // Past the window its id goes too. A redelivery after that is no longer recognised as a duplicate, but it
    // is older than what was applied since (the revocation), so it still changes nothing.
    expect((await deliver(t, signed(secret, subscriptionEvent('subscription.revoked', { externalId: jane.id, customerId: 'cus_jane', modifiedAt: atSecond(20), status: 'canceled' })))).status).toBe(200);
    await backdate(t, activeId, 8);
    expect((await deliver(t, signed(secret, { type: 'order.created', timestamp: new Date().toISOString(), data: {} }))).status).toBe(200);
    expect(await webhookIds(t, activeId)).toEqual([]);
    const redelivered = await deliver(t, signed(secret, JSON.parse(active.body), { id: activeId }));
    expect(redelivered).toMatchObject({ status: 200, json: { received: true } });
    expect(redelivered.json.duplicate).toBeUndefined();
    expect(await userRow(t, jane.id)).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
  });

  it('free plan: a user who is not Pro gets 402 Upgrade required after FREE_GENERATIONS_PER_DAY; a Pro user does not', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } }).png().toBuffer();
    const body = { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'grayscale' };
    const free = await t.user('free@example.com');
    const pro = await t.user('pro@example.com');
    expect((await deliver(t, signed(secret, subscriptionEvent('subscription.active', { externalId: pro.id, customerId: 'cus_pro' })))).status).toBe(200);

    expect((await free.client.post('/api/image', body)).status).toBe(200);
    expect((await free.client.post('/api/image', body)).status).toBe(200);
    const generations = await countRows(t, 'generations');
    expect(await free.client.post('/api/image', body)).toMatchObject({ status: 402, json: { error: 'Upgrade required' } });
    expect(await countRows(t, 'generations')).toBe(generations);

    for (let i = 0; i < 3; i++) expect((await pro.client.post('/api/image', body)).status).toBe(200);

    // Becoming Pro lifts the limit at once; losing it brings it back.
    const upgraded = signed(secret, subscriptionEvent('subscription.active', { externalId: free.id, customerId: 'cus_free' }));
    expect((await deliver(t, upgraded)).status).toBe(200);
    expect((await free.client.post('/api/image', body)).status).toBe(200);
    expect((await deliver(t, signed(secret, subscriptionEvent('subscription.revoked', { externalId: free.id, customerId: 'cus_free', status: 'canceled' })))).status).toBe(200);
    expect((await free.client.post('/api/image', body)).status).toBe(402);
  });
});

describe('payments: who may start a checkout or open the portal, and from where (issue 31)', () => {
  let t: TestApp;
  let polar: FakePolar;
  let ada: User;
  let pro: User;
  /** Calls that create something at the provider: checkouts and customer sessions. */
  const providerCalls = () => polar.to('/v1/checkouts/').length + polar.to('/v1/customer-sessions/').length;
  const bearer = (secret: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    t.client().request(path, { follow: false, ...init, headers: { authorization: `Bearer ${secret}`, ...init.headers } });
  async function tokenOf(who: User, scopes: string[]): Promise<string> {
    const res = await who.client.post('/api/user/tokens', { name: scopes.join('+'), scopes });
    expect(res.status).toBe(201);
    return res.json.token as string;
  }

  beforeAll(async () => {
    polar = await startFakePolar({ accessToken: TOKENS.production });
    t = await startTestApp({ ...paymentsEnv(polar, 'production'), RATE_LIMIT_CHECKOUTS_PER_MINUTE: '1000' });
    [ada, pro] = await Promise.all([t.user('ada@example.com'), t.user('pro@example.com')]);
    const res = await deliver(t, signed(SECRETS.production, subscriptionEvent('subscription.active', { externalId: pro.id, customerId: 'cus_pro' })));
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await polar?.close();
  });

  it('a token without the billing scope gets 403 naming it, and nothing is created at the provider', async () => {
    const secret = await tokenOf(pro, ['read', 'write', 'generate']);
    const before = providerCalls();
    for (const path of ['/api/checkout', '/api/portal', '/api/checkout?format=json', '/api/portal?format=json']) {
      for (const method of ['GET', 'POST', 'HEAD']) {
        const res = await bearer(secret, path, { method });
        expect(res.status, `${method} ${path}`).toBe(403);
        if (method !== 'HEAD') expect(res.json, `${method} ${path}`).toEqual({ error: 'Token lacks the billing scope' });
      }
    }
    expect(providerCalls()).toBe(before);
  });

  it('a token with the billing scope starts a checkout and opens the portal (GET redirects, POST answers { url })', async () => {
    const secret = await tokenOf(pro, ['billing']);
    const checkout = await bearer(secret, '/api/checkout');
    expect(checkout.status).toBe(302);
    expect(checkout.headers.get('location')).toMatch(new RegExp(`^${polar.baseUrl}/checkout/`));
    expect(polar.to('/v1/checkouts/').at(-1)!.body).toMatchObject({ external_customer_id: pro.id });
    const portal = await bearer(secret, '/api/portal', { method: 'POST', headers: { accept: 'application/json' } });
    expect(portal).toMatchObject({ status: 200, json: { url: expect.stringMatching(/customer_session_token=polar_cst_/) } });
    expect(polar.to('/v1/customer-sessions/').at(-1)!.body).toMatchObject({ customer_id: 'cus_pro' });
    // billing alone reads nothing else.
    expect(await bearer(secret, '/api/user')).toMatchObject({ status: 403, json: { error: 'Token lacks the read scope' } });
  });

  it('a GET another site can trigger creates nothing: it answers a confirmation page (or 403 when JSON is asked for)', async () => {
    const other = 'https://evil.example';
    const variants: Record<string, Record<string, string>> = {
      'Sec-Fetch-Site cross-site': { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
      'Sec-Fetch-Site same-site': { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' },
      'same-origin, Origin of another site': { ...NAVIGATION, origin: other },
      'same-origin, Referer of another site': { ...NAVIGATION, referer: `${other}/page` },
      'none, Referer of another site': { 'sec-fetch-site': 'none', referer: `${other}/` },
      'no Sec-Fetch-Site (old browser, Referer stripped)': {},
      'no Sec-Fetch-Site, Referer of another site': { referer: `${other}/` },
    };
    const before = providerCalls();
    for (const [name, headers] of Object.entries(variants)) {
      for (const who of [ada, pro]) {
        for (const path of ['/api/checkout', '/api/portal']) {
          const page = await who.client.request(path, { follow: false, headers });
          expect(page.status, `${name} ${path}`).toBe(200);
          expect(page.headers.get('content-type'), name).toMatch(/^text\/html/);
          expect(page.text, name).toContain(`<form method="post" action="${path}">`);
          expect(page.headers.get('content-security-policy'), name).toContain("default-src 'none'");
          expect(page.headers.get('content-security-policy'), name).toContain("frame-ancestors 'none'");
          expect(page.headers.get('x-frame-options'), name).toBe('DENY');
          expect(page.headers.get('cache-control'), name).toBe('no-store');
          const json = await who.client.request(`${path}?format=json`, { follow: false, headers });
          expect(json, `${name} ${path} json`).toMatchObject({ status: 403, json: { error: 'Forbidden', details: expect.stringContaining(`POST ${path}`) } });
        }
      }
    }
    expect(providerCalls()).toBe(before);
  });

  it('a POST from another site is refused (403) before anything is created', async () => {
    const before = providerCalls();
    const crossSite: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site', origin: 'https://app.evil.example' }];
    for (const headers of crossSite) {
      for (const path of ['/api/checkout', '/api/portal']) {
        const res = await pro.client.request(path, { method: 'POST', follow: false, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
        expect(res, `${path} ${JSON.stringify(headers)}`).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
      }
    }
    expect(providerCalls()).toBe(before);
  });

  it("the confirmation page's button (a same-origin form POST) goes on to the provider: 303", async () => {
    const page = await ada.client.request('/api/checkout', { follow: false, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(page.headers.get('referrer-policy')).toBe('same-origin'); // so the form's POST carries our Origin
    const origin = new URL(t.baseUrl).origin;
    const form = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', origin, referer: `${t.baseUrl}/api/checkout`, 'content-type': 'application/x-www-form-urlencoded' };
    const checkout = await ada.client.request('/api/checkout', { method: 'POST', follow: false, headers: form, body: '' });
    expect(checkout.status).toBe(303);
    expect(checkout.headers.get('location')).toMatch(new RegExp(`^${polar.baseUrl}/checkout/`));
    expect(polar.to('/v1/checkouts/').at(-1)!.body).toMatchObject({ external_customer_id: ada.id });
    const portal = await pro.client.request('/api/portal', { method: 'POST', follow: false, headers: form, body: '' });
    expect(portal.status).toBe(303);
    expect(portal.headers.get('location')).toMatch(/customer_session_token=polar_cst_/);
  });

  it("SPEC's client still navigates to GET /api/checkout and lands on the hosted checkout (same-origin, typed address)", async () => {
    const origin = new URL(t.baseUrl).origin;
    for (const headers of [NAVIGATION, { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, { ...NAVIGATION, referer: `${t.baseUrl}/projects` }, { ...NAVIGATION, origin }]) {
      const before = polar.to('/v1/checkouts/').length;
      const res = await ada.client.request('/api/checkout', { follow: false, headers });
      expect(res.status, JSON.stringify(headers)).toBe(302);
      expect(res.headers.get('location')).toMatch(new RegExp(`^${polar.baseUrl}/checkout/`));
      expect(polar.to('/v1/checkouts/')).toHaveLength(before + 1);
    }
  });
});

describe('payments, upgrade from the per-user state (migration 0006)', () => {
  // A database as the previous release left it (migrations up to 0005, the Pro state on the user row only),
  // then the service started on it, which applies 0006.
  let database: { url: string; drop(): Promise<void> };
  let t: TestApp;
  let polar: FakePolar;
  const secret = SECRETS.production;
  const hourAgo = Date.now() - 3600_000;
  const atSecond = (s: number) => new Date(hourAgo + s * 1000);
  /** The time of the last event applied to each user before the upgrade. */
  const before = atSecond(100);
  const ids: Record<string, string> = {};
  const row = async (name: string) => userRow(t, ids[name]);

  beforeAll(async () => {
    database = await createOwnDatabase();
    await migrateUpTo(database.url, '0005_canvas_json_text');
    const old = new pg.Client({ connectionString: database.url });
    await old.connect();
    try {
      const user = async (name: string, state: { isPro: boolean; status: string | null; customer: string | null; eventAt: Date | null }) => {
        const { rows } = await old.query(
          `INSERT INTO users (email, name, provider, provider_subject, is_pro, subscription_status, payments_customer_id, subscription_event_at)
           VALUES ($1, $2, 'oauth', $1, $3, $4, $5, $6) RETURNING id`,
          [`${name}@example.com`, name, state.isPro, state.status, state.customer, state.eventAt],
        );
        ids[name] = rows[0].id;
      };
      await user('ada', { isPro: true, status: 'active', customer: 'cus_ada', eventAt: before });
      await user('bob', { isPro: false, status: 'revoked', customer: 'cus_bob', eventAt: before });
      await user('cy', { isPro: true, status: 'active', customer: 'cus_cy', eventAt: null }); // Pro before event times were kept
      await user('dee', { isPro: true, status: 'wont-renew', customer: 'cus_dee', eventAt: before });
      await user('eve', { isPro: false, status: null, customer: null, eventAt: null });
    } finally {
      await old.end();
    }
    polar = await startFakePolar({ accessToken: TOKENS.production });
    // The database is ours: the app is told its URL and creates none (whatever the project's mode).
    t = await startTestApp({ ...paymentsEnv(polar, 'production'), DATABASE_CONNECTION_STRING: database.url }, 'embedded');
  });
  afterAll(async () => {
    await t?.close();
    await polar?.close();
    await database?.drop();
  });

  const send = async (name: string, type: string, subscriptionId: string, fields: Partial<SubscriptionFields> = {}) => {
    const res = await deliver(t, signed(secret, subscriptionEvent(type, { externalId: ids[name], customerId: `cus_${name}`, subscriptionId, ...fields })));
    expect(res, `${type} of ${subscriptionId}`).toMatchObject({ status: 200, json: { received: true } });
    return row(name);
  };

  it('keeps every user\'s Pro flag, status and customer id; users with subscription state get a pre-upgrade row', async () => {
    expect(await row('ada')).toEqual({ is_pro: true, payments_customer_id: 'cus_ada', subscription_status: 'active' });
    expect(await row('bob')).toEqual({ is_pro: false, payments_customer_id: 'cus_bob', subscription_status: 'revoked' });
    expect(await row('cy')).toEqual({ is_pro: true, payments_customer_id: 'cus_cy', subscription_status: 'active' });
    expect(await row('dee')).toEqual({ is_pro: true, payments_customer_id: 'cus_dee', subscription_status: 'wont-renew' });
    expect(await row('eve')).toEqual({ is_pro: false, payments_customer_id: null, subscription_status: null });
    const ada = await t.user('ada@example.com');
    expect(ada.id).toBe(ids.ada);
    expect((await ada.client.get('/api/user')).json).toMatchObject({ isPro: true, subscriptionStatus: 'active' });
    expect((await ada.client.get('/api/auth/session')).json.user).toMatchObject({ isPro: true });

    const { rows } = await t.pool.query(
      `SELECT u.email, s.id = 'legacy:' || u.id AS named, s.product_id, s.status, s.has_access, s.grants_pro, s.changed_at = $1::timestamptz AS at_last_event
       FROM subscriptions s JOIN users u ON u.id = s.user_id ORDER BY u.email`,
      [before.toISOString()],
    );
    const preUpgrade = (email: string, pro: boolean, status: string, atLastEvent = true) => ({ email, named: true, product_id: null, status, has_access: pro, grants_pro: pro, at_last_event: atLastEvent });
    expect(rows).toEqual([
      preUpgrade('ada@example.com', true, 'active'),
      preUpgrade('bob@example.com', false, 'revoked'),
      preUpgrade('cy@example.com', true, 'active', false), // no event time: the upgrade's time
      preUpgrade('dee@example.com', true, 'wont-renew'),
    ]);
  });

  it('a Pro user stays Pro through their subscription\'s next update, ignores events older than the upgrade, and loses Pro with its revocation', async () => {
    const sub = { subscriptionId: 'sub-ada', createdAt: atSecond(0) };
    expect(await send('ada', 'subscription.revoked', 'sub-ada', { ...sub, modifiedAt: atSecond(50), status: 'canceled' })).toMatchObject({ is_pro: true });
    expect(await send('ada', 'subscription.updated', 'sub-ada', { ...sub, modifiedAt: atSecond(200) })).toMatchObject({ is_pro: true, subscription_status: 'active' });
    expect(await send('ada', 'subscription.revoked', 'sub-ada', { ...sub, modifiedAt: atSecond(300), status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
  });

  it('a user who was not Pro stays so on a late activation of the old subscription, and a new subscription makes them Pro', async () => {
    expect(await send('bob', 'subscription.active', 'sub-bob', { createdAt: atSecond(0), modifiedAt: atSecond(50) })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    expect(await send('bob', 'subscription.active', 'sub-bob-2', { createdAt: atSecond(400), modifiedAt: atSecond(400) })).toMatchObject({ is_pro: true, subscription_status: 'active' });
  });

  it('a Pro user without a recorded event time stays Pro through their subscription\'s next update', async () => {
    expect(await send('cy', 'subscription.updated', 'sub-cy', { createdAt: atSecond(0), modifiedAt: new Date() })).toMatchObject({ is_pro: true, subscription_status: 'active' });
    expect(await send('cy', 'subscription.revoked', 'sub-cy', { createdAt: atSecond(0), modifiedAt: new Date(Date.now() + 1000), status: 'canceled' })).toMatchObject({ is_pro: false });
  });

  it('a subscription bought after the upgrade does not take the pre-upgrade Pro over: its revocation leaves the old one granting', async () => {
    const old = { subscriptionId: 'sub-dee-1', createdAt: atSecond(0) };
    const added = { subscriptionId: 'sub-dee-2', createdAt: atSecond(400) };
    expect(await send('dee', 'subscription.active', 'sub-dee-2', { ...added, modifiedAt: atSecond(400) })).toMatchObject({ is_pro: true, subscription_status: 'active' });
    expect(await send('dee', 'subscription.revoked', 'sub-dee-2', { ...added, modifiedAt: atSecond(500), status: 'canceled' })).toMatchObject({ is_pro: true, subscription_status: 'wont-renew' });
    expect(await send('dee', 'subscription.updated', 'sub-dee-1', { ...old, modifiedAt: atSecond(600), cancelAtPeriodEnd: true })).toMatchObject({ is_pro: true, subscription_status: 'wont-renew' });
    expect(await send('dee', 'subscription.revoked', 'sub-dee-1', { ...old, modifiedAt: atSecond(700), status: 'canceled' })).toMatchObject({ is_pro: false, subscription_status: 'revoked' });
    const { rows } = await t.pool.query('SELECT id, has_access, grants_pro FROM subscriptions WHERE user_id = $1 ORDER BY id', [ids.dee]);
    expect(rows).toEqual([
      { id: `legacy:${ids.dee}`, has_access: true, grants_pro: false },
      { id: 'sub-dee-1', has_access: false, grants_pro: false },
      { id: 'sub-dee-2', has_access: false, grants_pro: false },
    ]);
  });
});

describe('payments, sandbox setup (PUBLIC_SETUP=local)', () => {
  let t: TestApp;
  let polar: FakePolar;
  let ada: User;

  beforeAll(async () => {
    polar = await startFakePolar({ accessToken: TOKENS.sandbox });
    t = await startTestApp({ ...paymentsEnv(polar, 'local'), PAYMENTS_WEBHOOK_RETENTION_DAYS: '2' });
    ada = await t.user('ada@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await polar?.close();
  });

  it('uses the sandbox access token', async () => {
    const res = await navigate(ada, '/api/checkout');
    expect(res.status).toBe(302);
    expect(polar.to('/v1/checkouts/').at(-1)!.token).toBe(TOKENS.sandbox);
  });

  it('verifies webhooks with the sandbox secret and refuses the production one', async () => {
    const event = subscriptionEvent('subscription.active', { externalId: ada.id, customerId: 'cus_sandbox' });
    expect(await deliver(t, signed(SECRETS.production, event))).toMatchObject({ status: 403, json: { error: 'Invalid signature' } });
    expect(await userRow(t, ada.id)).toMatchObject({ is_pro: false });
    expect(await deliver(t, signed(SECRETS.sandbox, event))).toMatchObject({ status: 200, json: { received: true } });
    expect(await userRow(t, ada.id)).toMatchObject({ is_pro: true, payments_customer_id: 'cus_sandbox' });
  });

  it('keeps received webhook ids PAYMENTS_WEBHOOK_RETENTION_DAYS days', async () => {
    await insertReceived(t, 'msg_3_days_', 3, 3);
    await insertReceived(t, 'msg_1_day_', 3, 1);
    expect((await deliver(t, signed(SECRETS.sandbox, { type: 'order.created', timestamp: new Date().toISOString(), data: {} }))).status).toBe(200);
    expect(await webhookIds(t, 'msg_3_days_%')).toEqual([]);
    expect(await webhookIds(t, 'msg_1_day_%')).toEqual(['msg_1_day_1', 'msg_1_day_2', 'msg_1_day_3']);
  });

  it('does not limit generations when FREE_GENERATIONS_PER_DAY is unset', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).png().toBuffer();
    const bob = await t.user('bob@example.com');
    for (let i = 0; i < 3; i++) expect((await bob.client.post('/api/image', { images: [`data:image/png;base64,${png.toString('base64')}`], prompt: 'invert' })).status).toBe(200);
  });
});

describe('payments not configured', () => {
  let t: TestApp;
  let ada: User;
  beforeAll(async () => {
    // The sandbox setup with only production values: nothing is configured for it (no fallback to them).
    t = await startTestApp({ PUBLIC_SETUP: 'local', PAYMENTS_ACCESS_TOKEN: TOKENS.production, PAYMENTS_WEBHOOK_SECRET: SECRETS.production, PAYMENTS_PRODUCT_ID: PRODUCT });
    ada = await t.user('ada@example.com');
  });
  afterAll(() => t?.close());

  it('answers 503 Payments are not configured on every payment route', async () => {
    const notConfigured = { status: 503, json: { error: 'Payments are not configured' } };
    expect(await navigate(ada, '/api/checkout')).toMatchObject(notConfigured);
    expect(await navigate(ada, '/api/portal')).toMatchObject(notConfigured);
    expect(await ada.client.request('/api/checkout', { method: 'POST' })).toMatchObject(notConfigured);
    expect(await ada.client.request('/api/portal', { method: 'POST' })).toMatchObject(notConfigured);
    const event = subscriptionEvent('subscription.active', { externalId: ada.id, customerId: 'cus_x' });
    expect(await deliver(t, signed(SECRETS.production, event))).toMatchObject(notConfigured);
    expect(await userRow(t, ada.id)).toMatchObject({ is_pro: false });
    // Still a session route first.
    expect(await t.client().request('/api/checkout', { follow: false })).toMatchObject({ status: 401 });
  });

  it('answers a browser that opens them with a page in words and a way back, not raw JSON', async () => {
    for (const path of ['/api/checkout', '/api/portal']) {
      const opened = await ada.client.request(path, { follow: false, headers: { ...NAVIGATION, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(opened.status, path).toBe(503);
      expect(opened.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(opened.text).toContain('Payments are not set up');
      expect(opened.text).toContain('href="/projects"');
      // An API client asking for JSON still gets the JSON error.
      expect(await ada.client.request(path, { follow: false, headers: { ...NAVIGATION, accept: 'application/json' } })).toMatchObject({ status: 503, json: { error: 'Payments are not configured' } });
    }
    // The confirmation page's form (a browser's POST) gets the page too.
    const posted = await ada.client.request('/api/checkout', { method: 'POST', follow: false, headers: { accept: 'text/html' } });
    expect(posted.status).toBe(503);
    expect(posted.text).toContain('Payments are not set up');
  });
});

describe('payments without a webhook secret', () => {
  let t: TestApp;
  let polar: FakePolar;
  beforeAll(async () => {
    polar = await startFakePolar({ accessToken: TOKENS.production });
    t = await startTestApp({ PAYMENTS_ACCESS_TOKEN: TOKENS.production, PAYMENTS_PRODUCT_ID: PRODUCT, PAYMENTS_API_URL: polar.baseUrl });
  });
  afterAll(async () => {
    await t?.close();
    await polar?.close();
  });

  it('opens checkouts but answers 503 on the webhook route', async () => {
    const ada = await t.user('ada@example.com');
    expect((await navigate(ada, '/api/checkout')).status).toBe(302);
    const event = subscriptionEvent('subscription.active', { externalId: ada.id, customerId: 'cus_x' });
    expect(await deliver(t, signed(SECRETS.production, event))).toMatchObject({ status: 503, json: { error: 'Payments are not configured' } });
  });
});
