// The two template lists (docs/api.md "Templates"), each rendered once and shared by every request until a
// template changes:
// - the original system's list (`GET /api/upload/templates`): whole canvases, the newest templates that fit in
//   TEMPLATES_LIST_MAX_BYTES (newest first; one that does not fit in what is left is skipped, so a template
//   larger than the whole budget is never in it, and one large template does not hide the smaller ones behind it);
// - our web client's listing (`GET /api/templates`): no canvases, a few hundred bytes a template.
// Each request asks the database for a fingerprint of the newest templates (ids, authors' names and pictures:
// one indexed read of at most TEMPLATES_LIST_MAX small rows, no canvas), so a publish, delete or rename on any
// instance shows at the next request; a new fingerprint renders once (one rendering at a time, every request
// waiting for it shares it). The caller's `mine` values are spliced into the shared bytes (views of one buffer,
// nothing copied), so a signed-in caller costs no rendering either.
import { createHash } from 'node:crypto';
import type { ListedTemplate, TemplateCanvasText, TemplateContentStats, TemplatesRepository, TemplateWithCanvas } from '../db/repositories/index.js';

/** A rendered list as one caller gets it. */
export interface ListingView {
  /** A strong ETag (quoted): the same bytes have the same tag. */
  etag: string;
  /** The body in order: views of the shared rendering, with the caller's `mine` values between them. */
  chunks: Buffer[];
  length: number;
  /** Whether this body is the caller's own (some listed templates are theirs), not what everyone gets. */
  personal: boolean;
}

/** A JSON array rendered once: every `mine` is `false`; where each is, and whose template it is. */
export interface SplicedJson {
  body: Buffer;
  /** The ETag of `body` without its quotes. */
  tag: string;
  items: Array<{ authorId: string; mineAt: number }>;
}

export interface TemplateListing {
  /** The original system's list, for `viewerId` (undefined: no session). */
  original(viewerId: string | undefined): Promise<ListingView>;
  /** Our web client's listing, for `viewerId`. */
  summaries(viewerId: string | undefined): Promise<ListingView>;
}

/**
 * How a template becomes JSON text (src/http/presenters.ts, given by the composition root: the API's shapes live in
 * http/). A listed template comes in two parts around its `mine` value (`head + 'true'|'false' + tail`).
 */
export interface TemplateRendering {
  /** One template of the original system's list, with its canvas. */
  parts(row: ListedTemplate, canvas: Omit<TemplateCanvasText, 'id'>): { head: string; tail: string };
  /** One template of our web client's listing. */
  summaryParts(row: ListedTemplate, stats: Omit<TemplateContentStats, 'id' | 'bytes'>): { head: string; tail: string };
  /** One template with its canvas (`GET /api/templates/:id`). */
  canvasJson(row: TemplateWithCanvas): string;
}

export interface TemplateListingDeps {
  templates: Pick<TemplatesRepository, 'fingerprint' | 'snapshot' | 'listNewest' | 'contentStats' | 'canvases'>;
  render: Pick<TemplateRendering, 'parts' | 'summaryParts'>;
  /** TEMPLATES_LIST_MAX. */
  maxListed: number;
  /** TEMPLATES_LIST_MAX_BYTES: the original list's whole body at most. */
  maxBytes: number;
}

const FALSE = Buffer.from('false');
const TRUE = Buffer.from('true');

/** Items as one JSON array, each `head + false + tail`, remembering where each `false` is. */
export function spliceJson(items: Array<{ head: string; tail: string; authorId: string }>, tag: string): SplicedJson {
  const parts: Buffer[] = [Buffer.from('[')];
  const placed: SplicedJson['items'] = [];
  let offset = 1;
  for (const [i, item] of items.entries()) {
    const head = Buffer.from(i === 0 ? item.head : `,${item.head}`);
    const tail = Buffer.from(item.tail);
    placed.push({ authorId: item.authorId, mineAt: offset + head.length });
    parts.push(head, FALSE, tail);
    offset += head.length + FALSE.length + tail.length;
  }
  parts.push(Buffer.from(']'));
  return { body: Buffer.concat(parts), tag, items: placed };
}

