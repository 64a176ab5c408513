// Who someone is on a project, as SQL (docs/api.md "Sharing"; the rule of what each may do is
// src/auth/project-access.ts). A signed-in user's role is `owner` (projects.user_id), or the role of the member row
// carrying the email of their user record (stored lower-cased at sign-in, as the session's email); a read-only
// link's holder is `link` while the project's link has that token's hash. This is the only place that derives a
// role from project_members: every statement that needs the caller's role (./sharing.ts `access`, ./canvases.ts,
// ./access-checks.ts, ./generations-gallery.ts) embeds these expressions, so a check stays one indexed query.
import { sql, type SQL } from 'drizzle-orm';

export type MemberRole = 'editor' | 'viewer';
export type ProjectRole = 'owner' | MemberRole;
/** What someone holds on a project: a role, or the read-only link. */
export type AccessRole = ProjectRole | 'link';

/** Who asks: a signed-in user (by session or API token), or the holder of a read-only link (its token's SHA-256, hex). */
export type Actor = { userId: string } | { linkHash: string };

/**
 * The role of user `userId` on the project row named `table` (an alias in the statement): `owner`, `editor`,
 * `viewer`, or NULL when they have none. A CASE evaluates lazily: for the owner the member lookup never runs.
 * `userId` is a value, or a column of the statement (./access-checks.ts checks many pairs at once).
 */
export const roleOf = (userId: string | SQL, table = 'p'): SQL<ProjectRole | null> => {
  const p = sql.raw(table);
  return sql<ProjectRole | null>`(CASE WHEN ${p}.user_id = ${userId} THEN 'owner' ELSE (SELECT m.role FROM project_members m WHERE m.project_id = ${p}.id AND m.email = (SELECT lower(u.email) FROM users u WHERE u.id = ${userId})) END)`;
};

/** What `actor` holds on the project row named `table`: its role, `link`, or NULL (the link's primary key is the project). */
export const accessRoleOf = (actor: Actor, table = 'p'): SQL<AccessRole | null> => {
  if ('userId' in actor) return roleOf(actor.userId, table);
  const p = sql.raw(table);
  return sql<AccessRole | null>`(SELECT 'link' FROM project_share_links l WHERE l.project_id = ${p}.id AND l.token_hash = ${actor.linkHash})`;
};
