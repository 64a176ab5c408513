import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unauthorized } from '../errors.js';
import { sessionUser } from '../http/guards.js';
import { presentUser } from '../http/presenters.js';
import { ErrorBody, User } from '../http/schemas.js';
import type { UsersService } from '../services/users.js';

export const userRoutes: FastifyPluginAsyncZod<{ users: Pick<UsersService, 'findById'> }> = async (app, { users }) => {
  app.get('/api/user', {
    schema: { tags: ['user'], summary: 'The signed-in user', response: { 200: User, 401: ErrorBody } },
  }, async (req) => {
    const row = await users.findById(sessionUser(req).id);
    if (!row) throw unauthorized(); // the session names a user that no longer exists
    return presentUser(row);
  });
  app.get('/api/user/session', {
    schema: {
      tags: ['user'],
      summary: 'Who is signed in, from the session alone (no database read; cheaper than /api/auth/session, which re-issues the cookie)',
      response: { 200: z.object({ id: z.string(), email: z.string(), name: z.string() }), 401: ErrorBody },
    },
  }, async (req) => {
    const { id, email, name } = sessionUser(req);
    return { id, email, name };
  });
};
