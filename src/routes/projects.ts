// /api/user/project: create and list, plus rename and delete (owner only; docs/api.md "Ownership"). `userId`
// must name the session user: its id, or its email (accepted for clients that identify users by email).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { forbidden } from '../errors.js';
import { sessionUser } from '../http/guards.js';
import { says } from '../http/messages.js';
import { presentProject } from '../http/presenters.js';
import { ErrorBody, Project, projectName } from '../http/schemas.js';
import type { SessionUser } from '../auth/session.js';
import type { ProjectsService } from '../services/projects.js';

const userIdField = z.string(says('User ID is required')).min(1, says('User ID is required'));

function assertSelf(user: SessionUser, userId: string): void {
  if (userId !== user.id && userId.toLowerCase() !== user.email.toLowerCase()) throw forbidden();
}

export const projectRoutes: FastifyPluginAsyncZod<{ projects: ProjectsService; limits: Config['limits'] }> = async (app, { projects, limits }) => {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
  const name = projectName(limits.projectNameChars);

  app.post('/api/user/project', {
    schema: { tags: ['projects'], summary: 'Create a project', body: z.object({ userId: userIdField, name }), response: { 200: Project, ...errors } },
  }, async (req) => {
    const user = sessionUser(req);
    assertSelf(user, req.body.userId);
    return presentProject(await projects.create(user.id, req.body.name));
  });

  app.get('/api/user/project', {
    schema: { tags: ['projects'], summary: "List the user's projects in creation order (oldest first)", querystring: z.object({ userId: userIdField }), response: { 200: z.array(Project), ...errors } },
  }, async (req) => {
    const user = sessionUser(req);
    assertSelf(user, req.query.userId);
    return (await projects.list(user.id)).map(presentProject);
  });

  const byId = z.object({ projectId: z.string().max(100) });

  app.patch('/api/user/project/:projectId', {
    schema: { tags: ['projects'], summary: 'Rename a project', params: byId, body: z.object({ name }), response: { 200: Project, ...errors } },
  }, async (req) => presentProject(await projects.rename(sessionUser(req).id, req.params.projectId, req.body.name)));

  app.delete('/api/user/project/:projectId', {
    schema: { tags: ['projects'], summary: 'Delete a project and its canvas', params: byId, response: { 204: z.null(), ...errors } },
  }, async (req, reply) => {
    await projects.remove(sessionUser(req).id, req.params.projectId);
    return reply.code(204).send(null);
  });
};
