// Auth.js (@auth/core) mounted in Fastify at /api/auth. There is no official Fastify adapter: the glue turns
// the Fastify request into a Web Request, calls Auth(), and copies the Response back.
import { Auth, type AuthConfig } from '@auth/core';
import type { OIDCConfig } from '@auth/core/providers';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { UserRow } from '../db/schema.js';
import type { SessionRevocations } from './revocations.js';

export const SESSION_COOKIE = 'authlib.session-token';
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
const AUTH_BASE_PATH = '/api/auth';

/** A person as the identity provider names them at sign-in. */
export interface SignInIdentity {
  provider: string;
  subject: string;
  email: string;
  name: string;
  image: string;
}

/** What sign-in needs of our users (src/services/users.ts provides it). */
export interface SignInUsers {
  /** The user for this identity, created on first sign-in; null when the email belongs to another identity. */
  signIn(identity: SignInIdentity): Promise<UserRow | null>;
  findBySubject(provider: string, subject: string): Promise<UserRow | null>;
  findById(id: string): Promise<UserRow | null>;
}

export interface AuthOptions {
  baseUrl: string;
  secret: string;
  secureCookies: boolean;
  provider: { issuer: string; clientId: string; clientSecret: string; name: string };
  users: SignInUsers;
  log: { warn(msg: string): void; error(msg: string): void };
  /** Signed-out sessions (sign-out records one; a revoked session reads as signed out). */
  revocations?: Pick<SessionRevocations, 'isRevoked' | 'revokeSession'>;
}

