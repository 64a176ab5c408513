// A project's generations, by anyone, for its gallery and named downloads (docs/api.md "Project gallery"), and one
// generation's lineage for those who may see it: its author, or anyone with a role on the project it was made into
// (./project-access.ts `roleOf`). The routes check the caller's role on the project first (src/services/project-generations.ts).
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { generations, users, type GenerationRow } from '../schema.js';
import { afterCursor, generationColumns, promptMatches, type GenerationsAfter } from './generations.js';
import { roleOf } from './project-access.js';

/** A generation as a project's gallery lists it: with its author's name. */
export type GalleryRow = GenerationRow & { authorName: string };

export interface GenerationsGalleryRepository {
  /** The project's generations, newest first (`createdAt`, then `id`), strictly after `after`, filtered. */
  listByProject(projectId: string, opts: { after?: GenerationsAfter; limit: number; nodeId?: string; model?: string; q?: string }, tx?: Tx): Promise<GalleryRow[]>;
  /** The generation, only if it was made into this project; null otherwise. */
  findInProject(projectId: string, generationId: string, tx?: Tx): Promise<GenerationRow | null>;
  /** The generation if `userId` made it or has a role on the project it was made into; null otherwise. */
  lineageOf(userId: string, generationId: string, tx?: Tx): Promise<GenerationRow | null>;
}

/** Whether a string can be a generation id (`gen-<timestamp>-<random>`): anything else (a NUL, …) names none. */
const isGenerationId = (id: string) => /^[\w-]{1,100}$/.test(id);

export function createGenerationsGalleryRepository(db: Db): GenerationsGalleryRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    listByProject(projectId, { after, limit, nodeId, model, q }, tx) {
      const conditions = [
        eq(generations.projectId, projectId),
        after && afterCursor(after),
        nodeId !== undefined && eq(generations.nodeId, nodeId),
        model !== undefined && eq(generations.model, model),
        q !== undefined && promptMatches(q),
      ].filter((c): c is SQL => Boolean(c));
      return on(tx)
        .select({ ...generationColumns, authorName: users.name })
        .from(generations)
        .innerJoin(users, eq(users.id, generations.userId))
        .where(and(...conditions))
        .orderBy(desc(generations.createdAt), desc(generations.id))
        .limit(limit);
    },
    async findInProject(projectId, generationId, tx) {
      if (!isGenerationId(generationId)) return null;
      const [row] = await on(tx)
        .select(generationColumns)
        .from(generations)
        .where(and(eq(generations.projectId, projectId), eq(generations.id, generationId)));
      return row ?? null;
    },
    async lineageOf(userId, generationId, tx) {
      if (!isGenerationId(generationId)) return null;
      const member = sql`EXISTS (SELECT 1 FROM projects p WHERE p.id = ${generations.projectId} AND ${roleOf(userId, 'p')} IS NOT NULL)`;
      const [row] = await on(tx)
        .select(generationColumns)
        .from(generations)
        .where(and(eq(generations.id, generationId), sql`(${generations.userId} = ${userId} OR ${member})`));
      return row ?? null;
    },
  };
}
