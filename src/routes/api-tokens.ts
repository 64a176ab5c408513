// Personal API tokens (docs/api.md "API tokens"): create (the secret answered once), list, revoke. Registered in
// the protected block of src/app.ts; these routes need a signed-in session: a request with a token gets 403
// (src/auth/api-tokens.ts `requiredScope`), so a token can neither mint nor revoke tokens.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_TOKEN_SCOPES } from '../auth/api-tokens.js';
import type { Config } from '../config.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import { presentApiToken } from '../http/presenters.js';
import { ErrorBody, isStorableText } from '../http/schemas.js';
import type { ApiTokensService } from '../services/api-tokens.js';

export const API_TOKEN_NAME_MAX_CHARS = 100;

export function apiTokenSchemas(limits: Pick<Config['limits'], 'apiTokenMaxDays'>) {
  const Scope = z.enum(API_TOKEN_SCOPES, {
    error: (issue) => `unknown scope ${JSON.stringify(String(issue.input)).slice(0, 50)}; the scopes are ${API_TOKEN_SCOPES.join(', ')}`,
  });
  const nameRequired = says('Token name is required').error;
  const nameInvalid = says('Invalid token name').error;
  const days = `must be a whole number of days from 1 to ${limits.apiTokenMaxDays}`;
  const NewApiToken = z.object({
    name: z
      .string({ error: (issue) => (issue.input === undefined || issue.input === null ? nameRequired : nameInvalid) })
      .trim()
      .min(1, nameRequired)
      .max(API_TOKEN_NAME_MAX_CHARS, says(`Token name is too long (at most ${API_TOKEN_NAME_MAX_CHARS} characters)`))
      .refine(isStorableText, nameInvalid)
      .describe('to recognise the token by'),
    scopes: z
      .array(Scope, { error: 'must be a list of scopes' })
      .min(1, 'at least one scope is needed')
      .superRefine((scopes, ctx) => {
        const twice = scopes.find((scope, i) => scopes.indexOf(scope) !== i);
        if (twice) ctx.addIssue({ code: 'custom', message: `${twice} is listed twice` });
      })
      .describe('`read`: GET and HEAD of the API; `write`: the other methods, except generation; `generate`: POST /api/image'),
    expiresInDays: z
      .number({ error: days })
      .int(days)
      .min(1, days)
      .max(limits.apiTokenMaxDays, days)
      .nullish()
      .describe(`days until the token stops working (1–${limits.apiTokenMaxDays}); omitted or null: it never expires`),
  });
  const ApiToken = z
    .object({
      id: z.uuid(),
      name: z.string(),
      prefix: z.string().describe('the first characters of the secret (`ic_` and 6 more), to recognise it by'),
      scopes: z.array(z.enum(API_TOKEN_SCOPES)),
      createdAt: z.string().describe('ISO 8601'),
      expiresAt: z.string().nullable().describe('ISO 8601; null: never expires'),
      lastUsedAt: z.string().nullable().describe('ISO 8601, recorded at most about once a minute; null: never used'),
    })
    .meta({ id: 'ApiToken' });
  const CreatedApiToken = ApiToken.extend({
    token: z.string().describe('the secret to send as `Authorization: Bearer <token>`; shown only now (the service keeps its hash)'),
  }).meta({ id: 'CreatedApiToken' });
  const ApiTokens = z.object({ tokens: z.array(ApiToken).describe('oldest first') }).meta({ id: 'ApiTokens' });
  return { NewApiToken, ApiToken, CreatedApiToken, ApiTokens };
}

export const apiTokenRoutes: FastifyPluginAsyncZod<{ tokens: ApiTokensService; limits: Config['limits'] }> = async (app, { tokens, limits }) => {
  const { NewApiToken, CreatedApiToken, ApiTokens } = apiTokenSchemas(limits);
  const errors = { 401: ErrorBody, 403: ErrorBody };

  app.get('/api/user/tokens', {
    schema: { tags: ['user'], summary: 'Your personal API tokens (never their secrets); needs a signed-in session, not a token', response: { 200: ApiTokens, ...errors } },
  }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return { tokens: (await tokens.list(sessionUser(req).id)).map(presentApiToken) };
  });

  app.post('/api/user/tokens', {
    schema: {
      tags: ['user'],
      summary: 'Create a personal API token: its secret is answered only now; needs a signed-in session, not a token',
      body: NewApiToken,
      response: { 201: CreatedApiToken, 400: ErrorBody, ...errors },
    },
  }, async (req, reply) => {
    const { name, scopes, expiresInDays } = req.body;
    const { token, secret } = await tokens.create(sessionUser(req).id, { name, scopes, expiresInDays: expiresInDays ?? undefined });
    // The secret is in this answer only: nothing on the way may keep it.
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ ...presentApiToken(token), token: secret });
  });

  app.delete('/api/user/tokens/:id', {
    schema: {
      tags: ['user'],
      summary: 'Revoke one of your API tokens: it stops working at once, on every instance; needs a signed-in session, not a token',
      params: z.object({ id: z.string().max(100) }),
      response: { 204: z.null(), 404: ErrorBody, ...errors },
    },
  }, async (req, reply) => {
    await tokens.revoke(sessionUser(req).id, req.params.id);
    return reply.code(204).send(null);
  });
};
