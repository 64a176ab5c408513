// An OpenID Connect identity provider of its own for production-mode services (which never run the bundled one):
// the service's development provider (src/auth/dev-idp.ts: a form asking an email and a name) served by a small
// Fastify server on loopback, with one client whose redirect URI is on `clientUrl` (the service's AUTH_URL, e.g.
// the load balancer in front of several instances). signIn() in ./http-client.ts goes through it as a browser does.
import Fastify, { type FastifyInstance } from 'fastify';
import { DEV_CLIENT_ID, DEV_IDP_PATH, devClientSecret, devIdpPlugin } from '../../src/auth/dev-idp.js';
import { freePort } from '../../src/net-utils.js';

export interface IdentityProvider {
  /** The service's settings for it: OAUTH_ISSUER, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET. */
  env: { OAUTH_ISSUER: string; OAUTH_CLIENT_ID: string; OAUTH_CLIENT_SECRET: string };
  stop(): Promise<void>;
}

export async function startIdentityProvider(clientUrl: string): Promise<IdentityProvider> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const secret = `identity-provider-${port}`.padEnd(48, 'x');
  const app: FastifyInstance = Fastify();
  await app.register(devIdpPlugin, { baseUrl, clientUrl, secret, log: { warn: () => undefined } });
  await app.listen({ host: '127.0.0.1', port });
  return {
    env: { OAUTH_ISSUER: `${baseUrl}${DEV_IDP_PATH}`, OAUTH_CLIENT_ID: DEV_CLIENT_ID, OAUTH_CLIENT_SECRET: devClientSecret(secret) },
    stop: () => app.close(),
  };
}
