// Hostile cases for issue 31's checkout/portal and provider-output findings, as tables run in loops.
//
// Checkout and portal: every token scope × route × method, cookie requests with every Sec-Fetch-Site / Origin /
// Referer a page or an old browser may send, bodies and queries a script may try. Every case: a status below 500, a
// 4xx from /api is a JSON `{ error }`, and nothing is created at the payment provider unless the case is one that
// may start (then exactly one call, for the caller's own customer) — and no user row changes.
//
// Provider outputs: a hosted model (fal, Replicate; local fakes) names its output by URL — other schemes, refused
// addresses (literal, by name, by redirect), redirect loops, bodies over MODEL_OUTPUT_MAX_BYTES (declared or
// streamed). The job fails with the reason, nothing is stored, the "internal" server on 127.0.0.1 is never reached,
// and an endless body is cut soon after the limit. The fakes stand on 127.0.0.2, the one address the guard's
// network allows here (the app's `network`, injected at the composition root as the public internet would be).
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Network } from '../../src/net/safe-fetch.js';
import { startFakeFal, type FakeFal } from '../fakes/fal-server.js';
import { createOutputFiles, ENDLESS_BYTES, type OutputFiles } from '../fakes/output-files.js';
import { startFakePolar, type FakePolar } from '../fakes/polar-server.js';
import { startFakeReplicate, type FakeReplicate } from '../fakes/replicate-server.js';
import { asDataUrl } from '../helpers/bad-images.js';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { untilJob } from '../helpers/jobs.js';
import { countRows, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startServer, type TestServer } from '../net/test-server.js';

const PRODUCT = 'b6f1f5d4-6d1c-4b0e-9a55-7f2c1e0d9a11';
const POLAR_TOKEN = 'polar_oat_hostile_billing_token';
const WEBHOOK_SECRET = 'polar_whs_hostile_billing_secret_0123456789';
const KEY = 'provider-hostile-key-0123456789';
const PROVIDER_HOST = '127.0.0.2';
const OUTPUT_LIMIT = 1024 * 1024;
/** What may pass the limit before reading stops: loopback socket buffers of both ends, and undici's own. */
const SLACK = 16 * 1024 * 1024;
const EVIL = 'https://evil.example';

const NAMES: Record<string, string> = { 'cdn.example.test': PROVIDER_HOST, 'metadata.example.test': '169.254.169.254', 'internal.example.test': '127.0.0.1' };
const network: Network = {
  lookup: async (hostname) => (NAMES[hostname] ? [{ address: NAMES[hostname], family: 4 }] : []),
  isAllowed: (ip) => ip === PROVIDER_HOST,
};

type User = { client: HttpClient; id: string; email: string };
type Scope = 'read' | 'write' | 'generate' | 'billing';

let t: TestApp;
let polar: FakePolar;
let fal: FakeFal;
let replicate: FakeReplicate;
let files: OutputFiles;
let victim: TestServer;
let ada: User; // never paid: no customer
let pro: User; // Pro, with a customer id
const tokens: Record<string, string> = {};
let input = '';
let total = 0;

const providerCalls = () => polar.to('/v1/checkouts/').length + polar.to('/v1/customer-sessions/').length;
const userRows = async () => (await t.pool.query('SELECT id, is_pro, payments_customer_id, subscription_status FROM users ORDER BY id')).rows;

