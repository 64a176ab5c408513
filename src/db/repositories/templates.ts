// Templates: canvases published to everyone under a name (docs/api.md "Templates"). The author's name and
// picture are read from `users` at listing time, so a renamed user shows their current name. Nodes, edges and
// viewport are written as the validated JSON text and read back as text, ready to send. Listing reads no
// canvas: the list's metadata, then each template's size and preview (computed here, once per template), then
// only the canvases chosen to be sent.
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
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

/** A listed template without its canvas, with its author's current name and picture. */
export interface ListedTemplate {
  id: string;
  /** The author (never sent: the API answers whether the caller is the author instead). */
  userId: string;
  name: string;
  createdAt: Date;
  authorName: string;
  authorImage: string;
}

/** What a template's canvas holds, in brief (a template never changes, so this is computed once per template). */
export interface TemplateContentStats {
  id: string;
  /** UTF-8 bytes of the stored nodes, edges and viewport JSON texts together. */
  bytes: number;
  nodeCount: number;
  edgeCount: number;
  /** The first node image that is a web address (http(s) or a path on this service) of at most 2,048 characters. */
  previewUrl: string | null;
}

/** A template's canvas as the stored JSON texts. */
export interface TemplateCanvasText {
  id: string;
  nodes: string;
  edges: string;
  viewport: string;
}

/** One template with its canvas (GET /api/templates/:id). */
export interface TemplateWithCanvas extends TemplateCanvasText {
  name: string;
  userId: string;
}

export interface TemplatesRepository {
  /** The new template's id; null when the author does not exist (anymore). */
  insert(template: TemplateWrite, tx?: Tx): Promise<{ id: string } | null>;
  /** Locks the user's row until the transaction ends (counting and adding templates one at a time); false without the user. */
  lockUser(userId: string, tx: Tx): Promise<boolean>;
  countByUser(userId: string, tx?: Tx): Promise<number>;
  /**
   * A short text that changes whenever the newest `limit` templates change: one published or deleted, or an
   * author's name or picture. Reads no canvas (the index on creation time and the users' rows).
   */
  fingerprint(limit: number, tx?: Tx): Promise<string>;
  /** Runs `fn` in one read-only snapshot (repeatable read), so that what it reads belongs together. */
  snapshot<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The newest `limit` templates of everyone, newest first (creation time, then id), without their canvases. */
  listNewest(limit: number, tx?: Tx): Promise<ListedTemplate[]>;
  /** Sizes, counts and preview of the given templates (any order; missing ones are left out). */
  contentStats(ids: string[], tx?: Tx): Promise<TemplateContentStats[]>;
  /** The canvases of the given templates (any order; missing ones are left out). */
  canvases(ids: string[], tx?: Tx): Promise<TemplateCanvasText[]>;
  /** One template with its canvas; null when there is none. */
  findWithCanvas(templateId: string, tx?: Tx): Promise<TemplateWithCanvas | null>;
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

/** The first node image that is a web address (as the web client shows one), at most 2,048 characters. */
const previewUrl = sql<string | null>`(
  SELECT e.node -> 'data' ->> 'image'
  FROM json_array_elements(${templates.nodes}) WITH ORDINALITY AS e(node, i)
  WHERE json_typeof(e.node -> 'data' -> 'image') = 'string'
    AND length(e.node -> 'data' ->> 'image') <= 2048
    AND ((e.node -> 'data' ->> 'image') ~* '^https?://' OR (e.node -> 'data' ->> 'image') LIKE '/%')
  ORDER BY e.i
  LIMIT 1
)`;

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
    async lockUser(userId, tx) {
      const rows = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
      return rows.length > 0;
    },
    async countByUser(userId, tx) {
      const [row] = await on(tx).select({ n: count() }).from(templates).where(eq(templates.userId, userId));
      return row.n;
    },
    async fingerprint(limit, tx) {
      const newest = on(tx)
        .select({ id: templates.id, userId: templates.userId, createdAt: templates.createdAt })
        .from(templates)
        .orderBy(desc(templates.createdAt), desc(templates.id))
        .limit(limit)
        .as('newest');
      const [row] = await on(tx)
        .select({
          fingerprint: sql<string>`coalesce(md5(json_agg(json_build_array(${newest.id}, ${users.name}, ${users.image}) ORDER BY ${newest.createdAt} DESC, ${newest.id} DESC)::text), 'none')`,
        })
        .from(newest)
        .innerJoin(users, eq(users.id, newest.userId));
      return row.fingerprint;
    },
    snapshot(fn) {
      return db.transaction(fn, { isolationLevel: 'repeatable read', accessMode: 'read only' });
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
        })
        .from(templates)
        .innerJoin(users, eq(users.id, templates.userId))
        .orderBy(desc(templates.createdAt), desc(templates.id))
        .limit(limit);
    },
    async contentStats(ids, tx) {
      if (ids.length === 0) return [];
      return on(tx)
        .select({
          id: templates.id,
          bytes: sql<number>`(octet_length(${templates.nodes}::text) + octet_length(${templates.edges}::text) + octet_length(${templates.viewport}::text))::int`,
          nodeCount: sql<number>`json_array_length(${templates.nodes})`,
          edgeCount: sql<number>`json_array_length(${templates.edges})`,
          previewUrl,
        })
        .from(templates)
        .where(inArray(templates.id, ids));
    },
    async canvases(ids, tx) {
      if (ids.length === 0) return [];
      return on(tx)
        .select({
          id: templates.id,
          nodes: sql<string>`${templates.nodes}::text`,
          edges: sql<string>`${templates.edges}::text`,
          viewport: sql<string>`${templates.viewport}::text`,
        })
        .from(templates)
        .where(inArray(templates.id, ids));
    },
    async findWithCanvas(templateId, tx) {
      const [row] = await on(tx)
        .select({
          id: templates.id,
          name: templates.name,
          userId: templates.userId,
          nodes: sql<string>`${templates.nodes}::text`,
          edges: sql<string>`${templates.edges}::text`,
          viewport: sql<string>`${templates.viewport}::text`,
        })
        .from(templates)
        .where(eq(templates.id, templateId));
      return row ?? null;
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
