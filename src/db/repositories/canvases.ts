// Canvases: one per project. Every statement checks the project's owner itself, so a save or a read is one
// round trip and another user's project looks like a missing one.
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
  /** The owner the project must have. */
  userId: string;
  nodes: string;
  edges: string;
}

export type CurrentCanvas = {
  /** null: the project has no canvas yet. */
  version: number | null;
  /** The canvas as JSON text `{ id, projectId, nodes, edges, version }`; null when none. */
  body: string | null;
  /** A generation of the user is running (an unexpired row in running_generations) on any instance. */
  generating: boolean;
};

/** The canvas id of a save that would create the row is already another project's canvas id. */
export class CanvasIdTakenError extends Error {
  constructor() {
    super('canvas id already taken');
    this.name = 'CanvasIdTakenError';
  }
}

export interface CanvasesRepository {
  /** The project's canvas and whether its user has a generation running; null when the user owns no such project. */
  current(userId: string, projectId: string, tx?: Tx): Promise<CurrentCanvas | null>;
  /** Creates the canvas (version 1) or replaces it (version + 1), last write wins; null when the user owns no such project. */
  upsert(canvas: CanvasWrite, tx?: Tx): Promise<SavedCanvas | null>;
  /** Replaces the canvas only if it is at `version`; null when it is not (or there is none, or no such project of the user). */
  updateIfVersion(canvas: Omit<CanvasWrite, 'id'> & { version: number }, tx?: Tx): Promise<SavedCanvas | null>;
  /** Creates the canvas (version 1) only if the project has none; null when it has one, or the user owns no such project. */
  insertFirst(canvas: CanvasWrite, tx?: Tx): Promise<SavedCanvas | null>;
}

/** What a save reads back: the body is built from the JSON text we sent, never sent back by the database. */
const SAVED = sql`RETURNING c.id, c.project_id AS "projectId", c.version`;

const BODY = sql`json_build_object('id', c.id, 'projectId', c.project_id, 'nodes', c.nodes, 'edges', c.edges, 'version', c.version)::text`;

const upsert = (w: CanvasWrite) => sql`
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT ${w.id}, p.id, ${w.nodes}::json, ${w.edges}::json, 1 FROM projects p WHERE p.id = ${w.projectId} AND p.user_id = ${w.userId}
ON CONFLICT (project_id) DO UPDATE
  SET nodes = excluded.nodes, edges = excluded.edges, version = c.version + 1, updated_at = now()
${SAVED}`;

const updateIfVersion = (w: Omit<CanvasWrite, 'id'> & { version: number }) => sql`
UPDATE canvases AS c SET nodes = ${w.nodes}::json, edges = ${w.edges}::json, version = c.version + 1, updated_at = now()
FROM projects p
WHERE c.project_id = ${w.projectId} AND p.id = c.project_id AND p.user_id = ${w.userId} AND c.version = ${w.version}
${SAVED}`;

const insertFirst = (w: CanvasWrite) => sql`
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT ${w.id}, p.id, ${w.nodes}::json, ${w.edges}::json, 1 FROM projects p WHERE p.id = ${w.projectId} AND p.user_id = ${w.userId}
ON CONFLICT (project_id) DO NOTHING
${SAVED}`;

/** The canvas, and whether a generation of its user is running on any instance, in one round trip. */
const current = (userId: string, projectId: string) => sql`
SELECT c.version, CASE WHEN c.id IS NULL THEN NULL ELSE ${BODY} END AS body,
  EXISTS (SELECT 1 FROM running_generations g WHERE g.user_id = ${userId} AND g.expires_at > now()) AS generating
FROM projects p LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = ${projectId} AND p.user_id = ${userId}`;

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
