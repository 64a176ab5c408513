// Templates (docs/api.md "Templates"): a signed-in user publishes a canvas under a name, everyone can list the
// newest ones, and only the author deletes one. The author is always the session's user — whatever a client
// sends about a user is not the service's concern — and only their current name and picture are shown. As in
// a canvas save, images sent inline as data: URLs are stored as files first (./canvas-images.ts) and the stored
// nodes and edges are held to CANVAS_MAX_BYTES.
import type { ListedTemplate, TemplatesRepository } from '../db/repositories/index.js';
import { canvasTooLarge, forbidden, templateNotFound, unauthorized } from '../errors.js';
import { prepareInlineImages, type CanvasImages, type ImageNode } from './canvas-images.js';
import { isUuid } from './ids.js';

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

export interface TemplatesService {
  /** The newest templates of everyone (at most the configured number), newest first. */
  list(): Promise<ListedTemplate[]>;
  /** Publishes a template by `userId`. */
  create(userId: string, input: TemplateInput): Promise<{ id: string }>;
  /** Deletes the user's template: 404 when there is none, 403 when it is someone else's. */
  remove(userId: string, templateId: string): Promise<void>;
}

export interface TemplatesDeps {
  templates: Pick<TemplatesRepository, 'insert' | 'listNewest' | 'findAuthor' | 'deleteOwned'>;
  images: Pick<CanvasImages, 'inline'>;
  /** TEMPLATES_LIST_MAX. */
  maxListed: number;
  /** CANVAS_MAX_BYTES: the stored nodes and edges (UTF-8 JSON, data: URLs replaced) at most. */
  maxBytes: number;
}

export function createTemplatesService({ templates, images, maxListed, maxBytes }: TemplatesDeps): TemplatesService {
  return {
    list() {
      return templates.listNewest(maxListed);
    },
    async create(userId, input) {
      const { nodes, store: storeImages } = await prepareInlineImages(images, input.nodes, userId);
      const nodesJson = JSON.stringify(nodes);
      const edgesJson = JSON.stringify(input.edges);
      if (Buffer.byteLength(nodesJson) + Buffer.byteLength(edgesJson) > maxBytes) throw canvasTooLarge();
      await storeImages?.();
      const row = await templates.insert({
        userId,
        name: input.name,
        nodes: nodesJson,
        edges: edgesJson,
        viewport: JSON.stringify({ x: input.viewport.x, y: input.viewport.y, zoom: input.viewport.zoom }),
      });
      // A session that outlived its user publishes nothing: 401, not a foreign-key failure.
      if (!row) throw unauthorized();
      return row;
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
