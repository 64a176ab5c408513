// One canvas per project. Saves are single statements that also check ownership, so the hot path is one
// round trip. With `version`, a save is conditional (DESIGN.md §6): a stale save gets 409 and the current
// version; without it, a plain upsert (last write wins), as in SPEC.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { conflict } from '../errors.js';
import { isUuid } from './ids.js';
import { projectNotFound } from './projects.js';

export interface CanvasInput {
  id?: string;
  projectId: string;
  nodes: unknown[];
  edges: unknown[];
  version?: number;
}

export interface CanvasService {
  /** The canvas as a JSON text ready to send (nodes/edges are stored validated), or null when none exists. */
  getJson(userId: string, projectId: string): Promise<string | null>;
  save(userId: string, input: CanvasInput): Promise<string>;
}

const COLUMNS = `json_build_object('id', c.id, 'projectId', c.project_id, 'nodes', c.nodes, 'edges', c.edges, 'version', c.version)::text AS body`;

const UPSERT = `
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT $1, p.id, $3::jsonb, $4::jsonb, 1 FROM projects p WHERE p.id = $2 AND p.user_id = $5
ON CONFLICT (project_id) DO UPDATE
  SET nodes = excluded.nodes, edges = excluded.edges, version = c.version + 1, updated_at = now()
RETURNING ${COLUMNS}`;

const UPDATE_IF_VERSION = `
UPDATE canvases AS c SET nodes = $3::jsonb, edges = $4::jsonb, version = c.version + 1, updated_at = now()
FROM projects p
WHERE c.project_id = $1 AND p.id = c.project_id AND p.user_id = $2 AND c.version = $5
RETURNING ${COLUMNS}`;

const INSERT_FIRST = `
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT $1, p.id, $3::jsonb, $4::jsonb, 1 FROM projects p WHERE p.id = $2 AND p.user_id = $5
ON CONFLICT (project_id) DO NOTHING
RETURNING ${COLUMNS}`;

const CURRENT = `
SELECT p.id AS project, c.version, CASE WHEN c.id IS NULL THEN NULL ELSE ${COLUMNS.replace(' AS body', '')} END AS body
FROM projects p LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = $1 AND p.user_id = $2`;

/** The statements, for the benchmark that compares the API with the same SQL sent straight to the database. */
export const CANVAS_SQL = { UPSERT, CURRENT } as const;

const isPkViolation = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'canvases_pkey';

/**
 * `isGenerating` is the client's flag, stored as sent; but a canvas read never shows a node generating when
 * no generation of that user is running (DESIGN.md §6): a closed tab must not leave a node spinning forever.
 */
function settleGenerating(json: string): string {
  if (!json.includes('"isGenerating": true')) return json;
  const canvas = JSON.parse(json) as { nodes: Array<{ data?: { isGenerating?: boolean } }> };
  for (const node of canvas.nodes) if (node.data?.isGenerating) node.data.isGenerating = false;
  return JSON.stringify(canvas);
}

export function createCanvasService({ pool, generating }: { pool: pg.Pool; generating: (userId: string) => boolean }): CanvasService {
  async function current(userId: string, projectId: string) {
    const { rows } = await pool.query<{ project: string; version: number | null; body: string | null }>(CURRENT, [projectId, userId]);
    if (rows.length === 0) throw projectNotFound();
    return rows[0];
  }

  async function write(sql: string, id: string, input: CanvasInput, userId: string, retried = false): Promise<string | null> {
    const params = [id, input.projectId, JSON.stringify(input.nodes), JSON.stringify(input.edges), userId];
    try {
      return (await pool.query<{ body: string }>(sql, params)).rows[0]?.body ?? null;
    } catch (err) {
      // The client's id is taken by another project's canvas: a canvas id is never shared, so take a new one.
      if (isPkViolation(err) && !retried) return write(sql, randomUUID(), input, userId, true);
      throw err;
    }
  }

  return {
    async getJson(userId, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      const body = (await current(userId, projectId)).body;
      return body && !generating(userId) ? settleGenerating(body) : body;
    },

    async save(userId, input) {
      if (!isUuid(input.projectId)) throw projectNotFound();
      const newId = input.id ?? randomUUID();
      if (input.version === undefined) {
        const body = await write(UPSERT, newId, input, userId);
        if (!body) throw projectNotFound();
        return body;
      }
      const updated = await pool.query<{ body: string }>(UPDATE_IF_VERSION, [
        input.projectId,
        userId,
        JSON.stringify(input.nodes),
        JSON.stringify(input.edges),
        input.version,
      ]);
      if (updated.rows[0]) return updated.rows[0].body;
      const now = await current(userId, input.projectId);
      if (now.version === null && input.version === 0) {
        const body = await write(INSERT_FIRST, newId, input, userId);
        if (body) return body;
        // Another save created it first.
        const raced = await current(userId, input.projectId);
        throw conflict('Canvas was changed elsewhere', { version: raced.version ?? 0 });
      }
      throw conflict('Canvas was changed elsewhere', { version: now.version ?? 0 });
    },
  };
}
