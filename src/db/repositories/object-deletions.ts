// The deletion sweep's data (src/services/object-sweep.ts): what a project held when it was deleted, the queue of
// objects waiting for their grace period, and the one question the sweep's soundness rests on — does an object's
// name appear anywhere in the database?
//
// That question is answered by searching, not by a table of references kept on every write: every column of
// every table of ours that can hold text (text, varchar, json, jsonb, arrays, and the Yjs documents' bytea) is
// searched for the name. A table or column added later is searched without anyone remembering to. The names of
// stored objects are long and unique (`<ms>-<12 hex>-<name>` or `content-<64 hex>.<ext>`, [A-Za-z0-9._-] only),
// so a match is the object's. It is sound for the Yjs documents because the canvas keeps a node's values as whole
// JSON values (src/collab/canvas-doc.ts), which Yjs's v1 encoding writes as contiguous UTF-8, and JSON never
// escapes those characters. A false match only keeps an object. Cost: one scan of these columns per pass
// (OBJECT_SWEEP_BATCH names tested together with one regular expression per column).
import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../index.js';

export interface ProjectHoldings {
  /** The live document's compacted state and its updates since (Yjs v1 updates). */
  documentStates: Buffer[];
  /** History: each restore point's and named version's full state. */
  versionStates: Buffer[];
  /** Text that may hold URLs: the pre-live canvas JSON, its generations' inputs and outputs, its jobs' inputs and outputs. */
  texts: string[];
}

export interface ObjectDeletionsRepository {
  /** What project `projectId` holds that may name objects (read before it is deleted). */
  holdings(projectId: string): Promise<ProjectHoldings>;
  /** Queues names to be looked at from `dueAt` on; a name queued already keeps the later of the two times. */
  queue(names: string[], dueAt: Date, projectId: string): Promise<void>;
  /**
   * Runs `fn` holding the sweep's lock (one pass at a time over all instances) with at most `limit` due names,
   * oldest first; undefined, without running it, when another pass holds the lock.
   */
  withDue<T>(limit: number, fn: (names: string[], tx: Tx) => Promise<T>): Promise<T | undefined>;
  /** Which of `names` appear anywhere in the database (outside this queue). */
  referenced(names: string[], tx?: Tx): Promise<Set<string>>;
  /** Takes names off the queue. */
  remove(names: string[], tx?: Tx): Promise<void>;
}

const SWEEP_LOCK = 'object-sweep';
const SEARCHED_TYPES = ['text', 'character varying', 'json', 'jsonb', 'bytea', 'ARRAY'];

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
const escapeRegex = (name: string) => name.replace(/[.\\^$|?*+()[\]{}-]/g, '\\$&');

export function createObjectDeletionsRepository(db: Db): ObjectDeletionsRepository {
  const run = (tx?: Tx) => tx ?? db;
  return {
    async holdings(projectId) {
      const snapshot = await db.execute<{ state: Buffer }>(sql`SELECT state FROM collab_snapshots WHERE project_id = ${projectId}`);
      const updates = await db.execute<{ update: Buffer }>(sql`SELECT "update" FROM collab_updates WHERE project_id = ${projectId} ORDER BY id`);
      const versions = await db.execute<{ state: Buffer }>(sql`SELECT state FROM collab_versions WHERE project_id = ${projectId}`);
      const texts = await db.execute<{ text: string | null }>(sql`
        SELECT concat_ws(' ', nodes::text, edges::text) AS text FROM canvases WHERE project_id = ${projectId}
        UNION ALL SELECT concat_ws(' ', output_image_url, input_images::text, inputs::text) FROM generations WHERE project_id = ${projectId}
        UNION ALL SELECT concat_ws(' ', output_url, images::text) FROM generation_jobs WHERE project_id = ${projectId}`);
      return {
        documentStates: [...snapshot.rows.map((r) => r.state), ...updates.rows.map((r) => r.update)],
        versionStates: versions.rows.map((r) => r.state),
        texts: texts.rows.map((r) => r.text ?? ''),
      };
    },

    async queue(names, dueAt, projectId) {
      if (names.length === 0) return;
      await db.execute(sql`
        INSERT INTO object_deletions (name, due_at, project_id)
        SELECT name, ${dueAt.toISOString()}::timestamptz, ${projectId}::uuid FROM json_array_elements_text(${JSON.stringify(names)}::json) AS name
        ON CONFLICT (name) DO UPDATE SET due_at = GREATEST(object_deletions.due_at, excluded.due_at), project_id = excluded.project_id`);
    },

    async withDue(limit, fn) {
      return db.transaction(async (tx) => {
        const locked = await tx.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${SWEEP_LOCK}, 0)) AS locked`);
        if (!locked.rows[0]?.locked) return undefined;
        const due = await tx.execute<{ name: string }>(sql`SELECT name FROM object_deletions WHERE due_at <= now() ORDER BY due_at, name LIMIT ${limit}`);
        return fn(due.rows.map((r) => r.name), tx);
      });
    },

    async referenced(names, tx) {
      const found = new Set<string>();
      if (names.length === 0) return found;
      const columns = await run(tx).execute<{ table_name: string; column_name: string; data_type: string }>(sql`
        SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
        JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = current_schema() AND c.table_name NOT IN ('object_deletions', '__drizzle_migrations')
          AND c.data_type IN (${sql.join(SEARCHED_TYPES.map((type) => sql`${type}`), sql`, `)})
        ORDER BY c.table_name, c.column_name`);
      const pattern = `(${names.map(escapeRegex).join('|')})`;
      for (const { table_name, column_name, data_type } of columns.rows) {
        const column = sql.raw(`${quoteIdent(table_name)}.${quoteIdent(column_name)}`);
        // bytea as text: printable ASCII stays as it is (a name is printable ASCII), the rest becomes \ooo.
        const asText = data_type === 'bytea' ? sql`encode(${column}, 'escape')` : sql`${column}::text`;
        const rows = await run(tx).execute<{ name: string }>(sql`
          SELECT DISTINCT m[1] AS name FROM ${sql.raw(quoteIdent(table_name))}, regexp_matches(${asText}, ${pattern}, 'g') AS m`);
        for (const row of rows.rows) found.add(row.name);
        if (found.size === names.length) break;
      }
      return found;
    },

    async remove(names, tx) {
      if (names.length === 0) return;
      await run(tx).execute(sql`DELETE FROM object_deletions WHERE name IN (SELECT json_array_elements_text(${JSON.stringify(names)}::json))`);
    },
  };
}
