// History of live documents (docs/api.md "History"): a project's versions in collab_versions, each a full Yjs
// state of its document. Restore points (kind `auto`) are taken by compaction (./collab.ts) and before a restore;
// named versions when someone names the current state. Rows are listed without their state, which only a preview
// or a restore reads.
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { collabVersions } from '../schema.js';

export type VersionKind = 'auto' | 'named';

/** A version as listed: everything but its state. */
export interface VersionRow {
  id: string;
  kind: VersionKind;
  name: string | null;
  createdBy: string | null;
  createdAt: Date;
}

export interface VersionsRepository {
  /** The project's versions, newest first (ties by id), at most `limit`. */
  list(projectId: string, limit: number, tx?: Tx): Promise<VersionRow[]>;
  /** The version with its state, only if it is one of this project's; null otherwise. */
  find(projectId: string, versionId: string, tx?: Tx): Promise<(VersionRow & { state: Uint8Array }) | null>;
  /**
   * Stores a named version unless the project already has `max` of them (then null). Serialised per project (an
   * advisory lock), so concurrent requests never pass the cap together.
   */
  createNamed(version: { projectId: string; name: string; state: Uint8Array; createdBy: string }, max: number): Promise<VersionRow | null>;
  /** Stores a version of the project's document. */
  create(version: { projectId: string; kind: VersionKind; name: string | null; state: Uint8Array; createdBy: string | null }, tx?: Tx): Promise<VersionRow>;
}

const listed = {
  id: collabVersions.id,
  kind: collabVersions.kind,
  name: collabVersions.name,
  createdBy: collabVersions.createdBy,
  createdAt: collabVersions.createdAt,
};

export function createVersionsRepository(db: Db): VersionsRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    list(projectId, limit, tx) {
      return on(tx)
        .select(listed)
        .from(collabVersions)
        .where(eq(collabVersions.projectId, projectId))
        .orderBy(desc(collabVersions.createdAt), desc(collabVersions.id))
        .limit(limit);
    },
    async find(projectId, versionId, tx) {
      const [row] = await on(tx)
        .select({ ...listed, state: collabVersions.state })
        .from(collabVersions)
        .where(and(eq(collabVersions.id, versionId), eq(collabVersions.projectId, projectId)));
      return row ?? null;
    },
    createNamed(version, max) {
      return db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${'versions:' + version.projectId}, 0))`);
        const [{ named }] = await tx
          .select({ named: count() })
          .from(collabVersions)
          .where(and(eq(collabVersions.projectId, version.projectId), eq(collabVersions.kind, 'named')));
        if (named >= max) return null;
        const [row] = await tx.insert(collabVersions).values({ ...version, kind: 'named' }).returning(listed);
        return row;
      });
    },
    async create(version, tx) {
      const [row] = await on(tx).insert(collabVersions).values(version).returning(listed);
      return row;
    },
  };
}
