// Canvases: one row per project, holding the canvas id and its version (the content lives in the project's live
// document: ./collab.ts, src/collab/). Every statement checks the caller's role on the project itself (owner,
// editor or viewer: ./sharing.ts `roleOf`; the owner's case is decided without reading project_members), so a
// project without a role for the caller looks like a missing one.
import { DrizzleQueryError, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { roleOf, type ProjectRole } from './sharing.js';

export type CurrentCanvas = {
  /** null: the project has no canvas row yet. */
  id: string | null;
  /** null: no canvas row; 0: a row made for a first save that is still being stored. */
  version: number | null;
  /**
   * A generation is running (an unexpired row in running_generations) on any instance, of the user, the
   * project's owner or one of its editors.
   */
  generating: boolean;
  /** The user's role on the project. */
  role: ProjectRole;
};

/** The canvas id of a save that would create the row is already another project's canvas id. */
export class CanvasIdTakenError extends Error {
  constructor() {
    super('canvas id already taken');
    this.name = 'CanvasIdTakenError';
  }
}

export interface CanvasesRepository {
  /** The project's canvas row, whether a generation is running, and the user's role; null when the user has no role on such a project. */
  current(userId: string, projectId: string, tx?: Tx): Promise<CurrentCanvas | null>;
  /**
   * Makes the project's canvas row (version 0, content to come) with this id if it has none and the user may write
   * the project; throws CanvasIdTakenError when the id is another project's canvas id.
   */
  createEmpty(canvas: { id: string; projectId: string; userId: string }, tx?: Tx): Promise<void>;
}

/** The user may write the project `p`: its owner or an editor. */
const writes = (userId: string) => sql`${roleOf(userId)} IN ('owner', 'editor')`;

/**
 * The canvas row, the user's role, and whether a generation of the user, the owner or an editor is running on any
 * instance, in one round trip. (Member emails and user emails are both lower-case.)
 */
const current = (userId: string, projectId: string) => sql`
SELECT c.id, c.version, r.role,
  EXISTS (
    SELECT 1 FROM running_generations g WHERE g.expires_at > now() AND (g.user_id = ${userId} OR g.user_id = p.user_id
      OR g.user_id IN (SELECT u.id FROM project_members m JOIN users u ON u.email = m.email WHERE m.project_id = p.id AND m.role = 'editor'))
  ) AS generating
FROM projects p CROSS JOIN LATERAL (SELECT ${roleOf(userId)} AS role) r LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = ${projectId} AND r.role IS NOT NULL`;

const createEmpty = (c: { id: string; projectId: string; userId: string }) => sql`
INSERT INTO canvases AS c (id, project_id, version)
SELECT ${c.id}, p.id, 0 FROM projects p WHERE p.id = ${c.projectId} AND ${writes(c.userId)}
ON CONFLICT (project_id) DO NOTHING`;

const isPkViolation = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'canvases_pkey';

export function createCanvasesRepository(db: Db): CanvasesRepository {
  /** Runs one statement; errors are the driver's own (drizzle's wrapper would carry the parameters into log lines). */
  async function rows<T extends Record<string, unknown>>(statement: SQL, tx?: Tx): Promise<T[]> {
    const on: Executor = tx ?? db;
    try {
      return (await on.execute<T>(statement)).rows as T[];
    } catch (err) {
      const cause = err instanceof DrizzleQueryError && err.cause ? err.cause : err;
      if (isPkViolation(cause)) throw new CanvasIdTakenError();
      throw cause;
    }
  }

  return {
    async current(userId, projectId, tx) {
      return (await rows<CurrentCanvas>(current(userId, projectId), tx))[0] ?? null;
    },
    async createEmpty(canvas, tx) {
      await rows(createEmpty(canvas), tx);
    },
  };
}
