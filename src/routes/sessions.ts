// DELETE /api/user/sessions: "sign out of all devices". Every session of the user that began before now ends
// on every instance (src/auth/revocations.ts), this one included: the answer also clears the cookie here.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { parseCookie } from 'cookie';
import { z } from 'zod';
import { SESSION_COOKIE } from '../auth/authjs.js';
import type { SessionRevocations } from '../auth/revocations.js';
import { sessionUser } from '../http/guards.js';
import { ErrorBody } from '../http/schemas.js';
import { unauthorized } from '../errors.js';
import type { UsersService } from '../services/users.js';

export const sessionRoutes: FastifyPluginAsyncZod<{ revocations: Pick<SessionRevocations, 'revokeAll'>; users: Pick<UsersService, 'findById'>; secureCookies: boolean }> = async (app, { revocations, users, secureCookies }) => {
  app.delete('/api/user/sessions', {
    schema: {
      tags: ['user'],
      summary: 'Sign out of all devices: every session of the signed-in user ends, on every instance, this one included',
      response: { 200: z.object({ success: z.literal(true) }), 401: ErrorBody },
    },
  }, async (req, reply) => {
    // A session that outlived its user has nothing to end (the session check itself reads no database).
    const user = await users.findById(sessionUser(req).id);
    if (!user) throw unauthorized();
    await revocations.revokeAll(user.id);
    // The session cookie and any chunks of it (`<name>.0`, `<name>.1`, … for a large token).
    const names = Object.keys(parseCookie(req.headers.cookie ?? '')).filter((name) => name === SESSION_COOKIE || name.startsWith(`${SESSION_COOKIE}.`));
    reply.header(
      'set-cookie',
      (names.length ? names : [SESSION_COOKIE]).map((name) => `${name}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`),
    );
    return { success: true as const };
  });
};
