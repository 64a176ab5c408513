// A loopback stand-in for Polar's API, speaking the REST wire format @polar-sh/sdk 0.49 uses and validates:
// `POST /v1/checkouts/` → 201 Checkout, `POST /v1/customer-sessions/` → 201 CustomerSession (every field the
// SDK's response schemas require). Records every request; a switch makes it answer 500.
import { randomBytes, randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface PolarRecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The bearer token sent. */
  token?: string;
  body: any;
}

export interface FakePolar {
  /** For `serverURL` (PAYMENTS_API_URL). */
  baseUrl: string;
  requests: PolarRecordedRequest[];
  /** Requests to one path (e.g. '/v1/checkouts/'). */
  to(path: string): PolarRecordedRequest[];
  /** While set, every request is answered with this HTTP status (e.g. 500). */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

const ORGANIZATION_ID = '1dbfc517-0bbf-4301-9ba8-555ca42b9737';

export async function startFakePolar(opts: { accessToken?: string } = {}): Promise<FakePolar> {
  const requests: PolarRecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let failure: number | null = null;
  let baseUrl = '';

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    let body: any;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return sendJson(res, 422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    requests.push({ method: req.method ?? '', path, headers: req.headers, token, body });
    if (failure !== null) return sendJson(res, failure, { error: 'InternalServerError', detail: 'Something went wrong' });
    if (opts.accessToken && token !== opts.accessToken) {
      return sendJson(res, 401, { error: 'invalid_token', error_description: 'The access token provided is expired, revoked, malformed, or invalid for other reasons.' });
    }
    if (req.method === 'POST' && path === '/v1/checkouts/') return sendJson(res, 201, checkout(baseUrl, body));
    if (req.method === 'POST' && path === '/v1/customer-sessions/') return sendJson(res, 201, customerSession(baseUrl, body));
    sendJson(res, 404, { error: 'ResourceNotFound', detail: 'Not found' });
  };
  // A failure inside the fake is a bug in the test: it stays an unhandled rejection, which Vitest reports.
  const server = createServer((req, res) => void serve(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    failWith: (status) => { failure = status; },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const now = () => new Date().toISOString();
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

function checkout(baseUrl: string, body: any) {
  const clientSecret = `polar_c_${randomBytes(16).toString('hex')}`;
  return {
    id: randomUUID(),
    created_at: now(),
    modified_at: null,
    payment_processor: 'stripe',
    status: 'open',
    client_secret: clientSecret,
    url: `${baseUrl}/checkout/${clientSecret}`,
    expires_at: inAnHour(),
    success_url: body?.success_url ?? `${baseUrl}/success`,
    return_url: body?.return_url ?? null,
    embed_origin: null,
    amount: 1000,
    discount_amount: 0,
    net_amount: 1000,
    tax_amount: null,
    tax_behavior: null,
    total_amount: 1000,
    currency: 'usd',
    allow_trial: null,
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    organization_id: ORGANIZATION_ID,
    product_id: body?.products?.[0] ?? null,
    product_price_id: null,
    discount_id: null,
    allow_discount_codes: true,
    require_billing_address: false,
    is_discount_applicable: false,
    is_free_product_price: false,
    is_payment_required: true,
    is_payment_setup_required: true,
    is_payment_form_required: true,
    customer_id: null,
    is_business_customer: false,
    customer_name: null,
    customer_email: body?.customer_email ?? null,
    customer_ip_address: null,
    customer_billing_name: null,
    customer_billing_address: null,
    customer_tax_id: null,
    payment_processor_metadata: {},
    billing_address_fields: { country: 'required', state: 'disabled', city: 'disabled', postal_code: 'disabled', line1: 'disabled', line2: 'disabled' },
    trial_interval: null,
    trial_interval_count: null,
    metadata: {},
    external_customer_id: body?.external_customer_id ?? null,
    products: [],
    product: null,
    product_price: null,
    prices: null,
    discount: null,
    subscription_id: null,
    attached_custom_fields: null,
    customer_metadata: {},
  };
}

function customerSession(baseUrl: string, body: any) {
  const token = `polar_cst_${randomBytes(16).toString('hex')}`;
  const customerId = String(body?.customer_id ?? randomUUID());
  return {
    created_at: now(),
    modified_at: null,
    id: randomUUID(),
    token,
    expires_at: inAnHour(),
    return_url: body?.return_url ?? null,
    customer_portal_url: `${baseUrl}/portal?customer_session_token=${token}`,
    customer_id: customerId,
    customer: {
      id: customerId,
      created_at: now(),
      modified_at: null,
      metadata: {},
      external_id: null,
      email: 'customer@example.com',
      email_verified: true,
      type: 'individual',
      name: null,
      billing_name: null,
      billing_address: null,
      tax_id: null,
      organization_id: ORGANIZATION_ID,
      deleted_at: null,
      avatar_url: null,
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
