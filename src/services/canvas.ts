// One canvas per project. Saves are single statements that also check the caller's role (owner and editors
// write, viewers read: docs/api.md "Sharing"), so the hot path is one round trip; a viewer's save is 403, found
// out only after the save statement wrote nothing. With `version`, a save is conditional (docs/api.md "Canvas
// versions"): a stale save gets 409 and the current version; without it, a plain upsert (last write wins).
// Images sent inline as data: URLs are stored as files first and replaced by their URLs (./canvas-images.ts);
// the stored canvas is then held to CANVAS_MAX_BYTES.
import { randomUUID } from 'node:crypto';
import { CanvasIdTakenError, type CanvasesRepository, type CanvasWrite, type SavedCanvas } from '../db/repositories/index.js';
import { canvasConflict, canvasTooLarge, forbidden, projectNotFound } from '../errors.js';
import { prepareInlineImages, type CanvasImages, type ImageNode } from './canvas-images.js';
import { isUuid } from './ids.js';

export interface CanvasInput {
  id?: string;
  projectId: string;
  nodes: ImageNode[];
  edges: unknown[];
  version?: number;
}

export interface CanvasService {
  /** The canvas as a JSON text ready to send (nodes/edges are stored validated), or null when none exists. */
  getJson(userId: string, projectId: string): Promise<string | null>;
  save(userId: string, input: CanvasInput): Promise<string>;
}

/**
 * `isGenerating` is the client's flag, stored as sent; but a canvas read never shows a node generating when
 * no generation of that user is running on any instance (`running_generations`): a closed tab
 * must not leave a node spinning forever.
 */
function settleGenerating(json: string): string {
  // Saved text is compact; a canvas last saved before migration 0005 carries jsonb's spacing.
  if (!/"isGenerating":\s*true/.test(json)) return json;
  const canvas = JSON.parse(json) as { nodes: Array<{ data?: { isGenerating?: boolean } }> };
  for (const node of canvas.nodes) if (node.data?.isGenerating) node.data.isGenerating = false;
  return JSON.stringify(canvas);
}

export interface CanvasDeps {
  canvases: Pick<CanvasesRepository, 'current' | 'upsert' | 'updateIfVersion' | 'insertFirst'>;
  images: Pick<CanvasImages, 'inline'>;
  /** CANVAS_MAX_BYTES: the stored nodes and edges (UTF-8 JSON, data: URLs replaced) at most. */
  maxBytes: number;
}

export function createCanvasService({ canvases, images, maxBytes }: CanvasDeps): CanvasService {
  /** Whether the stored text is over the limit (counted in UTF-8 bytes only when it could be). */
  const tooLarge = (nodes: string, edges: string) =>
    (nodes.length + edges.length) * 3 > maxBytes && Buffer.byteLength(nodes) + Buffer.byteLength(edges) > maxBytes;

  async function current(userId: string, projectId: string) {
    const found = await canvases.current(userId, projectId);
    if (!found) throw projectNotFound();
    return found;
  }

  /** The canvas as `current`, for a save: a viewer may read it but not write it (403). */
  async function writable(userId: string, projectId: string) {
    const found = await current(userId, projectId);
    if (found.role === 'viewer') throw forbidden();
    return found;
  }

  /** The saved canvas as JSON text: the nodes/edges text is exactly what was stored. */
  const savedJson = (saved: SavedCanvas, nodes: string, edges: string) =>
    `{"id":${JSON.stringify(saved.id)},"projectId":${JSON.stringify(saved.projectId)},"nodes":${nodes},"edges":${edges},"version":${saved.version}}`;

  type Create = (canvas: CanvasWrite) => Promise<SavedCanvas | null>;
  async function write(create: Create, canvas: CanvasWrite, retried = false): Promise<string | null> {
    try {
      const saved = await create(canvas);
      return saved ? savedJson(saved, canvas.nodes, canvas.edges) : null;
    } catch (err) {
      // The client's id is taken by another project's canvas: a canvas id is never shared, so take a new one.
      if (err instanceof CanvasIdTakenError && !retried) return write(create, { ...canvas, id: randomUUID() }, true);
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
      const { nodes, store: storeImages } = await prepareInlineImages(images, input.nodes, userId);
      const newId = input.id ?? randomUUID();
      const canvas: CanvasWrite = { id: newId, projectId: input.projectId, userId, nodes: JSON.stringify(nodes), edges: JSON.stringify(input.edges) };
      if (tooLarge(canvas.nodes, canvas.edges)) throw canvasTooLarge();
      if (storeImages) {
        // Files are written only for the project's owner or an editor (a foreign project stays a 404, a viewer's
        // save a 403, that store nothing), and not for a save already known to be stale.
        const now = await writable(userId, input.projectId);
        if (input.version !== undefined && (now.version ?? 0) !== input.version) throw canvasConflict(now.version ?? 0);
        await storeImages();
      }
      if (input.version === undefined) {
        const body = await write((c) => canvases.upsert(c), canvas);
        if (body) return body;
        await writable(userId, input.projectId); // 404 without a role, 403 for a viewer
        throw projectNotFound(); // the project went away meanwhile
      }
      const updated = await canvases.updateIfVersion({ ...canvas, version: input.version });
      if (updated) return savedJson(updated, canvas.nodes, canvas.edges);
      const now = await writable(userId, input.projectId);
      if (now.version === null && input.version === 0) {
        const body = await write((c) => canvases.insertFirst(c), canvas);
        if (body) return body;
        // Another save created it first.
        const raced = await writable(userId, input.projectId);
        throw canvasConflict(raced.version ?? 0);
      }
      throw canvasConflict(now.version ?? 0);
    },
  };
}
