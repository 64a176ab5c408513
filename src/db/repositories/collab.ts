// Live documents in PostgreSQL (DESIGN.md §9, src/collab/): a project's document is its snapshot
// (collab_snapshots) plus every collab_updates row not yet merged into it. Updates are appended in batches (one
// statement for many projects); each appended change — an update, or a REST save that changed nothing — adds one
// to the project's canvas `version` in the same statement, creating the canvases row on the first change.
// Compaction is a pure function of the database's content, serialised per project by an advisory lock, so any
// instance may run it at any time: it merges the rows it read and deletes exactly those. The merge itself is the
// caller's (`CompactOptions.merge`: the live documents run it in their worker threads, src/collab/document-workers.ts).
import { DrizzleQueryError, sql } from 'drizzle-orm';
import type { Db } from '../index.js';

/** One change to append: a Yjs update, or null for a change that is only a version step (a REST save of equal content). */
export interface CollabAppend {
  projectId: string;
  update: Uint8Array | null;
}

/** What a document is made of in the database. */
export interface StoredDocument {
  /** The merged state, or null before the first compaction. */
  snapshot: Uint8Array | null;
  /** Updates not yet merged, in the order they were stored. */
  updates: Uint8Array[];
  /** A canvas saved before live documents and not yet moved into its document (migration 0011): its JSON. */
  legacy: { nodes: unknown[]; edges: unknown[] } | null;
  /** The canvas version these contents are at (0 without a canvas row). */
  version: number;
}

/**
 * A document's stored parts (its snapshot, then its updates in the order stored) merged into one state that holds
 * them all: a fresh, garbage-collected Yjs document's (Y.mergeUpdates would keep deleted content).
 */
export type MergeStored = (stored: { snapshot: Uint8Array | null; updates: readonly Uint8Array[] }) => Promise<Uint8Array>;

export interface CompactOptions {
  /** Makes the new snapshot of what was read; when it fails, nothing changes. */
  merge: MergeStored;
  /** A restore point is taken when the newest one is older than this. */
  restorePointMs: number;
  /** Who last changed the document, when known: the restore point's author. */
  author?: string | null;
}

export interface CollabRepository {
  /** Stores the changes (in one statement); the version of each project after them. */
  append(changes: readonly CollabAppend[]): Promise<Map<string, number>>;
  load(projectId: string): Promise<StoredDocument>;
  /**
   * Moves a legacy canvas into its document: stores `state` as the snapshot and clears the canvas's JSON, only if
   * nobody did it first. False when someone did (load again).
   */
  migrateLegacy(projectId: string, state: Uint8Array): Promise<boolean>;
  /**
   * Merges the project's updates into its snapshot (`merge`) and deletes them; takes a restore point (kind `auto`) of
   * the result when the newest one is older than `restorePointMs`, by `author`. The number of rows merged.
   */
  compact(projectId: string, options: CompactOptions): Promise<number>;
}

/** The lock that serialises compactions of one project (any instance). */
const projectLock = (projectId: string) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${'collab:' + projectId}, 0))`;

const bytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const buffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The driver's own error: drizzle's wrapper would carry the parameters (documents) into log lines. */
async function unwrapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof DrizzleQueryError && err.cause ? err.cause : err;
  }
}

export function createCollabRepository(db: Db): CollabRepository {
  return {
    append: (changes) => unwrapped(async () => {
      const result = await db.execute<{ projectId: string; version: number }>(sql`
WITH batch AS (
  SELECT * FROM unnest(${sql.param(changes.map((c) => c.projectId))}::uuid[], ${sql.param(changes.map((c) => (c.update ? buffer(c.update) : null)))}::bytea[]) WITH ORDINALITY AS b(project_id, update, n)
), stored AS (
  INSERT INTO collab_updates (project_id, update) SELECT project_id, update FROM batch WHERE update IS NOT NULL ORDER BY n
), counts AS (
  SELECT project_id, count(*)::int AS changes FROM batch GROUP BY project_id
)
INSERT INTO canvases AS c (id, project_id, version) SELECT gen_random_uuid()::text, project_id, changes FROM counts
ON CONFLICT (project_id) DO UPDATE SET version = c.version + excluded.version, updated_at = now()
RETURNING c.project_id AS "projectId", c.version`);
      return new Map(result.rows.map((r) => [r.projectId, r.version]));
    }),

    async load(projectId) {
      const result = await db.execute<{ snapshot: Buffer | null; updates: Buffer[] | null; nodes: string | null; edges: string | null; version: number | null }>(sql`
SELECT (SELECT s.state FROM collab_snapshots s WHERE s.project_id = ${projectId}) AS snapshot,
  (SELECT array_agg(u.update ORDER BY u.id) FROM collab_updates u WHERE u.project_id = ${projectId}) AS updates,
  c.nodes::text AS nodes, c.edges::text AS edges, c.version
FROM (SELECT 1) one LEFT JOIN canvases c ON c.project_id = ${projectId}`);
      const [row] = result.rows;
      if (!row) throw new Error('live document: the load statement returned no row');
      return {
        snapshot: row.snapshot ? bytes(row.snapshot) : null,
        updates: (row.updates ?? []).map(bytes),
        legacy: row.nodes !== null && row.edges !== null ? { nodes: JSON.parse(row.nodes) as unknown[], edges: JSON.parse(row.edges) as unknown[] } : null,
        version: row.version ?? 0,
      };
    },

    async migrateLegacy(projectId, state) {
      const result = await db.execute(sql`
WITH moved AS (UPDATE canvases SET nodes = NULL, edges = NULL WHERE project_id = ${projectId} AND nodes IS NOT NULL RETURNING project_id)
INSERT INTO collab_snapshots (project_id, state) SELECT project_id, ${buffer(state)} FROM moved
ON CONFLICT (project_id) DO UPDATE SET state = excluded.state, updated_at = now()
RETURNING project_id`);
      return result.rows.length === 1;
    },

    async compact(projectId, { merge, restorePointMs, author = null }) {
      return db.transaction(async (tx) => {
        await tx.execute(projectLock(projectId));
        const snapshot = await tx.execute<{ state: Buffer }>(sql`SELECT state FROM collab_snapshots WHERE project_id = ${projectId}`);
        const rows = await tx.execute<{ id: string; update: Buffer }>(sql`SELECT id, update FROM collab_updates WHERE project_id = ${projectId} ORDER BY id`);
        if (rows.rows.length === 0) return 0;
        const first = snapshot.rows[0];
        const ids = rows.rows.map((r) => r.id);
        const state = buffer(await merge({ snapshot: first ? bytes(first.state) : null, updates: rows.rows.map((r) => bytes(r.update)) }));
        await tx.execute(sql`
INSERT INTO collab_snapshots (project_id, state) VALUES (${projectId}, ${state})
ON CONFLICT (project_id) DO UPDATE SET state = excluded.state, updated_at = now()`);
        await tx.execute(sql`DELETE FROM collab_updates WHERE id = ANY(${sql.param(ids)}::bigint[])`);
        await tx.execute(sql`
INSERT INTO collab_versions (project_id, kind, state, created_by)
SELECT ${projectId}, 'auto', ${state}, (SELECT id FROM users WHERE id = ${author})
WHERE NOT EXISTS (SELECT 1 FROM collab_versions v WHERE v.project_id = ${projectId} AND v.kind = 'auto'
  AND v.created_at > now() - make_interval(secs => ${restorePointMs / 1000}))`);
        return ids.length;
      });
    },
  };
}
