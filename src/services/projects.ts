// Projects belong to one user. Renaming and deleting are the owner's (src/auth/project-access.ts): anyone else who
// holds nothing on the project gets the same answer as for one that does not exist (404 Project not found), so
// whether a project id exists never leaks; a member (docs/api.md "Sharing") knows it exists and gets 403. The
// statements are scoped by owner as well.
import type { ProjectAccess } from '../auth/project-access.js';
import type { ProjectActivity, ProjectsRepository } from '../db/repositories/index.js';
import type { ProjectRow } from '../db/schema.js';
import { projectNotFound, unauthorized } from '../errors.js';

export interface ProjectsService {
  create(userId: string, name: string): Promise<ProjectRow>;
  list(userId: string): Promise<ProjectRow[]>;
  rename(userId: string, projectId: string, name: string): Promise<ProjectRow>;
  remove(userId: string, projectId: string): Promise<void>;
  /** When each project the user may open (own or shared) last changed, and its canvas version. */
  activity(userId: string): Promise<ProjectActivity[]>;
}

export interface ProjectsDeps {
  projects: Pick<ProjectsRepository, 'insert' | 'listByOwner' | 'renameOwned' | 'deleteOwned' | 'listActivity'>;
  access: Pick<ProjectAccess, 'require'>;
  /** Called after a project was deleted: live connections to its document are closed. */
  accessChanged?: (projectId: string, change?: { by: string; deleted?: boolean }) => Promise<void>;
  /** Called just before a project is deleted: its objects are queued for the deletion sweep (./object-sweep.ts). */
  deleting?: (projectId: string) => Promise<void>;
}

export function createProjectsService({ projects, access, accessChanged = async () => {}, deleting = async () => {} }: ProjectsDeps): ProjectsService {
  return {
    async create(userId, name) {
      const row = await projects.insert({ userId, name });
      // A session that outlived its user owns nothing: 401, not a foreign-key failure.
      if (!row) throw unauthorized();
      return row;
    },
    list(userId) {
      return projects.listByOwner(userId);
    },
    async rename(userId, projectId, name) {
      await access.require({ userId }, projectId, 'rename');
      const row = await projects.renameOwned(userId, projectId, name);
      if (!row) throw projectNotFound(); // deleted meanwhile
      return row;
    },
    async remove(userId, projectId) {
      await access.require({ userId }, projectId, 'delete');
      await deleting(projectId);
      // The canvas goes with it (foreign key ON DELETE CASCADE).
      if (!(await projects.deleteOwned(userId, projectId))) throw projectNotFound(); // deleted meanwhile
      await accessChanged(projectId, { by: '', deleted: true });
    },
    activity(userId) {
      return projects.listActivity(userId);
    },
  };
}
