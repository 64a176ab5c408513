// Canvases: one row per project, holding the canvas id and its version (the content lives in the project's live
// document: ./collab.ts, src/collab/). Every statement reads what the caller holds on the project itself (a role, or
// the read-only link: ./project-access.ts; the owner's case is decided without reading project_members), so a
// project the caller holds nothing on looks like a missing one. What each may do is src/auth/project-access.ts's rule.
import { DrizzleQueryError, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { DEFAULT_HEARTBEAT_LAPSE_MS, liveJob } from './generation-jobs.js';
import { accessRoleOf, type AccessRole, type Actor } from './project-access.js';

export type CurrentCanvas = {
  /** null: the project has no canvas row yet. */
  id: string | null;
  /** null: no canvas row; 0: a row made for a first save that is still being stored. */
  version: number | null;
  /**
   * A job is running (with a live heartbeat) on any instance, of the user, the project's owner or one of its
   * editors.
   */
  generating: boolean;
  /** What the caller holds on the project. */
  role: AccessRole;
};

/** The canvas id of a save that would create the row is already another project's canvas id. */
export class CanvasIdTakenError extends Error {
  constructor() {
    super('canvas id already taken');
    this.name = 'CanvasIdTakenError';
  }
}

export interface CanvasesRepository {
  /** The project's canvas row, whether a generation is running, and what the caller holds; null when they hold nothing on such a project. */
  current(actor: Actor, projectId: string, tx?: Tx): Promise<CurrentCanvas | null>;
  /**
   * Makes the project's canvas row (version 0, content to come) with this id if it has none and the user still holds
   * one of `writers` (the roles that may edit); throws CanvasIdTakenError when the id is another project's canvas id.
   */
  createEmpty(canvas: { id: string; projectId: string; userId: string; writers: readonly AccessRole[] }, tx?: Tx): Promise<void>;
}

/**
 * The canvas row, what the caller holds, and whether a job of the caller, the owner or an editor is running on any
 * instance (a live heartbeat: `lapseMs`), in one round trip. (Member emails and user emails are both lower-case.)
 */
const current = (actor: Actor, projectId: string, lapseMs: number) => sql`
SELECT c.id, c.version, r.role,
  EXISTS (
    SELECT 1 FROM generation_jobs WHERE ${liveJob(lapseMs)} AND (${'userId' in actor ? sql`generation_jobs.user_id = ${actor.userId} OR ` : sql``}generation_jobs.user_id = p.user_id
      OR generation_jobs.user_id IN (SELECT u.id FROM project_members m JOIN users u ON u.email = m.email WHERE m.project_id = p.id AND m.role = 'editor'))
  ) AS generating
FROM projects p CROSS JOIN LATERAL (SELECT ${accessRoleOf(actor)} AS role) r LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = ${projectId} AND r.role IS NOT NULL`;

const createEmpty = (c: { id: string; projectId: string; userId: string; writers: readonly AccessRole[] }) => sql`
INSERT INTO canvases AS c (id, project_id, version)
SELECT ${c.id}, p.id, 0 FROM projects p WHERE p.id = ${c.projectId} AND ${accessRoleOf({ userId: c.userId })} = ANY(${sql.param([...c.writers])}::text[])
ON CONFLICT (project_id) DO NOTHING`;

const isPkViolation = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'canvases_pkey';

/** `heartbeatLapseMs`: a running job whose heartbeat is older is a dead instance's (JOBS_HEARTBEAT_LAPSE_MS). */
export function createCanvasesRepository(db: Db, heartbeatLapseMs = DEFAULT_HEARTBEAT_LAPSE_MS): CanvasesRepository {
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
    async current(actor, projectId, tx) {
      return (await rows<CurrentCanvas>(current(actor, projectId, heartbeatLapseMs), tx))[0] ?? null;
    },
    async createEmpty(canvas, tx) {
      await rows(createEmpty(canvas), tx);
    },
  };
}