interface OidcProfile {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

export function createAuthConfig(opts: AuthOptions): AuthConfig {
  const provider: OIDCConfig<OidcProfile> = {
    id: 'oauth',
    name: opts.provider.name,
    type: 'oidc',
    issuer: opts.provider.issuer,
    clientId: opts.provider.clientId,
    clientSecret: opts.provider.clientSecret,
    checks: ['pkce', 'state', 'nonce'],
  };
  const origin = new URL(opts.baseUrl).origin;
  return {
    basePath: AUTH_BASE_PATH,
    secret: opts.secret,
    trustHost: true,
    useSecureCookies: opts.secureCookies,
    providers: [provider],
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    cookies: {
      sessionToken: {
        name: SESSION_COOKIE,
        options: { httpOnly: true, sameSite: 'lax', path: '/', secure: opts.secureCookies },
      },
    },
    pages: { signIn: '/login', error: '/login' },
    callbacks: {
      // First sign-in creates the user; later ones find it. A refused identity (unverified email, or an email
      // already held by another identity) ends on /login?error=AccessDenied.
      async signIn({ account, profile }) {
        if (!account || !profile?.sub || !profile.email) return false;
        if (profile.email_verified === false) return false;
        const user = await opts.users.signIn({
          provider: 'oauth',
          subject: String(profile.sub),
          email: String(profile.email),
          name: String(profile.name ?? String(profile.email).split('@')[0]),
          image: typeof profile.picture === 'string' ? profile.picture : '',
        });
        return user !== null;
      },
      // A session is one sign-in: its id and start are set here and kept when the token is renewed, so
      // sign-out can end exactly this session (src/auth/revocations.ts). A revoked one reads as signed out
      // (null: Auth.js then clears the cookie).
      async jwt({ token, account }) {
        if (account) {
          const user = await opts.users.findBySubject('oauth', account.providerAccountId);
          if (!user) throw new Error('signed-in user not found');
          token.sub = user.id;
          token.email = user.email;
          token.name = user.name;
          token.picture = user.image;
          token.sid = randomUUID();
          token.authAt = Date.now();
          return token;
        }
        return opts.revocations?.isRevoked(token) ? null : token;
      },
      // `isPro` is read from the database on every session read, so a subscription change (payment webhook)
      // shows without signing in again. Without the database the session still answers, without `isPro`.
      async session({ session, token }) {
        if (token.sub) {
          session.user.id = token.sub;
          try {
            const user = await opts.users.findById(token.sub);
            Object.assign(session.user, { isPro: user?.isPro ?? false });
          } catch (err) {
            opts.log.warn(`auth: could not read the user for the session: ${(err as Error).message}`);
          }
        }
        return session;
      },
      // Only ever redirect within our own origin.
      async redirect({ url }) {
        if (url.startsWith('/') && !url.startsWith('//')) return `${origin}${url}`;
        try {
          if (new URL(url).origin === origin) return url;
        } catch {
          /* not a URL: fall through */
        }
        return `${origin}/projects`;
      },
    },
    events: {
      async signOut(message) {
        const token = 'token' in message ? message.token : null;
        if (!opts.revocations || !token?.sub || typeof token.sid !== 'string' || typeof token.exp !== 'number') return;
        await opts.revocations.revokeSession(token.sub, token.sid, new Date(token.exp * 1000));
      },
    },
    logger: {
      error: (err) => opts.log.warn(`auth: ${err.name}: ${err.message}`),
      warn: (code) => opts.log.warn(`auth: ${code}`),
      debug: () => {},
    },
  };
}

/** Call Auth.js for a request already shaped as (method, path+query, headers, body). */
export async function callAuth(
  config: AuthConfig,
  baseUrl: string,
  req: { method: string; url: string; headers: FastifyRequest['headers']; body?: string },
): Promise<Response> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  // The origin comes from AUTH_URL, never from the Host header, so a spoofed Host cannot move redirects.
  const url = new URL(req.url, baseUrl);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return Auth(new Request(url, { method: req.method, headers, body: hasBody ? (req.body ?? '') : undefined }), config);
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, key) => {
    // A `{ url }` answer (X-Auth-Return-Redirect) keeps the redirect's headers; a Location on a 200 means nothing.
    if (key === 'set-cookie' || (key === 'location' && response.status < 300)) return;
    reply.header(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  const body = Buffer.from(await response.arrayBuffer());
  // Auth.js refuses some requests with a bare JSON string or null (`"Bad request."`): answer in our error shape, { error }.
  if (response.status >= 400 && /json/i.test(response.headers.get('content-type') ?? '')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (typeof (parsed as { error?: unknown } | null)?.error !== 'string') {
      const error = response.status >= 500 ? 'Internal server error' : typeof parsed === 'string' && parsed ? parsed.replace(/\.$/, '') : 'Bad request';
      reply.removeHeader('content-length');
      return reply.type('application/json; charset=utf-8').send({ error });
    }
  }
  return reply.send(body);
}

export async function authRoutes(app: FastifyInstance, opts: { config: AuthConfig; baseUrl: string; log: { debug(obj: object, msg: string): void } }) {
  // Auth.js parses its own bodies: hand them over as text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 65_536 }, (_req, body, done) => done(null, body));

  // next-auth v4's browser client reports its errors here (form fields level, code, message…). Auth.js has no
  // such action; the report is logged at debug level (bounded) and acknowledged.
  app.post(`${AUTH_BASE_PATH}/_log`, { schema: { hide: true } }, async (req, reply) => {
    const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    const field = (name: string) => (form.get(name) ?? '').slice(0, 500);
    opts.log.debug({ level: field('level'), code: field('code'), message: field('message') }, 'auth client log');
    return reply.type('application/json; charset=utf-8').send('{}');
  });

  app.route({
    method: ['GET', 'POST'],
    url: `${AUTH_BASE_PATH}/*`,
    schema: { hide: true },
    handler: async (req, reply) => {
      let body = typeof req.body === 'string' ? req.body : undefined;
      const path = req.url.split('?')[0].replace(/\/+$/, '');
      const headers = { ...req.headers };
      if (req.method === 'POST' && (path === `${AUTH_BASE_PATH}/signout` || path.startsWith(`${AUTH_BASE_PATH}/signin/`))) {
        const form = new URLSearchParams(body ?? '');
        // next-auth v4's signIn()/signOut() post `json=true` and read `200 { url }` instead of following a
        // redirect; Auth.js answers so for requests that carry X-Auth-Return-Redirect (as newer clients send).
        if (form.get('json') === 'true') headers['x-auth-return-redirect'] = '1';
        // Sign-out goes to `/` unless told otherwise (Auth.js would reuse the last sign-in's callback URL).
        if (path === `${AUTH_BASE_PATH}/signout` && !form.get('callbackUrl')) {
          form.set('callbackUrl', '/');
          body = form.toString();
        }
      }
      const response = await callAuth(opts.config, opts.baseUrl, { method: req.method, url: req.url, headers, body });
      return sendWebResponse(reply, response);
    },
  });
}
