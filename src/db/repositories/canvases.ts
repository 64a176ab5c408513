// Canvases: one per project. Every statement checks the caller's role on the project itself (owner, editor or
// viewer: ./sharing.ts `roleOf`; the owner's case is decided without reading project_members), so a save or a
// read is one round trip and a project without a role for the caller looks like a missing one.
//
// These statements are written by hand because that is measurably faster on the hot path (a 79–83 KB canvas,
// 200 nodes / 300 edges, client and server sharing 2 cores):
// - the upsert sets `nodes = excluded.nodes`: drizzle's obvious `onConflictDoUpdate({ set: { nodes: value } })`
//   sends the payload twice, and was 1.3–1.8× slower (PostgreSQL 15: ~240 upserts/s serial, p50 4 ms);
// - a save reads back only id, project id and version: the body is built from the JSON text we sent, never sent
//   back by the database;
// - nodes/edges are `json` columns given the validated text as is (`$n::json`), and a read builds the body as
//   text in the database (`json_build_object(...)::text`): PostgreSQL CPU per save 3.8 → 2.4 ms (pglz) /
//   1.0 ms (lz4) against jsonb, in an 83 KB save micro-benchmark; reads skip jsonb printing.
// `npm run bench` compares the API with these same methods called straight on a pool.
import { DrizzleQueryError, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { roleOf, type ProjectRole } from './sharing.js';

/** What a save reads back. */
export type SavedCanvas = {
  id: string;
  projectId: string;
  version: number;
};

/** A canvas to write: `nodes` and `edges` are JSON texts (stored as sent). */
export interface CanvasWrite {
  /** The canvas id to use if the save creates the row (an existing row keeps its id). */
  id: string;
  projectId: string;
  /** The user saving: the project's owner or an editor of it. */
  userId: string;
  nodes: string;
  edges: string;
}

export type CurrentCanvas = {
  /** null: the project has no canvas yet. */
  version: number | null;
  /** The canvas as JSON text `{ id, projectId, nodes, edges, version }`; null when none. */
  body: string | null;
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
  /** The project's canvas, whether a generation is running, and the user's role; null when the user has no role on such a project. */
  current(userId: string, projectId: string, tx?: Tx): Promise<CurrentCanvas | null>;
  /** Creates the canvas (version 1) or replaces it (version + 1), last write wins; null when the user may not write such a project (not its owner or editor). */
  upsert(canvas: CanvasWrite, tx?: Tx): Promise<SavedCanvas | null>;
  /** Replaces the canvas only if it is at `version`; null when it is not (or there is none, or the user may not write such a project). */
  updateIfVersion(canvas: Omit<CanvasWrite, 'id'> & { version: number }, tx?: Tx): Promise<SavedCanvas | null>;
  /** Creates the canvas (version 1) only if the project has none; null when it has one, or the user may not write such a project. */
  insertFirst(canvas: CanvasWrite, tx?: Tx): Promise<SavedCanvas | null>;
}

/** What a save reads back: the body is built from the JSON text we sent, never sent back by the database. */
const SAVED = sql`RETURNING c.id, c.project_id AS "projectId", c.version`;

const BODY = sql`json_build_object('id', c.id, 'projectId', c.project_id, 'nodes', c.nodes, 'edges', c.edges, 'version', c.version)::text`;

/** The user may write the project `p`: its owner or an editor. */
const writes = (userId: string) => sql`${roleOf(userId)} IN ('owner', 'editor')`;

const upsert = (w: CanvasWrite) => sql`
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT ${w.id}, p.id, ${w.nodes}::json, ${w.edges}::json, 1 FROM projects p WHERE p.id = ${w.projectId} AND ${writes(w.userId)}
ON CONFLICT (project_id) DO UPDATE
  SET nodes = excluded.nodes, edges = excluded.edges, version = c.version + 1, updated_at = now()
${SAVED}`;

const updateIfVersion = (w: Omit<CanvasWrite, 'id'> & { version: number }) => sql`
UPDATE canvases AS c SET nodes = ${w.nodes}::json, edges = ${w.edges}::json, version = c.version + 1, updated_at = now()
FROM projects p
WHERE c.project_id = ${w.projectId} AND p.id = c.project_id AND ${writes(w.userId)} AND c.version = ${w.version}
${SAVED}`;

const insertFirst = (w: CanvasWrite) => sql`
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT ${w.id}, p.id, ${w.nodes}::json, ${w.edges}::json, 1 FROM projects p WHERE p.id = ${w.projectId} AND ${writes(w.userId)}
ON CONFLICT (project_id) DO NOTHING
${SAVED}`;

/**
 * The canvas, the user's role, and whether a generation of the user, the owner or an editor is running on any
 * instance, in one round trip. (Member emails and user emails are both lower-case.)
 */
const current = (userId: string, projectId: string) => sql`
SELECT c.version, CASE WHEN c.id IS NULL THEN NULL ELSE ${BODY} END AS body, r.role,
  EXISTS (
    SELECT 1 FROM running_generations g WHERE g.expires_at > now() AND (g.user_id = ${userId} OR g.user_id = p.user_id
      OR g.user_id IN (SELECT u.id FROM project_members m JOIN users u ON u.email = m.email WHERE m.project_id = p.id AND m.role = 'editor'))
  ) AS generating
FROM projects p CROSS JOIN LATERAL (SELECT ${roleOf(userId)} AS role) r LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = ${projectId} AND r.role IS NOT NULL`;

const isPkViolation = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'canvases_pkey';

export function createCanvasesRepository(db: Db): CanvasesRepository {
  /**
   * Runs one statement. Errors are the driver's own, as the service has always seen them (drizzle's wrapper
   * would carry the statement's parameters, a whole canvas, into any log line).
   */
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
  const saved = async (statement: SQL, tx?: Tx) => (await rows<SavedCanvas>(statement, tx))[0] ?? null;

  return {
    async current(userId, projectId, tx) {
      return (await rows<CurrentCanvas>(current(userId, projectId), tx))[0] ?? null;
    },
    upsert: (canvas, tx) => saved(upsert(canvas), tx),
    updateIfVersion: (canvas, tx) => saved(updateIfVersion(canvas), tx),
    insertFirst: (canvas, tx) => saved(insertFirst(canvas), tx),
  };
}