/** The list as `viewerId` gets it: `true` spliced in where the template is theirs. */
export function viewFor(list: SplicedJson, viewerId: string | undefined): ListingView {
  const mine = viewerId ? list.items.flatMap((item, i) => (item.authorId === viewerId ? [i] : [])) : [];
  if (mine.length === 0) return { etag: `"${list.tag}"`, chunks: [list.body], length: list.body.length, personal: false };
  const chunks: Buffer[] = [];
  let from = 0;
  for (const i of mine) {
    const at = list.items[i].mineAt;
    chunks.push(list.body.subarray(from, at), TRUE);
    from = at + FALSE.length;
  }
  chunks.push(list.body.subarray(from));
  const which = createHash('sha256').update(mine.join(',')).digest('base64url').slice(0, 16);
  return { etag: `"${list.tag}.m${which}"`, chunks, length: list.body.length - mine.length * (FALSE.length - TRUE.length), personal: true };
}

/**
 * The items to take, newest first: each one that still fits in what is left of `budget` bytes (a JSON array's
 * brackets and commas counted); one that does not fit is skipped and the next ones are tried.
 */
export function withinBudget<T>(items: T[], bytes: (item: T) => number, budget: number): T[] {
  const taken: T[] = [];
  let used = 2; // [ and ]
  for (const item of items) {
    const cost = bytes(item) + (taken.length > 0 ? 1 : 0);
    if (used + cost > budget) continue;
    taken.push(item);
    used += cost;
  }
  return taken;
}

interface Rendering {
  fingerprint: string;
  original: SplicedJson;
  summaries: SplicedJson;
}

export function createTemplateListing({ templates, render: present, maxListed, maxBytes }: TemplateListingDeps): TemplateListing {
  /** Sizes, counts and previews by template id: a template never changes, so each is read once (kept for the listed ones). */
  const stats = new Map<string, TemplateContentStats>();
  let latest: Rendering | undefined;
  let rendering: { fingerprint: string; done: Promise<Rendering> } | undefined;
  const settings = `${maxListed}.${maxBytes}`;

  const render = () =>
    templates.snapshot(async (tx) => {
      const fingerprint = await templates.fingerprint(maxListed, tx);
      const rows = await templates.listNewest(maxListed, tx);
      const unknown = rows.filter((row) => !stats.has(row.id)).map((row) => row.id);
      for (const s of await templates.contentStats(unknown, tx)) stats.set(s.id, s);
      const listed = rows.filter((row) => stats.has(row.id)); // one deleted in between is gone from both
      for (const id of stats.keys()) if (!listed.some((row) => row.id === id)) stats.delete(id);

      // Sized without reading a canvas: the item's text with empty canvas texts, plus the stored texts' bytes.
      const empty = { nodes: '', edges: '', viewport: '' };
      const sizeOf = (row: ListedTemplate) => Buffer.byteLength(present.parts(row, empty).head) + FALSE.length + 1 + stats.get(row.id)!.bytes;
      const chosen = withinBudget(listed, sizeOf, maxBytes);
      const texts = new Map((await templates.canvases(chosen.map((row) => row.id), tx)).map((c) => [c.id, c]));
      const original = spliceJson(
        chosen.filter((row) => texts.has(row.id)).map((row) => ({ ...present.parts(row, texts.get(row.id)!), authorId: row.userId })),
        `o.${settings}.${fingerprint}`,
      );
      const summaries = spliceJson(
        listed.map((row) => ({ ...present.summaryParts(row, stats.get(row.id)!), authorId: row.userId })),
        `s.${settings}.${fingerprint}`,
      );
      return { fingerprint, original, summaries };
    });

  /** The rendering of the templates as they are now: the last one if still current, else a new one (one at a time). */
  async function current(): Promise<Rendering> {
    for (;;) {
      const fingerprint = await templates.fingerprint(maxListed);
      if (latest?.fingerprint === fingerprint) return latest;
      if (rendering && rendering.fingerprint !== fingerprint) {
        // An older state is being rendered: wait for it, then look again (never two renderings at once).
        await rendering.done.catch(() => undefined);
        continue;
      }
      if (!rendering) {
        const done = render().then((r) => (latest = r));
        const entry = { fingerprint, done };
        rendering = entry;
        void done.catch(() => undefined).finally(() => {
          if (rendering === entry) rendering = undefined;
        });
      }
      return rendering.done;
    }
  }

  return {
    async original(viewerId) {
      return viewFor((await current()).original, viewerId);
    },
    async summaries(viewerId) {
      return viewFor((await current()).summaries, viewerId);
    },
  };
}
