// The one project-access rule (docs/api.md "Sharing", "Who may do what"; DESIGN.md §9 "Roles"): what someone may do
// on a project, by what they hold on it — `owner`, `editor`, `viewer` (a member, by the email of their user record),
// `link` (the holder of the project's read-only link) or `none`. PERMISSIONS below is the whole rule; every service,
// the live socket and the access sweep ask it, never a role name of their own.
//
// Refusals: someone who holds nothing gets `404 Project not found` — the same answer as for a project that does not
// exist, so a project id never leaks — and someone who holds a role without the action gets `403 Forbidden` (they
// know the project exists). An id that cannot be a project is `none` without a query.
//
// What someone holds is read by one indexed query (src/db/repositories/project-access.ts derives it in SQL):
// `require`/`accessOf` below read it alone; statements that need it with other data in the same round trip (the
// canvas row: src/db/repositories/canvases.ts `current`; the sweep's batch) read it there and decide with `check`.
import type { Tx } from '../db/index.js';
import type { AccessRole, Actor, ProjectAccessRow, SharingRepository } from '../db/repositories/index.js';
import type { AppError } from '../errors.js';
import { forbidden, projectNotFound } from '../errors.js';
import { isUuid } from '../ids.js';

export type { AccessRole, Actor } from '../db/repositories/index.js';

/** What someone holds on a project; `none` when nothing (or there is no such project). */
export type Access = AccessRole | 'none';

/** What someone may ask to do on a project. */
export type ProjectAction =
  /** See the canvas as it is now (GET …/canvas; the read-only link's page). */
  | 'view'
  /** What members see: the live document, the thumbnail, the history and its previews, the gallery, the member list. */
  | 'read'
  /** Change the canvas: REST saves, live edits, naming and restoring versions, the example canvas. */
  | 'edit'
  /** Run generations into the project's nodes. */
  | 'generate'
  /** Remove one's own membership. */
  | 'leave'
  /** Invite people, change their roles, remove others, make and revoke the read-only link. */
  | 'share'
  | 'rename'
  | 'delete';

/** The rule: who may do each action. */
export const PERMISSIONS: Readonly<Record<ProjectAction, readonly AccessRole[]>> = Object.freeze({
  view: ['owner', 'editor', 'viewer', 'link'],
  read: ['owner', 'editor', 'viewer'],
  edit: ['owner', 'editor'],
  generate: ['owner', 'editor'],
  leave: ['owner', 'editor', 'viewer'],
  share: ['owner'],
  rename: ['owner'],
  delete: ['owner'],
});

/** Whether someone who holds `access` may do `action`. */
export const permits = (access: Access, action: ProjectAction): boolean => access !== 'none' && PERMISSIONS[action].includes(access);

/** The answer to someone who holds `access` and may not do `action`: 404 when they hold nothing, else 403; null when they may. */
export function refusal(access: Access, action: ProjectAction): AppError | null {
  if (permits(access, action)) return null;
  return access === 'none' ? projectNotFound() : forbidden();
}

/**
 * For a statement that read what the caller holds (`role`) with other data: the row if they may do `action`, else
 * throws the refusal (see `refusal`). No row: they hold nothing (or there is no such project).
 */
export function check<T extends { role: AccessRole }>(row: T | null | undefined, action: ProjectAction): T {
  const refused = refusal(row?.role ?? 'none', action);
  if (refused) throw refused;
  return row!;
}

/** What someone holds on a project, and the project's name and owner (for the routes that show them). */
export interface ProjectGrant {
  access: AccessRole;
  projectName: string;
  owner: { id: string; email: string; name: string };
}

export interface ProjectAccess {
  /** What the actor holds on the project (one query; none for an id that cannot be a project). */
  accessOf: (actor: Actor, projectId: string) => Promise<Access>;
  /** The actor's grant on the project if they may do `action`; else throws the refusal (`refusal`). One query. */
  require: (actor: Actor, projectId: string, action: ProjectAction, tx?: Tx) => Promise<ProjectGrant>;
}

export interface ProjectAccessDeps {
  sharing: Pick<SharingRepository, 'access'>;
}

const grantOf = (row: ProjectAccessRow): ProjectGrant => ({
  access: row.role,
  projectName: row.projectName,
  owner: { id: row.ownerId, email: row.ownerEmail, name: row.ownerName },
});

export function createProjectAccess({ sharing }: ProjectAccessDeps): ProjectAccess {
  const find = async (actor: Actor, projectId: string, tx?: Tx) => (isUuid(projectId) ? sharing.access(actor, projectId, tx) : null);
  return {
    async accessOf(actor, projectId) {
      return (await find(actor, projectId))?.role ?? 'none';
    },
    async require(actor, projectId, action, tx) {
      return grantOf(check(await find(actor, projectId, tx), action));
    },
  };
}
