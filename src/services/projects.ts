// Projects belong to one user. Every read and write is scoped by owner, so another user's project and one
// that does not exist get the same answer (DESIGN.md §2).
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { projects, type ProjectRow } from '../db/schema.js';
import { notFound, unauthorized } from '../errors.js';
import { isUuid } from './ids.js';

export interface ProjectsService {
  create(userId: string, name: string): Promise<ProjectRow>;
  list(userId: string): Promise<ProjectRow[]>;
  rename(userId: string, projectId: string, name: string): Promise<ProjectRow>;
  remove(userId: string, projectId: string): Promise<void>;
}

export const projectNotFound = () => notFound('Project not found');

/** PostgreSQL's foreign_key_violation (drizzle wraps the driver's error in `cause`). */
const isForeignKeyViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23503' || e.cause?.code === '23503';
};

export function createProjectsService({ db }: { db: Db }): ProjectsService {
  const owned = (userId: string, projectId: string) => and(eq(projects.id, projectId), eq(projects.userId, userId));
  return {
    async create(userId, name) {
      // A session that outlived its user owns nothing: 401, not a foreign-key failure.
      try {
        const [row] = await db.insert(projects).values({ userId, name }).returning();
        return row;
      } catch (err) {
        if (isForeignKeyViolation(err)) throw unauthorized();
        throw err;
      }
    },
    list(userId) {
      return db.select().from(projects).where(eq(projects.userId, userId)).orderBy(desc(projects.createdAt), desc(projects.id));
    },
    async rename(userId, projectId, name) {
      if (!isUuid(projectId)) throw projectNotFound();
      const [row] = await db.update(projects).set({ name }).where(owned(userId, projectId)).returning();
      if (!row) throw projectNotFound();
      return row;
    },
    async remove(userId, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      // The canvas goes with it (foreign key ON DELETE CASCADE).
      const deleted = await db.delete(projects).where(owned(userId, projectId)).returning({ id: projects.id });
      if (deleted.length === 0) throw projectNotFound();
    },
  };
}
