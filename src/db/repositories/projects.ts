// Projects: every statement that reads or changes one project is scoped by its owner in the same statement,
// so another user's project and a missing one look the same.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { canvases, projectMembers, projects, type ProjectRow } from '../schema.js';

export interface ProjectsRepository {
  /** The new project; null when the owner does not exist (anymore). */
  insert(project: { userId: string; name: string }, tx?: Tx): Promise<ProjectRow | null>;
  /** The owner's projects in creation order, oldest first (ties by id), as the original system answered them. */
  listByOwner(userId: string, tx?: Tx): Promise<ProjectRow[]>;
  /** The renamed project; null when the user owns no project of that id. */
  renameOwned(userId: string, projectId: string, name: string, tx?: Tx): Promise<ProjectRow | null>;
  /** Deletes the project (its canvas goes with it: ON DELETE CASCADE); false when the user owns no such project. */
  deleteOwned(userId: string, projectId: string, tx?: Tx): Promise<boolean>;
  /** Each project the user owns or is a member of: its canvas version (0 without a canvas) and when it last changed. */
  listActivity(userId: string, tx?: Tx): Promise<ProjectActivity[]>;
}

export interface ProjectActivity {
  projectId: string;
  version: number;
  /** The canvas's last change; the project's creation when it has no canvas yet. */
  editedAt: Date;
}

/** PostgreSQL's foreign_key_violation (drizzle wraps the driver's error in `cause`). */
const isForeignKeyViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23503' || e.cause?.code === '23503';
};

export function createProjectsRepository(db: Db): ProjectsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  const owned = (userId: string, projectId: string) => and(eq(projects.id, projectId), eq(projects.userId, userId));
  return {
    async insert(project, tx) {
      try {
        const [row] = await on(tx).insert(projects).values(project).returning();
        return row;
      } catch (err) {
        if (isForeignKeyViolation(err)) return null;
        throw err;
      }
    },
    listByOwner(userId, tx) {
      return on(tx).select().from(projects).where(eq(projects.userId, userId)).orderBy(asc(projects.createdAt), asc(projects.id));
    },
    async renameOwned(userId, projectId, name, tx) {
      const [row] = await on(tx).update(projects).set({ name }).where(owned(userId, projectId)).returning();
      return row ?? null;
    },
    async deleteOwned(userId, projectId, tx) {
      const deleted = await on(tx).delete(projects).where(owned(userId, projectId)).returning({ id: projects.id });
      return deleted.length > 0;
    },
    async listActivity(userId, tx) {
      const fields = { projectId: projects.id, version: canvases.version, updatedAt: canvases.updatedAt, createdAt: projects.createdAt };
      // Two statements, each on its own index (owner; member email), rather than one OR over every project.
      const [owned, shared] = await Promise.all([
        on(tx).select(fields).from(projects).leftJoin(canvases, eq(canvases.projectId, projects.id)).where(eq(projects.userId, userId)),
        on(tx)
          .select(fields)
          .from(projectMembers)
          .innerJoin(projects, eq(projects.id, projectMembers.projectId))
          .leftJoin(canvases, eq(canvases.projectId, projects.id))
          .where(eq(projectMembers.email, sql`(SELECT lower(u.email) FROM users u WHERE u.id = ${userId})`)),
      ]);
      return [...owned, ...shared].map((r) => ({ projectId: r.projectId, version: r.version ?? 0, editedAt: r.updatedAt ?? r.createdAt }));
    },
  };
}
