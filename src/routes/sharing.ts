// Sharing (docs/api.md "Sharing"). Two plugins: the read-only link's page of data is public (registered among
// the public routes of src/app.ts, rate-limited per signed-in user, else per client address); members, the shared-with-me list and the
// link's creation and revocation need a session (registered in the protected block). Project ids are path
// parameters named as the project routes name them; `/api/user/project/shared` is a static path, which the
// router always prefers to a parameter.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { readUser, sessionUser } from '../http/guards.js';
import { presentMember, presentSharedProject } from '../http/presenters.js';
import { perAddressPerMinute } from '../http/rate-limit.js';
import { ErrorBody, sharingSchemas } from '../http/schemas.js';
import type { SessionVerifier } from '../auth/session.js';
import type { SharingService } from '../services/sharing.js';

const byProject = z.object({ projectId: z.string().max(100) });

export const publicSharingRoutes: FastifyPluginAsyncZod<{ sharing: SharingService; sessions: SessionVerifier; limits: Config['limits'] }> = async (app, { sharing, sessions, limits }) => {
  const { SharedCanvas } = sharingSchemas(limits);
  const rateLimit = perAddressPerMinute('shared', limits.sharedLinksPerMinute);

  app.get('/api/shared/:token', {
    // Only so that a signed-in reader's requests are counted per user, not per address.
    onRequest: readUser(sessions),
    config: rateLimit ? { rateLimit } : {},
    schema: {
      tags: ['sharing'],
      summary: 'A project shown by its read-only link: its name and canvas (no session needed; rate-limited per signed-in user, else per address)',
      params: z.object({ token: z.string().describe('the token of POST /api/user/project/{projectId}/share-link') }),
      response: { 200: SharedCanvas, 404: ErrorBody, 429: ErrorBody },
    },
  }, async (req, reply) => {
    const { project, canvasJson } = await sharing.openLink(req.params.token);
    // The token is the key: nothing on the way may keep the answer.
    reply.header('cache-control', 'no-store');
    return sendJsonText(reply, `{"project":${JSON.stringify(project)},"canvas":${canvasJson ?? 'null'}}`);
  });
};

export const sharingRoutes: FastifyPluginAsyncZod<{ sharing: SharingService; baseUrl: string; limits: Config['limits'] }> = async (app, { sharing, baseUrl, limits }) => {
  const { Invite, Member, Members, SharedProject, ShareLink } = sharingSchemas(limits);
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

  app.get('/api/user/project/shared', {
    schema: { tags: ['sharing'], summary: 'Projects shared with you (by your email), oldest first, with your role and the owner', response: { 200: z.array(SharedProject), 401: ErrorBody } },
  }, async (req) => (await sharing.sharedWith(sessionUser(req))).map(presentSharedProject));

  app.post('/api/user/project/:projectId/members', {
    schema: {
      tags: ['sharing'],
      summary: "Invite someone by email as editor or viewer, or change a member's role (owner only): 201 when new, 200 when changed",
      params: byProject,
      body: Invite,
      response: { 200: Member, 201: Member, ...errors },
    },
  }, async (req, reply) => {
    const { member, created } = await sharing.invite(sessionUser(req), req.params.projectId, req.body);
    return reply.code(created ? 201 : 200).send(presentMember(member));
  });

  app.get('/api/user/project/:projectId/members', {
    schema: { tags: ['sharing'], summary: "A project's owner and members (for the owner and the members)", params: byProject, response: { 200: Members, ...errors } },
  }, async (req) => {
    const { owner, members } = await sharing.list(sessionUser(req), req.params.projectId);
    return { owner, members: members.map(presentMember) };
  });

  app.delete('/api/user/project/:projectId/members/:email', {
    schema: {
      tags: ['sharing'],
      summary: 'Remove a member (owner), or leave a project shared with you (your own email)',
      params: byProject.extend({ email: z.string().max(320) }),
      response: { 204: z.null(), ...errors },
    },
  }, async (req, reply) => {
    await sharing.remove(sessionUser(req), req.params.projectId, req.params.email);
    return reply.code(204).send(null);
  });

  app.post('/api/user/project/:projectId/share-link', {
    schema: {
      tags: ['sharing'],
      summary: 'Make a read-only link to the project, replacing any earlier one (owner only); the token is shown only now',
      params: byProject,
      response: { 201: ShareLink, ...errors },
    },
  }, async (req, reply) => {
    const { token } = await sharing.createLink(sessionUser(req), req.params.projectId);
    return reply.code(201).send({ token, url: `${baseUrl}/api/shared/${token}` });
  });

  app.delete('/api/user/project/:projectId/share-link', {
    schema: { tags: ['sharing'], summary: "Revoke the project's read-only link, if any (owner only)", params: byProject, response: { 204: z.null(), ...errors } },
  }, async (req, reply) => {
    await sharing.revokeLink(sessionUser(req), req.params.projectId);
    return reply.code(204).send(null);
  });
};

/** Send JSON text as is (Fastify does not re-serialize a string payload): the canvas text was validated when stored. */
function sendJsonText(reply: FastifyReply, json: string) {
  return reply.type('application/json; charset=utf-8').send(json);
}