beforeAll(async () => {
  files = createOutputFiles();
  victim = await startServer('127.0.0.1');
  [polar, fal, replicate] = await Promise.all([
    startFakePolar({ accessToken: POLAR_TOKEN }),
    startFakeFal({ key: KEY, files, host: PROVIDER_HOST }),
    startFakeReplicate({ token: KEY, files, host: PROVIDER_HOST }),
  ]);
  t = await startTestApp(
    {
      PAYMENTS_ACCESS_TOKEN: POLAR_TOKEN,
      PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENTS_PRODUCT_ID: PRODUCT,
      PAYMENTS_API_URL: polar.baseUrl,
      RATE_LIMIT_CHECKOUTS_PER_MINUTE: '0',
      RATE_LIMIT_GENERATIONS_PER_MINUTE: '0',
      FAL_KEY: KEY,
      FAL_BASE_URL: fal.baseUrl,
      REPLICATE_API_TOKEN: KEY,
      REPLICATE_BASE_URL: replicate.baseUrl,
      MODEL_OUTPUT_MAX_BYTES: String(OUTPUT_LIMIT),
    },
    undefined,
    { network },
  );
  [ada, pro] = await Promise.all([t.user('ada@example.com'), t.user('pro@example.com')]);
  // pro pays: one signed subscription.active webhook, as Polar sends it.
  const body = JSON.stringify({
    type: 'subscription.active',
    timestamp: new Date().toISOString(),
    data: { id: 'sub_pro', status: 'active', customer_id: 'cus_pro', product_id: PRODUCT, cancel_at_period_end: false, modified_at: null, created_at: new Date().toISOString(), customer: { external_id: pro.id } },
  });
  const at = new Date();
  const id = 'msg_hostile_billing_pro';
  const signature = new Webhook(Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')).sign(id, at, body);
  const paid = await t.client().request('/api/webhook/payments', { method: 'POST', body, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature } });
  expect(paid.status).toBe(200);
  expect((await pro.client.get('/api/user')).json).toMatchObject({ isPro: true, paymentsCustomerId: 'cus_pro' });

  const sets: Record<string, Scope[]> = { read: ['read'], write: ['write'], generate: ['generate'], 'read+write+generate': ['read', 'write', 'generate'], billing: ['billing'] };
  for (const who of [ada, pro]) {
    for (const [name, scopes] of Object.entries(sets)) {
      const made = await who.client.post('/api/user/tokens', { name, scopes });
      expect(made.status).toBe(201);
      tokens[`${who === ada ? 'ada' : 'pro'}:${name}`] = made.json.token;
    }
  }
  // An expired and a revoked billing token of pro's.
  const expired = await pro.client.post('/api/user/tokens', { name: 'expired', scopes: ['billing'] });
  await t.pool.query(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expired.json.id]);
  tokens['pro:expired'] = expired.json.token;
  const revoked = await pro.client.post('/api/user/tokens', { name: 'revoked', scopes: ['billing'] });
  expect((await pro.client.request(`/api/user/tokens/${revoked.json.id}`, { method: 'DELETE' })).status).toBe(204);
  tokens['pro:revoked'] = revoked.json.token;

  input = asDataUrl(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#468' } }).png().toBuffer());
}, 120_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([polar?.close(), fal?.close(), replicate?.close(), victim?.close()]);
});

// ---------------------------------------------------------------------------------------------------------
// Checkout and portal

interface BillingCase {
  name: string;
  /** Whose cookie is sent (none: anonymous, or a token alone). */
  who?: 'ada' | 'pro';
  /** `Authorization: Bearer` with this token (by key in `tokens`), or a raw header value. */
  bearer?: string;
  rawAuthorization?: string;
  method: 'GET' | 'POST' | 'HEAD' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number[];
  error?: string | RegExp;
  /** Answers the confirmation page (200 text/html with a form that POSTs to the path). */
  page?: boolean;
  /** May create exactly one session at the provider, for this customer (external id or customer id). */
  starts?: { for: 'ada' | 'pro' };
}

async function sendBilling(c: BillingCase): Promise<Sent> {
  const client = c.who === 'ada' ? ada.client : c.who === 'pro' ? pro.client : t.client();
  const authorization = c.rawAuthorization ?? (c.bearer ? `Bearer ${tokens[c.bearer]}` : undefined);
  return client.request(c.path, { method: c.method, follow: false, body: c.body, headers: { ...c.headers, ...(authorization ? { authorization } : {}) } });
}

