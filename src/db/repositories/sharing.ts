// Sharing (docs/api.md "Sharing"): a project's members, invited by email with a role, and its read-only link.
// Who holds what on a project is derived by ./project-access.ts (its SQL) and decided by src/auth/project-access.ts.
import { and, asc, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db, Executor, Tx } from '../index.js';
import { projectMembers, projects, projectShareLinks, users, type ProjectMemberRow } from '../schema.js';
import { accessRoleOf, type AccessRole, type Actor, type MemberRole } from './project-access.js';

/** What someone holds on a project, with what the sharing routes show of it. */
export interface ProjectAccessRow {
  role: AccessRole;
  projectName: string;
  ownerId: string;
  ownerEmail: string;
  ownerName: string;
}

export type Member = Pick<ProjectMemberRow, 'email' | 'role' | 'createdAt'>;

/** A project shared with a user: the project's own fields, the user's role, and its owner. */
export interface SharedProjectRow {
  id: string;
  userId: string;
  name: string;
  createdAt: Date;
  role: MemberRole;
  ownerEmail: string;
  ownerName: string;
}

export interface SharingRepository {
  /** What the actor holds on the project, and its owner; null when they hold nothing, or there is no such project. */
  access(actor: Actor, projectId: string, tx?: Tx): Promise<ProjectAccessRow | null>;
  /** Locks the project's row until the transaction ends (changes of its members are serialized); false when there is none. */
  lockProject(projectId: string, tx: Tx): Promise<boolean>;
  /** The project's members, oldest invitation first (ties by email). */
  listMembers(projectId: string, tx?: Tx): Promise<Member[]>;
  /** Adds the member, or changes the role of the one with that email; `created` tells which. */
  upsertMember(member: { projectId: string; email: string; role: MemberRole; invitedBy: string }, tx?: Tx): Promise<{ member: Member; created: boolean }>;
  /** false when the project has no member with that email. */
  removeMember(projectId: string, email: string, tx?: Tx): Promise<boolean>;
  /** Projects shared with the user (by the email of their user record), in creation order, oldest first (ties by id). */
  listSharedWith(userId: string, tx?: Tx): Promise<SharedProjectRow[]>;
  /** Sets the project's link to this token hash, replacing any earlier one. */
  replaceLink(projectId: string, tokenHash: string, createdBy: string, tx?: Tx): Promise<void>;
  /** false when the project had no link. */
  deleteLink(projectId: string, tx?: Tx): Promise<boolean>;
  /** The project behind a link's token hash; null when no link has it. */
  findLink(tokenHash: string, tx?: Tx): Promise<{ projectId: string; projectName: string; ownerId: string } | null>;
}

const owner = alias(users, 'owner');

export function createSharingRepository(db: Db): SharingRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  const memberFields = { email: projectMembers.email, role: projectMembers.role, createdAt: projectMembers.createdAt };
  return {
    async access(actor, projectId, tx) {
      const role = accessRoleOf(actor, '"projects"');
      const [row] = await on(tx)
        .select({ role, projectName: projects.name, ownerId: projects.userId, ownerEmail: users.email, ownerName: users.name })
        .from(projects)
        .innerJoin(users, eq(users.id, projects.userId))
        .where(and(eq(projects.id, projectId), sql`${role} IS NOT NULL`));
      return row ? { ...row, role: row.role! } : null;
    },
    async lockProject(projectId, tx) {
      const rows = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for('update');
      return rows.length > 0;
    },
    listMembers(projectId, tx) {
      return on(tx).select(memberFields).from(projectMembers).where(eq(projectMembers.projectId, projectId)).orderBy(asc(projectMembers.createdAt), asc(projectMembers.email));
    },
    async upsertMember(member, tx) {
      const [row] = await on(tx)
        .insert(projectMembers)
        .values(member)
        .onConflictDoUpdate({ target: [projectMembers.projectId, projectMembers.email], set: { role: member.role } })
        // xmax is 0 on a row this statement inserted, and set on one it updated.
        .returning({ ...memberFields, created: sql<boolean>`(xmax = 0)` });
      const { created, ...saved } = row;
      return { member: saved, created };
    },
    async removeMember(projectId, email, tx) {
      const deleted = await on(tx)
        .delete(projectMembers)
        .where(and(eq(projectMembers.projectId, projectId), eq(projectMembers.email, email)))
        .returning({ email: projectMembers.email });
      return deleted.length > 0;
    },
    listSharedWith(userId, tx) {
      return on(tx)
        .select({
          id: projects.id,
          userId: projects.userId,
          name: projects.name,
          createdAt: projects.createdAt,
          role: projectMembers.role,
          ownerEmail: owner.email,
          ownerName: owner.name,
        })
        .from(projectMembers)
        .innerJoin(projects, eq(projects.id, projectMembers.projectId))
        .innerJoin(owner, eq(owner.id, projects.userId))
        .where(eq(projectMembers.email, sql`(SELECT lower(u.email) FROM users u WHERE u.id = ${userId})`))
        .orderBy(asc(projects.createdAt), asc(projects.id));
    },
    async replaceLink(projectId, tokenHash, createdBy, tx) {
      await on(tx)
        .insert(projectShareLinks)
        .values({ projectId, tokenHash, createdBy })
        .onConflictDoUpdate({ target: projectShareLinks.projectId, set: { tokenHash, createdBy, createdAt: sql`now()` } });
    },
    async deleteLink(projectId, tx) {
      const deleted = await on(tx).delete(projectShareLinks).where(eq(projectShareLinks.projectId, projectId)).returning({ id: projectShareLinks.projectId });
      return deleted.length > 0;
    },
    async findLink(tokenHash, tx) {
      const [row] = await on(tx)
        .select({ projectId: projects.id, projectName: projects.name, ownerId: projects.userId })
        .from(projectShareLinks)
        .innerJoin(projects, eq(projects.id, projectShareLinks.projectId))
        .where(eq(projectShareLinks.tokenHash, tokenHash));
      return row ?? null;
    },
  };
}
