// Projects belong to one user. Every read and write is scoped by owner, so another user's project and one
// that does not exist get the same answer (404 Project not found): whether a project id exists never leaks.
// A member of a project (docs/api.md "Sharing") knows it exists: renaming or deleting it is 403 for them.
import type { ProjectActivity, ProjectsRepository, SharingRepository } from '../db/repositories/index.js';
import type { ProjectRow } from '../db/schema.js';
import { forbidden, projectNotFound, unauthorized } from '../errors.js';
import { isUuid } from '../ids.js';

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
  /** Roles, read only when an owner-only change found no project of the user. */
  roles: Pick<SharingRepository, 'access'>;
  /** Called after a project was deleted: live connections to its document are closed. */
  accessChanged?: (projectId: string) => Promise<void>;
}

export function createProjectsService({ projects, roles, accessChanged = async () => {} }: ProjectsDeps): ProjectsService {
  /** Why an owner-only change did nothing: 403 for a member, 404 for anyone else. */
  async function refusal(userId: string, projectId: string) {
    return (await roles.access(userId, projectId)) ? forbidden() : projectNotFound();
  }

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
      if (!isUuid(projectId)) throw projectNotFound();
      const row = await projects.renameOwned(userId, projectId, name);
      if (!row) throw await refusal(userId, projectId);
      return row;
    },
    async remove(userId, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      // The canvas goes with it (foreign key ON DELETE CASCADE).
      if (!(await projects.deleteOwned(userId, projectId))) throw await refusal(userId, projectId);
      await accessChanged(projectId);
    },
    activity(userId) {
      return projects.listActivity(userId);
    },
  };
}
