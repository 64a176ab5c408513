// The bundled development identity provider: `oidc-provider` mounted at /dev-idp with one client registered
// for {AUTH_URL}/api/auth/callback/oauth. Its sign-in page is a plain form (email, name); consent is
// automatic. It never runs in production (app.ts only mounts it outside production).
import { createHash, generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Provider from 'oidc-provider';
import { z } from 'zod';
import { notFound } from '../errors.js';
import { escapeHtml, page } from '../html.js';
import { devIdpStore } from './dev-idp-store.js';

export const DEV_IDP_PATH = '/dev-idp';
export const DEV_CLIENT_ID = 'image-canvas-dev';

export interface DevIdpOptions {
  baseUrl: string;
  /** The service's AUTH_SECRET; the client secret and cookie keys are derived from it. */
  secret: string;
  log: { warn(msg: string): void };
  /** The service's own URL when the provider runs apart from it (the tests' identity provider for production-mode
   *  instances behind a load balancer); default: baseUrl. */
  clientUrl?: string;
}

export function devClientSecret(secret: string): string {
  return createHash('sha256').update(`dev-idp-client:${secret}`).digest('base64url');
}

const loginForm = z.object({
  email: z.email().max(254),
  name: z.string().trim().min(1).max(200),
});

export async function devIdpPlugin(app: FastifyInstance, opts: DevIdpOptions): Promise<void> {
  const issuer = `${opts.baseUrl}${DEV_IDP_PATH}`;
  // Names typed on the form, by account (the email). In memory: this provider is for development only.
  const names = new Map<string, string>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    // Its state in this process's memory, said explicitly (./dev-idp-store.ts).
    adapter: devIdpStore(),
    clients: [
      {
        client_id: DEV_CLIENT_ID,
        client_secret: devClientSecret(opts.secret),
        redirect_uris: [`${opts.clientUrl ?? opts.baseUrl}/api/auth/callback/oauth`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'dev-idp', use: 'sig', alg: 'RS256' }] as never },
    cookies: { keys: [createHash('sha256').update(`dev-idp-cookies:${opts.secret}`).digest('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
    // Put the profile claims in the ID token too, as Google does, so one provider configuration fits both.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, interaction) => `${DEV_IDP_PATH}/interaction/${interaction.uid}` },
    async findAccount(_ctx, accountId) {
      return {
        accountId,
        async claims() {
          return {
            sub: accountId,
            email: accountId,
            email_verified: true,
            name: names.get(accountId) ?? accountId.split('@')[0],
          };
        },
      };
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Sign-in error', `<h1>Sign-in error</h1><p>${escapeHtml(String(out.error_description ?? out.error))}</p>`);
    },
  });
  provider.on('server_error', (_ctx, err) => opts.log.warn(`dev-idp: ${err.message}`));
  const callback = provider.callback();

  // Everything under /dev-idp except our interaction pages goes to oidc-provider untouched (it parses its
  // own bodies), so it is handed over in onRequest, before Fastify reads the body.
  app.addHook('onRequest', async (req, reply) => {
    if (req.url.startsWith(`${DEV_IDP_PATH}/interaction/`)) return;
    reply.hijack();
    const raw = req.raw as typeof req.raw & { originalUrl?: string };
    raw.originalUrl = req.url;
    raw.url = req.url.slice(DEV_IDP_PATH.length) || '/';
    // Fire and forget: Koa's handler answers on the raw response and handles its own errors (its promise never
    // rejects); the reply is hijacked, so Fastify does not wait for it.
    void callback(raw, reply.raw);
  });
  // Routes exist so the hook runs; reached only by /interaction/* paths and methods that have no route below.
  app.all(`${DEV_IDP_PATH}/*`, async () => {
    throw notFound();
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const details = async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      return await provider.interactionDetails(req.raw, reply.raw);
    } catch {
      return undefined;
    }
  };

  app.get(`${DEV_IDP_PATH}/interaction/:uid`, async (req, reply) => {
    const interaction = await details(req, reply);
    if (!interaction) return reply.code(400).type('text/html').send(expiredPage());
    if (interaction.prompt.name === 'login') {
      return reply.type('text/html').send(loginPage(interaction.uid));
    }
    // Consent is automatic: grant what the client asked for.
    const accountId = interaction.session?.accountId;
    if (!accountId) return reply.code(400).type('text/html').send(expiredPage());
    const grantId = await grantFor(provider, accountId, requestedScope(interaction.params));
    reply.hijack();
    await provider.interactionFinished(req.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });

  app.post(`${DEV_IDP_PATH}/interaction/:uid/login`, async (req, reply) => {
    const interaction = await details(req, reply);
    if (!interaction) return reply.code(400).type('text/html').send(expiredPage());
    const form = loginForm.safeParse(req.body);
    if (!form.success) {
      return reply.code(400).type('text/html').send(loginPage(interaction.uid, 'Enter a valid email address and a name.'));
    }
    const accountId = form.data.email.toLowerCase();
    names.set(accountId, form.data.name);
    const grantId = await grantFor(provider, accountId, requestedScope(interaction.params));
    reply.hijack();
    await provider.interactionFinished(
      req.raw,
      reply.raw,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  });
}

/** The scope the client asked for (a query parameter, so a string when present). */
function requestedScope(params: Record<string, unknown>): string {
  return typeof params.scope === 'string' ? params.scope : 'openid';
}

async function grantFor(provider: Provider, accountId: string, scope: string): Promise<string> {
  const grant = new provider.Grant({ accountId, clientId: DEV_CLIENT_ID });
  grant.addOIDCScope(scope);
  return grant.save();
}

function loginPage(uid: string, error?: string): string {
  return page(
    'Sign in — development identity provider',
    `<main class="card">
  <h1>Development sign-in</h1>
  <p class="muted">This is the bundled identity provider for local use. Any email works; nothing is checked.</p>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
  <form method="post" action="${DEV_IDP_PATH}/interaction/${encodeURIComponent(uid)}/login">
    <label>Email <input type="email" name="email" required autocomplete="email" autofocus></label>
    <label>Name <input type="text" name="name" required autocomplete="name"></label>
    <button type="submit">Sign in</button>
  </form>
</main>`,
  );
}

function expiredPage(): string {
  return page('Sign-in expired', '<main class="card"><h1>This sign-in has expired</h1><p><a href="/login">Start again</a></p></main>');
}
