// Templates: canvases published to everyone under a name (docs/api.md "Templates"). The author's name and
// picture are read from `users` at listing time, so a renamed user shows their current name. Nodes, edges and
// viewport are written as the validated JSON text and read back as text, ready to send.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db, Executor, Tx } from '../index.js';
import { templates, users } from '../schema.js';

/** A template to store: `nodes`, `edges` and `viewport` are JSON texts (stored as sent). */
export interface TemplateWrite {
  userId: string;
  name: string;
  nodes: string;
  edges: string;
  viewport: string;
}

/** A listed template with its author's current name and picture; `nodes`, `edges`, `viewport` as JSON text. */
export interface ListedTemplate {
  id: string;
  /** The author (never sent: the API answers whether the caller is the author instead). */
  userId: string;
  name: string;
  createdAt: Date;
  authorName: string;
  authorImage: string;
  nodes: string;
  edges: string;
  viewport: string;
}

export interface TemplatesRepository {
  /** The new template's id; null when the author does not exist (anymore). */
  insert(template: TemplateWrite, tx?: Tx): Promise<{ id: string } | null>;
  /** The newest `limit` templates of everyone, newest first (creation time, then id). */
  listNewest(limit: number, tx?: Tx): Promise<ListedTemplate[]>;
  /** The template's author; null when there is no such template. */
  findAuthor(templateId: string, tx?: Tx): Promise<{ userId: string } | null>;
  /** Deletes the template if `userId` is its author; false otherwise (someone else's, or none). */
  deleteOwned(userId: string, templateId: string, tx?: Tx): Promise<boolean>;
}

/** PostgreSQL's foreign_key_violation (drizzle wraps the driver's error in `cause`). */
const isForeignKeyViolation = (err: unknown): boolean => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23503' || e.cause?.code === '23503';
};

export function createTemplatesRepository(db: Db): TemplatesRepository {
  const on = (tx?: Tx): Executor => tx ?? db;
  return {
    async insert(template, tx) {
      try {
        const [row] = await on(tx)
          .insert(templates)
          .values({
            userId: template.userId,
            name: template.name,
            nodes: sql`${template.nodes}::json`,
            edges: sql`${template.edges}::json`,
            viewport: sql`${template.viewport}::json`,
          })
          .returning({ id: templates.id });
        return row;
      } catch (err) {
        if (isForeignKeyViolation(err)) return null;
        throw err;
      }
    },
    listNewest(limit, tx) {
      return on(tx)
        .select({
          id: templates.id,
          userId: templates.userId,
          name: templates.name,
          createdAt: templates.createdAt,
          authorName: users.name,
          authorImage: users.image,
          nodes: sql<string>`${templates.nodes}::text`,
          edges: sql<string>`${templates.edges}::text`,
          viewport: sql<string>`${templates.viewport}::text`,
        })
        .from(templates)
        .innerJoin(users, eq(users.id, templates.userId))
        .orderBy(desc(templates.createdAt), desc(templates.id))
        .limit(limit);
    },
    async findAuthor(templateId, tx) {
      const [row] = await on(tx).select({ userId: templates.userId }).from(templates).where(eq(templates.id, templateId));
      return row ?? null;
    },
    async deleteOwned(userId, templateId, tx) {
      const deleted = await on(tx)
        .delete(templates)
        .where(and(eq(templates.id, templateId), eq(templates.userId, userId)))
        .returning({ id: templates.id });
      return deleted.length > 0;
    },
  };
}
