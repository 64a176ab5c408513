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

/** What a save reads back: the body is built from the JSON text we sent, never sent back by the database. */
const SAVED = 'RETURNING c.id, c.project_id AS "projectId", c.version';

const UPSERT = `
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT $1, p.id, $3::json, $4::json, 1 FROM projects p WHERE p.id = $2 AND p.user_id = $5
ON CONFLICT (project_id) DO UPDATE
  SET nodes = excluded.nodes, edges = excluded.edges, version = c.version + 1, updated_at = now()
${SAVED}`;

const UPDATE_IF_VERSION = `
UPDATE canvases AS c SET nodes = $3::json, edges = $4::json, version = c.version + 1, updated_at = now()
FROM projects p
WHERE c.project_id = $1 AND p.id = c.project_id AND p.user_id = $2 AND c.version = $5
${SAVED}`;

const INSERT_FIRST = `
INSERT INTO canvases AS c (id, project_id, nodes, edges, version)
SELECT $1, p.id, $3::json, $4::json, 1 FROM projects p WHERE p.id = $2 AND p.user_id = $5
ON CONFLICT (project_id) DO NOTHING
${SAVED}`;

/** The canvas, and whether a generation of its user is running on any instance (DESIGN.md §6), in one round trip. */
const CURRENT = `
SELECT p.id AS project, c.version, CASE WHEN c.id IS NULL THEN NULL ELSE ${COLUMNS.replace(' AS body', '')} END AS body,
  EXISTS (SELECT 1 FROM running_generations g WHERE g.user_id = $2 AND g.expires_at > now()) AS generating
FROM projects p LEFT JOIN canvases c ON c.project_id = p.id
WHERE p.id = $1 AND p.user_id = $2`;

/** The statements, for the benchmark that compares the API with the same SQL sent straight to the database. */
export const CANVAS_SQL = { UPSERT, CURRENT } as const;

const isPkViolation = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'canvases_pkey';

/**
 * `isGenerating` is the client's flag, stored as sent; but a canvas read never shows a node generating when
 * no generation of that user is running on any instance (`running_generations`, DESIGN.md §6): a closed tab
 * must not leave a node spinning forever.
 */
function settleGenerating(json: string): string {
  // Saved text is compact; a canvas last saved before migration 0005 carries jsonb's spacing.
  if (!/"isGenerating":\s*true/.test(json)) return json;
  const canvas = JSON.parse(json) as { nodes: Array<{ data?: { isGenerating?: boolean } }> };
  for (const node of canvas.nodes) if (node.data?.isGenerating) node.data.isGenerating = false;
  return JSON.stringify(canvas);
}

export function createCanvasService({ pool }: { pool: pg.Pool }): CanvasService {
  async function current(userId: string, projectId: string) {
    const { rows } = await pool.query<{ project: string; version: number | null; body: string | null; generating: boolean }>(CURRENT, [projectId, userId]);
    if (rows.length === 0) throw projectNotFound();
    return rows[0];
  }

  interface Saved {
    id: string;
    projectId: string;
    version: number;
  }
  /** The saved canvas as JSON text: the nodes/edges text is exactly what was stored. */
  const savedJson = (saved: Saved, nodes: string, edges: string) =>
    `{"id":${JSON.stringify(saved.id)},"projectId":${JSON.stringify(saved.projectId)},"nodes":${nodes},"edges":${edges},"version":${saved.version}}`;

  async function write(sql: string, id: string, input: CanvasInput, json: { nodes: string; edges: string }, userId: string, retried = false): Promise<string | null> {
    try {
      const saved = (await pool.query<Saved>(sql, [id, input.projectId, json.nodes, json.edges, userId])).rows[0];
      return saved ? savedJson(saved, json.nodes, json.edges) : null;
    } catch (err) {
      // The client's id is taken by another project's canvas: a canvas id is never shared, so take a new one.
      if (isPkViolation(err) && !retried) return write(sql, randomUUID(), input, json, userId, true);
      throw err;
    }
  }

  return {
    async getJson(userId, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      const { body, generating } = await current(userId, projectId);
      return body && !generating ? settleGenerating(body) : body;
    },

    async save(userId, input) {
      if (!isUuid(input.projectId)) throw projectNotFound();
      const newId = input.id ?? randomUUID();
      const json = { nodes: JSON.stringify(input.nodes), edges: JSON.stringify(input.edges) };
      if (input.version === undefined) {
        const body = await write(UPSERT, newId, input, json, userId);
        if (!body) throw projectNotFound();
        return body;
      }
      const updated = await pool.query<Saved>(UPDATE_IF_VERSION, [input.projectId, userId, json.nodes, json.edges, input.version]);
      if (updated.rows[0]) return savedJson(updated.rows[0], json.nodes, json.edges);
      const now = await current(userId, input.projectId);
      if (now.version === null && input.version === 0) {
        const body = await write(INSERT_FIRST, newId, input, json, userId);
        if (body) return body;
        // Another save created it first.
        const raced = await current(userId, input.projectId);
        throw conflict('Canvas was changed elsewhere', { version: raced.version ?? 0 });
      }
      throw conflict('Canvas was changed elsewhere', { version: now.version ?? 0 });
    },
  };
}