async function runBilling(cases: BillingCase[]): Promise<void> {
  total += cases.length;
  const names = new Set<string>();
  const rows = await userRows();
  for (const c of cases) {
    expect.soft(names.has(c.name), `duplicate case ${c.name}`).toBe(false);
    names.add(c.name);
    const before = providerCalls();
    const checkoutsBefore = polar.to('/v1/checkouts/').length;
    const res = await sendBilling(c);
    const shown = `${c.name}: ${res.status} ${res.text.slice(0, 200)}`;
    expect.soft(res.status, shown).toBeLessThan(500);
    expect.soft(c.status, shown).toContain(res.status);
    if (res.status >= 400 && c.method !== 'HEAD') {
      expect.soft(String(res.headers.get('content-type')), `${shown} (JSON)`).toMatch(/^application\/json/);
      expect.soft(typeof res.json?.error, `${shown} ({ error })`).toBe('string');
      if (c.error !== undefined) expect.soft(res.json?.error, shown).toMatch(c.error instanceof RegExp ? c.error : new RegExp(`^${c.error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
    if (c.page) {
      expect.soft(String(res.headers.get('content-type')), `${shown} (a page)`).toMatch(/^text\/html/);
      const action = new URL(c.path, 'http://x').pathname;
      if (c.method === 'GET') expect.soft(res.text, `${shown} (its form)`).toContain(`<form method="post" action="${action}">`);
      expect.soft(res.headers.get('content-security-policy'), `${shown} (CSP)`).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    }
    if (c.starts) {
      expect.soft(providerCalls(), `${c.name}: one session at the provider`).toBe(before + 1);
      const call = polar.to(polar.to('/v1/checkouts/').length > checkoutsBefore ? '/v1/checkouts/' : '/v1/customer-sessions/').at(-1)!;
      const expected = c.starts.for === 'ada' ? { external_customer_id: ada.id } : call.path === '/v1/checkouts/' ? { external_customer_id: pro.id } : { customer_id: 'cus_pro' };
      expect.soft(call.body, `${c.name}: for the caller`).toMatchObject(expected);
    } else {
      expect.soft(providerCalls(), `${c.name}: nothing created at the provider`).toBe(before);
    }
  }
  expect(await userRows()).toEqual(rows);
}

const ROUTES = ['/api/checkout', '/api/portal'] as const;
const NAV = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' };

describe('hostile checkout and portal requests', () => {
  it('every token scope × route × method: only billing starts anything', async () => {
    const cases: BillingCase[] = [];
    for (const scope of ['read', 'write', 'generate', 'read+write+generate', 'billing']) {
      for (const path of ROUTES) {
        for (const method of ['GET', 'POST', 'HEAD'] as const) {
          const name = `pro ${scope} token ${method} ${path}`;
          if (scope !== 'billing') cases.push({ name, bearer: `pro:${scope}`, method, path, status: [403], error: 'Token lacks the billing scope' });
          else if (method === 'HEAD') cases.push({ name, bearer: `pro:${scope}`, method, path, status: [200], page: true }); // HEAD starts nothing
          else cases.push({ name, bearer: `pro:${scope}`, method, path, status: [method === 'GET' ? 302 : 303], starts: { for: 'pro' } });
        }
      }
    }
    // A billing token is a header no page can add: cross-site headers beside it change nothing.
    cases.push({ name: 'pro billing token GET checkout with cross-site headers', bearer: 'pro:billing', method: 'GET', path: '/api/checkout', headers: { 'sec-fetch-site': 'cross-site', origin: EVIL, referer: `${EVIL}/` }, status: [302], starts: { for: 'pro' } });
    cases.push({ name: 'pro billing token POST portal with cross-site headers', bearer: 'pro:billing', method: 'POST', path: '/api/portal?format=json', headers: { 'sec-fetch-site': 'cross-site', origin: EVIL }, status: [200], starts: { for: 'pro' } });
    // A token's own user, never another's: ada's billing token on the portal has no customer.
    cases.push({ name: 'ada billing token POST portal (never paid)', bearer: 'ada:billing', method: 'POST', path: '/api/portal', status: [400], error: 'No subscription found' });
    cases.push({ name: 'ada billing token GET portal (never paid)', bearer: 'ada:billing', method: 'GET', path: '/api/portal?format=json', status: [400], error: 'No subscription found' });
    cases.push({ name: "ada billing token checkout naming pro (ignored)", bearer: 'ada:billing', method: 'POST', path: `/api/checkout?format=json&customerId=cus_pro&userId=${pro.id}`, status: [200], starts: { for: 'ada' } });
    // Tokens that are not valid: 401, and a cookie beside a Bearer header is not looked at.
    cases.push({ name: 'expired billing token', bearer: 'pro:expired', method: 'POST', path: '/api/checkout', status: [401], error: 'Unauthorized' });
    cases.push({ name: 'revoked billing token', bearer: 'pro:revoked', method: 'GET', path: '/api/checkout', status: [401], error: 'Unauthorized' });
    cases.push({ name: "malformed bearer beside pro's cookie", who: 'pro', rawAuthorization: 'Bearer ic_short', method: 'POST', path: '/api/checkout', status: [401], error: 'Unauthorized' });
    cases.push({ name: "empty bearer beside pro's cookie", who: 'pro', rawAuthorization: 'Bearer ', method: 'GET', path: '/api/portal', status: [401], error: 'Unauthorized' });
    cases.push({ name: 'a token under another scheme, no cookie', rawAuthorization: `Token ${'ic_'.padEnd(46, 'a')}`, method: 'POST', path: '/api/checkout', status: [401], error: 'Unauthorized' });
    await runBilling(cases);
  });

  it("a GET another site (or an old browser) can make with a victim's cookie creates nothing", async () => {
    const variants: Record<string, Record<string, string>> = {
      'cross-site link': { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', referer: `${EVIL}/` },
      'cross-site, no referrer': { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
      'cross-site image': { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
      'same-site sibling': { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', referer: 'https://blog.example/' },
      'same-origin claimed, Origin of another site': { ...NAV, origin: EVIL },
      'same-origin claimed, Referer of another site': { ...NAV, referer: `${EVIL}/x` },
      'none claimed, Referer of another site': { 'sec-fetch-site': 'none', referer: `${EVIL}/` },
      'same-origin claimed, Origin null': { ...NAV, origin: 'null' },
      'same-origin claimed, Referer not a URL': { ...NAV, referer: 'not a url' },
      'no Sec-Fetch-Site at all': {},
      'no Sec-Fetch-Site, Referer of another site': { referer: `${EVIL}/` },
      'unknown Sec-Fetch-Site value': { 'sec-fetch-site': 'same-origin, cross-site' },
      'method override header': { 'sec-fetch-site': 'cross-site', 'x-http-method-override': 'POST' },
    };
    const cases: BillingCase[] = [];
    for (const [name, headers] of Object.entries(variants)) {
      for (const path of ROUTES) {
        cases.push({ name: `${name}: GET ${path}`, who: 'pro', method: 'GET', path, headers, status: [200], page: true });
        cases.push({ name: `${name}: GET ${path}?format=json`, who: 'pro', method: 'GET', path: `${path}?format=json`, headers, status: [403], error: 'Forbidden' });
      }
    }
    cases.push({ name: 'cross-site GET with Accept JSON', who: 'pro', method: 'GET', path: '/api/checkout', headers: { 'sec-fetch-site': 'cross-site', accept: 'application/json' }, status: [403], error: 'Forbidden' });
    cases.push({ name: 'cross-site HEAD', who: 'pro', method: 'HEAD', path: '/api/checkout', headers: { 'sec-fetch-site': 'cross-site' }, status: [200] });
    cases.push({ name: 'same-origin HEAD (HEAD never starts)', who: 'pro', method: 'HEAD', path: '/api/portal', headers: NAV, status: [200] });
    // The original client's navigation, and a typed address, still go straight on.
    cases.push({ name: 'same-origin navigation to checkout', who: 'ada', method: 'GET', path: '/api/checkout', headers: { ...NAV, referer: `${t.baseUrl}/projects` }, status: [302], starts: { for: 'ada' } });
    cases.push({ name: 'typed address of the portal', who: 'pro', method: 'GET', path: '/api/portal', headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, status: [302], starts: { for: 'pro' } });
    cases.push({ name: 'portal without a customer, same-origin', who: 'ada', method: 'GET', path: '/api/portal', headers: NAV, status: [400], error: 'No subscription found' });
    cases.push({ name: 'anonymous cross-site GET', method: 'GET', path: '/api/checkout', headers: { 'sec-fetch-site': 'cross-site' }, status: [401], error: 'Unauthorized' });
    await runBilling(cases);
  });

  it('a POST from another site is refused; odd bodies, queries and methods are 4xx', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: BillingCase[] = [];
    const crossSite: Record<string, Record<string, string>> = {
      'Sec-Fetch-Site cross-site': { ...form, 'sec-fetch-site': 'cross-site' },
      'Sec-Fetch-Site same-site': { ...form, 'sec-fetch-site': 'same-site' },
      'Origin of another site': { ...form, origin: EVIL },
      'Origin null (sandboxed frame)': { ...form, origin: 'null' },
    };
    for (const [name, headers] of Object.entries(crossSite)) {
      for (const path of ROUTES) cases.push({ name: `${name}: POST ${path}`, who: 'pro', method: 'POST', path, headers, body: '', status: [403], error: 'Forbidden' });
    }
    cases.push({ name: 'portal POST without a customer', who: 'ada', method: 'POST', path: '/api/portal', status: [400], error: 'No subscription found' });
    cases.push({ name: 'portal POST naming pro as customer (ignored)', who: 'ada', method: 'POST', path: '/api/portal?customerId=cus_pro', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerId: 'cus_pro', userId: pro.id }), status: [400], error: 'No subscription found' });
    cases.push({ name: 'checkout POST with a form naming pro (ignored)', who: 'ada', method: 'POST', path: '/api/checkout', headers: form, body: `external_customer_id=${pro.id}`, status: [303], starts: { for: 'ada' } });
    cases.push({ name: 'checkout POST, form body over 1 KB', who: 'ada', method: 'POST', path: '/api/checkout', headers: form, body: 'x='.padEnd(4096, 'a'), status: [413] });
    cases.push({ name: 'checkout POST, XML body', who: 'ada', method: 'POST', path: '/api/checkout', headers: { 'content-type': 'application/xml' }, body: '<a/>', status: [415] });
    cases.push({ name: 'checkout POST, broken JSON', who: 'ada', method: 'POST', path: '/api/checkout', headers: { 'content-type': 'application/json' }, body: '{', status: [400], error: 'Invalid JSON' });
    cases.push({ name: 'checkout POST format=xml', who: 'ada', method: 'POST', path: '/api/checkout?format=xml', status: [400] });
    cases.push({ name: 'checkout POST format twice', who: 'ada', method: 'POST', path: '/api/checkout?format=json&format=json', status: [400] });
    cases.push({ name: 'anonymous POST checkout', method: 'POST', path: '/api/checkout', status: [401], error: 'Unauthorized' });
    cases.push({ name: 'PUT checkout', who: 'ada', method: 'PUT', path: '/api/checkout', status: [404, 405] });
    cases.push({ name: 'DELETE portal', who: 'pro', method: 'DELETE', path: '/api/portal', status: [404, 405] });
    await runBilling(cases);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Provider outputs

interface OutputCase {
  name: string;
  via: 'fal' | 'replicate';
  /** The output URL the provider answers (a path: on the provider's own origin, its file host). */
  url: string;
  /** The job's error details. */
  reason: string | RegExp;
}

const REFUSED_HOST = "the model's image could not be fetched (host not found or not allowed)";
const NOT_HTTPS = 'the model answered with an image URL that is not https';
const TOO_LARGE = 'the model returned an image larger than allowed';

async function generateVia(c: Pick<OutputCase, 'via' | 'url'>): Promise<{ created: Sent; job: Record<string, any> }> {
  if (c.via === 'fal') fal.script({ result: { kind: 'image', asUrl: c.url } });
  else replicate.script({ end: { kind: 'succeeded', url: c.url } });
  const model = c.via === 'fal' ? 'fal-ai/nano-banana/edit' : 'google/nano-banana';
  const created = await ada.client.post('/api/generations', { images: [input], prompt: 'x', model });
  expect(created.status, created.text).toBe(202);
  return { created, job: await untilJob(ada.client, created.json.id) };
}

async function runOutputs(cases: OutputCase[]): Promise<void> {
  total += cases.length;
  const generations = await countRows(t, 'generations');
  for (const c of cases) {
    const { created, job } = await generateVia(c);
    const shown = `${c.name}: ${JSON.stringify(job.error)}`;
    expect.soft(created.status, c.name).toBeLessThan(500);
    expect.soft(job.status, shown).toBe('failed');
    expect.soft(job.error?.error, shown).toBe('Failed to generate image');
    expect.soft(job.error?.details, shown).toMatch(c.reason instanceof RegExp ? c.reason : new RegExp(`^${c.reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect.soft(job.output, shown).toBeNull();
  }
  expect(await countRows(t, 'generations')).toBe(generations);
  expect(victim.connections, 'the internal server was reached').toBe(0);
}

describe('hostile provider output URLs', () => {
  it('a normal output named by URL still works (control)', async () => {
    const answer = await sharp({ create: { width: 6, height: 6, channels: 3, background: '#a33' } }).png().toBuffer();
    const path = files.put('control.png', answer);
    for (const via of ['fal', 'replicate'] as const) {
      const { job } = await generateVia({ via, url: path });
      expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    }
  });

  it('other schemes are refused before anything is fetched', async () => {
    const requested = files.requested.length;
    const cases: OutputCase[] = [];
    const urls: Record<string, string> = {
      file: 'file:///etc/passwd',
      ftp: 'ftp://cdn.example.test/out.png',
      gopher: 'gopher://127.0.0.1:6379/_FLUSHALL',
      'data (not base64)': 'data:text/html,<script>alert(1)</script>',
      javascript: 'javascript:alert(1)',
      'http elsewhere': `http://127.0.0.1:${victim.port}/out.png`,
      'http on the provider host under another name': `http://cdn.example.test:${new URL(fal.baseUrl).port}/files/control.png`,
      'not a URL': 'not a url at all',
    };
    for (const [name, url] of Object.entries(urls)) {
      for (const via of ['fal', 'replicate'] as const) cases.push({ name: `${via} ${name}`, via, url, reason: NOT_HTTPS });
    }
    await runOutputs(cases);
    expect(files.requested.length).toBe(requested);
  });

  it('refused addresses (literal, by name, in disguise) are refused before any connection', async () => {
    const urls: Record<string, string> = {
      'loopback literal': `https://127.0.0.1:${victim.port}/out.png`,
      'loopback by name': `https://internal.example.test:${victim.port}/out.png`,
      'metadata literal': 'https://169.254.169.254/latest/meta-data/',
      'metadata by name': 'https://metadata.example.test/latest/meta-data/',
      'loopback as one number': `https://2130706433:${victim.port}/`,
      'loopback in hex': `https://0x7f000001:${victim.port}/`,
      'IPv4-mapped IPv6 loopback': `https://[::ffff:127.0.0.1]:${victim.port}/`,
      'IPv6 loopback': 'https://[::1]/',
      'private network': 'https://10.0.0.1/out.png',
      localhost: `https://localhost:${victim.port}/`,
      'a name that does not resolve': 'https://nowhere.example.test/out.png',
    };
    const cases: OutputCase[] = Object.entries(urls).map(([name, url], i) => ({ name, via: i % 2 ? 'replicate' : 'fal', url, reason: REFUSED_HOST }));
    await runOutputs(cases);
  });

  it('redirects to refused places are refused at that hop; redirect loops end', async () => {
    const redirect = (to: string) => `/files/redirect?to=${encodeURIComponent(to)}`;
    const cases: OutputCase[] = [
      { name: 'redirect to loopback', via: 'replicate', url: redirect(`http://127.0.0.1:${victim.port}/`), reason: REFUSED_HOST },
      { name: 'redirect to loopback by name', via: 'fal', url: redirect(`http://internal.example.test:${victim.port}/`), reason: REFUSED_HOST },
      { name: 'redirect to the metadata address', via: 'replicate', url: redirect('http://169.254.169.254/latest/meta-data/iam/'), reason: REFUSED_HOST },
      { name: 'redirect to file:', via: 'fal', url: redirect('file:///etc/passwd'), reason: "the model's image could not be fetched (unsupported URL scheme)" },
      { name: 'redirect to gopher:', via: 'replicate', url: redirect('gopher://127.0.0.1:6379/_x'), reason: "the model's image could not be fetched (unsupported URL scheme)" },
      { name: 'redirect with credentials', via: 'fal', url: redirect(`http://user:pass@cdn.example.test:${new URL(fal.baseUrl).port}/files/control.png`), reason: "the model's image could not be fetched (credentials in URL)" },
      { name: 'redirect loop', via: 'replicate', url: redirect(redirect(redirect(redirect('/files/control.png')))), reason: "the model's image could not be fetched (too many redirects)" },
    ];
    await runOutputs(cases);
  });

  it('outputs over MODEL_OUTPUT_MAX_BYTES are refused while read: declared, streamed, inline', async () => {
    const cases: OutputCase[] = [
      { name: 'declared 1 GiB (fal)', via: 'fal', url: '/files/declared-huge.png', reason: TOO_LARGE },
      { name: 'declared 1 GiB (replicate)', via: 'replicate', url: '/files/declared-huge.png', reason: TOO_LARGE },
      { name: 'inline data URI over the limit', via: 'fal', url: `data:image/png;base64,${Buffer.alloc(OUTPUT_LIMIT + 3).toString('base64')}`, reason: TOO_LARGE },
    ];
    await runOutputs(cases);
    for (const via of ['fal', 'replicate'] as const) {
      await runOutputs([{ name: `endless body (${via})`, via, url: '/files/endless.png', reason: TOO_LARGE }]);
      const sent = await files.endlessClosed();
      expect(sent, `${via}: bytes the service let the provider send`).toBeGreaterThan(OUTPUT_LIMIT);
      expect(sent, `${via}: bytes the service let the provider send`).toBeLessThan(OUTPUT_LIMIT + SLACK);
      expect(sent).toBeLessThan(ENDLESS_BYTES / 8);
    }
  });

  it('counts its cases', () => {
    expect(total).toBeGreaterThanOrEqual(100);
    console.log(`hostile-billing: ${total} cases`);
  });
});
