// Templates (docs/api.md "Templates"): a signed-in user publishes a canvas under a name (at most
// TEMPLATES_PER_USER_MAX of them), everyone can list the newest ones (./template-listing.ts) and read one's
// canvas, and only the author deletes one. The author is always the session's user — whatever a client
// sends about a user is not the service's concern — and only their current name and picture are shown. As in
// a canvas save, images sent inline as data: URLs are stored as files first (./canvas-images.ts) and the stored
// nodes and edges are held to CANVAS_MAX_BYTES.
import type { Transactions } from '../db/index.js';
import type { TemplatesRepository } from '../db/repositories/index.js';
import { canvasTooLarge, forbidden, invalidRequest, templateNotFound, unauthorized } from '../errors.js';
import { prepareInlineImages, type CanvasImages, type ImageNode } from './canvas-images.js';
import { isUuid } from '../ids.js';
import { createTemplateListing, type ListingView, type TemplateRendering } from './template-listing.js';
import { matchesEtag } from './thumbnails.js';

export interface TemplateViewport {
  x: number;
  y: number;
  zoom: number;
}

/** A validated template (nodes and edges follow the canvas rules). */
export interface TemplateInput {
  name: string;
  nodes: ImageNode[];
  edges: unknown[];
  viewport: TemplateViewport;
}

/** One template's canvas as sent: a strong ETag (a template never changes) and the JSON body. */
export interface TemplateCanvasView {
  etag: string;
  /** Null when the caller's copy (If-None-Match) is current. */
  body: Buffer | null;
}

export interface TemplatesService {
  /** The original system's list (`GET /api/upload/templates`) as `viewerId` gets it (undefined: no session). */
  list(viewerId: string | undefined): Promise<ListingView>;
  /** Our web client's listing (`GET /api/templates`), without canvases. */
  summaries(viewerId: string | undefined): Promise<ListingView>;
  /** One template's canvas (`GET /api/templates/:id`); 404 when there is none. */
  canvas(templateId: string, ifNoneMatch: string | undefined): Promise<TemplateCanvasView>;
  /** Publishes a template by `userId`: at most `maxPerUser` each (400 naming the cap). */
  create(userId: string, input: TemplateInput): Promise<{ id: string }>;
  /** Deletes the user's template: 404 when there is none, 403 when it is someone else's. */
  remove(userId: string, templateId: string): Promise<void>;
}

export interface TemplatesDeps {
  templates: Pick<
    TemplatesRepository,
    'insert' | 'lockUser' | 'countByUser' | 'fingerprint' | 'snapshot' | 'listNewest' | 'contentStats' | 'canvases' | 'findWithCanvas' | 'findAuthor' | 'deleteOwned'
  >;
  transactions: Transactions;
  images: Pick<CanvasImages, 'inline'>;
  /** TEMPLATES_LIST_MAX. */
  /** How templates become JSON text (src/http/presenters.ts). */
  render: TemplateRendering;
  maxListed: number;
  /** TEMPLATES_LIST_MAX_BYTES: the original system's list's whole body at most. */
  maxListBytes: number;
  /** TEMPLATES_PER_USER_MAX. */
  maxPerUser: number;
  /** CANVAS_MAX_BYTES: the stored nodes and edges (UTF-8 JSON, data: URLs replaced) at most. */
  maxBytes: number;
}

export function createTemplatesService({ templates, transactions, images, render, maxListed, maxListBytes, maxPerUser, maxBytes }: TemplatesDeps): TemplatesService {
  const listing = createTemplateListing({ templates, render, maxListed, maxBytes: maxListBytes });
  /** Canvases being read, by id: requests for the same template at once share one read. */
  const reading = new Map<string, Promise<Buffer | null>>();
  const read = (id: string): Promise<Buffer | null> => {
    let pending = reading.get(id);
    if (!pending) {
      pending = templates.findWithCanvas(id).then((row) => (row ? Buffer.from(render.canvasJson(row)) : null));
      reading.set(id, pending);
      void pending.catch(() => undefined).finally(() => reading.delete(id));
    }
    return pending;
  };

  return {
    list: (viewerId) => listing.original(viewerId),
    summaries: (viewerId) => listing.summaries(viewerId),
    async canvas(templateId, ifNoneMatch) {
      if (!isUuid(templateId)) throw templateNotFound();
      // A template never changes: its id names its content. A current copy costs one look-up that it still exists.
      const etag = `"${templateId}"`;
      if (matchesEtag(ifNoneMatch, etag)) {
        if (await templates.findAuthor(templateId)) return { etag, body: null };
        throw templateNotFound();
      }
      const body = await read(templateId);
      if (!body) throw templateNotFound();
      return { etag, body };
    },
    async create(userId, input) {
      const { nodes, store: storeImages } = await prepareInlineImages(images, input.nodes, userId);
      const nodesJson = JSON.stringify(nodes);
      const edgesJson = JSON.stringify(input.edges);
      if (Buffer.byteLength(nodesJson) + Buffer.byteLength(edgesJson) > maxBytes) throw canvasTooLarge();
      const write = {
        userId,
        name: input.name,
        nodes: nodesJson,
        edges: edgesJson,
        viewport: JSON.stringify({ x: input.viewport.x, y: input.viewport.y, zoom: input.viewport.zoom }),
      };
      const capReached = () => invalidRequest(`A user has at most ${maxPerUser} templates`);
      // Cheap check first, so a user at the cap stores no inline images; then for certain under the user's lock.
      if ((await templates.countByUser(userId)) >= maxPerUser) throw capReached();
      await storeImages?.();
      return transactions.transaction(async (tx) => {
        // One at a time per user, so two publishes at once cannot both take the last place. A session that
        // outlived its user publishes nothing: 401, not a foreign-key failure.
        if (!(await templates.lockUser(userId, tx))) throw unauthorized();
        if ((await templates.countByUser(userId, tx)) >= maxPerUser) throw capReached();
        const row = await templates.insert(write, tx);
        if (!row) throw unauthorized();
        return row;
      });
    },
    async remove(userId, templateId) {
      if (!isUuid(templateId)) throw templateNotFound();
      if (await templates.deleteOwned(userId, templateId)) return;
      // Templates are public, so whether one exists is no secret: someone else's is 403, a missing one 404.
      if (await templates.findAuthor(templateId)) throw forbidden();
      throw templateNotFound();
    },
  };
}
