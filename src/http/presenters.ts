// Rows become API shapes here, and only here.
import type { ApiToken, ListedTemplate, Member, ProjectActivity, SharedProjectRow, VersionRow } from '../db/repositories/index.js';
import type { ProjectRow, UserRow } from '../db/schema.js';

export const presentProject = (row: Pick<ProjectRow, 'id' | 'userId' | 'name' | 'createdAt'>) => ({
  id: row.id,
  userId: row.userId,
  name: row.name,
  createdDate: row.createdAt.toISOString(),
});

/** When a project's canvas last changed, and its version (GET /api/user/project/activity). */
export const presentProjectActivity = (row: ProjectActivity) => ({ projectId: row.projectId, version: row.version, lastEditedAt: row.editedAt.toISOString() });

/** A project member: the email they were invited with (lower-cased), their role, when they were first invited. */
export const presentMember = (row: Member) => ({ email: row.email, role: row.role, createdAt: row.createdAt.toISOString() });

/** A project shared with the caller: the Project shape of `GET /api/user/project`, the caller's role and the owner. */
export const presentSharedProject = (row: SharedProjectRow) => ({
  ...presentProject(row),
  role: row.role,
  owner: { email: row.ownerEmail, name: row.ownerName },
});

export const presentUser = (row: UserRow) => ({
  id: row.id,
  email: row.email,
  name: row.name,
  image: row.image,
  createdAt: row.createdAt.toISOString(),
  isPro: row.isPro,
  provider: row.provider,
  ...(row.paymentsCustomerId ? { paymentsCustomerId: row.paymentsCustomerId } : {}),
  ...(row.subscriptionStatus ? { subscriptionStatus: row.subscriptionStatus } : {}),
});

/**
 * Listed templates as the JSON text of the API's array: the author shows only as `{ name, image }` (never an
 * id or email), `mine` says whether `viewerId` (the caller's session, if any) is the author. Nodes, edges and
 * viewport are the stored JSON texts (validated when published), sent as they are.
 */
export const presentTemplatesJson = (rows: ListedTemplate[], viewerId: string | undefined): string =>
  `[${rows
    .map(
      (row) =>
        `{"id":${JSON.stringify(row.id)},"templateName":${JSON.stringify(row.name)},` +
        `"user":${JSON.stringify({ name: row.authorName, image: row.authorImage })},` +
        `"canvas":{"nodes":${row.nodes},"edges":${row.edges},"viewport":${row.viewport}},` +
        `"createdAt":${JSON.stringify(row.createdAt.toISOString())},"mine":${row.userId === viewerId}}`,
    )
    .join(',')}]`;

/** A version of a canvas's history (without its state). */
export const presentVersion = (row: VersionRow) => ({
  id: row.id,
  kind: row.kind,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
});

/** A personal API token as listed: never its secret or hash, only the prefix it starts with. */
export const presentApiToken = (row: ApiToken) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});
