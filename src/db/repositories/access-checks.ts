// What keeps open connections authorised, read in batches (src/auth/access-sweep.ts): whether the API tokens in use
// still stand, and the roles of (user, project) pairs. One statement each for every connection an instance holds,
// so a sweep costs two queries however many sockets and streams are open.
import { sql } from 'drizzle-orm';
import type { Db } from '../index.js';
import { roleOf, type ProjectRole } from './project-access.js';

export interface AccessChecksRepository {
  /** The tokens among `ids` that still exist (not revoked, their user not deleted), with when they expire (null: never). */
  tokens(ids: readonly string[]): Promise<Array<{ id: string; expiresAt: Date | null }>>;
  /** The role of each pair that has one (as `roleOf` in ./project-access.ts); a pair without a role, or whose project is gone, is left out. */
  roles(pairs: ReadonlyArray<{ userId: string; projectId: string }>): Promise<Array<{ userId: string; projectId: string; role: ProjectRole }>>;
}

export function createAccessChecksRepository(db: Db): AccessChecksRepository {
  return {
    async tokens(ids) {
      if (ids.length === 0) return [];
      const result = await db.execute<{ id: string; expires_at: Date | string | null }>(
        sql`SELECT id, expires_at FROM api_tokens WHERE id = ANY(${sql.param([...ids])}::uuid[])`,
      );
      return result.rows.map((r) => ({ id: r.id, expiresAt: r.expires_at === null ? null : new Date(r.expires_at) }));
    },
    async roles(pairs) {
      if (pairs.length === 0) return [];
      const users = pairs.map((p) => p.userId);
      const projects = pairs.map((p) => p.projectId);
      const result = await db.execute<{ user_id: string; project_id: string; role: ProjectRole | null }>(sql`
SELECT x.user_id, x.project_id, ${roleOf(sql`x.user_id`, 'p')} AS role
FROM unnest(${sql.param(users)}::uuid[], ${sql.param(projects)}::uuid[]) AS x(user_id, project_id)
JOIN projects p ON p.id = x.project_id`);
      return result.rows.flatMap((r) => (r.role ? [{ userId: r.user_id, projectId: r.project_id, role: r.role }] : []));
    },
  };
}
